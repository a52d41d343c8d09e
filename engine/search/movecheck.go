package search

import "github.com/nnuelab/nnuelab/engine/board"

// isNoisy reports whether m is one of the moves GenerateNoisy produces: a
// capture (en passant included) or a queen promotion.
func isNoisy(p *board.Position, m board.Move) bool {
	switch m.Kind() {
	case board.Castling:
		return false
	case board.EnPassant:
		return true
	case board.Promotion:
		return m.Promo() == board.Queen || p.PieceOn(m.To()) != board.NoPiece
	}
	return p.PieceOn(m.To()) != board.NoPiece
}

// validMove reports whether m, taken from the transposition table or a
// killer slot and so possibly from another position, is legal in p. It is
// much cheaper than generating the moves except for castling and en
// passant, which are rare and take the slow path.
func validMove(p *board.Position, m board.Move) bool {
	if m == board.NullMove {
		return false
	}
	from, to := m.From(), m.To()
	us, them := p.SideToMove(), p.SideToMove().Other()
	pc := p.PieceOn(from)
	if pc == board.NoPiece || pc.Color() != us || from == to {
		return false
	}
	switch m.Kind() {
	case board.Castling, board.EnPassant:
		return p.IsLegal(m)
	case board.Normal:
		if m>>14 != 0 {
			return false // promotion bits on a normal move: not a generated move
		}
	}
	target := p.PieceOn(to)
	if target != board.NoPiece && (target.Color() == us || target.Type() == board.King) {
		return false
	}
	occ := p.Occupied()
	pt := pc.Type()
	lastRank := to.Relative(us).Rank() == 7
	if pt == board.Pawn {
		if lastRank != (m.Kind() == board.Promotion) {
			return false
		}
		fwd := 8
		if us == board.Black {
			fwd = -8
		}
		switch {
		case int(to) == int(from)+fwd:
			if target != board.NoPiece {
				return false
			}
		case int(to) == int(from)+2*fwd:
			if from.Relative(us).Rank() != 1 || target != board.NoPiece || occ.Has(board.Square(int(from)+fwd)) {
				return false
			}
		default:
			if !board.PawnAttacks(us, from).Has(to) || target == board.NoPiece {
				return false
			}
		}
	} else {
		if m.Kind() != board.Normal || !board.Attacks(pt, us, from, occ).Has(to) {
			return false
		}
	}

	ksq := p.King(us)
	if pt == board.King {
		return p.AttackersTo(to, them, occ^board.Bit(from)) == 0
	}
	if checkers := p.Checkers(); checkers != 0 {
		if checkers.More() {
			return false
		}
		c := checkers.LSB()
		if to != c && !board.Between(ksq, c).Has(to) {
			return false
		}
	}
	// The move must not expose the king to a slider (a captured slider on
	// the destination no longer attacks).
	occ2 := occ&^board.Bit(from) | board.Bit(to)
	theirs := p.ByColor(them) &^ board.Bit(to)
	diag := (p.ByType(board.Bishop) | p.ByType(board.Queen)) & theirs
	orth := (p.ByType(board.Rook) | p.ByType(board.Queen)) & theirs
	return board.BishopAttacks(ksq, occ2)&diag == 0 && board.RookAttacks(ksq, occ2)&orth == 0
}
