package search

import (
	"context"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/eval"
)

// zeroEval is an evaluator that knows nothing: every position scores 0.
// With it, whatever progress a search makes in an endgame comes from the
// search's own endgame knowledge.
type zeroEval struct{}

func (zeroEval) Reset(*board.Position)        {}
func (zeroEval) Push(*board.Delta)            {}
func (zeroEval) Pop()                         {}
func (zeroEval) Evaluate(*board.Position) int { return 0 }

// selfPlay plays fen out with s on both sides at nodes a move and returns
// the final position: checkmate, stalemate, the fifty-move rule,
// insufficient material, a position seen three times, or maxPlies played.
func selfPlay(t *testing.T, s *Searcher, fen string, nodes uint64, maxPlies int) *board.Position {
	t.Helper()
	p := mustFEN(t, fen)
	s.Clear()
	s.TT().Clear()
	seen := map[uint64]int{}
	for ply := 0; ply < maxPlies; ply++ {
		var ml board.MoveList
		p.GenerateLegal(&ml)
		if ml.N == 0 || p.HalfmoveClock() >= 100 || p.InsufficientMaterial() {
			return p
		}
		if seen[p.Key()]++; seen[p.Key()] == 3 {
			return p
		}
		r := s.Search(context.Background(), p, Limits{Nodes: nodes}, nil)
		if !p.IsLegal(r.Best) {
			t.Fatalf("%s: search returned %v, not a legal move", p.FEN(), r.Best)
		}
		p.MakeMove(r.Best)
	}
	return p
}

func checkmated(p *board.Position) bool {
	var ml board.MoveList
	p.GenerateLegal(&ml)
	return ml.N == 0 && p.InCheck()
}

// TestEndgameSelfPlayMates: with an evaluator that scores every position
// 0, a search of 10,000 nodes a move, playing both sides, mates
// from won pawnless endgames before the fifty-move rule, the stronger side
// winning. The positions are from bench/endgames/basic.epd (won for the
// side to move; dtz is the Syzygy tables' distance to zeroing in plies),
// the longest of their kind. Without the endgame knowledge the same search
// does not mate KBNvK: the test measures the knowledge, not luck.
func TestEndgameSelfPlayMates(t *testing.T) {
	const nodes = 10000
	tt, err := NewTT(16)
	if err != nil {
		t.Fatal(err)
	}
	s := New(zeroEval{}, tt)
	for _, tc := range []struct{ name, fen string }{
		{"KQvK dtz 17", "8/7K/4Q3/1k6/8/8/8/8 w - - 0 1"},
		{"KRvK dtz 27", "8/8/8/8/5k2/7R/8/4K3 w - - 0 1"},
		{"KRvK dtz 25, Black", "1k6/8/8/1r6/7K/8/8/8 b - - 0 1"},
		{"KRNvK dtz 15", "3K4/8/8/1k6/8/7N/8/4R3 w - - 0 1"},
		{"KRBvK dtz 15, Black", "4K3/2b5/8/8/8/8/5r2/4k3 b - - 0 1"},
		{"KBBvK dtz 28", "8/8/B7/B5k1/8/8/2K5/8 w - - 0 1"},
		{"KBNvK dtz 56", "B7/7K/8/2k5/8/8/8/5N2 w - - 0 1"},
		{"KBNvK dtz 46, Black", "4n2K/1b6/3k4/8/8/8/8/8 b - - 0 1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			winner := mustFEN(t, tc.fen).SideToMove()
			end := selfPlay(t, s, tc.fen, nodes, 200)
			if !checkmated(end) || end.SideToMove() == winner {
				t.Errorf("game ended in %s (halfmove clock %d), not a mate by %s", end.FEN(), end.HalfmoveClock(), winner)
			}
		})
	}
	t.Run("KBNvK without the knowledge", func(t *testing.T) {
		s.SetEndgameKnowledge(false)
		defer s.SetEndgameKnowledge(true)
		if end := selfPlay(t, s, "B7/7K/8/2k5/8/8/8/5N2 w - - 0 1", nodes, 200); checkmated(end) {
			t.Errorf("mated in %s without the endgame knowledge: the test above does not show it is needed", end.FEN())
		}
	})
}

