package match

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/bench/stats"
)

// fakeConfig is a match between a well-behaved fake engine ("good", first)
// and a fake engine started with badArgs ("bad").
func fakeConfig(t *testing.T, games int, limits string, badArgs ...string) Config {
	t.Helper()
	fake := fakeEngine(t)
	args := []string{
		"-engine", "cmd=" + fake, "name=good", "option.Hash=8",
		"-engine", "cmd=" + fake, "name=bad",
	}
	for _, a := range badArgs {
		args = append(args, "arg="+a)
	}
	args = append(args, "-each")
	args = append(args, strings.Fields(limits)...)
	args = append(args, "-games", itoa(games), "-maxmoves", "20", "-pgnout", filepath.Join(t.TempDir(), "games.pgn"))
	cfg, _, err := ParseArgs(args)
	if err != nil {
		t.Fatalf("ParseArgs(%q): %v", args, err)
	}
	return cfg
}

func itoa(n int) string { return strconv.Itoa(n) }

// TestFaults plays two games against each misbehaving engine: each fault
// must cost the faulty engine its game, be counted against it (and not
// against its opponent), be logged, and the match must go on after a
// restart.
func TestFaults(t *testing.T) {
	tests := []struct {
		name        string
		limits      string
		badArgs     []string
		kind        string // fault kind in the log
		termination string // PGN Termination
		reason      string
		count       func(*FaultCounts) int
	}{
		{"crash mid-game", "nodes=100", []string{"-mode=crash", "-after=3"}, faultCrash, termAbandoned, "disconnects",
			func(f *FaultCounts) int { return f.Crashes }},
		{"never answers go", "nodes=100 timeout=1.5", []string{"-mode=hang", "-after=2"}, faultHang, termAbandoned, "connection stalls",
			func(f *FaultCounts) int { return f.Hangs }},
		{"no readyok before a game", "nodes=100", []string{"-mode=noreadyok", "-after=2"}, faultHang, termAbandoned, "does not answer isready",
			func(f *FaultCounts) int { return f.Hangs }},
		{"illegal move", "nodes=100", []string{"-mode=illegal", "-after=4"}, faultIllegal, termRules, "makes an illegal move: a1a1",
			func(f *FaultCounts) int { return f.IllegalMoves }},
		{"garbage then junk move", "nodes=100", []string{"-mode=garbage", "-after=2"}, faultIllegal, termRules, "makes an illegal move: junk",
			func(f *FaultCounts) int { return f.IllegalMoves }},
		// Generous margins: the bad engine sleeps 2.5 s where 1 s (1.5 s)
		// is allowed, the good one answers at once.
		{"flag falls on the clock", "tc=1+0.1 timemargin=500", []string{"-mode=slow", "-delay=2500ms"}, faultTimeForfeit, termTimeForfeit, "loses on time",
			func(f *FaultCounts) int { return f.TimeForfeits }},
		{"flag falls", "st=0.3 timemargin=700", []string{"-mode=slow", "-delay=2500ms"}, faultTimeForfeit, termTimeForfeit, "loses on time",
			func(f *FaultCounts) int { return f.TimeForfeits }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg := fakeConfig(t, 2, tt.limits, tt.badArgs...)
			cfg.InitTimeout = 1500 * time.Millisecond
			var log syncBuffer
			sum, err := Run(context.Background(), cfg, Output{Log: &log})
			if err != nil {
				t.Fatalf("Run: %v\nlog:\n%s", err, log.String())
			}
			if sum.Games() != 2 {
				t.Fatalf("%d games finished, want 2\nlog:\n%s", sum.Games(), log.String())
			}
			if sum.Wins != 2 {
				t.Errorf("good engine W/D/L = %d/%d/%d, want 2 wins\n%s", sum.Wins, sum.Draws, sum.Losses, log.String())
			}
			if got := tt.count(sum.Faults["bad"]); got != 2 {
				t.Errorf("faults charged to bad = %+v, want 2 of kind %s", *sum.Faults["bad"], tt.kind)
			}
			if *sum.Faults["good"] != (FaultCounts{}) {
				t.Errorf("faults charged to good = %+v, want none", *sum.Faults["good"])
			}
			text := log.String()
			for _, g := range []struct{ n, color string }{{"1", "Black"}, {"2", "White"}} {
				want := "Fault in game " + g.n + ": bad (" + g.color + ") " + tt.kind
				if !strings.Contains(text, want) {
					t.Errorf("log lacks %q:\n%s", want, text)
				}
			}
			if tt.kind != faultTimeForfeit && !strings.Contains(text, "Restarting bad") {
				t.Errorf("log does not show a restart:\n%s", text)
			}
			pgn, err := os.ReadFile(cfg.PGNOut)
			if err != nil {
				t.Fatal(err)
			}
			if n := strings.Count(string(pgn), "[Termination \""+tt.termination+"\"]"); n != 2 {
				t.Errorf("PGN has %d games with Termination %q, want 2:\n%s", n, tt.termination, pgn)
			}
			if !strings.Contains(string(pgn), tt.reason) {
				t.Errorf("PGN lacks the reason %q:\n%s", tt.reason, pgn)
			}
			games := replayPGN(t, cfg.PGNOut)
			if len(games) != 2 {
				t.Fatalf("PGN holds %d games, want 2", len(games))
			}
			// The good engine won both: 0-1 when bad had White (game 2).
			if games[0].tags["Result"] != "1-0" || games[1].tags["Result"] != "0-1" {
				t.Errorf("results %s, %s; want 1-0, 0-1", games[0].tags["Result"], games[1].tags["Result"])
			}
		})
	}
}

