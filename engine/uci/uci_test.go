package uci_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/engine/board"
)

var (
	buildOnce sync.Once
	buildDir  string
	binPath   string
	buildErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if buildDir != "" {
		os.RemoveAll(buildDir)
	}
	os.Exit(code)
}

// binary builds cmd/nnuelab once per test run, as a GUI would start it.
func binary(t *testing.T) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "nnuelab-uci-test")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(buildDir, "nnuelab")
		out, err := exec.Command("go", "build", "-o", binPath, "github.com/nnuelab/nnuelab/cmd/nnuelab").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// gui is the test's side of a UCI conversation with the engine process.
type gui struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string
	log   []string
}

func start(t *testing.T, args ...string) *gui {
	t.Helper()
	cmd := exec.Command(binary(t), args...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	g := &gui{t: t, cmd: cmd, in: in, lines: make(chan string, 10000)}
	go func() {
		sc := bufio.NewScanner(out)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			g.lines <- sc.Text()
		}
		close(g.lines)
	}()
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			cmd.Process.Kill()
			<-done
			t.Errorf("engine did not exit after its input closed")
		}
	})
	return g
}

func (g *gui) send(lines ...string) {
	g.t.Helper()
	for _, l := range lines {
		if _, err := io.WriteString(g.in, l+"\n"); err != nil {
			g.t.Fatalf("write %q: %v", l, err)
		}
	}
}

// until reads lines until one starts with prefix and returns the lines
// read (the matching one last); it fails after timeout.
func (g *gui) until(prefix string, timeout time.Duration) []string {
	g.t.Helper()
	var got []string
	deadline := time.After(timeout)
	for {
		select {
		case l, ok := <-g.lines:
			if !ok {
				g.t.Fatalf("engine exited waiting for %q; got %q", prefix, got)
			}
			got = append(got, l)
			g.log = append(g.log, l)
			if strings.HasPrefix(l, prefix) {
				return got
			}
		case <-deadline:
			g.t.Fatalf("no %q within %v; got %q", prefix, timeout, got)
		}
	}
}

// sync sends isready and returns everything the engine said before readyok.
func (g *gui) sync() []string {
	g.t.Helper()
	g.send("isready")
	l := g.until("readyok", 10*time.Second)
	return l[:len(l)-1]
}

// noOutput checks that the engine says nothing for d.
func (g *gui) noOutput(d time.Duration) {
	g.t.Helper()
	select {
	case l := <-g.lines:
		g.t.Fatalf("unexpected output %q", l)
	case <-time.After(d):
	}
}

func legalIn(t *testing.T, fen string, moves []string, mv string) bool {
	t.Helper()
	p, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range moves {
		m, err := p.ParseUCIMove(s)
		if err != nil {
			t.Fatal(err)
		}
		p.MakeMove(m)
	}
	_, err = p.ParseUCIMove(mv)
	return err == nil
}

func bestmove(t *testing.T, lines []string) string {
	t.Helper()
	f := strings.Fields(lines[len(lines)-1])
	if len(f) < 2 || f[0] != "bestmove" {
		t.Fatalf("last line %q is not a bestmove", lines[len(lines)-1])
	}
	return f[1]
}

func TestHandshake(t *testing.T) {
	g := start(t) // no arguments: UCI, as GUIs start engines
	g.send("uci")
	got := g.until("uciok", 10*time.Second)
	text := strings.Join(got, "\n")
	for _, want := range []string{
		"id name nnuelab",
		"id author ",
		// Stockfish's ranges, whatever the machine.
		"option name Hash type spin default 16 min 1 max 33554432\n",
		"option name Threads type spin default 1 min 1 max 1024\n",
		"option name MultiPV type spin default 1 min 1 max 256",
		"option name Ponder type check default false",
		"option name UCI_ShowWDL type check default false",
		"option name Arch type combo default leorik-3.1",
		"option name EvalFile type string default <empty>",
		"option name UCI_Chess960 type check default false",
		"option name Move Overhead type spin default",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("uci reply lacks %q:\n%s", want, text)
		}
	}
	if extra := g.sync(); len(extra) != 0 {
		t.Errorf("unexpected lines before readyok: %q", extra)
	}
}

var infoRE = regexp.MustCompile(`^info depth (?P<depth>\d+) seldepth (?P<seldepth>\d+) multipv (?P<multipv>\d+) score (?P<score>cp -?\d+|mate -?\d+)(?P<bound> lowerbound| upperbound)?(?P<wdl> wdl \d+ \d+ \d+)? nodes (?P<nodes>\d+) nps (?P<nps>\d+) hashfull (?P<hashfull>\d+)(?P<tbhits> tbhits \d+)? time (?P<time>\d+) pv( [a-h][1-8][a-h][1-8][nbrq]?)+$`)

