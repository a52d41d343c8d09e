package board

// Perft counts the leaf nodes of the legal move tree to depth plies, with
// bulk counting at the last ply (CountLegal instead of making each move).
func (p *Position) Perft(depth int) uint64 {
	switch {
	case depth <= 0:
		return 1
	case depth == 1:
		return uint64(p.CountLegal())
	}
	var ml MoveList
	p.GenerateLegal(&ml)
	var n uint64
	for _, m := range ml.Moves[:ml.N] {
		p.MakeMove(m)
		n += p.Perft(depth - 1)
		p.UnmakeMove()
	}
	return n
}

// DivideEntry is one root move and the perft count below it.
type DivideEntry struct {
	Move  Move
	Nodes uint64
}

// Divide returns perft(depth-1) for every legal root move, in generation order.
func (p *Position) Divide(depth int) []DivideEntry {
	var ml MoveList
	p.GenerateLegal(&ml)
	out := make([]DivideEntry, 0, ml.N)
	for _, m := range ml.Moves[:ml.N] {
		p.MakeMove(m)
		out = append(out, DivideEntry{m, p.Perft(depth - 1)})
		p.UnmakeMove()
	}
	return out
}
