package search

import (
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
)

// bruteSEE computes the static exchange value of m by plain recursion:
// each side in turn may recapture with its least valuable attacker (x-rays
// included, pins ignored) or stop.
func bruteSEE(p *board.Position, m board.Move) int {
	from, to := m.From(), m.To()
	occ := p.Occupied() &^ board.Bit(from)
	gain := 0
	if m.Kind() == board.EnPassant {
		gain = seeValue[board.Pawn]
		occ &^= board.Bit(to ^ 8)
	} else if v := p.PieceOn(to); v != board.NoPiece {
		gain = seeValue[v.Type()]
	}
	onSq := seeValue[p.PieceOn(from).Type()]
	if m.Kind() == board.Promotion {
		gain += seeValue[m.Promo()] - seeValue[board.Pawn]
		onSq = seeValue[m.Promo()]
	}
	occ |= board.Bit(to)
	return gain - seeReply(p, to, p.SideToMove().Other(), occ, onSq)
}

// seeReply is what side gains at best by capturing the piece worth onSq
// on to (0 if it does better not to capture).
func seeReply(p *board.Position, to board.Square, side board.Color, occ board.Bitboard, onSq int) int {
	att := p.AttackersTo(to, side, occ) & occ
	if att == 0 {
		return 0
	}
	for pt := board.Pawn; pt <= board.King; pt++ {
		b := att & p.Pieces(side, pt)
		if b == 0 {
			continue
		}
		from := b.LSB()
		occ2 := occ &^ board.Bit(from)
		if pt == board.King && p.AttackersTo(to, side.Other(), occ2)&occ2 != 0 {
			return 0 // the king may not capture into check
		}
		return max(0, onSq-seeReply(p, to, side.Other(), occ2, seeValue[pt]))
	}
	return 0
}

func TestSEEKnownCases(t *testing.T) {
	tests := []struct {
		name, fen, move string
		want            int
	}{
		{"free pawn", "1k1r4/1pp4p/p7/4p3/8/P5P1/1PP4P/2K1R3 w - - 0 1", "e1e5", 100},
		{"defended pawn by knight", "1k1r3q/1ppn3p/p4b2/4p3/8/P2N2P1/1PP1R1BP/2K1Q3 w - - 0 1", "d3e5", -220},
		{"rook takes defended pawn", "4k3/8/8/3p4/4p3/8/8/4RK2 w - - 0 1", "e1e4", -400},
		{"x-ray rook behind rook", "4k3/8/8/3p4/4p3/8/4R3/4RK2 w - - 0 1", "e2e4", -300},
		{"quiet move to attacked square", "4k3/8/8/3p4/8/8/8/2N1K3 w - - 0 1", "c1b3", 0},
		{"knight to a safe square", "4k3/8/2p5/8/4N3/8/8/4K3 w - - 0 1", "e4d6", 0},
		{"knight to a pawn-attacked square", "4k3/8/2p5/8/8/2N5/8/4K3 w - - 0 1", "c3d5", -320},
		{"en passant", "4k3/8/8/3pP3/8/8/8/4K3 w - d6 0 1", "e5d6", 100},
		{"king cannot recapture into check", "3rk3/8/8/8/8/5q2/8/3QK3 b - - 0 1", "f3d1", 950},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := board.ParseFEN(tc.fen)
			if err != nil {
				t.Fatal(err)
			}
			m, err := p.ParseUCIMove(tc.move)
			if err != nil {
				t.Fatal(err)
			}
			got := bruteSEE(p, m)
			if got != tc.want {
				t.Errorf("bruteSEE = %d, want %d", got, tc.want)
			}
			for _, th := range []int{got - 1, got, got + 1} {
				if seeGE(p, m, th) != (got >= th) {
					t.Errorf("seeGE(%d) = %v with SEE %d", th, !(got >= th), got)
				}
			}
		})
	}
}

// TestSEEMatchesBruteForce compares the swap algorithm with the recursive
// definition on every capture (and some quiet moves) of reference
// positions, at thresholds around the true value.
func TestSEEMatchesBruteForce(t *testing.T) {
	n := 0
	for _, fen := range readFENs(t, 1500) {
		p := mustFEN(t, fen)
		var ml board.MoveList
		p.GenerateLegal(&ml)
		for i, m := range ml.Slice() {
			if m.Kind() == board.Castling || !isNoisy(p, m) && i%4 != 0 {
				continue
			}
			v := bruteSEE(p, m)
			for _, th := range []int{v - 1, v, v + 1, -100, 0, 100} {
				if seeGE(p, m, th) != (v >= th) {
					t.Fatalf("%s %s: seeGE(%d) = %v, SEE = %d", fen, p.UCI(m), th, !(v >= th), v)
				}
			}
			n++
		}
	}
	if n < 5000 {
		t.Fatalf("only %d moves checked", n)
	}
}

func BenchmarkSEE(b *testing.B) {
	p := mustFEN(b, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
	var ml board.MoveList
	p.GenerateNoisy(&ml)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		seeGE(p, ml.Moves[i%ml.N], 0)
	}
}
