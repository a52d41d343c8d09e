package search

import (
	"math/rand/v2"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/eval"
)

// TestPickOrder holds pickBest to the plain selection it implements (each
// pick the first largest remaining score, swapped to the front) on random
// lists with many ties, starting as a scored stage does.
func TestPickOrder(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	var mp picker
	for i := 0; i < 20000; i++ {
		n := 1 + rng.IntN(60)
		ref := make([]int32, n)
		refMoves := make([]board.Move, n)
		for j := range ref {
			ref[j] = int32(rng.IntN(7) - 3)
			if rng.IntN(4) == 0 {
				ref[j] = rng.Int32() - 1<<30
			}
			refMoves[j] = board.Move(j + 1)
			mp.list.Moves[j], mp.scores[j] = refMoves[j], ref[j]
		}
		mp.list.N, mp.idx = n, 0
		first := 0
		for j, sc := range ref {
			if sc > ref[first] {
				first = j
			}
		}
		mp.known, mp.knownAt = first, 0
		for k := 0; k < n; k++ {
			best := k
			for j := k + 1; j < n; j++ {
				if ref[j] > ref[best] {
					best = j
				}
			}
			ref[k], ref[best] = ref[best], ref[k]
			refMoves[k], refMoves[best] = refMoves[best], refMoves[k]
			if got := mp.pickBest(); got != refMoves[k] {
				t.Fatalf("list %d (%d moves), pick %d: move %d, want %d", i, n, k, got, refMoves[k])
			}
		}
	}
}

// TestScoreQuiet checks that the picker's quiet scores are quietScore's,
// with random histories and continuation tables, and the first best it
// notes for the first pick.
func TestScoreQuiet(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	s := newSearcher(t)
	for i := range s.hist {
		for j := range s.hist[i] {
			for k := range s.hist[i][j] {
				s.hist[i][j][k] = int16(rng.IntN(2*histMax) - histMax)
			}
		}
	}
	for _, fen := range readFENs(t, 200) {
		p := mustFEN(t, fen)
		s.pos = p
		ply := 2 + rng.IntN(10)
		for back := 1; back <= 2; back++ {
			cont := &s.contHist[rng.IntN(13)][rng.IntN(64)]
			for pc := range cont {
				for sq := range cont[pc] {
					cont[pc][sq] = int16(rng.IntN(2*histMax) - histMax)
				}
			}
			s.stack[ply+stackOffset-back].cont = cont
		}
		mp := &s.pickers[ply][0]
		mp.init(s, ply, board.NullMove, false)
		p.GenerateQuiet(&mp.list)
		mp.scoreQuiet()
		for i, m := range mp.list.Slice() {
			if want := s.quietScore(ply, p.PieceOn(m.From()), m); int(mp.scores[i]) != want {
				t.Fatalf("%s: %s scored %d, quietScore %d", fen, p.UCI(m), mp.scores[i], want)
			}
		}
		first := 0
		for i := 0; i < mp.list.N; i++ {
			if mp.scores[i] > mp.scores[first] {
				first = i
			}
		}
		if mp.list.N > 0 && (mp.known != first || mp.knownAt != 0) {
			t.Fatalf("%s: scoring notes move %d (at %d) as the first best, want %d", fen, mp.known, mp.knownAt, first)
		}
	}
}

// TestScoreQuietKRBvKR: in rook and bishop against rook the quiet moves
// are scored by eval.Endgame's score of the position each leads to, from
// the mover's side, for either side to move (with the endgame knowledge
// off, by history as elsewhere); in basic.epd's KRBvKR w 2, where the
// tables keep the win with one move of 25 (Bc5,
// docs/devlog/2026-11-29-syzygy.md), that move comes first.
func TestScoreQuietKRBvKR(t *testing.T) {
	s := newSearcher(t)
	for _, tc := range []struct {
		fen   string
		first string // the quiet move scored best, "" if not checked
	}{
		{"5B2/5R2/k7/3K4/r7/8/8/8 w - - 0 1", "f8c5"},
		{"5B2/5R2/k1K5/8/r7/8/8/8 b - - 1 1", ""},
		{"8/8/8/8/8/4R2B/3K4/k6r b - - 0 1", ""},
	} {
		p := mustFEN(t, tc.fen)
		if !rookBishopRook(p) {
			t.Fatalf("%s: not rook and bishop against rook", tc.fen)
		}
		for _, knowledge := range []bool{true, false} {
			s.SetEndgameKnowledge(knowledge)
			s.pos = p
			mp := &s.pickers[2][0]
			mp.init(s, 2, board.NullMove, false)
			p.GenerateQuiet(&mp.list)
			mp.scoreQuiet()
			first := 0
			for i, m := range mp.list.Slice() {
				want := s.quietScore(2, p.PieceOn(m.From()), m)
				if knowledge {
					p.MakeMove(m)
					v, _ := eval.Endgame(p)
					p.UnmakeMove()
					want = -v
				}
				if int(mp.scores[i]) != want {
					t.Fatalf("%s (knowledge %v): %s scored %d, want %d", tc.fen, knowledge, p.UCI(m), mp.scores[i], want)
				}
				if mp.scores[i] > mp.scores[first] {
					first = i
				}
			}
			if mp.known != first || mp.knownAt != 0 {
				t.Fatalf("%s: scoring notes move %d as the first best, want %d", tc.fen, mp.known, first)
			}
			if got := p.UCI(mp.list.Moves[first]); knowledge && tc.first != "" && got != tc.first {
				t.Errorf("%s: %s scored best, want %s", tc.fen, got, tc.first)
			}
		}
	}
	s.SetEndgameKnowledge(true)
}
