package board

// darkSquares holds a1, c1, ..., the squares of a1's colour.
const darkSquares Bitboard = 0xAA55AA55AA55AA55

// InsufficientMaterial reports whether neither side can ever checkmate,
// whatever the moves: king against king, king and one knight against king,
// or kings with any number of bishops (for either side) that all stand on
// squares of one colour. Positions where mate is possible only with help
// (KNvKN, KNNvK, bishops on both colours) are not counted, as FIDE's
// dead-position rule and match runners do.
func (p *Position) InsufficientMaterial() bool {
	if p.ByType(Pawn)|p.ByType(Rook)|p.ByType(Queen) != 0 {
		return false
	}
	knights := p.ByType(Knight)
	bishops := p.ByType(Bishop)
	switch {
	case knights == 0:
		return bishops&darkSquares == 0 || bishops&^darkSquares == 0
	case bishops == 0:
		return knights.Count() == 1
	}
	return false
}