// A bad path, a bad option, an engine that dies or never says uciok are
// errors before any game.
func TestStartErrors(t *testing.T) {
	fake := fakeEngine(t)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing executable", []string{"-engine", "cmd=/nonexistent/engine", "-engine", "cmd=" + fake}, "cannot start"},
		{"unknown option", []string{"-engine", "cmd=" + fake, "name=a", "option.Hsah=16", "-engine", "cmd=" + fake, "name=b"}, `no UCI option "Hsah"`},
		{"spin out of range", []string{"-engine", "cmd=" + fake, "name=a", "option.Hash=5000", "-engine", "cmd=" + fake, "name=b"}, "from 1 to 1024"},
		{"bad check", []string{"-engine", "cmd=" + fake, "name=a", "-engine", "cmd=" + fake, "name=b", "option.Ponder=maybe"}, "check"},
		{"bad combo", []string{"-engine", "cmd=" + fake, "name=a", "option.Style=Odd", "-engine", "cmd=" + fake, "name=b"}, "one of Normal, Wild"},
		{"dies at start", []string{"-engine", "cmd=" + fake, "name=a", "arg=-mode=die", "-engine", "cmd=" + fake, "name=b"}, "dying as asked"},
		{"no uciok", []string{"-engine", "cmd=" + fake, "name=a", "-engine", "cmd=" + fake, "name=b", "arg=-mode=nouciok"}, "waiting for uciok"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(tt.args, "-each", "nodes=10", "-games", "2")
			cfg, _, err := ParseArgs(args)
			if err != nil {
				t.Fatal(err)
			}
			cfg.InitTimeout = 2 * time.Second
			var log syncBuffer
			sum, err := Run(context.Background(), cfg, Output{Log: &log})
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("Run error = %v, want one containing %q", err, tt.want)
			}
			if sum != nil || strings.Contains(log.String(), "Finished game") {
				t.Errorf("games were played despite the error:\n%s", log.String())
			}
		})
	}
}

// Options the engine declares are accepted, including buttons and
// case-insensitive names and values.
func TestGoodOptions(t *testing.T) {
	fake := fakeEngine(t)
	cfg, _, err := ParseArgs([]string{"-engine", "cmd=" + fake, "name=a", "option.hash=32", "option.Clear Hash=", "option.style=wild",
		"option.Book File=my book.bin", "-engine", "cmd=" + fake, "name=b", "option.Ponder=TRUE", "-each", "nodes=10", "-games", "2", "-maxmoves", "3", "-debug"})
	if err != nil {
		t.Fatal(err)
	}
	var log syncBuffer
	sum, err := Run(context.Background(), cfg, Output{Log: &log, Debug: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Games() != 2 {
		t.Errorf("%d games", sum.Games())
	}
	for _, want := range []string{"a > setoption name Hash value 32", "a > setoption name Clear Hash\n", "a > setoption name Style value Wild",
		"a > setoption name Book File value my book.bin", "b > setoption name Ponder value true", "a > go nodes 10"} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("debug log lacks %q", want)
		}
	}
}