// TestEndgameEvalUntouched: where eval.Endgame knows nothing (every
// position with pawns among them) the search's evaluation is the
// evaluator's, the same with the knowledge on and off; where it knows a
// score, the evaluation is that score.
func TestEndgameEvalUntouched(t *testing.T) {
	tt, err := NewTT(1)
	if err != nil {
		t.Fatal(err)
	}
	on, off := New(eval.NewPeSTO(), tt), New(eval.NewPeSTO(), tt)
	off.SetEndgameKnowledge(false)
	fens := readFENs(t, 3000)
	fens = append(fens,
		"r7/8/8/4k3/8/8/8/KR6 w - - 0 1",      // KRvKR
		"8/8/8/4k3/8/8/P7/KR6 w - - 0 1",      // KRPvK
		"8/8/8/4k3/8/8/8/KQ6 w - - 0 1",       // KQvK
		"8/8/8/4k3/8/8/8/KNN5 b - - 30 60",    // KNNvK
		"1r6/8/8/4k3/8/8/8/KRB5 w - - 20 50",  // KRBvKR
		"r7/8/8/4k3/8/8/8/KQ6 w - - 40 70",    // KQvKR
		"8/8/8/4k3/8/8/8/KBB5 w - - 0 1",      // KBBvK, both colours
		"8/8/8/4k3/8/8/8/KB1B4 w - - 0 1",     // KBBvK, one colour
		"7k/5Q2/6K1/8/8/8/8/8 b - - 12 40",    // stalemate
		"4k3/8/8/8/8/8/8/R3K3 w Q - 0 1",      // KRvK with castling rights
		"8/8/8/8/8/2k5/8/K1q5 w - - 0 1",      // KQvK, the bare king to move
		"n7/8/8/4k3/8/8/8/KQ6 w - - 0 1",      // KQvKN
		"8/8/8/4k3/8/8/8/KRN5 w - - 99 1",     // KRNvK at the fifty-move limit
		"8/8/4k3/8/8/3K4/8/2q5 w - - 0 1",     // KvKQ
		"8/8/4k3/8/8/3K4/8/2q1r3 w - - 0 1",   // KvKQR
		"8/8/4k3/8/8/3K4/6N1/2q1r3 w - - 0 1", // KNvKQR
	)
	known, guided, unknown := 0, 0, 0
	for _, fen := range fens {
		p := mustFEN(t, fen)
		on.pos, off.pos = p, p
		on.ev.Reset(p)
		off.ev.Reset(p)
		v, kind := eval.Endgame(p)
		got, plain := on.evaluate(), off.evaluate()
		scaled := func(x int) int { return x * (200 - p.HalfmoveClock()) / 200 }
		switch kind {
		case eval.NotKnown:
			unknown++
			if got != plain {
				t.Errorf("%s: evaluation %d with the endgame knowledge, %d without, where it knows nothing", fen, got, plain)
			}
		case eval.KnownScore:
			known++
			if got != v {
				t.Errorf("%s: evaluation %d, want the known score %d", fen, got, v)
			}
		case eval.Guided:
			guided++
			if want := scaled(v + on.ev.Evaluate(p)); got != want {
				t.Errorf("%s: evaluation %d, want (the evaluator's + %d) scaled = %d", fen, got, v, want)
			}
		}
		if p.ByType(board.Pawn) != 0 && kind != eval.NotKnown {
			t.Errorf("%s: a position with pawns is known (%d)", fen, kind)
		}
	}
	if known < 10 || guided < 1 || unknown < 2900 {
		t.Errorf("known %d, guided %d, unknown %d: the positions do not cover every kind", known, guided, unknown)
	}
}

