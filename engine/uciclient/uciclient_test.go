package uciclient

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"testing"
	"time"
)

// TestMain makes the test binary a tiny UCI engine when UCICLIENT_FAKE
// names a mode: "ok" answers everything, "hang" never answers go, "die"
// exits at go after a line on stderr.
func TestMain(m *testing.M) {
	if mode := os.Getenv("UCICLIENT_FAKE"); mode != "" {
		fakeEngine(mode)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func fakeEngine(mode string) {
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "uci":
			fmt.Println("id name Fake 1.0")
			fmt.Println("option name Hash type spin default 16 min 1 max 1024")
			fmt.Println("uciok")
		case "isready":
			fmt.Println("readyok")
		case "go":
			switch mode {
			case "hang":
				continue
			case "die":
				fmt.Fprintln(os.Stderr, "fake: dying as asked")
				os.Exit(3)
			}
			fmt.Println("info depth 1 score cp 12 nodes 10 pv e2e4")
			fmt.Println("info depth 2 multipv 2 score cp -40 nodes 30 pv d2d4")
			fmt.Println("info depth 2 score cp 15 upperbound nodes 20")
			fmt.Println("bestmove e2e4")
		case "stop":
			fmt.Println("bestmove e2e4")
		case "quit":
			return
		}
	}
}

