package uci_test

import (
	"fmt"
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
	// The iterations' reports; the final line before bestmove repeats the
	// first line (TestFinalInfoBeforeBestmove).
	for _, l := range got[:len(got)-2] {
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
	// The iterations' reports, without the final line before bestmove.
	for _, l := range got[:len(got)-2] {
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
	got = g.until("bestmove", 10*time.Second)
	for _, l := range got[:len(got)-2] {
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

// answer is one go's answer as a GUI reads it: the bestmove line, the
// info line just before it, and the exact first-line reports of the
// search before that.
type answer struct {
	best    string   // the move
	final   []string // infoRE's submatches of the line before bestmove
	reports [][]string
}

// answers splits lines into the answers they hold and checks each: the
// line before every bestmove is a full info line (depth, seldepth, score,
// nodes, nps, time, pv) whose pv starts with the move played, whose depth
// and nodes are at least those of every exact first-line report of its
// search, whose time is at least the last one's, and whose score is the
// last one's when it reports the same depth and move.
func answers(t *testing.T, lines []string) []answer {
	t.Helper()
	var out []answer
	var reports [][]string
	for k, l := range lines {
		if m := infoRE.FindStringSubmatch(l); m != nil && m[infoRE.SubexpIndex("multipv")] == "1" && !strings.Contains(l, "bound ") {
			reports = append(reports, m)
			continue
		}
		if !strings.HasPrefix(l, "bestmove") {
			continue
		}
		f := strings.Fields(l)
		a := answer{best: f[1]}
		if k == 0 {
			t.Errorf("%q is the first line: no final info line", l)
			continue
		}
		a.final = infoRE.FindStringSubmatch(lines[k-1])
		if a.final == nil {
			t.Errorf("the line before %q is %q, not a full info line", l, lines[k-1])
			continue
		}
		// The final line is itself a first-line report: the ones before it
		// belong to the search.
		a.reports = reports[:len(reports)-1]
		reports = nil
		num := func(m []string, name string) int {
			n, err := strconv.Atoi(m[infoRE.SubexpIndex(name)])
			if err != nil {
				t.Fatalf("%s in %q: %v", name, m[0], err)
			}
			return n
		}
		if pv := strings.Fields(a.final[0][strings.Index(a.final[0], " pv ")+4:]); pv[0] != a.best {
			t.Errorf("final info %q: pv starts with %s, bestmove %s", a.final[0], pv[0], a.best)
		}
		for _, r := range a.reports {
			for _, field := range []string{"depth", "nodes"} {
				if num(a.final, field) < num(r, field) {
					t.Errorf("final info %q: %s below the report %q", a.final[0], field, r[0])
				}
			}
		}
		if n := len(a.reports); n > 0 {
			// The time only against the last report: the search's clock
			// restarts at ponderhit, and so do the reports' times.
			last := a.reports[n-1]
			if num(a.final, "time") < num(last, "time") {
				t.Errorf("final info %q: time below the last report %q", a.final[0], last[0])
			}
			lastPV := strings.Fields(last[0][strings.Index(last[0], " pv ")+4:])
			if num(last, "depth") == num(a.final, "depth") && lastPV[0] == a.best &&
				last[infoRE.SubexpIndex("score")] != a.final[infoRE.SubexpIndex("score")] {
				t.Errorf("final info %q: another score than the last report %q", a.final[0], last[0])
			}
		}
		out = append(out, a)
	}
	return out
}

// TestFinalInfoBeforeBestmove: every bestmove, whatever ended the search
// (a depth, node or time limit, the clock, stop, ponderhit, a new go),
// follows an info line with the depth, score, nodes and time of the
// result, its pv starting with the move played.
func TestFinalInfoBeforeBestmove(t *testing.T) {
	fen := "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
	tests := []struct {
		name    string
		setup   []string
		goCmds  []string // sent one after another, without waiting
		stop    bool     // send ponderhit/stop after a moment
		ponder  bool
		answers int
		only    string // the only move allowed
	}{
		{name: "depth", goCmds: []string{"go depth 6"}, answers: 1},
		{name: "nodes", goCmds: []string{"go nodes 30000"}, answers: 1},
		{name: "one node", goCmds: []string{"go nodes 1"}, answers: 1},
		{name: "movetime", goCmds: []string{"go movetime 200"}, answers: 1},
		{name: "short movetime", goCmds: []string{"go movetime 1"}, answers: 1},
		{name: "clock", goCmds: []string{"go wtime 2000 btime 2000 winc 20 binc 20"}, answers: 1},
		{name: "stopped infinite", goCmds: []string{"go infinite"}, stop: true, answers: 1},
		{name: "ponderhit", setup: []string{"setoption name Ponder value true"}, goCmds: []string{"go ponder wtime 2000 btime 2000"}, stop: true, ponder: true, answers: 1},
		{name: "multipv", setup: []string{"setoption name MultiPV value 3"}, goCmds: []string{"go depth 5"}, answers: 1},
		{name: "wdl", setup: []string{"setoption name UCI_ShowWDL value true"}, goCmds: []string{"go depth 4"}, answers: 1},
		{name: "two threads", setup: []string{"setoption name Threads value 2"}, goCmds: []string{"go nodes 60000"}, answers: 1},
		{name: "searchmoves", goCmds: []string{"go depth 4 searchmoves a2a3"}, answers: 1, only: "a2a3"},
		{name: "go during go", goCmds: []string{"go infinite", "go depth 3"}, answers: 2},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g := start(t)
			g.send(tc.setup...)
			g.send("position fen " + fen)
			g.sync()
			g.send(tc.goCmds...)
			if tc.stop {
				time.Sleep(200 * time.Millisecond)
				if tc.ponder {
					g.send("ponderhit")
				} else {
					g.send("stop")
				}
			}
			var lines []string
			for range tc.answers {
				lines = append(lines, g.until("bestmove", 20*time.Second)...)
			}
			lines = append(lines, g.sync()...)
			as := answers(t, lines)
			if len(as) != tc.answers {
				t.Fatalf("%d bestmoves for %d go commands: %q", len(as), tc.answers, lines)
			}
			for _, a := range as {
				if !legalIn(t, fen, nil, a.best) || tc.only != "" && a.best != tc.only {
					t.Errorf("bestmove %s", a.best)
				}
				if strings.Contains(strings.Join(tc.setup, " "), "UCI_ShowWDL") && a.final[infoRE.SubexpIndex("wdl")] == "" {
					t.Errorf("UCI_ShowWDL on, no wdl in the final info %q", a.final[0])
				}
			}
		})
	}
}

// TestGoDuringSearch: a go sent while a search runs (of every kind a GUI
// starts: infinite, ponder, long limits, MultiPV, two threads, ...) stops
// that search, which answers with its own bestmove, then runs: each go gets
// exactly one bestmove, in order, and nothing else follows.
func TestGoDuringSearch(t *testing.T) {
	for _, k := range searchKinds {
		for _, wait := range []time.Duration{0, 300 * time.Millisecond} {
			t.Run(fmt.Sprintf("%s/after %v", k.name, wait), func(t *testing.T) {
				g := start(t)
				g.send(k.setup...)
				g.send("position startpos")
				g.sync()
				g.send(k.goCmd)
				time.Sleep(wait)
				g.send("go depth 3")
				lines := g.until("bestmove", 10*time.Second)
				lines = append(lines, g.until("bestmove", 10*time.Second)...)
				lines = append(lines, g.sync()...)
				for _, l := range lines {
					if strings.HasPrefix(l, "info string error") {
						t.Errorf("%q", l)
					}
				}
				as := answers(t, lines)
				if len(as) != 2 {
					t.Fatalf("%d bestmoves for 2 go commands: %q", len(as), lines)
				}
				for _, a := range as {
					if !legalIn(t, board.StartFEN, nil, a.best) {
						t.Errorf("illegal bestmove %s", a.best)
					}
				}
				if d := as[1].final[infoRE.SubexpIndex("depth")]; d != "3" {
					t.Errorf("go depth 3 answered from depth %s: %q", d, as[1].final[0])
				}
				// The engine is idle: stop has nothing to stop.
				g.send("stop")
				if out := strings.Join(g.sync(), "\n"); !strings.Contains(out, "no search is running") || strings.Contains(out, "bestmove") {
					t.Errorf("stop after both answers: %q", out)
				}
			})
		}
	}
}

// TestGoBurst sends go commands back to back without reading, as a
// confused GUI might: one bestmove per go, in order, none missing, none
// extra.
func TestGoBurst(t *testing.T) {
	g := start(t)
	g.send("position startpos")
	gos := []string{"go infinite", "go depth 2", "go movetime 100", "go nodes 2000", "go infinite", "go ponder wtime 1000 btime 1000", "go depth 1"}
	g.send(gos...)
	var lines []string
	for range gos {
		lines = append(lines, g.until("bestmove", 20*time.Second)...)
	}
	lines = append(lines, g.sync()...)
	if as := answers(t, lines); len(as) != len(gos) {
		t.Fatalf("%d bestmoves for %d go commands: %q", len(as), len(gos), lines)
	}
	g.noOutput(300 * time.Millisecond)
}

// TestThreads1024 sets Threads to Stockfish's maximum, 1024, whatever the
// machine (two cores here): accepted without a word, searched with, and
// set back.
func TestThreads1024(t *testing.T) {
	g := start(t)
	g.send("setoption name Threads value 1024")
	if out := g.sync(); len(out) != 0 {
		t.Fatalf("Threads 1024: %q", out)
	}
	g.send("position startpos", "go nodes 200000")
	got := g.until("bestmove", 60*time.Second)
	as := answers(t, append(got, g.sync()...))
	if len(as) != 1 || !legalIn(t, board.StartFEN, nil, as[0].best) {
		t.Fatalf("with 1024 threads: %q", got)
	}
	g.send("setoption name Threads value 1", "go depth 5")
	if mv := bestmove(t, g.until("bestmove", 10*time.Second)); !legalIn(t, board.StartFEN, nil, mv) {
		t.Errorf("illegal bestmove %s", mv)
	}
}
