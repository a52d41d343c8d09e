package match

import (
	"strings"
	"testing"
	"time"
)

func TestReadClockUse(t *testing.T) {
	pgn := `[White "a"]
[Black "b"]
[Result "0-1"]
[TimeControl "10+0.1"]
[Termination "time forfeit"]

1. e4 {book} e5 {book} 2. Nf3 {+0.30/12 1.000s} Nc6 {-0.20/11 2.500s} 3. Bb5
{-M3/20 0.400s} a6 {3.000s} 0-1

[White "b"]
[Black "a"]
[Result "1/2-1/2"]
[FEN "8/8/8/8/8/8/k7/K7 b - - 0 1"]
[TimeControl "2/1"]

1... Kb3 {0.600s} 2. Kb1 {0.300s} Ka3 {0.500s} 1/2-1/2
`
	got, err := ReadClockUse(strings.NewReader(pgn), "t.pgn")
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 4 {
		t.Fatalf("%d clocks, want 4", len(got))
	}
	ms := func(x float64) time.Duration { return time.Duration(x * float64(time.Second)) }
	a, b := got[0], got[1]
	if a.Player != "a" || len(a.Moves) != 2 || a.Moves[0].Before != ms(10) || a.Moves[1].Before != ms(9.1) || a.Left != ms(8.8) {
		t.Errorf("white of game 1: %+v", a)
	}
	// Black moved last, so White was to move and forfeited.
	if !a.Forfeit || b.Forfeit {
		t.Errorf("forfeits: white %v black %v", a.Forfeit, b.Forfeit)
	}
	// Depths: a plain score, a mate score, and a comment without one.
	if a.Moves[0].Depth != 12 || a.Moves[0].Mate || b.Moves[1].Depth != 0 {
		t.Errorf("depths: white's first %+v, black's second %+v", a.Moves[0], b.Moves[1])
	}
	if m := a.Moves[1]; m.Depth != 20 || !m.Mate {
		t.Errorf("white's mate score: %+v", m)
	}
	if b.Moves[1].Before != ms(7.6) || b.Moves[1].Share() != 3.0/7.6 {
		t.Errorf("black of game 1: %+v", b)
	}
	// Game 2: Black starts; 2 moves per 1 s period, no increment.
	w2, b2 := got[2], got[3]
	if len(b2.Moves) != 2 || b2.Moves[0].Before != ms(1) || b2.Moves[1].Before != ms(0.4) || b2.Left != ms(0.9) {
		t.Errorf("black of game 2 (periods): %+v", b2)
	}
	// What each move was told: the increment, and the moves to the control.
	if m := a.Moves[1]; m.Inc != ms(0.1) || m.ToGo != 0 {
		t.Errorf("white of game 1 (sudden death): %+v", m)
	}
	if b2.Moves[0].ToGo != 2 || b2.Moves[1].ToGo != 1 || b2.Moves[1].Inc != 0 {
		t.Errorf("black of game 2 (moves to go): %+v", b2.Moves)
	}
	if len(w2.Moves) != 1 || w2.Moves[0].Before != ms(1) {
		t.Errorf("white of game 2: %+v", w2)
	}
	for _, bad := range []string{
		"[White \"a\"]\n[Black \"b\"]\n\n1. e4 {0.1s} *\n",                             // no time control
		"[White \"a\"]\n[Black \"b\"]\n[TimeControl \"10+0.1\"]\n\n1. e4 {+0.1/3} *\n", // no time
		"[TimeControl \"10\"]\n\n1. e4 {0.1s *\n",                                      // open comment
	} {
		if _, err := ReadClockUse(strings.NewReader(bad), "bad.pgn"); err == nil || !strings.Contains(err.Error(), "bad.pgn") {
			t.Errorf("%q: %v", bad, err)
		}
	}
}
