package match

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
)

// FuzzReadPGN: the PGN reader never panics, returns games whose move,
// comment and line lists agree, and reads the PGN of its own output back
// (the games a resumed match counts).
func FuzzReadPGN(f *testing.F) {
	for _, s := range []string{
		"[Event \"x\"]\n[Round \"1\"]\n\n1. e4 {+0.10/12 0.5s} 1... e5 {-0.1/11 0.4s} {White mates} 1-0\n",
		"1. e4 (1. d4 d5) e5 $1 ; comment\n2. Nf3 *",
		"% escape\n[FEN \"8/8/8/8/8/8/8/K6k w - - 0 1\"]\n1-0",
		"{never closed",
		"[Bad tag\n",
		"1. e4 ) e5",
		"12.e4 {a} {b} {c} 0-1 [Event \"y\"] 1... Nf6 1/2-1/2",
	} {
		f.Add(s)
	}
	if data, err := os.ReadFile("testdata/openings.epd"); err == nil {
		f.Add(string(data))
	}
	f.Fuzz(func(t *testing.T, s string) {
		games, err := readPGN(strings.NewReader(s), "fuzz.pgn")
		// A game's offsets (a resume rewrites the file from them) hold
		// its text up to its result token, with or without an error.
		for _, g := range games {
			if g.ended == "" {
				continue
			}
			if g.start < 0 || g.start >= g.end || g.end > int64(len(s)) || s[g.end-int64(len(g.ended)):g.end] != g.ended {
				t.Fatalf("game at line %d: bytes %d..%d of %d do not end with its result %q", g.line, g.start, g.end, len(s), g.ended)
			}
		}
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.pgn:") {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		for _, g := range games {
			if len(g.moves) != len(g.comments) || len(g.moves) != len(g.lines) {
				t.Fatalf("game at line %d: %d moves, %d comments, %d lines", g.line, len(g.moves), len(g.comments), len(g.lines))
			}
			if g.tags == nil {
				t.Fatalf("game at line %d has no tag map", g.line)
			}
		}
	})
}

// FuzzParseTimeControl: a clock either parses to one that its own String
// parses back to, or is an error; never a panic.
func FuzzParseTimeControl(f *testing.F) {
	for _, s := range []string{"10+0.1", "40/60", "1:00+1", "inf", "0+0.01", "40/1:30+0.5", "+", "/", "1e309", "-1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tc, err := ParseTimeControl(s)
		if err != nil {
			return
		}
		back, err := ParseTimeControl(tc.String())
		if err != nil {
			t.Fatalf("%q parsed to %+v, whose String %q does not parse: %v", s, tc, tc.String(), err)
		}
		if back != tc {
			t.Fatalf("%q: %+v, but its String %q parses to %+v", s, tc, tc.String(), back)
		}
	})
}

// FuzzReadClockUse: rebuilding the clocks of any PGN never panics; an
// error names the file, and every move read has a time of zero or more
// (a negative one is refused, not credited to the clock).
func FuzzReadClockUse(f *testing.F) {
	for _, s := range []string{
		"[White \"x\"]\n[Black \"y\"]\n[TimeControl \"10+0.1\"]\n\n1. e4 {+0.30/12 1.000s} e5 {-0.20/11 0.500s} 1-0\n",
		"[TimeControl \"40/60\"]\n[FEN \"8/8/8/8/8/8/8/K6k b - - 0 1\"]\n\n1... Kh2 {book} 2. Kb1 {0.1s} *\n",
		"[TimeControl \"1+0.01\"]\n\n1. e4 {-M1/239 -0.001s} 1-0\n",
		"[TimeControl \"-\"]\n\n1. e4 {0.1s} 1-0\n",
		"[TimeControl \"5+0.05\"]\n\n1. e4 {no time} 1-0\n",
		"[TimeControl \"5+0.05\"]\n[Termination \"time forfeit\"]\n\n1. e4 {9.000s} e5 {0.1s} 0-1\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		cs, err := ReadClockUse(strings.NewReader(s), "fuzz.pgn")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "fuzz.pgn") {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		for _, c := range cs {
			for _, m := range c.Moves {
				if m.Used < 0 || m.Move < 1 {
					t.Fatalf("game %d, %s: move %+v", c.Game, c.Player, m)
				}
				_ = m.Share()
			}
		}
	})
}