func TestGoDepthInfoAndBestmove(t *testing.T) {
	g := start(t, "uci")
	g.send("uci")
	g.until("uciok", 10*time.Second)
	g.send("ucinewgame", "position startpos moves e2e4 e7e5 g1f3", "go depth 8")
	got := g.until("bestmove", 30*time.Second)
	depths := 0
	// One report per iteration; then the final line, which repeats the
	// last (TestFinalInfoBeforeBestmove).
	timeless := regexp.MustCompile(` nps \d+ hashfull \d+ time \d+ `)
	if len(got) < 3 || timeless.ReplaceAllString(got[len(got)-2], " ") != timeless.ReplaceAllString(got[len(got)-3], " ") {
		t.Errorf("the line before bestmove does not repeat the last iteration's: %q", got[max(0, len(got)-3):])
	}
	for _, l := range got[:len(got)-2] {
		m := infoRE.FindStringSubmatch(l)
		if m == nil {
			t.Errorf("malformed info line %q", l)
			continue
		}
		depths++
		if d, _ := strconv.Atoi(m[1]); d != depths {
			t.Errorf("info depth %d, expected %d", d, depths)
		}
	}
	if depths != 8 {
		t.Errorf("%d info lines for depth 8", depths)
	}
	mv := bestmove(t, got)
	if !legalIn(t, board.StartFEN, []string{"e2e4", "e7e5", "g1f3"}, mv) {
		t.Errorf("illegal bestmove %s", mv)
	}
	if f := strings.Fields(got[len(got)-1]); len(f) == 4 && f[2] == "ponder" {
		if !legalIn(t, board.StartFEN, []string{"e2e4", "e7e5", "g1f3", mv}, f[3]) {
			t.Errorf("illegal ponder move %s", f[3])
		}
	}
}

func TestStopDuringGoInfinite(t *testing.T) {
	g := start(t)
	g.send("uci")
	g.until("uciok", 10*time.Second)
	g.send("position fen r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", "go infinite")
	time.Sleep(300 * time.Millisecond)
	// isready is answered while the search runs, and no bestmove comes
	// before stop.
	for _, l := range g.sync() {
		if strings.HasPrefix(l, "bestmove") {
			t.Fatalf("bestmove before stop: %q", l)
		}
	}
	sent := time.Now()
	g.send("stop")
	// The search would not end without stop; the bound leaves room for a
	// loaded machine.
	got := g.until("bestmove", 10*time.Second)
	if el := time.Since(sent); el > 5*time.Second {
		t.Errorf("bestmove %v after stop", el)
	}
	if !legalIn(t, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", nil, bestmove(t, got)) {
		t.Errorf("illegal bestmove in %q", got[len(got)-1])
	}
	// The engine is idle and consistent afterwards.
	g.send("position startpos", "go depth 3")
	if mv := bestmove(t, g.until("bestmove", 10*time.Second)); !legalIn(t, board.StartFEN, nil, mv) {
		t.Errorf("illegal bestmove %s", mv)
	}
}

// TestGoInfiniteReachesNoBestmoveWithoutStop checks that even a search
// that ends by itself (a forced mate, found at once) waits for stop.
func TestGoInfiniteWaitsForStop(t *testing.T) {
	g := start(t)
	g.send("position fen 6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1", "go infinite")
	for _, l := range g.sync() {
		if strings.HasPrefix(l, "bestmove") {
			t.Fatalf("bestmove before stop: %q", l)
		}
	}
	time.Sleep(200 * time.Millisecond)
	for _, l := range g.sync() {
		if strings.HasPrefix(l, "bestmove") {
			t.Fatalf("bestmove before stop: %q", l)
		}
	}
	g.send("stop")
	if mv := bestmove(t, g.until("bestmove", 5*time.Second)); mv != "d1d8" {
		t.Errorf("bestmove %s, want the mate d1d8", mv)
	}
}

