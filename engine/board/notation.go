package board

import (
	"fmt"
	"strings"
)

// UCI returns the move in UCI's long algebraic notation. Castling is written
// as the king's two-square move (e1g1), or as king takes rook (e1h1) when the
// position is in Chess960 mode.
func (p *Position) UCI(m Move) string {
	if m == NullMove {
		return "0000"
	}
	from, to := m.From(), m.To()
	if m.Kind() == Castling && !p.chess960 {
		to = p.castleInfo[castleSlot(p.board[from].Color(), from, to)].kingTo
	}
	s := from.String() + to.String()
	if pt := m.Promo(); pt != NoPieceType {
		s += string("pnbrqk"[pt])
	}
	return s
}

// ParseUCIMove finds the legal move written s in UCI notation. Castling is
// accepted as the king's move (e1g1) in standard mode and as king takes rook
// (e1h1) in both modes, so that either GUI convention works when it is
// unambiguous.
func (p *Position) ParseUCIMove(s string) (Move, error) {
	if len(s) < 4 || len(s) > 5 {
		return NullMove, fmt.Errorf("move %q: expected UCI notation like e2e4 or e7e8q", s)
	}
	if _, ok := ParseSquare(s[0:2]); !ok {
		return NullMove, fmt.Errorf("move %q: bad origin square %q", s, s[0:2])
	}
	if _, ok := ParseSquare(s[2:4]); !ok {
		return NullMove, fmt.Errorf("move %q: bad destination square %q", s, s[2:4])
	}
	if len(s) == 5 && !strings.ContainsRune("nbrq", rune(s[4])) {
		return NullMove, fmt.Errorf("move %q: bad promotion piece %q (expected n, b, r or q)", s, s[4:])
	}
	var ml MoveList
	p.GenerateLegal(&ml)
	for _, m := range ml.Slice() {
		if p.UCI(m) == s {
			return m, nil
		}
		if m.Kind() == Castling && m.From().String()+m.To().String() == s {
			return m, nil
		}
	}
	return NullMove, fmt.Errorf("move %q is not legal in %s", s, p.FEN())
}

// IsLegal reports whether m is a legal move in the position (for moves that
// come from a hash table or another position).
func (p *Position) IsLegal(m Move) bool {
	if m == NullMove {
		return false
	}
	var ml MoveList
	p.GenerateLegal(&ml)
	for _, x := range ml.Slice() {
		if x == m {
			return true
		}
	}
	return false
}

// SAN returns the move in standard algebraic notation with check (+) and
// mate (#) marks, as PGN needs. m must be legal.
func (p *Position) SAN(m Move) string {
	var b strings.Builder
	from, to := m.From(), m.To()
	pc := p.board[from]
	switch {
	case m.Kind() == Castling:
		if to > from {
			b.WriteString("O-O")
		} else {
			b.WriteString("O-O-O")
		}
	case pc.Type() == Pawn:
		if from.File() != to.File() {
			b.WriteByte(byte('a' + from.File()))
			b.WriteByte('x')
		}
		b.WriteString(to.String())
		if pt := m.Promo(); pt != NoPieceType {
			b.WriteByte('=')
			b.WriteByte("PNBRQK"[pt])
		}
	default:
		b.WriteByte("PNBRQK"[pc.Type()])
		// Disambiguate among other pieces of the same kind reaching to.
		var ml MoveList
		p.GenerateLegal(&ml)
		sameFile, sameRank, others := false, false, false
		for _, x := range ml.Slice() {
			if x.To() != to || x.From() == from || p.board[x.From()] != pc || x.Kind() == Castling {
				continue
			}
			others = true
			if x.From().File() == from.File() {
				sameFile = true
			}
			if x.From().Rank() == from.Rank() {
				sameRank = true
			}
		}
		if others {
			switch {
			case !sameFile:
				b.WriteByte(byte('a' + from.File()))
			case !sameRank:
				b.WriteByte(byte('1' + from.Rank()))
			default:
				b.WriteString(from.String())
			}
		}
		if p.board[to] != NoPiece {
			b.WriteByte('x')
		}
		b.WriteString(to.String())
	}
	p.MakeMove(m)
	if p.InCheck() {
		var ml MoveList
		p.GenerateLegal(&ml)
		if ml.N == 0 {
			b.WriteByte('#')
		} else {
			b.WriteByte('+')
		}
	}
	p.UnmakeMove()
	return b.String()
}
