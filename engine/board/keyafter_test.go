package board

import (
	"math/rand/v2"
	"testing"
)

// TestKeyAfter plays random games from a few openings and checks, at
// every legal move, that KeyAfter equals the key MakeMove produces for the
// moves it is exact for (normal moves that change neither the castling
// rights nor the en-passant square), and counts that those are most moves.
func TestKeyAfter(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 27))
	fens := []string{
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
	}
	exact, checked := 0, 0
	for _, fen := range fens {
		for game := 0; game < 20; game++ {
			p, err := ParseFEN(fen)
			if err != nil {
				t.Fatal(err)
			}
			for ply := 0; ply < 80; ply++ {
				var ml MoveList
				p.GenerateLegal(&ml)
				if ml.N == 0 {
					break
				}
				for _, m := range ml.Slice() {
					want := p.KeyAfter(m)
					castle := p.CastlingRights()
					p.MakeMove(m)
					got, simple := p.Key(), m.Kind() == Normal && p.CastlingRights() == castle && p.EnPassant() == NoSquare
					p.UnmakeMove()
					checked++
					if simple {
						exact++
						if got != want {
							t.Fatalf("%s: KeyAfter(%v) = %#x, MakeMove gives %#x", p.FEN(), m, want, got)
						}
					}
				}
				p.MakeMove(ml.Moves[rng.IntN(ml.N)])
			}
		}
	}
	if exact < checked*3/4 {
		t.Errorf("KeyAfter exact for %d of %d moves; expected most", exact, checked)
	}
	t.Logf("KeyAfter exact for %d of %d moves", exact, checked)
}