func TestMalformedInput(t *testing.T) {
	tests := []struct {
		name  string
		input []string
		want  string // substring of the info string error
	}{
		{"unknown command", []string{"frobnicate"}, `unknown command "frobnicate"`},
		{"stop while idle", []string{"stop"}, "no search is running"},
		{"position without argument", []string{"position"}, "position: expected"},
		{"position with bad keyword", []string{"position middlegame"}, `got "middlegame"`},
		{"bad FEN", []string{"position fen rnbqkbnr/pppppppp/8/8 w KQkq - 0 1"}, "position fen"},
		{"illegal move", []string{"position startpos moves e2e4 e7e5 e1e3"}, `move "e1e3" is not legal`},
		{"garbage move", []string{"position startpos moves e2e4 zz"}, `"zz"`},
		{"junk instead of moves", []string{"position startpos e2e4"}, `expected "moves"`},
		{"setoption without name", []string{"setoption Hash 16"}, "setoption: expected"},
		{"unknown option", []string{"setoption name Contempt value 20"}, `unknown option "Contempt"`},
		{"hash not a number", []string{"setoption name Hash value lots"}, "not an integer"},
		{"hash out of range", []string{"setoption name Hash value 0"}, "not an integer from 1"},
		{"threads beyond Stockfish's maximum", []string{"setoption name Threads value 1025"}, "not an integer from 1 to 1024"},
		{"hash beyond Stockfish's maximum", []string{"setoption name Hash value 33554433"}, "not an integer from 1 to 33554432"},
		// In range, but more than any machine this runs on has: refused
		// when allocated, naming the memory, and the old table stays.
		{"hash beyond the memory", []string{"setoption name Hash value 33554432"}, "hash size 33554432 MB exceeds"},
		{"multipv zero", []string{"setoption name MultiPV value 0"}, "not an integer from 1 to 256"},
		{"ponder not a check", []string{"setoption name Ponder value yes"}, "not true or false"},
		{"unknown arch", []string{"setoption name Arch value transformer-xl"}, `unknown architecture "transformer-xl"`},
		{"missing eval file", []string{"setoption name EvalFile value /nonexistent/net.nnue"}, "EvalFile"},
		{"bad check value", []string{"setoption name UCI_Chess960 value maybe"}, "not true or false"},
		{"perft without depth", []string{"perft"}, "perft: expected"},
		{"bench with bad depth", []string{"bench deep"}, "bench: depth"},
		{"ponderhit while idle", []string{"ponderhit"}, "no ponder search is running"},
	}
	g := start(t)
	g.send("uci")
	g.until("uciok", 10*time.Second)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g.t = t
			g.send(tc.input...)
			got := g.sync()
			found := false
			for _, l := range got {
				if strings.HasPrefix(l, "info string error: ") && strings.Contains(l, tc.want) {
					found = true
				} else if strings.HasPrefix(l, "bestmove") {
					t.Errorf("unexpected %q", l)
				}
			}
			if !found {
				t.Errorf("no info string error containing %q; got %q", tc.want, got)
			}
		})
	}
	// After all that the engine still has the start position and plays.
	g.t = t
	g.send("d")
	if got := strings.Join(g.sync(), "\n"); !strings.Contains(got, "Fen: "+board.StartFEN) {
		t.Errorf("position changed by rejected commands:\n%s", got)
	}
	g.send("go depth 4")
	if mv := bestmove(t, g.until("bestmove", 10*time.Second)); !legalIn(t, board.StartFEN, nil, mv) {
		t.Errorf("illegal bestmove %s", mv)
	}
}

// TestOutOfOrder covers commands sent at the wrong time: go before any
// position (searched from the start position, with a warning), position,
// setoption and ucinewgame during a search (refused until bestmove; a go
// during a search is TestGoDuringSearch's).
func TestOutOfOrder(t *testing.T) {
	g := start(t)
	g.send("go depth 3")
	got := g.until("bestmove", 10*time.Second)
	if !strings.Contains(strings.Join(got, "\n"), "info string error: go: no position set") {
		t.Errorf("go before position gave no warning: %q", got)
	}
	if mv := bestmove(t, got); !legalIn(t, board.StartFEN, nil, mv) {
		t.Errorf("illegal bestmove %s", mv)
	}

	g.send("position startpos moves d2d4", "go infinite")
	g.send("position startpos moves e2e4", "setoption name Hash value 32", "ucinewgame")
	errs := 0
	for _, l := range g.sync() {
		if strings.HasPrefix(l, "info string error:") && strings.Contains(l, "a search is running") {
			errs++
		}
	}
	if errs != 3 {
		t.Errorf("%d 'search is running' errors for 3 commands during a search", errs)
	}
	g.send("stop")
	// The search was of the position before the rejected command.
	if mv := bestmove(t, g.until("bestmove", 5*time.Second)); !legalIn(t, board.StartFEN, []string{"d2d4"}, mv) {
		t.Errorf("bestmove %s not legal after d2d4", mv)
	}
	// "joho debug on": unknown leading tokens are skipped, the rest runs.
	g.send("joho debug on")
	if got := g.sync(); len(got) != 1 || !strings.Contains(got[0], `unknown command "joho"`) {
		t.Errorf("joho debug on: %q", got)
	}
}