// fuzzResumeConfig is a 4-game match from the start position between
// engines named a and b at 10 nodes a move, resumed from path.
func fuzzResumeConfig(path string) (*Config, [2]string) {
	cfg := &Config{
		Engines: []EngineConfig{{Cmd: "a", Name: "a", Limits: Limits{Nodes: 10}}, {Cmd: "b", Name: "b", Limits: Limits{Nodes: 10}}},
		Games:   4, PGNOut: path, Resume: true,
	}
	if err := cfg.normalize(); err != nil {
		panic(err)
	}
	return cfg, [2]string{"a", "b"}
}

// fuzzResumeSeed is the PGN text of a game of fuzzResumeConfig's match:
// game n (odd: a has White) of the moves given, ending as the rules say.
func fuzzResumeSeed(n int, sans ...string) string {
	p := board.StartPosition()
	g := &gameRecord{number: n, aWhite: n%2 == 1, white: "a", black: "b", startFEN: board.StartFEN, fullmove: 1,
		timeControl: "-", searchLimit: "nodes=10", termination: termNormal}
	if n%2 == 0 {
		g.white, g.black = "b", "a"
	}
	for _, s := range sans {
		m, err := p.ParseSAN(s)
		if err != nil {
			panic(err)
		}
		g.moves = append(g.moves, playedMove{san: p.SAN(m), comment: "+0.00/1 0.001s"})
		p.MakeMove(m)
	}
	r, reason, over := judge(p)
	if !over {
		g.termination, r, reason = termAdjudication, draw, "Draw by adjudication"
	}
	g.result, g.reason = r, reason
	return g.pgn("nnuelab match", "fuzz")
}

// FuzzResumeGames: whatever an interrupted run left in the PGN file, a
// resume never panics; it refuses the file (an error naming it) or keeps
// some games, and the text it leaves for the next run (the file rewritten
// to the kept games) resumes to the same games with nothing dropped and
// nothing to rewrite.
func FuzzResumeGames(f *testing.F) {
	fool := fuzzResumeSeed(1, "f3", "e5", "g4", "Qh4#")
	adj := fuzzResumeSeed(2, "e4", "e5", "Nf3", "Nc6")
	for _, s := range []string{fool + adj, fool + adj[:len(adj)/2], fool[:len(fool)-12] + adj, adj + fool, fool + fool,
		strings.Replace(fool, `[Result "0-1"]`, `[Result "1-0"]`, 1), "[Event \"nnuelab match\"]\n[Ro"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		path := filepath.Join(t.TempDir(), "g.pgn")
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		cfg, names := fuzzResumeConfig(path)
		ops := []opening{{fen: board.StartFEN}}
		res, err := resumeGames(cfg, names, ops)
		if err != nil {
			if !strings.Contains(err.Error(), path) {
				t.Errorf("error %q does not name the file", err)
			}
			return
		}
		if err := res.write(path); err != nil {
			t.Fatal(err)
		}
		again, err := resumeGames(cfg, names, ops)
		if err != nil {
			t.Fatalf("the rewritten file is refused: %v", err)
		}
		if len(again.dropped) > 0 || again.keep != nil || len(again.done) != len(res.done) {
			t.Fatalf("the rewritten file resumes to %d games (first %d), dropping %q, rewriting: %v", len(again.done), len(res.done), again.dropped, again.keep != nil)
		}
		for n, g := range res.done {
			if h := again.done[n]; h == nil || h.result != g.result || h.termination != g.termination {
				t.Fatalf("game %d: %+v, then %+v", n, g, h)
			}
		}
	})
}