func startFake(t *testing.T, mode string) *Engine {
	t.Helper()
	t.Setenv("UCICLIENT_FAKE", mode)
	e, err := Start(Config{Path: os.Args[0], Args: []string{"-test.run=^$"}, ProcessGroup: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { e.Quit(time.Second) })
	if err := e.Handshake(context.Background(), time.Now().Add(MinStartTimeout)); err != nil {
		t.Fatalf("handshake: %s", e.Describe(err))
	}
	return e
}

func TestEngine(t *testing.T) {
	e := startFake(t, "ok")
	if e.Name != "Fake 1.0" || e.Options["hash"].Max != "1024" {
		t.Fatalf("name %q, options %+v", e.Name, e.Options)
	}
	if err := e.NewGame(context.Background(), time.Now().Add(MinStartTimeout)); err != nil {
		t.Fatal(err)
	}
	var infos []Info
	r, err := e.Go(context.Background(), "position startpos", "go nodes 10", MinStartTimeout, func(in Info) { infos = append(infos, in) })
	if err != nil {
		t.Fatal(err)
	}
	if r.BestMove != "e2e4" || r.Info.Score != (Score{CP: 12, Valid: true}) || r.Info.Depth != 2 || r.Info.Nodes != 20 || len(infos) != 3 {
		t.Fatalf("result %+v, %d infos", r, len(infos))
	}
	e.Quit(time.Second)
	e.Quit(time.Second) // again: nothing happens
	if !e.Exited() {
		t.Fatal("the engine did not exit")
	}
}

// TestElapsedNeverNegative: an engine that answers at once still gets a
// time of zero or more. The clock starts before go is written; started
// after, a bestmove the reader had already stamped came out negative
// (the match runner wrote "-0.002s" into a PGN and credited the clock).
func TestElapsedNeverNegative(t *testing.T) {
	e := startFake(t, "ok")
	neg := 0
	for i := 0; i < 2000; i++ {
		r, err := e.Go(context.Background(), "position startpos", "go nodes 10", MinStartTimeout, nil)
		if err != nil {
			t.Fatal(err)
		}
		if r.Elapsed < 0 {
			neg++
		}
	}
	if neg > 0 {
		t.Errorf("%d of 2000 searches took a negative time", neg)
	}
}

func TestHangAndStop(t *testing.T) {
	e := startFake(t, "hang")
	r, err := e.Go(context.Background(), "position startpos", "go infinite", 200*time.Millisecond, nil)
	if !errors.Is(err, ErrTimeout) || r.Elapsed < 200*time.Millisecond {
		t.Fatalf("err %v after %v, want a timeout", err, r.Elapsed)
	}
	if !e.Stop(MinStartTimeout) {
		t.Fatal("stop was not answered")
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := e.Go(ctx, "position startpos", "go infinite", time.Minute, nil); !errors.Is(err, ErrCancelled) {
		t.Fatalf("err %v, want cancelled", err)
	}
}

func TestDeath(t *testing.T) {
	e := startFake(t, "die")
	_, err := e.Go(context.Background(), "position startpos", "go nodes 1", MinStartTimeout, nil)
	if !errors.Is(err, ErrExited) {
		t.Fatalf("err %v, want exited", err)
	}
	if d := e.Describe(err); !strings.Contains(d, "exit status 3") || !strings.Contains(d, "dying as asked") {
		t.Fatalf("Describe = %q", d)
	}
	if x := e.Explain(err); !errors.Is(x, ErrExited) || x.Error() != e.Describe(err) {
		t.Fatalf("Explain = %v, not the description wrapping ErrExited", x)
	}
	if err := e.Send("isready"); !errors.Is(err, ErrExited) {
		t.Fatalf("Send to a dead engine: %v", err)
	}
	e.Kill() // after the end: nothing happens
}

func TestParseOption(t *testing.T) {
	tests := []struct {
		line string
		want Option
		ok   bool
	}{
		{"option name Hash type spin default 16 min 1 max 33554432", Option{Name: "Hash", Type: "spin", Default: "16", Min: "1", Max: "33554432"}, true},
		{"option name Clear Hash type button", Option{Name: "Clear Hash", Type: "button"}, true},
		{"option name UCI_Chess960 type check default false", Option{Name: "UCI_Chess960", Type: "check", Default: "false"}, true},
		{"option name EvalFile type string default nn-ad9b42354671.nnue", Option{Name: "EvalFile", Type: "string", Default: "nn-ad9b42354671.nnue"}, true},
		{"option name Style type combo default Normal var Solid var Normal var Risky", Option{Name: "Style", Type: "combo", Default: "Normal", Vars: []string{"Solid", "Normal", "Risky"}}, true},
		{"option name Debug Log File type string default", Option{Name: "Debug Log File", Type: "string"}, true},
		{"option name type spin", Option{}, false},
		{"option Hash type spin", Option{}, false},
		{"option name X", Option{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseOption(tt.line)
		if ok != tt.ok || (ok && !reflect.DeepEqual(got, tt.want)) {
			t.Errorf("ParseOption(%q) = %+v, %v; want %+v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

func TestOptionCommand(t *testing.T) {
	e := &Engine{Options: map[string]Option{}}
	for _, l := range []string{
		"option name Hash type spin default 16 min 1 max 1024",
		"option name Clear Hash type button",
		"option name Ponder type check default false",
		"option name Style type combo default Normal var Normal var Wild",
		"option name EvalFile type string default <empty>",
	} {
		o, _ := ParseOption(l)
		e.Options[strings.ToLower(o.Name)] = o
	}
	tests := []struct {
		name, value string
		want        string
		err         string
	}{
		{"hash", "64", "setoption name Hash value 64", ""},
		{"Hash", "0", "", "from 1 to 1024"},
		{"Hash", "lots", "", "spin"},
		{"Clear Hash", "whatever", "setoption name Clear Hash", ""},
		{"Ponder", "On", "setoption name Ponder value true", ""},
		{"Ponder", "2", "", "check"},
		{"style", "wild", "setoption name Style value Wild", ""},
		{"Style", "Mad", "", "one of Normal, Wild"},
		{"EvalFile", "nets/my net.nnue", "setoption name EvalFile value nets/my net.nnue", ""},
		{"Threads", "2", "", `no UCI option "Threads" (it has: Clear Hash, EvalFile, Hash, Ponder, Style)`},
	}
	for _, tt := range tests {
		got, err := e.OptionCommand(tt.name, tt.value)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("OptionCommand(%q, %q) error = %v, want %q", tt.name, tt.value, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("OptionCommand(%q, %q) = %q, %v; want %q", tt.name, tt.value, got, err, tt.want)
		}
	}
}

func TestSearchInfo(t *testing.T) {
	tests := []struct {
		lines []string
		score Score
		depth int
		nodes int64
	}{
		{[]string{"depth 1 seldepth 1 score cp 20 nodes 30 pv e2e4", "depth 2 seldepth 3 score cp -15 nodes 90 nps 1000 pv e2e4 e7e5"},
			Score{CP: -15, Valid: true}, 2, 90},
		{[]string{"depth 12 score mate 3 pv a1a8", "depth 12 score cp 50 lowerbound"}, Score{Mate: 3, IsMate: true, Valid: true}, 12, 0},
		{[]string{"depth 5 score cp 80 upperbound"}, Score{CP: 80, Valid: true}, 5, 0},
		{[]string{"depth 9 multipv 1 score cp 10 pv e2e4", "depth 9 multipv 2 score cp -300 pv a2a3"}, Score{CP: 10, Valid: true}, 9, 0},
		{[]string{"string score cp 999 depth 40", "currmove e2e4 currmovenumber 1"}, Score{}, 0, 0},
		{[]string{"depth x score cp", "score mate", "nodes -", "depth 3 score cp 99999999999"}, Score{}, 3, 0},
		{[]string{"depth 7 score mate -2 pv e1e2 score cp 5"}, Score{Mate: -2, IsMate: true, Valid: true}, 7, 0},
	}
	for _, tt := range tests {
		var si SearchInfo
		for _, l := range tt.lines {
			si.Add(ParseInfo(strings.Fields(l)))
		}
		if got := si.FinalScore(); got != tt.score || si.Depth != tt.depth || si.Nodes != tt.nodes {
			t.Errorf("%q: score %+v depth %d nodes %d; want %+v, %d, %d", tt.lines, got, si.Depth, si.Nodes, tt.score, tt.depth, tt.nodes)
		}
	}
}

func TestTailBuffer(t *testing.T) {
	b := &tailBuffer{max: 10}
	b.Write([]byte("0123456789abc"))
	b.Write([]byte("de\nf"))
	if got := b.String(); got != "789abcde f" {
		t.Errorf("tail = %q", got)
	}
}
