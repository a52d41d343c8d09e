package match

import (
	"os"
	"strings"
	"testing"
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
