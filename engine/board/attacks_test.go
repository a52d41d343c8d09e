package board

import (
	"math/rand/v2"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board/boardtest"
)

// TestMagicNumbersRegenerate reruns the magic search with the recorded seeds
// and expects the numbers kept in magicnumbers.go.
func TestMagicNumbersRegenerate(t *testing.T) {
	if got := searchMagics(rookDirs, rookMagicSeed); got != rookMagicNumbers {
		t.Error("rook magics differ from a fresh search")
	}
	if got := searchMagics(bishopDirs, bishopMagicSeed); got != bishopMagicNumbers {
		t.Error("bishop magics differ from a fresh search")
	}
}

// TestSlidingAttacks compares the magic lookups with a ray walk on random
// occupancies.
func TestSlidingAttacks(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := 0; i < 20000; i++ {
		occ := Bitboard(rng.Uint64() & rng.Uint64())
		s := Square(rng.IntN(64))
		if got, want := RookAttacks(s, occ), slowSlide(s, occ, rookDirs); got != want {
			t.Fatalf("rook %s occ %x: %x, want %x", s, uint64(occ), uint64(got), uint64(want))
		}
		if got, want := BishopAttacks(s, occ), slowSlide(s, occ, bishopDirs); got != want {
			t.Fatalf("bishop %s occ %x: %x, want %x", s, uint64(occ), uint64(got), uint64(want))
		}
	}
}

func TestBetween(t *testing.T) {
	tests := []struct {
		a, b Square
		want Bitboard
	}{
		{A1, H1, Bit(B1) | Bit(C1) | Bit(D1) | Bit(E1) | Bit(F1) | Bit(G1)},
		{A1, H8, Bitboard(0x0040201008040200)},
		{A1, MakeSquare(1, 2), 0},
		{E1, E1, 0},
		{D1, MakeSquare(3, 1), 0},
	}
	for _, tc := range tests {
		if got := Between(tc.a, tc.b); got != tc.want {
			t.Errorf("Between(%s, %s) = %x, want %x", tc.a, tc.b, uint64(got), uint64(tc.want))
		}
	}
}

// TestAllAttackersTo holds AllAttackersTo to the union of AttackersTo of
// both colours on every square of the reference positions, with the real
// occupancy and with pieces lifted off it (as static exchange evaluation
// does).
func TestAllAttackersTo(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, fen := range boardtest.Positions() {
		p, err := ParseFEN(fen)
		if err != nil {
			t.Fatal(err)
		}
		for s := Square(0); s < 64; s++ {
			for _, occ := range []Bitboard{p.occ, p.occ & Bitboard(rng.Uint64())} {
				want := p.AttackersTo(s, White, occ) | p.AttackersTo(s, Black, occ)
				if got := p.AllAttackersTo(s, occ); got != want {
					t.Fatalf("%s: AllAttackersTo(%s, %x) = %x, want %x", fen, s, uint64(occ), uint64(got), uint64(want))
				}
			}
		}
	}
}
