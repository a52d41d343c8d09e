package search

import (
	"errors"
	"testing"

	"github.com/nnuelab/nnuelab/engine/syzygy"
)

// tbDir is engine/syzygy's test data: the 3-4 piece tables and KRBvKR.
const tbDir = "../syzygy/testdata/tables"

func openTestTables(t *testing.T) *syzygy.Tables {
	t.Helper()
	tb, err := syzygy.Open(tbDir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tb.Close() })
	return tb
}

// TestTablesConvert: with the tables and an evaluator that knows nothing
// (every position 0, endgame knowledge off), a search of 300 nodes a move
// playing both sides converts the longest wins of bench/endgames/basic.epd
// (KRBvKR with distances to zeroing of 41-71 plies, KQvKR, KBNvK) by mate,
// the defender holding out as long as the tables allow; without the
// tables the same searches draw them.
func TestTablesConvert(t *testing.T) {
	fens := []string{
		"1Kb3R1/8/2k5/8/8/8/8/7r b - - 0 1",  // KRBvKR, dtz 71
		"K7/8/8/2k5/8/8/7R/1rb5 b - - 0 1",   // KRBvKR, dtz 69
		"6R1/8/8/4K2k/2r5/8/8/7B w - - 0 1",  // KRBvKR, dtz 41: drawn by repetition once
		"8/8/8/8/2K5/3R3q/8/1k6 b - - 0 1",   // KQvKR, dtz 51
		"B7/7K/8/2k5/8/8/8/5N2 w - - 0 1",    // KBNvK, dtz 56
		"4K1B1/8/8/8/7k/7N/8/8 w - - 0 1",    // KBNvK, dtz 56
		"8/8/1k6/8/8/8/4K3/3B1N2 w - - 50 1", // KBNvK, dtz 46, little of the fifty moves left
		"5B2/5R2/k7/3K4/r7/8/8/8 w - - 60 1", // KRBvKR, dtz 35, the same
	}
	tb := openTestTables(t)
	withTables, without := 0, 0
	for _, fen := range fens {
		for _, tables := range []bool{true, false} {
			tt, _ := NewTT(1)
			s := New(zeroEval{}, tt)
			s.SetEndgameKnowledge(false)
			if tables {
				s.SetTablebase(TBConfig{Tables: Syzygy(tb), ProbeDepth: 1, Rule50: true,
					Warn: func(err error) { t.Errorf("%s: %v", fen, err) }})
			}
			start := mustFEN(t, fen)
			end := selfPlay(t, s, fen, 300, 400)
			won := checkmated(end) && end.SideToMove() != start.SideToMove()
			if tables {
				if !won {
					t.Errorf("%s: with tables ended in %s (clock %d), not mated", fen, end.FEN(), end.HalfmoveClock())
				} else {
					withTables++
				}
			} else if won {
				without++
			}
		}
	}
	t.Logf("converted with tables %d of %d, without %d", withTables, len(fens), without)
	if without == len(fens) {
		t.Errorf("without tables every position was converted too: the test measures nothing")
	}
}

// TestTBScores: a table win or loss scores between every evaluation and
// every mate, nearer wins higher; with the fifty-move rule the spoiled
// results are draws that lean the tables' way.
func TestTBScores(t *testing.T) {
	c := TBConfig{Rule50: true}
	for _, tc := range []struct {
		wdl, ply int
		v        int
		b        Bound
	}{
		{2, 3, TBWin - 3, BoundLower},
		{-2, 3, -TBWin + 3, BoundUpper},
		{1, 3, 1, BoundExact},
		{-1, 3, -1, BoundExact},
		{0, 3, 0, BoundExact},
	} {
		v, b := c.tbScore(tc.wdl, tc.ply)
		if v != tc.v || b != tc.b {
			t.Errorf("tbScore(%d, %d) = %d %v, want %d %v", tc.wdl, tc.ply, v, b, tc.v, tc.b)
		}
	}
	if v, _ := (&TBConfig{}).tbScore(1, 3); v != TBWin-3 {
		t.Errorf("a cursed win without the fifty-move rule scores %d, want %d", v, TBWin-3)
	}
	for _, ply := range []int{0, 7, 40} {
		if got := scoreFromTT(scoreToTT(TBWin-ply-5, ply), ply); got != TBWin-ply-5 {
			t.Errorf("a table win through the TT at ply %d: %d", ply, got)
		}
	}
}

// TestSyzygyAdapter: a position the tables cannot hold (castling rights,
// missing material) is ErrNoTable, which search passes over silently.
func TestSyzygyAdapter(t *testing.T) {
	tb := Syzygy(openTestTables(t))
	for _, fen := range []string{"4k3/8/8/8/8/8/8/R3K3 w Q - 0 1", "4k3/8/8/8/8/8/8/QQ2K2r w - - 0 1"} {
		if _, err := tb.ProbeWDL(mustFEN(t, fen)); !errors.Is(err, ErrNoTable) {
			t.Errorf("%s: %v, want ErrNoTable", fen, err)
		}
	}
	if w, err := tb.ProbeWDL(mustFEN(t, "8/8/8/4k3/8/8/8/R3K3 w - - 0 1")); err != nil || w != 2 {
		t.Errorf("KRvK: %d %v, want 2", w, err)
	}
}
