package search

import (
	"math/rand/v2"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
)

// TestFirstMax holds firstMax to the plain definition (the lowest index of
// the largest score) on random slices with many ties.
func TestFirstMax(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for i := 0; i < 10000; i++ {
		scores := make([]int32, 1+rng.IntN(60))
		for j := range scores {
			scores[j] = int32(rng.IntN(7) - 3)
			if rng.IntN(4) == 0 {
				scores[j] = rng.Int32() - 1<<30
			}
		}
		want := 0
		for j, sc := range scores {
			if sc > scores[want] {
				want = j
			}
		}
		if got := firstMax(scores); got != want {
			t.Fatalf("firstMax(%v) = %d, want %d", scores, got, want)
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
		if n := mp.list.N; n > 0 && mp.first != firstMax(mp.scores[:n]) {
			t.Fatalf("%s: scoring notes move %d as the first best, firstMax finds %d", fen, mp.first, firstMax(mp.scores[:n]))
		}
	}
}
