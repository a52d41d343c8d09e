package search

import (
	"math/rand/v2"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
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
