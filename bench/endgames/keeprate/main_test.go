package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/syzygy"
)

const twoGames = `[Event "endgames"]
[Round "1"]
[FEN "5R2/3B4/r7/8/8/8/k7/2K5 w - - 0 1"]
[SetUp "1"]

1. Kc2 {+8.17/10 0.035s} 1... Ka1 {-0.76/11
0.107s} 2. Rf7 {+7.16/10} 1-0

[Event "endgames"]
[Round "2"]

1. e4 e5 2. Nf3 1/2-1/2
`

func TestReadGames(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		moves      []int // moves of each game
		fens       []string
		err        string // part of the error, "" for none
	}{
		{"two games", twoGames, []int{3, 3}, []string{"5R2/3B4/r7/8/8/8/k7/2K5 w - - 0 1", ""}, ""},
		{"empty", "", nil, nil, ""},
		{"no result", "[FEN \"8/8/8/8/8/8/8/K1k5 w - - 0 1\"]\n\n1. Kb1\n", nil, nil, ":1: game 1 has no result token"},
		{"open comment", "[Event \"x\"]\n\n1. e4 {oops\n", nil, nil, ":3: comment never closed"},
		{"open tag", "[Event \"x\"\n", nil, nil, ":1: tag pair not closed"},
		{"bad tag", "[Event x]\n", nil, nil, ":1: bad tag pair"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			games, err := readGames(tc.text, "g.pgn")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), "g.pgn"+tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(games) != len(tc.moves) {
				t.Fatalf("%d games, want %d", len(games), len(tc.moves))
			}
			for i, g := range games {
				if len(g.moves) != tc.moves[i] || g.fen != tc.fens[i] {
					t.Errorf("game %d: %d moves from %q, want %d from %q", i+1, len(g.moves), g.fen, tc.moves[i], tc.fens[i])
				}
			}
		})
	}
}

// FuzzReadGames: any text gives games or an error naming the file, never
// a panic.
func FuzzReadGames(f *testing.F) {
	f.Add(twoGames)
	f.Add("[Event \"x\"]\n\n1. e4 {\n")
	f.Fuzz(func(t *testing.T, text string) {
		games, err := readGames(text, "f.pgn")
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.pgn:") {
				t.Fatalf("error %q does not name the file", err)
			}
			return
		}
		for _, g := range games {
			if g.index < 1 || g.line < 1 {
				t.Fatalf("game %+v", g)
			}
		}
	})
}

const tables = "../../../engine/syzygy/testdata/tables"

// TestVerdict checks the tables' verdict on the moves of a position whose
// one winning move the fourth session found with its own program
// (docs/devlog/2026-11-29-syzygy.md: basic.epd KRBvKR w 2, 1 of 25 moves).
func TestVerdict(t *testing.T) {
	tb, err := syzygy.Open(tables)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	for _, tc := range []struct {
		fen    string
		rule50 bool
		won    bool
		keeps  []string
	}{
		{"5B2/5R2/k7/3K4/r7/8/8/8 w - - 0 1", false, true, []string{"f8c5"}},
		// DTZ 35: with the clock at 60 the win holds (Bc5 leaves DTZ 34
		// with the clock at 61), at 66 the rule has spoilt it, which the
		// counter taken as 0 does not see.
		{"5B2/5R2/k7/3K4/r7/8/8/8 w - - 60 1", true, true, []string{"f8c5"}},
		{"5B2/5R2/k7/3K4/r7/8/8/8 w - - 66 1", true, false, nil},
		{"5B2/5R2/k7/3K4/r7/8/8/8 w - - 66 1", false, true, []string{"f8c5"}},
	} {
		p, err := board.ParseFEN(tc.fen)
		if err != nil {
			t.Fatal(err)
		}
		ps, won, err := verdict(p, tb, tc.rule50)
		if err != nil {
			t.Fatal(err)
		}
		if won != tc.won {
			t.Fatalf("%s: won %v, want %v", tc.fen, won, tc.won)
		}
		var keeps []string
		for m, k := range ps.keep {
			if k {
				keeps = append(keeps, m)
			}
		}
		if strings.Join(keeps, " ") != strings.Join(tc.keeps, " ") {
			t.Errorf("%s: keeps %v, want %v", tc.fen, keeps, tc.keeps)
		}
	}
}

// TestCollectDefault: the default games hold the 549 won positions the
// fourth session's own program (not this one) counted.
func TestCollectDefault(t *testing.T) {
	tb, err := syzygy.Open(tables)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	var n int
	for _, f := range defaultGames {
		ps, err := collect(filepath.Join("../../..", f), tb, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if strong, ok := krbvkr(mustFEN(t, p.fen)); !ok || (strong == board.White) != strings.Contains(p.fen, " w ") {
				t.Fatalf("%s: %s is not KRBvKR with the stronger side to move", p.where, p.fen)
			}
		}
		n += len(ps)
	}
	if n != 549 {
		t.Errorf("%d positions, want 549", n)
	}
	if _, err := collect("no-such.pgn", tb, false); err == nil || !os.IsNotExist(err) {
		t.Errorf("a missing file: %v", err)
	}
}

// TestTrace: in 04d3ac9's game 108 (basic.epd KRBvKR b 4) the fourth
// session's own program (not this one) found the first drawing move at
// the stronger side's fifth move, Bd7, with 9 of 26 moves keeping the win.
func TestTrace(t *testing.T) {
	tb, err := syzygy.Open(tables)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	var out strings.Builder
	if err := traceGames(filepath.Join("../../..", defaultGames[0]), "nnuelab", tb, &out); err != nil {
		t.Fatal(err)
	}
	var summary string
	for _, block := range strings.Split(out.String(), "\n"+filepath.Join("../../..", defaultGames[0])) {
		if strings.Contains(block, "game 108 ") {
			summary = block
		}
	}
	if want := "first drawing move: ply 9 Bd7 (DTZ 25, clock 8, 9 of 26 moves keep the win)"; !strings.Contains(summary, want) {
		t.Errorf("game 108: want %q in\n%s", want, summary)
	}
	// Five of basic.epd's KRBvKR games were not converted by 04d3ac9.
	if n := strings.Count(out.String(), "first drawing move"); n != 5 {
		t.Errorf("%d games traced, want 5", n)
	}
}

func mustFEN(t *testing.T, fen string) *board.Position {
	p, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
