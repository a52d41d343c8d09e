package match

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/bench/stats"
)

func TestParseArgs(t *testing.T) {
	args := strings.Fields(`-engine cmd=/bin/a name=A option.Hash=16 option.EvalFile=x=y.nnue tc=40/60
		--engine cmd=/bin/b name=B arg=-v arg=--fast option.Threads=2
		-each tc=10+0.1 option.Hash=64 timemargin=50 dir=/tmp
		-games 4 -rounds 25 -concurrency 3 -openings file=book.pgn order=random plies=8 seed=9
		-sprt elo0=0 elo1=5 alpha=0.05 beta=0.1 model=logistic
		-draw movenumber=40 movecount=8 score=10 -resign movecount=3 score=600
		-maxmoves 200 -pgnout out.pgn -event Test -json -quiet -repeat -recover`)
	cfg, opts, err := ParseArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	if !opts.JSON || !opts.Quiet || opts.Debug {
		t.Errorf("command options %+v", opts)
	}
	a, b := cfg.Engines[0], cfg.Engines[1]
	if a.Name != "A" || a.Cmd != "/bin/a" || a.Dir != "/tmp" || b.Name != "B" || !reflect.DeepEqual(b.Args, []string{"-v", "--fast"}) {
		t.Errorf("engines %+v %+v", a, b)
	}
	// -each adds its options first; the engine's own value wins.
	if !reflect.DeepEqual(a.Options, []Option{{"Hash", "16"}, {"EvalFile", "x=y.nnue"}}) {
		t.Errorf("A options %v", a.Options)
	}
	if !reflect.DeepEqual(b.Options, []Option{{"Hash", "64"}, {"Threads", "2"}}) {
		t.Errorf("B options %v", b.Options)
	}
	// A's own tc wins over -each's; B takes -each's.
	if a.Limits.TC != (TimeControl{Moves: 40, Base: time.Minute}) || b.Limits.TC.String() != "10+0.1" {
		t.Errorf("tc %v, %v", a.Limits.TC, b.Limits.TC)
	}
	if a.Limits.Margin != 50*time.Millisecond || b.Limits.Timeout != defaultMoveTimeout {
		t.Errorf("limits %+v", b.Limits)
	}
	if cfg.TotalGames() != 100 || cfg.Concurrency != 3 || cfg.Seed != 9 || cfg.MaxMoves != 200 || cfg.PGNOut != "out.pgn" || cfg.Event != "Test" {
		t.Errorf("config %+v", cfg)
	}
	if cfg.Openings != (OpeningsConfig{File: "book.pgn", Format: "pgn", Order: "random", Plies: 8}) {
		t.Errorf("openings %+v", cfg.Openings)
	}
	if *cfg.SPRT != (stats.SPRT{Elo0: 0, Elo1: 5, Alpha: 0.05, Beta: 0.1, Model: stats.Logistic}) {
		t.Errorf("sprt %+v", *cfg.SPRT)
	}
	if cfg.Draw != (DrawRule{40, 8, 10}) || cfg.Resign != (ResignRule{3, 600, true}) {
		t.Errorf("adjudication %+v %+v", cfg.Draw, cfg.Resign)
	}
}

func TestParseArgsDefaults(t *testing.T) {
	cfg, _, err := ParseArgs(strings.Fields("-engine cmd=a -engine cmd=b -each nodes=1000 -openings x.epd -sprt elo0=-1 elo1=3"))
	if err != nil {
		t.Fatal(err)
	}
	if cfg.TotalGames() != 2 || cfg.Concurrency != 1 || cfg.InitTimeout != defaultInitTimeout || cfg.Event == "" {
		t.Errorf("defaults %+v", cfg)
	}
	if cfg.Openings != (OpeningsConfig{File: "x.epd", Format: "epd", Order: "sequential"}) {
		t.Errorf("openings %+v", cfg.Openings)
	}
	if *cfg.SPRT != (stats.SPRT{Elo0: -1, Elo1: 3, Alpha: 0.05, Beta: 0.05, Model: stats.Normalized}) {
		t.Errorf("sprt defaults %+v", *cfg.SPRT)
	}
	if cfg.Engines[0].Limits.Nodes != 1000 || cfg.Engines[1].Limits.Nodes != 1000 {
		t.Error("-each nodes not applied to both engines")
	}
	if _, _, err := ParseArgs([]string{"--help"}); !IsHelp(err) {
		t.Errorf("--help: %v", err)
	}
}

