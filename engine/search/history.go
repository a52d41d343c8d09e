package search

import "github.com/nnuelab/nnuelab/engine/board"

// histMax bounds every history value: updates move a value towards
// ±histMax by a share of the bonus that shrinks as it gets there.
const histMax = 16384

func histBonus(depth int) int { return min(170*depth-60, 1600) }

func applyBonus(h *int16, bonus int) {
	v := int(*h)
	abs := bonus
	if abs < 0 {
		abs = -abs
	}
	*h = int16(v + bonus - v*abs/histMax)
}

// quietScore is the ordering score of a quiet move: its butterfly history
// plus its continuation histories after the moves one and two plies back.
func (s *Searcher) quietScore(ply int, pc board.Piece, m board.Move) int {
	from, to := m.From(), m.To()
	return int(s.hist[pc.Color()][from][to]) +
		int(s.stack[ply+stackOffset-1].cont[pc][to]) +
		int(s.stack[ply+stackOffset-2].cont[pc][to])
}

func (s *Searcher) updateQuiet(ply int, m board.Move, bonus int) {
	pc := s.pos.PieceOn(m.From())
	from, to := m.From(), m.To()
	applyBonus(&s.hist[pc.Color()][from][to], bonus)
	for _, back := range [2]int{1, 2} {
		if f := &s.stack[ply+stackOffset-back]; f.piece != board.NoPiece {
			applyBonus(&f.cont[pc][to], bonus)
		}
	}
}

// victimOf returns the type of the piece m captures (NoPieceType if none).
func victimOf(p *board.Position, m board.Move) board.PieceType {
	switch m.Kind() {
	case board.EnPassant:
		return board.Pawn
	case board.Castling:
		return board.NoPieceType
	}
	return p.PieceOn(m.To()).Type()
}

func (s *Searcher) updateNoisy(m board.Move, bonus int) {
	p := s.pos
	applyBonus(&s.capHist[p.PieceOn(m.From())][m.To()][victimOf(p, m)], bonus)
}

// updateHistories rewards best, the move that failed high, and punishes the
// moves searched before it.
func (s *Searcher) updateHistories(ply, depth int, best board.Move, noisy bool, quiets, noisies []board.Move) {
	bonus := histBonus(depth)
	if !noisy {
		ss := &s.stack[ply+stackOffset]
		if ss.killers[0] != best {
			ss.killers[1], ss.killers[0] = ss.killers[0], best
		}
		if prev := &s.stack[ply+stackOffset-1]; prev.piece != board.NoPiece {
			s.counter[prev.piece][prev.move.To()] = best
		}
		s.updateQuiet(ply, best, bonus)
		for _, q := range quiets {
			s.updateQuiet(ply, q, -bonus)
		}
	} else {
		s.updateNoisy(best, bonus)
	}
	for _, n := range noisies {
		s.updateNoisy(n, -bonus)
	}
}
