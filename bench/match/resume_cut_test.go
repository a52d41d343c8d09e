package match

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// gameMoves is a game of a PGN text as its round and moves, without the
// times that differ from run to run, to compare games played twice.
func gameMoves(g string) string {
	i := strings.Index(g, "\n\n")
	round := regexp.MustCompile(`\[Round "(\d+)"\]`).FindStringSubmatch(g)
	text := regexp.MustCompile(`\{[^}]*s\}`).ReplaceAllString(g[i:], "")
	return round[1] + "|" + strings.Join(strings.Fields(text), " ")
}

// sameGames fails unless the PGN at path holds exactly the games of want
// (one per round, the same moves and results), each legal move by move.
func sameGames(t *testing.T, path string, want []string) {
	t.Helper()
	if n := len(replayPGN(t, path)); n != len(want) {
		t.Errorf("%s holds %d games, want %d", path, n, len(want))
	}
	var got, exp []string
	for _, g := range splitGames(t, path) {
		got = append(got, gameMoves(g))
	}
	for _, g := range want {
		exp = append(exp, gameMoves(g))
	}
	slices.Sort(got)
	slices.Sort(exp)
	if !slices.Equal(got, exp) {
		t.Errorf("%s: the games differ from the match played in one go:\n%s", path, strings.Join(got, "\n"))
	}
}