// TestGoMalformed drives malformed go commands as a GUI sends them: each
// is answered with a legal bestmove (after stop for go infinite), preceded
// by an info string naming what was ignored, and the search obeys what was
// left of the command.
func TestGoMalformed(t *testing.T) {
	fen := "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
	tests := []struct {
		name     string
		goCmd    string
		stop     bool     // go infinite: send stop after a moment
		want     []string // substrings of the info string errors, in order
		only     string   // the bestmove must be this move
		maxDelay time.Duration
	}{
		{name: "nodes overflow", goCmd: "go nodes 99999999999999999999",
			want: []string{`go nodes: "99999999999999999999" is out of range (ignored)`, "no limit left; searching for movetime 1000"}, maxDelay: 3 * time.Second},
		{name: "movetime 0", goCmd: "go movetime 0",
			want: []string{"go movetime: 0 must be positive (ignored)", "no limit left"}, maxDelay: 3 * time.Second},
		{name: "negative depth", goCmd: "go depth -1",
			want: []string{"go depth: -1 must be positive (ignored)", "no limit left"}, maxDelay: 3 * time.Second},
		{name: "non-numeric wtime", goCmd: "go wtime abc",
			want: []string{`go wtime: "abc" is not an integer (ignored)`, "no limit left"}, maxDelay: 3 * time.Second},
		{name: "infinite, unknown searchmove", goCmd: "go infinite searchmoves zzzz", stop: true,
			want: []string{`go searchmoves: zzzz not legal`, "no legal move given; searching all moves"}},
		{name: "illegal searchmove skipped", goCmd: "go depth 4 searchmoves e2e5 a2a3 zzzz",
			want: []string{"go searchmoves: e2e5 zzzz not legal"}, only: "a2a3", maxDelay: 10 * time.Second},
		{name: "searchmoves before a limit", goCmd: "go searchmoves h2h3 nodes 3000",
			only: "h2h3", maxDelay: 10 * time.Second},
		{name: "bad limit beside a good one", goCmd: "go depth x nodes 2000",
			want: []string{`go depth: "x" is not an integer (ignored)`}, maxDelay: 10 * time.Second},
		{name: "unknown token with value", goCmd: "go depht 5",
			want: []string{`go: unknown token "depht 5" (ignored)`, "no limit left"}, maxDelay: 3 * time.Second},
		{name: "missing value", goCmd: "go nodes",
			want: []string{"go nodes: missing value", "no limit left"}, maxDelay: 3 * time.Second},
		{name: "value missing before a keyword", goCmd: "go depth movetime 200",
			want: []string{"go depth: missing value"}, maxDelay: 2 * time.Second},
		{name: "zero depth", goCmd: "go depth 0",
			want: []string{"go depth: 0 must be positive", "no limit left"}, maxDelay: 3 * time.Second},
		{name: "mover's clock unusable", goCmd: "go wtime abc btime 100000",
			want: []string{`go wtime: "abc" is not an integer`, "side to move's clock is unusable", "no limit left"}, maxDelay: 3 * time.Second},
	}
	g := start(t)
	g.send("uci")
	g.until("uciok", 10*time.Second)
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			g.t = t
			g.send("position fen "+fen, tc.goCmd)
			sent := time.Now()
			if tc.stop {
				time.Sleep(200 * time.Millisecond)
				for _, l := range g.sync() {
					if strings.HasPrefix(l, "bestmove") {
						t.Fatalf("bestmove before stop: %q", l)
					}
				}
				g.send("stop")
			}
			got := g.until("bestmove", 15*time.Second)
			if el := time.Since(sent); tc.maxDelay > 0 && el > tc.maxDelay {
				t.Errorf("bestmove after %v, want within %v", el, tc.maxDelay)
			}
			mv := bestmove(t, got)
			if !legalIn(t, fen, nil, mv) {
				t.Errorf("illegal bestmove %s", mv)
			}
			if tc.only != "" && mv != tc.only {
				t.Errorf("bestmove %s, want the only searchmove %s", mv, tc.only)
			}
			var errs []string
			for _, l := range g.log {
				if strings.HasPrefix(l, "info string error: ") {
					errs = append(errs, l)
				}
			}
			g.log = nil
			k := 0
			for _, e := range errs {
				if k < len(tc.want) && strings.Contains(e, tc.want[k]) {
					k++
				}
			}
			if k < len(tc.want) {
				t.Errorf("info strings %q: want, in order, %q", errs, tc.want)
			}
			if len(tc.want) == 0 && len(errs) > 0 {
				t.Errorf("unexpected %q", errs)
			}
		})
	}
	// The engine is idle and consistent afterwards.
	g.t = t
	if extra := g.sync(); len(extra) != 0 {
		t.Errorf("unexpected lines %q", extra)
	}
	g.send("position startpos", "go depth 3")
	if mv := bestmove(t, g.until("bestmove", 10*time.Second)); !legalIn(t, board.StartFEN, nil, mv) {
		t.Errorf("illegal bestmove %s", mv)
	}
}

