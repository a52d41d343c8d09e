package ladder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/internal/configerr"
	"github.com/nnuelab/nnuelab/internal/zstdfile"
)

const minimal = `
openings = "book.epd"
[[rung]]
arch = "classical"
levels = [1500, 1800]
`

// TestParseDefaults: the defaults a ladder file leaves out, and the
// rung names derived from arch, threads and clock.
func TestParseDefaults(t *testing.T) {
	c, err := Parse("testdata/l.toml", minimal+`
[[rung]]
arch = "classical"
threads = 2
tc = "10+0.1"
games = 4
levels = [2000]
`)
	if err != nil {
		t.Fatal(err)
	}
	if c.Stockfish != "/usr/games/stockfish" || c.TC != "5+0.05" || c.TimeMargin != 50 || c.Hash != 16 || c.Games != 100 ||
		c.Concurrency != 2 || c.StockfishOverhead != 100 {
		t.Errorf("defaults: %+v", c)
	}
	if got := c.OpeningsPath(); got != filepath.Join("testdata", "book.epd") {
		t.Errorf("openings path %q, want it beside the ladder file", got)
	}
	want := []string{"classical-t1", "classical-t2-10p0.1"}
	for i, r := range c.Rungs {
		if r.Name != want[i] {
			t.Errorf("rung %d named %q, want %q", i, r.Name, want[i])
		}
	}
	if c.Rungs[0].Games != 100 || c.Rungs[1].Games != 4 || c.Rungs[0].Threads != 1 {
		t.Errorf("rung games/threads: %+v", c.Rungs)
	}
	cells, err := c.Cells(nil)
	if err != nil || len(cells) != 3 || cells[2].ID() != "classical-t2-10p0.1-e2000" {
		t.Fatalf("cells %v, %v", cells, err)
	}
	if cells, err := c.Cells([]string{"classical-t1"}); err != nil || len(cells) != 2 {
		t.Errorf("only classical-t1: %v, %v", cells, err)
	}
	if _, err := c.Cells([]string{"nope"}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown rung: %v", err)
	}
}

// TestParseErrors: each bad ladder file is refused with the key at fault.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		text, key string
	}{
		{"bogus = 1\n" + minimal, "bogus"},
		{`openings = "b.epd"` + "\n", "rung"},
		{`[[rung]]` + "\narch=\"classical\"\nlevels=[1500]\n", "openings"},
		{"games = 3\n" + minimal, "games"},
		{"hash = 0\n" + minimal, ""}, // 0 is the default, not an error
		{"hash = -1\n" + minimal, "hash"},
		{"tc = \"fast\"\n" + minimal, "tc"},
		{"concurrency = 100\n" + minimal, "concurrency"},
		{"timemargin = -5\n" + minimal, "timemargin"},
		{`openings = "b.epd"` + "\n[[rung]]\nlevels=[1500]\n", "rung[1].arch"},
		{`openings = "b.epd"` + "\n[[rung]]\narch=\"x\"\n", "rung[1].levels"},
		{`openings = "b.epd"` + "\n[[rung]]\narch=\"x\"\nlevels=[1000]\n", "rung[1].levels"},
		{`openings = "b.epd"` + "\n[[rung]]\narch=\"x\"\nlevels=[3000]\n", "rung[1].levels"},
		{`openings = "b.epd"` + "\n[[rung]]\narch=\"x\"\nlevels=[1500, 1500]\n", "rung[1].levels"},
		{`openings = "b.epd"` + "\n[[rung]]\narch=\"x\"\nlevels=[1500]\ngames=5\n", "rung[1].games"},
		{`openings = "b.epd"` + "\n[[rung]]\narch=\"x\"\nlevels=[1500]\nthreads=-1\n", "rung[1].threads"},
		{`openings = "b.epd"` + "\n[[rung]]\narch=\"x\"\nlevels=[1500]\ntc=\"1+\"\n", "rung[1].tc"},
		{`openings = "b.epd"` + "\n[[rung]]\narch=\"x\"\nlevels=[1500]\nname=\"a b\"\n", "rung[1].name"},
		{`openings = "b.epd"` + "\n[[rung]]\narch=\"x\"\nlevels=[1500]\n[[rung]]\narch=\"x\"\nlevels=[1600]\n", "rung[2].name"},
		{"openings = \n", ""},
	} {
		_, err := Parse("l.toml", tc.text)
		if tc.key == "" {
			if tc.text == "hash = 0\n"+minimal && err != nil {
				t.Errorf("%q: %v", tc.text, err)
			}
			if tc.text != "hash = 0\n"+minimal && err == nil {
				t.Errorf("%q: accepted", tc.text)
			}
			continue
		}
		var ce *configerr.Error
		if !errors.As(err, &ce) || ce.Key != tc.key || ce.File != "l.toml" {
			t.Errorf("%q: err %v, want one at key %q of l.toml", tc.text, err, tc.key)
		}
	}
}

func ptr(f float64) *float64 { return &f }

