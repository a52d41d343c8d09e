package search

import "github.com/nnuelab/nnuelab/engine/board"

// seeValue is the material scale of static exchange evaluation, by piece
// type (pawn .. king); a king is never actually captured.
var seeValue = [7]int{100, 320, 330, 500, 950, 0, 0}

// seeGE reports whether the static exchange evaluation of m — the material
// balance after the best sequence of captures on m's destination, each side
// free to stop — is at least threshold. Castling is worth 0.
func seeGE(p *board.Position, m board.Move, threshold int) bool {
	if m.Kind() == board.Castling {
		return threshold <= 0
	}
	from, to := m.From(), m.To()
	us := p.SideToMove()
	occ := p.Occupied() ^ board.Bit(from)

	// Gain of the first capture and the value of the piece that then
	// stands on the destination.
	gain := 0
	if m.Kind() == board.EnPassant {
		gain = seeValue[board.Pawn]
		occ ^= board.Bit(to ^ 8)
	} else if v := p.PieceOn(to); v != board.NoPiece {
		gain = seeValue[v.Type()]
	}
	onSquare := seeValue[p.PieceOn(from).Type()]
	if m.Kind() == board.Promotion {
		gain += seeValue[m.Promo()] - seeValue[board.Pawn]
		onSquare = seeValue[m.Promo()]
	}

	swap := gain - threshold
	if swap < 0 {
		return false // even keeping the first capture is not enough
	}
	swap = onSquare - swap
	if swap <= 0 {
		return true // even losing the capturing piece is enough
	}

	occ |= board.Bit(to)
	bishops := p.ByType(board.Bishop) | p.ByType(board.Queen)
	rooks := p.ByType(board.Rook) | p.ByType(board.Queen)
	attackers := p.AllAttackersTo(to, occ) & occ
	stm := us
	// res is 1 while the side that made the last capture is ahead of the
	// threshold, 0 otherwise; swap is what that side stands to lose.
	res := 1
	for {
		stm = stm.Other()
		attackers &= occ
		mine := attackers & p.ByColor(stm)
		if mine == 0 {
			break
		}
		res ^= 1
		// Least valuable attacker.
		pt := board.Pawn
		b := mine & p.ByType(pt)
		for b == 0 {
			pt++
			b = mine & p.ByType(pt)
		}
		if pt == board.King {
			// The king may only capture if the other side has no attacker left.
			if attackers&^p.ByColor(stm) != 0 {
				res ^= 1
			}
			break
		}
		swap = seeValue[pt] - swap
		if swap < res {
			break
		}
		occ ^= board.Bit(b.LSB())
		switch pt {
		case board.Pawn, board.Bishop:
			attackers |= board.BishopAttacks(to, occ) & bishops
		case board.Rook:
			attackers |= board.RookAttacks(to, occ) & rooks
		case board.Queen:
			attackers |= board.BishopAttacks(to, occ)&bishops | board.RookAttacks(to, occ)&rooks
		}
	}
	return res != 0
}