func TestNoLegalMoves(t *testing.T) {
	tests := []struct{ name, fen, info, goCmd string }{
		{"checkmate", "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", "info depth 0 score mate 0", "go wtime 1000 btime 1000"},
		{"stalemate", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "info depth 0 score cp 0", "go wtime 1000 btime 1000"},
		// A malformed go is answered the same way.
		{"checkmate, malformed go", "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", "info depth 0 score mate 0", "go depth -1 searchmoves h8h7"},
	}
	g := start(t)
	for _, tc := range tests {
		g.send("position fen "+tc.fen, tc.goCmd)
		got := g.until("bestmove", 5*time.Second)
		if got[len(got)-1] != "bestmove (none)" {
			t.Errorf("%s: %q, want bestmove (none), as Stockfish", tc.name, got[len(got)-1])
		}
		if len(got) < 2 || got[len(got)-2] != tc.info {
			t.Errorf("%s: %q, want %q before bestmove", tc.name, got, tc.info)
		}
	}
}

func TestLimits(t *testing.T) {
	g := start(t)
	g.send("position startpos moves e2e4 c7c5", "go movetime 300")
	sent := time.Now()
	g.until("bestmove", 5*time.Second)
	if el := time.Since(sent); el < 200*time.Millisecond || el > 1500*time.Millisecond {
		t.Errorf("go movetime 300 took %v", el)
	}

	g.send("go nodes 20000")
	got := g.until("bestmove", 10*time.Second)
	for _, l := range got {
		if m := infoRE.FindStringSubmatch(l); m != nil {
			if n, _ := strconv.Atoi(m[infoRE.SubexpIndex("nodes")]); n > 20000 {
				t.Errorf("go nodes 20000 reported %d nodes: %q", n, l)
			}
		}
	}

	// A fast clock: the move must come within the remaining time. The
	// engine plans a few tens of ms; the bound leaves room for a loaded
	// machine (the test's wall clock counts the time the engine waits for
	// a core), while an engine that spends its whole clock still fails.
	g.send("go wtime 500 btime 500 winc 10 binc 10")
	sent = time.Now()
	g.until("bestmove", 5*time.Second)
	if el := time.Since(sent); el > 450*time.Millisecond {
		t.Errorf("with 500 ms on the clock the move took %v", el)
	}

	g.send("position fen 6k1/pp4p1/2p5/2bp4/8/P5Pb/1P3rrP/2BRRN1K b - - 0 1", "go mate 2")
	got = g.until("bestmove", 10*time.Second)
	if !strings.Contains(strings.Join(got, "\n"), "score mate 2") {
		t.Errorf("go mate 2 found no mate in 2: %q", got)
	}
}

