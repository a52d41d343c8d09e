package match

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/bench/stats"
)

// splitGames cuts PGN text into its games, each from its Event tag.
func splitGames(t *testing.T, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	parts := strings.SplitAfter(string(data), "\n\n[Event ")
	var games []string
	for i, p := range parts {
		if i > 0 {
			p = "[Event " + p
		}
		games = append(games, strings.TrimSuffix(p, "[Event "))
	}
	return games
}

var finishedRE = regexp.MustCompile(`Finished game (\d+) `)

// finishedGames lists the game numbers a log reports as finished.
func finishedGames(log string) []string {
	var n []string
	for _, m := range finishedRE.FindAllStringSubmatch(log, -1) {
		n = append(n, m[1])
	}
	return n
}

// resumeConfig is an 8-game match of two deterministic fake engines from
// a random order of the test book, so that every pair has its own opening
// and the same games give the same results.
func resumeConfig(t *testing.T, pgn string) Config {
	cfg := fakeConfig(t, 8, "nodes=10")
	cfg.Openings = OpeningsConfig{File: "testdata/openings.epd", Order: "random"}
	cfg.Seed = 3
	cfg.PGNOut = pgn
	return cfg
}

// TestResume: a match resumed from a PGN holding some of its games (not a
// prefix: game 4 missing, as concurrent games leave it) plays exactly the
// missing games, and its summary and PGN are those of the match played in
// one go; a finished match resumed plays nothing.
func TestResume(t *testing.T) {
	dir := t.TempDir()
	whole := resumeConfig(t, filepath.Join(dir, "whole.pgn"))
	want, err := Run(context.Background(), whole, Output{Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	games := splitGames(t, whole.PGNOut)
	if len(games) != 8 {
		t.Fatalf("%d games in the PGN, want 8", len(games))
	}
	part := filepath.Join(dir, "part.pgn")
	keep := games[0] + games[1] + games[2] + games[4]
	if err := os.WriteFile(part, []byte(keep), 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := resumeConfig(t, part)
	cfg.Resume = true
	var log syncBuffer
	got, err := Run(context.Background(), cfg, Output{Log: &log})
	if err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	if f := strings.Join(finishedGames(log.String()), " "); f != "4 6 7 8" {
		t.Errorf("the resumed run played games %q, want 4 6 7 8\n%s", f, log.String())
	}
	if !strings.Contains(log.String(), "Resumed 4 finished games") {
		t.Errorf("the log does not say what was resumed:\n%s", log.String())
	}
	if got.WDL() != want.WDL() || got.Penta != want.Penta || got.Games() != 8 || got.Planned != 8 {
		t.Errorf("resumed: %v %v of %d; in one go: %v %v", got.WDL(), got.Penta, got.Games(), want.WDL(), want.Penta)
	}
	if n := len(replayPGN(t, part)); n != 8 {
		t.Errorf("the resumed PGN holds %d games, want 8", n)
	}
	// Every game of the resumed file is the game of the same number played
	// in one go (same opening, same moves).
	again := splitGames(t, part)
	moves := func(g string) string {
		i := strings.Index(g, "\n\n")
		round := regexp.MustCompile(`\[Round "(\d+)"\]`).FindStringSubmatch(g)
		// Without the times (and the line breaks their lengths move).
		text := regexp.MustCompile(`\{[^}]*s\}`).ReplaceAllString(g[i:], "")
		return round[1] + "|" + strings.Join(strings.Fields(text), " ")
	}
	byRound := map[string]bool{}
	for _, g := range games {
		byRound[moves(g)] = true
	}
	for _, g := range again {
		if !byRound[moves(g)] {
			t.Errorf("a resumed game differs from the one played in one go:\n%s", g)
		}
	}

	log = syncBuffer{}
	fin, err := Run(context.Background(), cfg, Output{Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if f := finishedGames(log.String()); len(f) != 0 || fin.Games() != 8 || fin.WDL() != want.WDL() {
		t.Errorf("resuming a finished match played %v and counts %d games", f, fin.Games())
	}
}

// TestResumeRefuses: games that are not this match's are an error naming
// the file, not games counted (games of this match whose record does not
// hold together are dropped and played again: TestResumeInconsistentGame).
func TestResumeRefuses(t *testing.T) {
	dir := t.TempDir()
	whole := resumeConfig(t, filepath.Join(dir, "whole.pgn"))
	if _, err := Run(context.Background(), whole, Output{Quiet: true}); err != nil {
		t.Fatal(err)
	}
	games := splitGames(t, whole.PGNOut)
	for _, tc := range []struct {
		name string
		text string
		edit func(*Config)
		want string
	}{
		{"another event", games[0], func(c *Config) { c.Event = "other" }, "of event"},
		{"another opening order", games[0] + games[1] + games[2] + games[3], func(c *Config) { c.Seed = 4 }, "opening"},
		{"engines swapped", strings.NewReplacer(`[White "good"]`, `[White "bad"]`, `[Black "bad"]`, `[Black "good"]`).Replace(games[0]), nil, "this match plays it"},
		{"a game twice", games[0] + games[0], nil, "twice"},
		{"beyond the schedule", strings.Replace(games[0], `[Round "1"]`, `[Round "9"]`, 1), nil, "Round"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "g.pgn")
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := resumeConfig(t, path)
			cfg.Resume = true
			if tc.edit != nil {
				tc.edit(&cfg)
			}
			_, err := Run(context.Background(), cfg, Output{Quiet: true})
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("err %v, want one naming %s and saying %q", err, path, tc.want)
			}
		})
	}
	cfg := resumeConfig(t, "")
	cfg.Resume = true
	if _, err := Run(context.Background(), cfg, Output{Quiet: true}); err == nil || !strings.Contains(err.Error(), "-pgnout") {
		t.Errorf("-resume without -pgnout: %v", err)
	}
}

// TestResumeFaultsAndSPRT: the faults of resumed games are charged again
// to the engine at fault, and a match whose resumed games already decide
// its SPRT plays nothing more.
func TestResumeFaultsAndSPRT(t *testing.T) {
	cfg := fakeConfig(t, 2, "nodes=100", "-mode=illegal", "-after=4")
	if _, err := Run(context.Background(), cfg, Output{Quiet: true}); err != nil {
		t.Fatal(err)
	}
	cfg.Rounds = 2
	cfg.Resume = true
	var log syncBuffer
	sum, err := Run(context.Background(), cfg, Output{Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if f := strings.Join(finishedGames(log.String()), " "); f != "3 4" {
		t.Errorf("played games %q, want 3 4", f)
	}
	if sum.Faults["bad"].IllegalMoves != 4 || *sum.Faults["good"] != (FaultCounts{}) || sum.Wins != 4 {
		t.Errorf("faults bad %+v, good %+v, wins %d; want 4 illegal moves of bad, 4 wins", *sum.Faults["bad"], *sum.Faults["good"], sum.Wins)
	}

	sprt := fakeConfig(t, 200, "nodes=10", "-mode=illegal", "-after=1")
	sprt.SPRT = &stats.SPRT{Elo0: 0, Elo1: 50, Alpha: 0.05, Beta: 0.05, Model: stats.Logistic}
	first, err := Run(context.Background(), sprt, Output{Quiet: true})
	if err != nil || first.Decision != stats.AcceptH1 {
		t.Fatalf("first run: %v, %v", first.Decision, err)
	}
	sprt.Resume = true
	log = syncBuffer{}
	again, err := Run(context.Background(), sprt, Output{Log: &log})
	if err != nil {
		t.Fatal(err)
	}
	if again.Decision != stats.AcceptH1 || again.Games() != first.Games() || len(finishedGames(log.String())) != 0 {
		t.Errorf("resumed decided SPRT: %v after %d games (first %d), played %v", again.Decision, again.Games(), first.Games(), finishedGames(log.String()))
	}
}
