package search

import (
	"time"

	"github.com/nnuelab/nnuelab/engine/board"
)

// minThink is the least time any clock-limited search gets.
const minThink = time.Millisecond

// setTime computes the soft limit (checked after each iteration) and the
// hard limit (checked every 1024 nodes) of a search.
//
// On the clock, with left = remaining time minus the move overhead and
// mtg = movestogo (at most 40) or 25 in sudden death:
//
//	soft = left/mtg + 3/4 inc, at most left/2 (left/4 with more moves to go)
//	hard = min(4 soft, 3/4 left)
//
// so a move never takes more than three quarters of what is left after
// the overhead, and the increment is spent as it comes.
func (s *Searcher) setTime(lim Limits, nRoot int) {
	s.softLimit, s.hardLimit = 0, 0
	if lim.MoveTime > 0 {
		s.hardLimit = max(lim.MoveTime-lim.MoveOverhead, minThink)
	}
	if !lim.UseClock {
		return
	}
	us := s.pos.SideToMove()
	left := lim.Time[us] - lim.MoveOverhead
	if left < minThink {
		left = minThink
	}
	inc := max(lim.Inc[us], 0)
	mtg := 25
	if lim.MovesToGo > 0 {
		mtg = min(lim.MovesToGo, 40)
	}
	soft := left/time.Duration(mtg) + inc*3/4
	capShare := left / 2
	if mtg > 1 {
		capShare = left / 4
	}
	soft = max(min(soft, capShare), minThink)
	hard := max(min(4*soft, left*3/4), minThink)
	if nRoot == 1 {
		// One legal move: answer at once, after one iteration for a score.
		soft = minThink
	}
	s.softLimit = soft
	if s.hardLimit == 0 || hard < s.hardLimit {
		s.hardLimit = hard
	}
}

// softStop decides after a completed iteration whether to start another.
// The soft limit stretches when the best move keeps changing or took few of
// the nodes, or when the score drops, and shrinks when the move is stable
// and took most of the nodes.
func (s *Searcher) softStop(depth, stability, score, prevScore int, best board.Move, nRoot int) bool {
	if s.softLimit == 0 {
		return false
	}
	if nRoot == 1 {
		return true
	}
	if depth < 4 {
		return time.Since(s.start) >= s.softLimit
	}
	stab := [...]float64{0, 1.6, 1.3, 1.1, 1.0, 0.9}[min(stability, 5)]
	frac := float64(s.rootNodes[best&4095]) / float64(max(s.nodes, 1))
	nodeScale := 1.6 - frac // 0.6 .. 1.6
	drop := 1.0
	if prevScore-score > 25 {
		drop = 1.25
	}
	limit := time.Duration(float64(s.softLimit) * stab * nodeScale * drop)
	return time.Since(s.start) >= limit
}