func TestDebugCommands(t *testing.T) {
	g := start(t)
	g.send("position startpos moves e2e4", "d")
	out := strings.Join(g.sync(), "\n")
	for _, want := range []string{"Fen: rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", "Key: ", "Checkers:", "| P |"} {
		if !strings.Contains(out, want) {
			t.Errorf("d lacks %q:\n%s", want, out)
		}
	}

	g.send("legal")
	out = strings.Join(g.sync(), "\n")
	if !strings.HasPrefix(out, "legal 20: ") || len(strings.Fields(out)) != 22 {
		t.Errorf("legal: %q", out)
	}

	g.send("eval")
	out = strings.Join(g.sync(), "\n")
	if !strings.Contains(out, "NNUE architecture leorik-3.1") {
		t.Errorf("eval with the default Arch:\n%s", out)
	}
	g.send("setoption name Arch value classical", "eval")
	out = strings.Join(g.sync(), "\n")
	for _, want := range []string{"mg (white view)", "eg (white view)", "phase", "final (side to move, black)"} {
		if !strings.Contains(out, want) {
			t.Errorf("eval lacks %q:\n%s", want, out)
		}
	}

	g.send("position startpos", "perft 3")
	out = strings.Join(g.sync(), "\n")
	if !strings.Contains(out, "Nodes searched: 8902") || !strings.Contains(out, "e2e4: 600") {
		t.Errorf("perft 3:\n%s", out)
	}
	g.send("go perft 2")
	if out = strings.Join(g.sync(), "\n"); !strings.Contains(out, "Nodes searched: 400") {
		t.Errorf("go perft 2:\n%s", out)
	}

	g.send("bench 3")
	got := g.sync()
	if n := len(got); n < 2 || !strings.HasPrefix(got[n-2], "Nodes searched: ") || !strings.HasPrefix(got[n-1], "Nodes/second: ") {
		t.Errorf("bench 3 ends with %q", got[max(0, len(got)-2):])
	}
}

func TestChess960(t *testing.T) {
	// Rooks on b and h, Shredder-FEN castling: with UCI_Chess960 castling
	// is written king takes rook (e1b1, e1h1), not e1c1/e1g1.
	fen := "1r2k2r/pppppppp/8/8/8/8/PPPPPPPP/1R2K2R w HBhb - 0 1"
	g := start(t)
	g.send("setoption name UCI_Chess960 value true", "position fen "+fen, "legal")
	out := " " + strings.Join(g.sync(), " ") + " "
	for _, want := range []string{" e1b1 ", " e1h1 "} {
		if !strings.Contains(out, want) {
			t.Errorf("no castling %q in %q", want, out)
		}
	}
	if strings.Contains(out, " e1g1 ") || strings.Contains(out, " e1c1 ") {
		t.Errorf("standard castling notation in Chess960 mode: %q", out)
	}
	g.send("position fen "+fen+" moves e1h1 e8b8", "go depth 5")
	mv := bestmove(t, g.until("bestmove", 10*time.Second))
	p, _ := board.ParseFEN(fen)
	p.SetChess960(true)
	for _, s := range []string{"e1h1", "e8b8"} {
		m, err := p.ParseUCIMove(s)
		if err != nil {
			t.Fatal(err)
		}
		p.MakeMove(m)
	}
	if _, err := p.ParseUCIMove(mv); err != nil {
		t.Errorf("bestmove %s: %v", mv, err)
	}
}

func TestQuitAndEOF(t *testing.T) {
	g := start(t)
	g.send("go infinite")
	time.Sleep(100 * time.Millisecond)
	sent := time.Now()
	g.send("quit")
	done := make(chan error)
	go func() { done <- g.cmd.Wait() }()
	select {
	case err := <-done:
		if err != nil {
			t.Errorf("exit: %v", err)
		}
		if el := time.Since(sent); el > 2*time.Second {
			t.Errorf("quit took %v", el)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("engine did not quit during go infinite")
	}

	// Input ending after a depth-limited go: the search finishes first.
	cmd := exec.Command(binary(t))
	cmd.Stdin = strings.NewReader("position startpos\ngo depth 5\n")
	out, err := cmd.Output()
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), "\nbestmove ") {
		t.Errorf("no bestmove before exit at end of input:\n%s", out)
	}
}

// TestBenchDeterministic runs "nnuelab bench" (the default depth, as
// OpenBench does) twice and compares the node counts.
func TestBenchDeterministic(t *testing.T) {
	if testing.Short() {
		t.Skip("bench takes a few seconds")
	}
	run := func() (string, []string) {
		out, err := exec.Command(binary(t), "bench").Output()
		if err != nil {
			t.Fatal(err)
		}
		lines := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
		if len(lines) < 2 {
			t.Fatalf("bench printed %q", out)
		}
		last2 := lines[len(lines)-2:]
		if !regexp.MustCompile(`^Nodes searched: \d+$`).MatchString(last2[0]) || !regexp.MustCompile(`^Nodes/second: \d+$`).MatchString(last2[1]) {
			t.Fatalf("bench ends with %q", last2)
		}
		return last2[0], lines
	}
	a, la := run()
	b, lb := run()
	if a != b {
		t.Errorf("bench run 1: %s, run 2: %s", a, b)
	}
	if len(la) != len(lb) || len(la) < 40 {
		t.Errorf("bench printed %d and %d lines", len(la), len(lb))
	}
}
