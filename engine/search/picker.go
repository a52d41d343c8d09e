package search

import (
	"math"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/eval"
)

// Move-picker stages, in the order moves are tried.
const (
	stageTT = iota
	stageGenNoisy
	stageGoodNoisy
	stageKiller1
	stageKiller2
	stageCounter
	stageGenQuiet
	stageQuiet
	stageBadNoisy
	stageDone
)

// picker yields a node's legal moves lazily, best first: the table move,
// captures and queen promotions that do not lose material (by MVV and
// capture history), the two killers, the counter move, the quiet moves by
// history, and last the losing captures. Moves are generated only when a
// stage needs them, so a cut by the table move costs no generation. In
// quiescence mode it yields only the table move (if noisy) and the noisy
// moves.
type picker struct {
	s          *Searcher
	p          *board.Position
	ply        int
	stage      int
	tt, k1, k2 board.Move
	cm         board.Move
	qs         bool
	skipQuiets bool
	idx        int
	// known is the index of the best remaining move when idx is knownAt,
	// found by scoring the list or by the previous pick's scan.
	known, knownAt int
	list           board.MoveList
	scores         [256]int32
	bad            board.MoveList
	badIdx         int
}

// init prepares the picker for a node; it resets every field that next
// reads before writing (the arrays are not cleared: that is the point of
// keeping pickers in the Searcher).
func (mp *picker) init(s *Searcher, ply int, tt board.Move, qs bool) {
	mp.s, mp.p, mp.ply, mp.qs = s, s.pos, ply, qs
	mp.stage = stageTT
	mp.k1, mp.k2, mp.cm = board.NullMove, board.NullMove, board.NullMove
	mp.skipQuiets = false
	mp.idx, mp.badIdx = 0, 0
	mp.list.N, mp.bad.N = 0, 0
	if !validMove(mp.p, tt) || qs && !isNoisy(mp.p, tt) {
		tt = board.NullMove
	}
	mp.tt = tt
	if !qs {
		f := &s.stack[ply+stackOffset]
		mp.k1, mp.k2 = f.killers[0], f.killers[1]
		if prev := &s.stack[ply+stackOffset-1]; prev.piece != board.NoPiece {
			mp.cm = s.counter[prev.piece][prev.move.To()]
		}
	}
}

// special reports whether m may be tried as a killer or counter move: a
// legal quiet move not tried already.
func (mp *picker) special(m board.Move) bool {
	return !mp.skipQuiets && m != board.NullMove && m != mp.tt && !isNoisy(mp.p, m) && validMove(mp.p, m)
}

// pickBest swaps the best-scored remaining move (the first of equals) to
// position idx and returns it. Every scan of the list also works out the
// following pick (see pickTwo), and scoring the list finds the first, so
// only every other pick scans.
func (mp *picker) pickBest() board.Move {
	i0, n := mp.idx, mp.list.N
	scores := mp.scores[i0:n]
	var best int
	if i0 == mp.knownAt {
		best = mp.known - i0
	} else {
		var next int
		best, next = pickTwo(scores)
		mp.known, mp.knownAt = i0+next, i0+1
	}
	moves := mp.list.Moves[i0:n]
	m := moves[best]
	moves[best], moves[0] = moves[0], m
	scores[best], scores[0] = scores[0], scores[best]
	mp.idx = i0 + 1
	return m
}

// pickTwo returns, for a non-empty list of scores (all above
// math.MinInt32), the index of the first largest (the pick) and the index
// the next pick will take once the pick has been swapped with the first
// score (0 if none is left). It keeps the two best scores after the first
// (the lower index on a tie), which decide both: if the first is at least
// as large as the best of the others it is the pick and the best of the
// others the next; otherwise that best is the pick, the first score moves
// to its place, and the next is the larger of the first score there and
// the second best of the others, the lower index on a tie.
//
// This is the search's hottest loop once the quiet moves are listed. Most
// scores beat neither of the two kept: six instructions each (a scan for
// the first largest alone took eight, and was needed at every pick).
//
//go:noinline
func pickTwo(scores []int32) (best, next int) {
	n := len(scores)
	s0 := scores[0]
	if n == 1 {
		return 0, 0
	}
	b1, v1 := 1, scores[1]
	b2, v2 := -1, int32(math.MinInt32)
	for j := 2; ; j++ {
		// The inner loop carries only j, which keeps it tight (an
		// unsigned index spares its bounds check).
		u := uint(j)
		for u < uint(len(scores)) && scores[u] <= v2 {
			u++
		}
		if u >= uint(len(scores)) {
			break
		}
		j = int(u)
		if sc := scores[u]; sc > v1 {
			b2, v2 = b1, v1
			b1, v1 = j, sc
		} else {
			b2, v2 = j, sc
		}
	}
	if s0 >= v1 {
		return 0, b1
	}
	if b2 < 0 || s0 > v2 || s0 == v2 && b1 < b2 {
		return b1, b1
	}
	return b1, b2
}

