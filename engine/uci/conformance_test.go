package uci_test

import (
	"fmt"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/engine/board"
)

// The conformance tests drive the binary as a GUI does: every command of
// the protocol the engine offers, junk between them, isready answered while
// a search runs without waiting for it, and stop and quit during every kind
// of search.

// readyDuring sends isready during a search and checks that readyok comes
// at once (before any bestmove).
func readyDuring(t *testing.T, g *gui) {
	t.Helper()
	sent := time.Now()
	g.send("isready")
	// Every search kind below runs for minutes or forever, so readyok before
	// bestmove is what shows that isready does not wait for the search; the
	// bound on the delay only catches an answer that waits for something
	// else, and leaves room for a loaded machine (1.6 s seen at load 13 with
	// two search threads on two cores).
	got := g.until("readyok", 10*time.Second)
	for _, l := range got {
		if strings.HasPrefix(l, "bestmove") {
			t.Errorf("bestmove %q before readyok", l)
		}
	}
	if el := time.Since(sent); el > 5*time.Second {
		t.Errorf("readyok after %v while searching", el)
	}
}

// searchKinds are the searches a GUI starts, each of which must be
// stoppable and must let isready through.
var searchKinds = []struct {
	name  string
	setup []string
	goCmd string
}{
	{"infinite", nil, "go infinite"},
	{"ponder", []string{"setoption name Ponder value true"}, "go ponder wtime 60000 btime 60000 winc 1000 binc 1000"},
	{"long movetime", nil, "go movetime 600000"},
	{"deep depth", nil, "go depth 99"},
	{"mate", nil, "go mate 30"},
	{"clock", nil, "go wtime 600000 btime 600000 movestogo 1"},
	{"many nodes", nil, "go nodes 1000000000"},
	{"multipv", []string{"setoption name MultiPV value 3"}, "go infinite"},
	{"searchmoves", nil, "go infinite searchmoves e2e4 d2d4"},
	{"two threads", []string{"setoption name Threads value 2"}, "go infinite"},
	{"wdl", []string{"setoption name UCI_ShowWDL value true"}, "go infinite"},
}

func TestStopAndQuitDuringEverySearch(t *testing.T) {
	for _, k := range searchKinds {
		t.Run(k.name+"/stop", func(t *testing.T) {
			g := start(t)
			g.send("uci")
			g.until("uciok", 10*time.Second)
			g.send(k.setup...)
			g.send("ucinewgame", "position startpos")
			g.sync()
			g.send(k.goCmd)
			time.Sleep(300 * time.Millisecond)
			readyDuring(t, g)
			g.send("stop")
			sent := time.Now()
			// Unstopped, these searches would run for minutes; the bound
			// leaves room for a loaded machine (1.3 s seen at load 13).
			mv := bestmove(t, g.until("bestmove", 10*time.Second))
			if el := time.Since(sent); el > 5*time.Second {
				t.Errorf("bestmove %v after stop", el)
			}
			if !legalIn(t, board.StartFEN, nil, mv) {
				t.Errorf("illegal bestmove %s", mv)
			}
			// The engine plays on afterwards.
			g.send("position startpos moves e2e4", "go depth 4")
			if mv := bestmove(t, g.until("bestmove", 10*time.Second)); !legalIn(t, board.StartFEN, []string{"e2e4"}, mv) {
				t.Errorf("illegal bestmove %s after the stopped search", mv)
			}
		})
		t.Run(k.name+"/quit", func(t *testing.T) {
			g := start(t)
			g.send(k.setup...)
			g.send("position startpos", k.goCmd)
			time.Sleep(300 * time.Millisecond)
			g.send("quit")
			done := make(chan error, 1)
			go func() { done <- g.cmd.Wait() }()
			select {
			case err := <-done:
				if err != nil {
					t.Errorf("exit after quit: %v", err)
				}
			case <-time.After(3 * time.Second):
				t.Error("no exit within 3 s of quit during the search")
			}
		})
	}
}