func TestParseArgsErrors(t *testing.T) {
	base := "-engine cmd=a -engine cmd=b -each nodes=10 "
	tests := []struct {
		args, want string
	}{
		{"-engine cmd=a -each nodes=10", "exactly two engines"},
		{"-engine cmd=a -engine cmd=b -engine cmd=c -each nodes=10", "exactly two engines"},
		{"-engine cmd=a -engine cmd=b", "no search limit"},
		{"-engine name=x -engine cmd=b -each nodes=1", "cmd= is required"},
		{"-engine cmd=a name=x -engine cmd=b name=x -each nodes=1", "different name"},
		{base + "-games 3", "must be even"},
		{base + "-games x", "not an integer"},
		{base + "-games", "needs a value"},
		{base + "-concurrency 0 -games -2", "positive"},
		{base + "-concurrency 1000", "concurrency"},
		// 0 is not "the default": a user who asks for no games gets told.
		{base + "-games 0", "-games 0"},
		{base + "-rounds 0", "-rounds 0"},
		{base + "-concurrency 0", "-concurrency 0"},
		{base + "-games -4", "-games -4"},
		{base + "-bogus 1", "unknown flag"},
		{"stray " + base, "unexpected argument"},
		{base + "-sprt elo0=5 elo1=0", "less than"},
		{base + "-sprt elo0=0 elo1=5 model=bayes", "model"},
		{base + "-sprt elo0=0 elo1=5 gamma=1", "unknown key"},
		{base + "-sprt elo0=zero", "not a number"},
		{base + "-draw movenumber=1 movecount=x", "not an integer"},
		{base + "-draw foo=1", "unknown key"},
		{base + "-resign movecount=3", "score="},
		{base + "-resign movecount=3 score=500 twosided=maybe", "true or false"},
		{base + "-openings file=x order=shuffled", "sequential or random"},
		{base + "-openings file=x format=cbh", "epd or pgn"},
		{base + "-openings file=x plies=two", "not an integer"},
		{"-engine cmd=a tc=fast -engine cmd=b", "bad time control"},
		{"-engine cmd=a st=0 -engine cmd=b", "st=0"},
		{"-engine cmd=a nodes=-5 -engine cmd=b", "nodes=-5"},
		{"-engine cmd=a depth=0 -engine cmd=b", "depth=0"},
		{"-engine cmd=a timeout=x -engine cmd=b", "timeout=x"},
		{"-engine cmd=a timemargin=-1 -engine cmd=b", "timemargin=-1"},
		{"-engine cmd=a proto=xboard -engine cmd=b", "only uci"},
		{"-engine cmd=a foo=bar -engine cmd=b", `unknown key "foo"`},
		{"-engine cmd=a nodes=1 tc=1+1 st=1 -engine cmd=b nodes=1", "cannot be combined"},
		{"-engine cmd=a option.=1 -engine cmd=b", "option name"},
		{"-engine cmd=a -engine cmd=b -each cmd=c nodes=1", "belongs to -engine"},
		{"-engine cmd=a -engine cmd=b -each nodes=1 -engine", "KEY=VALUE"},
		{"-engine cmd=a novalue -engine cmd=b", "expected KEY=VALUE"},
		{"-config", "needs a file"},
		{"-config /nonexistent.toml", "nonexistent.toml"},
	}
	for _, tt := range tests {
		_, _, err := ParseArgs(strings.Fields(tt.args))
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("ParseArgs(%q) error = %v, want one containing %q", tt.args, err, tt.want)
		}
	}
}

