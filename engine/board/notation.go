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

// ParseSAN returns the legal move of p that san names in standard
// algebraic notation, as PGN files give moves: the inverse of SAN. It
// accepts the usual variations: O-O or 0-0, x or none, = or none before a
// promotion piece, long algebraic e2-e4, and trailing +, #, ! and ?.
func (p *Position) ParseSAN(san string) (Move, error) {
	s := strings.TrimRight(san, "+#!?")
	var ml MoveList
	p.GenerateLegal(&ml)
	if s == "O-O" || s == "0-0" || s == "O-O-O" || s == "0-0-0" {
		long := len(s) == 5
		for _, m := range ml.Slice() {
			if m.Kind() == Castling && (m.To().File() < m.From().File()) == long {
				return m, nil
			}
		}
		return NullMove, fmt.Errorf("castling is not legal here")
	}
	piece := Pawn
	if len(s) > 0 {
		if pt, ok := sanPieces[s[0]]; ok {
			piece, s = pt, s[1:]
		}
	}
	promo := NoPieceType
	if i := strings.IndexByte(s, '='); i >= 0 {
		if i+2 != len(s) {
			return NullMove, fmt.Errorf("bad promotion")
		}
		pt, ok := sanPieces[s[i+1]]
		if !ok || pt == King || pt == Pawn {
			return NullMove, fmt.Errorf("bad promotion piece")
		}
		promo, s = pt, s[:i]
	} else if n := len(s); n >= 3 && piece == Pawn {
		if pt, ok := sanPieces[s[n-1]]; ok && pt != King && s[n-2] >= '1' && s[n-2] <= '8' {
			promo, s = pt, s[:n-1]
		}
	}
	s = strings.NewReplacer("x", "", "-", "", ":", "").Replace(s)
	if len(s) < 2 || len(s) > 4 {
		return NullMove, fmt.Errorf("not a move in SAN")
	}
	to, ok := sanSquare(s[len(s)-2:])
	if !ok {
		return NullMove, fmt.Errorf("bad destination square")
	}
	fromFile, fromRank := -1, -1
	for _, c := range s[:len(s)-2] {
		switch {
		case c >= 'a' && c <= 'h':
			fromFile = int(c - 'a')
		case c >= '1' && c <= '8':
			fromRank = int(c - '1')
		default:
			return NullMove, fmt.Errorf("bad disambiguation")
		}
	}
	found := NullMove
	for _, m := range ml.Slice() {
		if m.Kind() == Castling || m.To() != to || p.PieceOn(m.From()).Type() != piece {
			continue
		}
		if (fromFile >= 0 && m.From().File() != fromFile) || (fromRank >= 0 && m.From().Rank() != fromRank) {
			continue
		}
		if m.Kind() == Promotion {
			if m.Promo() != promo {
				continue
			}
		} else if promo != NoPieceType {
			continue
		}
		if found != NullMove {
			return NullMove, fmt.Errorf("ambiguous")
		}
		found = m
	}
	if found == NullMove {
		return NullMove, fmt.Errorf("not legal in %s", p.FEN())
	}
	return found, nil
}

// sanPieces maps SAN's piece letters to piece types.
var sanPieces = map[byte]PieceType{'N': Knight, 'B': Bishop, 'R': Rook, 'Q': Queen, 'K': King}

// sanSquare parses a square such as "e4".
func sanSquare(s string) (Square, bool) {
	if len(s) != 2 || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8' {
		return NoSquare, false
	}
	return MakeSquare(int(s[0]-'a'), int(s[1]-'1')), true
}