// TestJunkBetweenCommands interleaves unknown commands, blank lines and
// malformed options with the new commands; each junk line is answered with
// an info string and the next command works.
func TestJunkBetweenCommands(t *testing.T) {
	g := start(t)
	junk := []string{"", "   ", "xyzzy", "setoption name Bogus value 1", "go ponderhit", "multipv 3"}
	steps := [][]string{
		{"uci"},
		{"setoption name MultiPV value 2"},
		{"setoption name UCI_ShowWDL value true"},
		{"setoption name Ponder value true"},
		{"position startpos moves d2d4"},
	}
	for i, st := range steps {
		g.send(st...)
		g.send(junk[i%len(junk)])
	}
	g.until("uciok", 10*time.Second)
	out := g.sync()
	errs := 0
	for _, l := range out {
		if strings.HasPrefix(l, "info string error: ") {
			errs++
		}
	}
	if errs < 3 {
		t.Errorf("junk got %d info string errors: %q", errs, out)
	}
	// "go ponderhit" is a go with only an unknown token: the engine says so
	// and searches for the fallback movetime. Wait for that search's
	// bestmove, or the next until("bestmove") would stop on it.
	fallback := false
	answered := false
	for _, l := range out {
		fallback = fallback || strings.Contains(l, "no limit left")
		answered = answered || strings.HasPrefix(l, "bestmove")
	}
	if !fallback {
		t.Fatalf("go ponderhit: no fallback search announced in %q", out)
	}
	if !answered {
		g.until("bestmove", 10*time.Second)
	}
	g.send("go depth 5")
	got := g.until("bestmove", 10*time.Second)
	lines := 0
	for _, l := range got {
		m := infoRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		if m[infoRE.SubexpIndex("depth")] == "5" {
			lines++
		}
		if m[infoRE.SubexpIndex("wdl")] == "" {
			t.Errorf("UCI_ShowWDL on, no wdl in %q", l)
		}
	}
	if lines != 2 {
		t.Errorf("MultiPV 2: %d lines at depth 5", lines)
	}
}

// TestMultiPVLines: k lines per depth, distinct first moves, scores in
// order, the best line's move played; MultiPV beyond the legal moves gives
// as many lines as moves.
func TestMultiPVLines(t *testing.T) {
	g := start(t)
	g.send("setoption name MultiPV value 3", "position startpos moves e2e4 e7e5", "go depth 7")
	got := g.until("bestmove", 20*time.Second)
	byDepth := map[string][]map[string]string{}
	for _, l := range got {
		m := infoRE.FindStringSubmatch(l)
		if m == nil || strings.Contains(l, "bound ") {
			continue
		}
		f := map[string]string{}
		for i, n := range infoRE.SubexpNames() {
			if n != "" {
				f[n] = m[i]
			}
		}
		f["pv"] = strings.Fields(l[strings.Index(l, " pv ")+4:])[0]
		byDepth[f["depth"]] = append(byDepth[f["depth"]], f)
	}
	for d := 1; d <= 7; d++ {
		ls := byDepth[strconv.Itoa(d)]
		if len(ls) != 3 {
			t.Fatalf("depth %d: %d lines", d, len(ls))
		}
		seen := map[string]bool{}
		prev := 1 << 30
		for k, f := range ls {
			if f["multipv"] != strconv.Itoa(k+1) || seen[f["pv"]] {
				t.Errorf("depth %d line %d: %v", d, k+1, f)
			}
			seen[f["pv"]] = true
			if sc, err := strconv.Atoi(strings.TrimPrefix(f["score"], "cp ")); err == nil {
				if sc > prev {
					t.Errorf("depth %d: line %d scores %d above the line before (%d)", d, k+1, sc, prev)
				}
				prev = sc
			}
		}
		if d == 7 && bestmove(t, got) != ls[0]["pv"] {
			t.Errorf("bestmove %s, first line %s", bestmove(t, got), ls[0]["pv"])
		}
	}
	// One legal move (the king must take the queen), five lines asked.
	g.send("setoption name MultiPV value 5", "position fen 7k/8/8/8/8/8/6q1/7K w - - 0 1", "go depth 3")
	n := 0
	for _, l := range g.until("bestmove", 10*time.Second) {
		if strings.HasPrefix(l, "info depth 3 ") {
			n++
		}
	}
	if n != 1 {
		t.Errorf("one legal move: %d lines at depth 3", n)
	}
}

