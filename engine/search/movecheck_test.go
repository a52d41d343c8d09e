package search

import (
	"math/rand/v2"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
)

// TestValidMoveMatchesLegality checks the fast legality test of table and
// killer moves against full move generation, on moves taken from other
// positions (the realistic case: key collisions, killers of siblings) and
// on random 16-bit values.
func TestValidMoveMatchesLegality(t *testing.T) {
	fens := readFENs(t, 3000)
	fens = append(fens,
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
		"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
		"8/8/8/2k5/3Pp3/8/8/4K3 b - d3 0 1",
		"4k3/8/8/8/8/8/4r3/R3K2R w KQ - 0 1")
	rng := rand.New(rand.NewPCG(3, 4))
	var pool []board.Move
	checked := 0
	for _, fen := range fens {
		p := mustFEN(t, fen)
		var ml board.MoveList
		p.GenerateLegal(&ml)
		pool = append(pool, ml.Slice()...)
		cands := append([]board.Move(nil), ml.Slice()...)
		for i := 0; i < 40 && len(pool) > 0; i++ {
			cands = append(cands, pool[rng.IntN(len(pool))], board.Move(rng.Uint32()))
		}
		for _, m := range cands {
			if got, want := validMove(p, m), p.IsLegal(m); got != want {
				t.Fatalf("%s: validMove(%v from %v to %v kind %d) = %v, legal = %v", fen, m, m.From(), m.To(), m.Kind(), got, want)
			}
			checked++
		}
	}
	if checked < 100000 {
		t.Fatalf("only %d moves checked", checked)
	}
}

func BenchmarkValidMove(b *testing.B) {
	p := mustFEN(b, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
	var ml board.MoveList
	p.GenerateLegal(&ml)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		validMove(p, ml.Moves[i%ml.N])
	}
}