// TestResumeCutGame: a PGN whose last game was cut anywhere (in its tags,
// its moves, a comment, its result), as a full disk or a kill leaves it,
// resumes with the cut game dropped and played again (the log says so),
// never counted from its Result tag; the PGN is rewritten to the games
// kept before the new ones are appended, so that no game is glued onto
// the cut line. The same when a later game was already glued onto it. The
// summary and the PGN end as the match played in one go.
func TestResumeCutGame(t *testing.T) {
	dir := t.TempDir()
	whole := resumeConfig(t, filepath.Join(dir, "whole.pgn"))
	want, err := Run(context.Background(), whole, Output{Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	games := splitGames(t, whole.PGNOut)
	if len(games) != 8 {
		t.Fatalf("%d games, want 8", len(games))
	}
	g := games[3] // game 4
	header := strings.Index(g, "\n\n")
	resTok := strings.LastIndex(g, "1/2-1/2")
	if header < 0 || resTok < header {
		t.Fatalf("game 4 has no header or no draw token:\n%s", g)
	}
	comment := header + strings.Index(g[header:], "{") + 3
	reason := strings.LastIndex(g, "{") + 4
	cuts := []int{1, 9, 60, strings.Index(g, "[Round") + 8, strings.Index(g, "[Result") + 12, header, header + 1, header + 5,
		comment, (header + resTok) / 2, reason, resTok, resTok + 4, resTok + 7, resTok + 8}
	for _, cut := range cuts {
		for _, glued := range []bool{false, true} {
			name := fmt.Sprintf("cut at byte %d of %d", cut, len(g))
			if glued {
				name += ", game 5 glued on"
			}
			t.Run(name, func(t *testing.T) {
				complete := cut >= resTok+len("1/2-1/2")
				text := games[0] + games[1] + games[2] + g[:cut]
				if glued {
					text += games[4]
				}
				path := filepath.Join(t.TempDir(), "part.pgn")
				if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
				cfg := resumeConfig(t, path)
				cfg.Resume = true
				var log syncBuffer
				got, err := Run(context.Background(), cfg, Output{Log: &log})
				if err != nil {
					t.Fatalf("%v\n%s", err, log.String())
				}
				played := finishedGames(log.String())
				if !complete && !slices.Contains(played, "4") {
					t.Errorf("the cut game 4 was not played again (played %v)\n%s", played, log.String())
				}
				// What was dropped is named: the game once its Round tag is
				// whole, else its place in the file.
				roundWhole := cut >= strings.Index(g, `[Round "4"]`)+len(`[Round "4"]`)
				switch {
				case complete:
				case !strings.Contains(log.String(), "Dropped") || !strings.Contains(log.String(), path):
					t.Errorf("the log does not say what of %s was dropped:\n%s", path, log.String())
				case roundWhole && !glued && !strings.Contains(log.String(), "Dropped game 4 "):
					t.Errorf("the log does not say game 4 was dropped:\n%s", log.String())
				}
				if complete && strings.Contains(log.String(), "Dropped") {
					t.Errorf("a whole game was dropped:\n%s", log.String())
				}
				if complete && slices.Contains(played, "4") {
					t.Errorf("game 4, whole but for its blank lines, was played again")
				}
				if got.WDL() != want.WDL() || got.Penta != want.Penta || got.Games() != 8 {
					t.Errorf("resumed: %v %v of %d; in one go: %v %v", got.WDL(), got.Penta, got.Games(), want.WDL(), want.Penta)
				}
				sameGames(t, path, games)
			})
		}
	}
}

// TestResumeInconsistentGame: a game whose Result tag disagrees with its
// moves and termination (a drawn repetition tagged 1-0), whose moves are
// not legal, or whose Termination does not fit its final position, is
// dropped with a message naming it and played again: never counted from
// its tags.
func TestResumeInconsistentGame(t *testing.T) {
	dir := t.TempDir()
	whole := resumeConfig(t, filepath.Join(dir, "whole.pgn"))
	want, err := Run(context.Background(), whole, Output{Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	games := splitGames(t, whole.PGNOut)
	g1 := games[0] // a draw by repetition (Termination normal)
	if !strings.Contains(g1, "3-fold repetition") {
		t.Fatalf("game 1 is not the repetition the test edits:\n%s", g1)
	}
	for _, tc := range []struct{ name, game string }{
		{"Result tag 1-0", strings.Replace(g1, `[Result "1/2-1/2"]`, `[Result "1-0"]`, 1)},
		{"Result tag and token 0-1", strings.Replace(strings.Replace(g1, `[Result "1/2-1/2"]`, `[Result "0-1"]`, 1), "} 1/2-1/2\n", "} 0-1\n", 1)},
		{"an illegal move", strings.Replace(g1, "2. Qxh5", "2. Qxh6", 1)},
		{"a move missing", strings.Replace(strings.Replace(g1, " 1... Ke7 {+0.00/1 0.000s}", "", 1), `[PlyCount "16"]`, `[PlyCount "15"]`, 1)},
		{"Termination adjudication at a repetition", strings.Replace(g1, `[Termination "normal"]`, `[Termination "adjudication"]`, 1)},
		{"Result tag *", strings.Replace(g1, `[Result "`, `[Result "*" ][X "`, 1)},
		{"a fault without its side", strings.Replace(g1, `[Termination "normal"]`, `[Termination "time forfeit"]`, 1)},
		{"Termination time forfeit", strings.Replace(strings.Replace(g1, `[Termination "normal"]`, `[Termination "time forfeit"]`, 1), "{Draw by 3-fold repetition}", "{White loses on time}", 1)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.game == g1 {
				t.Fatal("the edit changed nothing")
			}
			path := filepath.Join(t.TempDir(), "part.pgn")
			if err := os.WriteFile(path, []byte(tc.game+games[1]), 0o644); err != nil {
				t.Fatal(err)
			}
			cfg := resumeConfig(t, path)
			cfg.Resume = true
			var log syncBuffer
			got, err := Run(context.Background(), cfg, Output{Log: &log})
			if err != nil {
				t.Fatalf("%v\n%s", err, log.String())
			}
			if !slices.Contains(finishedGames(log.String()), "1") {
				t.Errorf("game 1 was not played again\n%s", log.String())
			}
			if !strings.Contains(log.String(), "Dropped game 1") || !strings.Contains(log.String(), path) {
				t.Errorf("the log does not name the dropped game and the file:\n%s", log.String())
			}
			if got.WDL() != want.WDL() || got.Penta != want.Penta {
				t.Errorf("resumed: %v %v; in one go: %v %v", got.WDL(), got.Penta, want.WDL(), want.Penta)
			}
			sameGames(t, path, games)
		})
	}
}

// TestResumeOtherLimits: games played at another search limit or clock
// than this run's are another match: the resume is refused with an error
// naming the file, the game and both settings, and the file is left as it
// was.
func TestResumeOtherLimits(t *testing.T) {
	dir := t.TempDir()
	whole := resumeConfig(t, filepath.Join(dir, "whole.pgn"))
	if _, err := Run(context.Background(), whole, Output{Quiet: true}); err != nil {
		t.Fatal(err)
	}
	before, err := os.ReadFile(whole.PGNOut)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		edit  func(*Config)
		wants []string
	}{
		{"more nodes", func(c *Config) { c.Engines[0].Limits.Nodes, c.Engines[1].Limits.Nodes = 6000, 6000 }, []string{"nodes=10", "nodes=6000"}},
		{"one engine's nodes", func(c *Config) { c.Engines[1].Limits.Nodes = 20 }, []string{"nodes=10", "nodes=20"}},
		{"a depth added", func(c *Config) { c.Engines[0].Limits.Depth, c.Engines[1].Limits.Depth = 3, 3 }, []string{"nodes=10", "depth=3"}},
		{"a clock", func(c *Config) {
			tc, _ := ParseTimeControl("10+0.1")
			c.Engines[0].Limits.TC, c.Engines[1].Limits.TC = tc, tc
		}, []string{"TimeControl", "10+0.1"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := resumeConfig(t, whole.PGNOut)
			cfg.Resume = true
			tc.edit(&cfg)
			_, err := Run(context.Background(), cfg, Output{Quiet: true})
			if err == nil {
				t.Fatal("resumed games of another search limit")
			}
			for _, w := range append(tc.wants, whole.PGNOut, "game 1") {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not name %q", err, w)
				}
			}
			after, _ := os.ReadFile(whole.PGNOut)
			if string(after) != string(before) {
				t.Error("the refused resume changed the PGN")
			}
		})
	}
}