// TestPonderProtocol: go ponder waits for ponderhit or stop; after
// ponderhit the clock limits apply; a ponder search that ends on its own (a
// forced move) still waits; ponderhit when not pondering is an error.
func TestPonderProtocol(t *testing.T) {
	g := start(t)
	g.send("setoption name Ponder value true", "position startpos moves e2e4 e7e5", "go ponder wtime 3000 btime 3000")
	g.noOutputExcept("info ", 700*time.Millisecond)
	readyDuring(t, g)
	g.send("ponderhit")
	sent := time.Now()
	mv := bestmove(t, g.until("bestmove", 5*time.Second))
	// Within the clock: the engine plans a fraction of it; the rest is room
	// for a loaded machine.
	if el := time.Since(sent); el > 2900*time.Millisecond {
		t.Errorf("bestmove %v after ponderhit with 3 s on the clock", el)
	}
	if !legalIn(t, board.StartFEN, []string{"e2e4", "e7e5"}, mv) {
		t.Errorf("illegal bestmove %s", mv)
	}

	// One legal move: the search is over at once, the answer waits.
	g.send("position fen 7k/8/8/8/8/8/6q1/7K w - - 0 1", "go ponder wtime 1000 btime 1000")
	g.noOutputExcept("info ", 500*time.Millisecond)
	g.send("ponderhit")
	if mv := bestmove(t, g.until("bestmove", 2*time.Second)); mv != "h1g2" {
		t.Errorf("forced move: %s", mv)
	}
	g.send("ponderhit")
	if out := strings.Join(g.sync(), "\n"); !strings.Contains(out, "no ponder search is running") {
		t.Errorf("ponderhit after the search: %q", out)
	}
}

// noOutputExcept checks that for d the engine says nothing but lines
// starting with prefix.
func (g *gui) noOutputExcept(prefix string, d time.Duration) {
	g.t.Helper()
	deadline := time.After(d)
	for {
		select {
		case l := <-g.lines:
			g.log = append(g.log, l)
			if !strings.HasPrefix(l, prefix) {
				g.t.Fatalf("unexpected output %q", l)
			}
		case <-deadline:
			return
		}
	}
}

// TestThreadsAndWDL: a two-thread search plays legal moves and reports
// every thread's nodes; WDL figures add up to 1000 and follow the score.
func TestThreadsAndWDL(t *testing.T) {
	if runtime.NumCPU() < 2 {
		t.Fatalf("this test needs 2 CPUs for Threads 2 (the option's maximum is the CPU count); found %d", runtime.NumCPU())
	}
	g := start(t)
	g.send("setoption name Threads value 2", "setoption name UCI_ShowWDL value true")
	for _, fen := range []string{
		board.StartFEN,
		"r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3",
		"6k1/5ppp/8/8/8/8/5PPP/3Q2K1 w - - 0 1", // a queen up
	} {
		g.send("position fen "+fen, "go nodes 200000")
		got := g.until("bestmove", 20*time.Second)
		if mv := bestmove(t, got); !legalIn(t, fen, nil, mv) {
			t.Errorf("%s: illegal %s", fen, mv)
		}
		var last []string
		for _, l := range got {
			if m := infoRE.FindStringSubmatch(l); m != nil {
				last = m
			}
		}
		if last == nil {
			t.Fatalf("%s: no info line in %q", fen, got)
		}
		var w, d, l int
		if _, err := fmt.Sscanf(last[infoRE.SubexpIndex("wdl")], " wdl %d %d %d", &w, &d, &l); err != nil || w+d+l != 1000 {
			t.Errorf("%s: wdl %q", fen, last[infoRE.SubexpIndex("wdl")])
		}
		nodes, _ := strconv.Atoi(last[infoRE.SubexpIndex("nodes")])
		if nodes > 200000+4000 {
			t.Errorf("%s: go nodes 200000 reported %d", fen, nodes)
		}
		if strings.HasPrefix(fen, "6k1") && w < 900 {
			t.Errorf("a queen up: wdl %d %d %d", w, d, l)
		}
	}
}