// TestFewPieces: which positions the search plays as basic endgames,
// whose nodes there are the defender's, and which are rook and bishop
// against rook (whose defender's moves are pruned as usual).
func TestFewPieces(t *testing.T) {
	for _, tc := range []struct {
		name, fen           string
		few, defending, krb bool
	}{
		{"start position", board.StartFEN, false, false, false},
		{"KQvKR, queen to move", "r7/8/8/4k3/8/8/8/1Q5K w - - 0 1", true, false, false},
		{"KQvKR, rook to move", "r7/8/8/4k3/8/8/8/1Q5K b - - 0 1", true, true, false},
		{"KRBvKR, rook to move", "1r6/8/8/4k3/8/8/8/KRB5 b - - 0 1", true, true, true},
		{"KRBvKR, rook and bishop to move", "1r6/8/8/4k3/8/8/8/KRB5 w - - 0 1", true, false, true},
		{"KRvKRB, Black stronger", "1rb5/8/8/4k3/8/8/8/KR6 w - - 0 1", true, true, true},
		{"KRNvKR: a knight, not a bishop", "1r6/8/8/4k3/8/8/8/KRN5 b - - 0 1", true, true, false},
		{"KRRvKB: both rooks on one side", "1b6/8/8/4k3/8/8/8/KRR5 b - - 0 1", true, true, false},
		{"KRvKR: no defender", "1r6/8/8/4k3/8/8/8/K1R5 b - - 0 1", true, false, false},
		{"KvKQ, bare king to move", "8/8/4k3/8/8/3K4/8/2q5 w - - 0 1", true, true, false},
		{"KRPvKR: a pawn (not counted: defending is asked only without pawns)", "r7/8/8/4k3/8/8/P7/KR6 b - - 0 1", false, false, false},
		{"KRBvKRN: six pieces", "1rn5/8/8/4k3/8/8/8/KRB5 b - - 0 1", false, false, false},
	} {
		p := mustFEN(t, tc.fen)
		if got := fewPieces(p); got != tc.few {
			t.Errorf("%s (%s): fewPieces %v, want %v", tc.name, tc.fen, got, tc.few)
		}
		if got := defending(p); got != tc.defending {
			t.Errorf("%s (%s): defending %v, want %v", tc.name, tc.fen, got, tc.defending)
		}
		if got := rookBishopRook(p); got != tc.krb {
			t.Errorf("%s (%s): rookBishopRook %v, want %v", tc.name, tc.fen, got, tc.krb)
		}
	}
}

// TestFewPiecesDesperado: in a basic endgame the quiescence search sees
// the defender's desperado. Rook and bishop against rook, the bishop on
// e4 guarded by the king on f5, which also guards the rook on g6 that the
// defending king attacks: Black's Rxe4 loses the exchange by SEE, but
// Kxe4 Kxg6 leaves two bare kings and anything else a rook each, a draw
// either way. With an evaluator that scores 0 the stand-pat is the
// mop-up term, about -200 for Black; the quiescence search must find the
// draw (0), which it did not when it pruned captures by SEE here (a
// game against Stockfish lost its bishop this way: bench/endgames,
// KRBvKR w 4).
func TestFewPiecesDesperado(t *testing.T) {
	tt, err := NewTT(1)
	if err != nil {
		t.Fatal(err)
	}
	s := New(zeroEval{}, tt)
	for _, tc := range []struct {
		name, fen string
		least     int // the side to move's least quiescence score
	}{
		{"desperado Rxe4, Black to move", "8/7k/6R1/5K2/r3B3/8/8/8 b - - 0 1", 0},
	} {
		p := mustFEN(t, tc.fen)
		s.pos = p
		s.ev.Reset(p)
		s.resetStack()
		s.stopped = false
		stand := s.evaluate()
		if stand >= tc.least {
			t.Fatalf("%s: the stand-pat %d already reaches %d: the position does not test the desperado", tc.name, stand, tc.least)
		}
		if v := s.qsearch(-Infinity, Infinity, 0); v < tc.least {
			t.Errorf("%s (%s): quiescence score %d, want at least %d (stand-pat %d)", tc.name, tc.fen, v, tc.least, stand)
		}
	}
}