// TestCombine: the rating is the inverse-variance mean of level + Elo;
// levels without a finite interval are left out.
func TestCombine(t *testing.T) {
	o := func(v, lo, hi float64) *outcome {
		var x outcome
		x.Elo.Value, x.Elo.Lower, x.Elo.Upper = ptr(v), ptr(lo), ptr(hi)
		return &x
	}
	// Two levels measured alike: the plain mean, the SE shrunk by sqrt(2).
	r, ok := combine([]int{2000, 2400}, []*outcome{o(300, 250, 350), o(-100, -150, -50)})
	if !ok || math.Abs(r.Value-2300) > 1e-9 || r.Levels != 2 {
		t.Fatalf("rating %+v, %v", r, ok)
	}
	se := 50 / z95 / math.Sqrt2
	if math.Abs((r.Upper-r.Value)-z95*se) > 1e-9 {
		t.Errorf("interval %+v, want ±%.3f", r, z95*se)
	}
	// The tighter level weighs more.
	r, _ = combine([]int{2000, 2400}, []*outcome{o(340, 240, 440), o(-100, -125, -75)})
	if want := 2300 + 40.0/17; math.Abs(r.Value-want) > 1e-9 {
		t.Errorf("weighted rating %.3f, want %.3f (the 2400 level 16x the weight)", r.Value, want)
	}
	// A one-sided match (no interval) and a missing one are left out.
	var oneSided outcome
	r, ok = combine([]int{1500, 2000, 2400}, []*outcome{&oneSided, nil, o(-100, -150, -50)})
	if !ok || r.Levels != 1 || math.Abs(r.Value-2300) > 1e-9 {
		t.Errorf("with gaps: %+v, %v", r, ok)
	}
	if _, ok := combine([]int{1500}, []*outcome{nil}); ok {
		t.Error("no measured level gave a rating")
	}
}

// TestSplice: the table replaces what stood between the markers, and a
// page without them is refused.
func TestSplice(t *testing.T) {
	page := "# S\n\nby hand\n\n<!-- ladder:begin -->\nold\n<!-- ladder:end -->\n\nafter\n"
	got, err := Splice(page, "| t |\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "# S\n\nby hand\n\n" + BeginMarker + "\n\n| t |\n\n<!-- ladder:end -->\n\nafter\n"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if again, _ := Splice(got, "| t |\n"); again != got {
		t.Error("splicing twice changed the page")
	}
	for _, bad := range []string{"no markers", "<!-- ladder:end -->\n<!-- ladder:begin -->"} {
		if _, err := Splice(bad, "x"); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

// TestRunAgainstStockfish plays a two-game ladder of one rung against
// Stockfish 15.1, keeps the match, reports it, replays nothing on a
// rerun and refuses a kept match whose settings changed.
func TestRunAgainstStockfish(t *testing.T) {
	const sf = "/usr/games/stockfish"
	if _, err := os.Stat(sf); err != nil {
		t.Fatalf("Stockfish is required at %s (apt-get install -y stockfish): %v", sf, err)
	}
	bin := filepath.Join(t.TempDir(), "nnuelab")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/nnuelab/nnuelab/cmd/nnuelab").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	text := `
openings = "book.epd"
tc = "1+0.01"
games = 2
concurrency = 1
[[rung]]
arch = "classical"
levels = [1350]
`
	c, err := Parse("testdata/ladder.toml", text)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var log strings.Builder
	if err := Run(context.Background(), c, Options{Binary: bin, Out: out, Log: &log}); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	res, err := readResult(filepath.Join(out, "classical-t1-e1350.json"))
	if err != nil {
		t.Fatal(err)
	}
	var o outcome
	if err := json.Unmarshal(res.Summary, &o); err != nil {
		t.Fatal(err)
	}
	if o.Games != 2 || o.Wins+o.Draws+o.Losses != 2 || o.Engines[1] != "sf15.1-elo1350" {
		t.Errorf("kept match: %+v", o)
	}
	pgn, err := zstdfile.ReadFile(filepath.Join(out, "classical-t1-e1350.pgn.zst"))
	if err != nil || strings.Count(string(pgn), "[Event ") != 2 {
		t.Errorf("PGN: %d games, %v", strings.Count(string(pgn), "[Event "), err)
	}
	if _, err := os.Stat(filepath.Join(out, "classical-t1-e1350.pgn.part")); !os.IsNotExist(err) {
		t.Errorf("the plain PGN was left beside the compressed one (%v)", err)
	}
	rep, err := Report(c, out)
	if err != nil {
		t.Fatal(err)
	}
	row := fmt.Sprintf("| classical-t1 | 1350 | 2 | %d-%d-%d |", o.Wins, o.Draws, o.Losses)
	if !strings.Contains(rep, row) {
		t.Errorf("report lacks %q:\n%s", row, rep)
	}
	// A rerun plays nothing.
	log.Reset()
	if err := Run(context.Background(), c, Options{Binary: bin, Out: out, Log: &log}); err != nil || !strings.Contains(log.String(), "classical-t1-e1350: done") {
		t.Errorf("rerun: %v\n%s", err, log.String())
	}
	// Other settings for a kept match are refused, naming it.
	c2, _ := Parse("testdata/ladder.toml", strings.Replace(text, "games = 2", "games = 4", 1))
	if err := Run(context.Background(), c2, Options{Binary: bin, Out: out}); err == nil || !strings.Contains(err.Error(), "classical-t1-e1350") {
		t.Errorf("changed settings: %v", err)
	}
	// An arch the binary does not offer is refused before any game.
	c3, _ := Parse("testdata/ladder.toml", strings.Replace(text, `arch = "classical"`, `arch = "nosuch"`, 1))
	if err := Run(context.Background(), c3, Options{Binary: bin, Out: t.TempDir()}); err == nil || !strings.Contains(err.Error(), `"nosuch"`) {
		t.Errorf("unknown arch: %v", err)
	}
}