// scoreNoisy scores the noisy moves by victim and capture history, and
// notes the first best for the first pick (a compare and two conditional
// moves per move spare the first scan of the list).
func (mp *picker) scoreNoisy() {
	p, s := mp.p, mp.s
	best, bestScore := 0, int32(math.MinInt32)
	for i, m := range mp.list.Slice() {
		victim := victimOf(p, m)
		sc := 16*seeValue[victim] + int(s.capHist[p.PieceOn(m.From())][m.To()][victim])/8
		if m.Promo() == board.Queen {
			sc += 16 * seeValue[board.Queen]
		}
		mp.scores[i] = int32(sc)
		if int32(sc) > bestScore {
			best, bestScore = i, int32(sc)
		}
	}
	mp.known, mp.knownAt = best, 0
}

// scoreQuiet scores the quiet moves as quietScore does, with the side's
// butterfly table and the two continuation tables looked up once per node
// rather than once per move; like scoreNoisy it notes the first best. In
// rook and bishop against rook (rookBishopRook) it scores them instead by
// eval.Endgame's score of the position each leads to, from the mover's
// side: there that score is a network fitted to the tables to rank moves
// (the move it scores best keeps a held-out win 91% of the time), and the
// search then spends its depth on the moves that keep the win (a move made
// and unmade on the board for each, only in that endgame: KRBvKR nodes
// cost about twice as much).
func (mp *picker) scoreQuiet() {
	p, s := mp.p, mp.s
	hist := &s.hist[p.SideToMove()]
	cont1 := s.stack[mp.ply+stackOffset-1].cont
	cont2 := s.stack[mp.ply+stackOffset-2].cont
	moves := mp.list.Slice()
	scores := mp.scores[:len(moves)]
	best, bestScore := 0, int32(math.MinInt32)
	if !s.noEndgames && rookBishopRook(p) {
		// Rook and bishop against rook: by the endgame score of the
		// position each move leads to, for the side that moves (see
		// rookBishopRook).
		for i, m := range moves {
			p.MakeMove(m)
			v, _ := eval.Endgame(p)
			p.UnmakeMove()
			scores[i] = int32(-v)
			if scores[i] > bestScore {
				best, bestScore = i, scores[i]
			}
		}
		mp.known, mp.knownAt = best, 0
		return
	}
	for i, m := range moves {
		from, to := m.From(), m.To()
		pc := p.PieceOn(from)
		sc := int32(hist[from][to]) + int32(cont1[pc][to]) + int32(cont2[pc][to])
		scores[i] = sc
		if sc > bestScore {
			best, bestScore = i, sc
		}
	}
	mp.known, mp.knownAt = best, 0
}

// next returns the next move, or NullMove when there are none left.
func (mp *picker) next() board.Move {
	for {
		switch mp.stage {
		case stageTT:
			mp.stage = stageGenNoisy
			if mp.tt != board.NullMove {
				return mp.tt
			}
		case stageGenNoisy:
			mp.p.GenerateNoisy(&mp.list)
			mp.scoreNoisy()
			mp.idx = 0
			mp.stage = stageGoodNoisy
		case stageGoodNoisy:
			for mp.idx < mp.list.N {
				m := mp.pickBest()
				if m == mp.tt {
					continue
				}
				if !mp.qs && !seeGE(mp.p, m, 0) {
					mp.bad.Moves[mp.bad.N] = m
					mp.bad.N++
					continue
				}
				return m
			}
			if mp.qs {
				mp.stage = stageDone
				return board.NullMove
			}
			mp.stage = stageKiller1
		case stageKiller1:
			mp.stage = stageKiller2
			if mp.special(mp.k1) {
				return mp.k1
			}
			mp.k1 = board.NullMove
		case stageKiller2:
			mp.stage = stageCounter
			if mp.k2 != mp.k1 && mp.special(mp.k2) {
				return mp.k2
			}
			mp.k2 = board.NullMove
		case stageCounter:
			mp.stage = stageGenQuiet
			if mp.cm != mp.k1 && mp.cm != mp.k2 && mp.special(mp.cm) {
				return mp.cm
			}
			mp.cm = board.NullMove
		case stageGenQuiet:
			mp.list.N = 0
			if !mp.skipQuiets {
				mp.p.GenerateQuiet(&mp.list)
				mp.scoreQuiet()
			}
			mp.idx = 0
			mp.stage = stageQuiet
		case stageQuiet:
			for !mp.skipQuiets && mp.idx < mp.list.N {
				m := mp.pickBest()
				if m == mp.tt || m == mp.k1 || m == mp.k2 || m == mp.cm {
					continue
				}
				return m
			}
			mp.stage = stageBadNoisy
		case stageBadNoisy:
			if mp.badIdx < mp.bad.N {
				mp.badIdx++
				return mp.bad.Moves[mp.badIdx-1]
			}
			mp.stage = stageDone
		default:
			return board.NullMove
		}
	}
}

// OrderedMoves returns the legal moves of p in the order the search would
// try them at the root (table move, good captures, killers, quiets by
// history, bad captures), for the UCI "legal" debug command.
func (s *Searcher) OrderedMoves(p *board.Position) []board.Move {
	saved := s.pos
	s.pos = p
	defer func() { s.pos = saved }()
	tt := board.NullMove
	if e, ok := s.tt.probe(p.Key()); ok {
		tt = e.move
	}
	var mp picker
	mp.init(s, 0, tt, false)
	var out []board.Move
	for m := mp.next(); m != board.NullMove; m = mp.next() {
		out = append(out, m)
	}
	return out
}