// The SPRT stops the match once a bound is crossed: the bad engine loses
// every game, so H1 is accepted long before the 200 games.
func TestSPRTStopsMatch(t *testing.T) {
	cfg := fakeConfig(t, 200, "nodes=10", "-mode=illegal", "-after=1")
	cfg.SPRT = &stats.SPRT{Elo0: 0, Elo1: 50, Alpha: 0.05, Beta: 0.05, Model: stats.Logistic}
	var log syncBuffer
	sum, err := Run(context.Background(), cfg, Output{Log: &log, Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Decision != stats.AcceptH1 {
		t.Fatalf("decision %v, LLR %v after %d games", sum.Decision, sum.LLR, sum.Games())
	}
	if sum.Games() >= 200 || sum.LLR < 2.94 {
		t.Errorf("stopped after %d games with LLR %v", sum.Games(), sum.LLR)
	}
	// Stopping at the first crossing: one pair fewer must not have crossed.
	prev := sum.Penta
	prev[4]--
	if llr := cfg.SPRT.LLR(prev); llr >= 2.9444 {
		t.Errorf("the bound was already crossed one pair earlier (LLR %v)", llr)
	}
	if !strings.Contains(log.String(), "SPRT: H1 accepted") {
		t.Errorf("log lacks the SPRT decision:\n%s", log.String())
	}
	if n := len(replayPGN(t, cfg.PGNOut)); n != sum.Games() {
		t.Errorf("PGN holds %d games, summary %d", n, sum.Games())
	}
}

// Cancelling (Ctrl-C) stops the games in progress; the summary and the PGN
// hold exactly the finished games, and the PGN is valid.
func TestInterrupt(t *testing.T) {
	cfg := fakeConfig(t, 40, "nodes=10", "-mode=slow", "-delay=20ms")
	cfg.Concurrency = 2
	cfg.MaxMoves = 15
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	log := &syncBuffer{}
	finished := 0
	log.onWrite = func(s string) {
		if strings.HasPrefix(s, "Finished game") {
			finished++
			if finished == 3 {
				cancel()
			}
		}
	}
	start := time.Now()
	sum, err := Run(ctx, cfg, Output{Log: log})
	if err != nil {
		t.Fatal(err)
	}
	if !sum.Interrupted {
		t.Error("summary not marked interrupted")
	}
	if sum.Games() < 3 || sum.Games() >= 40 {
		t.Errorf("%d games counted, want at least 3 and far fewer than 40", sum.Games())
	}
	games := replayPGN(t, cfg.PGNOut)
	if len(games) != sum.Games() {
		t.Errorf("PGN holds %d games, summary counts %d", len(games), sum.Games())
	}
	data, _ := os.ReadFile(cfg.PGNOut)
	for _, r := range resultTokens(string(data)) {
		if r == "*" {
			t.Error("PGN holds an unfinished game")
		}
	}
	if time.Since(start) > 30*time.Second {
		t.Errorf("stopping took too long: %v", time.Since(start))
	}
}

// Engines that answer well within their time never lose on time, and the
// clocks sent to them run down and get their increments.
func TestClockGame(t *testing.T) {
	cfg := fakeConfig(t, 2, "tc=5+1 timemargin=200", "-delay=30ms")
	cfg.MaxMoves = 6
	var log syncBuffer
	sum, err := Run(context.Background(), cfg, Output{Log: &log, Debug: true})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Draws != 2 || sum.Terminations["Draw by adjudication: maximum number of moves"] != 2 {
		t.Errorf("W/D/L %d/%d/%d, terminations %v\n%s", sum.Wins, sum.Draws, sum.Losses, sum.Terminations, log.String())
	}
	for _, f := range sum.Faults {
		if *f != (FaultCounts{}) {
			t.Errorf("faults %+v", *f)
		}
	}
	// bad (delay 30 ms) is Black in game 1: its clock after its first move
	// is 5000 ms - the time it took + 1000 ms, so the second go it gets shows
	// btime in (5000, 6000) unless that move took over a second.
	var btimes []int
	for _, line := range strings.Split(log.String(), "\n") {
		if !strings.HasPrefix(line, "bad > go ") {
			continue
		}
		f := strings.Fields(line)
		for i := range f {
			if f[i] == "btime" && i+1 < len(f) {
				n, _ := strconv.Atoi(f[i+1])
				btimes = append(btimes, n)
			}
		}
	}
	if len(btimes) < 2 || btimes[0] != 5000 || btimes[1] <= 5000 || btimes[1] >= 6000 {
		t.Errorf("btime sent to the slow engine: %v", btimes)
	}
}