func TestConfigFile(t *testing.T) {
	dir := t.TempDir()
	write := func(name, text string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("match.toml", `
games = 2
rounds = 10
concurrency = 2
seed = 5
maxmoves = 150
pgnout = "games.pgn"

[each]
tc = "10+0.1"
timemargin = 30
options = { Hash = 16, Ponder = false }

[[engine]]
name = "new"
cmd = "/bin/new"
args = ["-x"]
options = { EvalFile = "nets/a.nnue", "Clear Hash" = true, Contempt = 1.5 }

[[engine]]
name = "base"
cmd = "/bin/base"
nodes = 5000

[openings]
file = "book.epd"
order = "random"

[sprt]
elo0 = 0
elo1 = 5

[draw]
movenumber = 40
movecount = 8
score = 10

[resign]
movecount = 3
score = 600
twosided = false
`)
	cfg, _, err := ParseArgs([]string{"-config", good, "-concurrency", "4"})
	if err != nil {
		t.Fatal(err)
	}
	if cfg.Concurrency != 4 || cfg.TotalGames() != 20 || cfg.Seed != 5 || cfg.MaxMoves != 150 || cfg.PGNOut != "games.pgn" {
		t.Errorf("config %+v", cfg)
	}
	n, b := cfg.Engines[0], cfg.Engines[1]
	if n.Name != "new" || !reflect.DeepEqual(n.Args, []string{"-x"}) || b.Limits.Nodes != 5000 || b.Limits.TC.String() != "10+0.1" {
		t.Errorf("engines %+v / %+v", n, b)
	}
	if !reflect.DeepEqual(n.Options, []Option{{"Hash", "16"}, {"Ponder", "false"}, {"Clear Hash", "true"}, {"Contempt", "1.5"}, {"EvalFile", "nets/a.nnue"}}) {
		t.Errorf("options %v", n.Options)
	}
	if n.Limits.Margin != 30*time.Millisecond {
		t.Errorf("timemargin %v", n.Limits.Margin)
	}
	if cfg.SPRT == nil || cfg.SPRT.Model != stats.Normalized || cfg.SPRT.Alpha != 0.05 || cfg.Resign.TwoSided || cfg.Draw.MoveCount != 8 {
		t.Errorf("sprt %+v resign %+v", cfg.SPRT, cfg.Resign)
	}
	if cfg.Openings.Order != "random" || cfg.Openings.Format != "epd" {
		t.Errorf("openings %+v", cfg.Openings)
	}

	bad := []struct{ text, want string }{
		{"games = 2\nconcurency = 2\n", `key "concurency": unknown key`},
		{"[[engine]]\ncmd = \"a\"\nhash = 16\n", `key "engine.hash": unknown key`},
		{"[sprt]\nelo0 = 0\nelo1 = 5\nmodle = \"x\"\n", `key "sprt.modle": unknown key`},
		{"[draw]\nmovenumber = \"forty\"\n", "movenumber"},
		{"games = \n", "bad.toml"},
		{"[[engine]]\ncmd = \"a\"\ntc = \"soon\"\n", "engine[1]: bad time control"},
		{"[[engine]]\ncmd = \"a\"\noptions = { Hash = [1] }\n", "options.Hash"},
		{"[each]\ncmd = \"a\"\n", "each: cmd and name"},
		{"[sprt]\nelo0 = 5\nelo1 = 5\n", "sprt: sprt elo0"},
		{"games = 0\n", "games"},
		{"rounds = 0\n", "rounds"},
		{"concurrency = 0\n", "concurrency"},
	}
	for _, tt := range bad {
		p := write("bad.toml", tt.text)
		_, _, err := ParseArgs([]string{"-config", p})
		if err == nil || !strings.Contains(err.Error(), tt.want) || !strings.Contains(err.Error(), "bad.toml") {
			t.Errorf("config %q: error %v, want one naming bad.toml and %q", tt.text, err, tt.want)
		}
	}
}
