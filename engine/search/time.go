package search

import (
	"time"

	"github.com/nnuelab/nnuelab/engine/board"
)

// minThink is the least time any clock-limited search gets.
const minThink = time.Millisecond

// DefaultMoveOverhead is the time the engine assumes a move loses between
// its bestmove and the GUI's clock unless told otherwise (UCI's Move
// Overhead): the ladder plays with it, so tools recomputing the time plan
// from a ladder game's clocks subtract it too.
const DefaultMoveOverhead = 30 * time.Millisecond

// movesToGoReserve is how many moves beyond movestogo a repeating control
// (40 moves in 60 s) is planned over. Moves take more than their soft
// limit about as often as less (a mean of 1.1-1.2 soft limits in the
// ladder's 10+0.1 and 60+0.6 games, `nnuelab clocks`), so planning over
// exactly movestogo reaches the control with a few tenths of a second;
// the reserve keeps about a tenth of what is left, and what is not spent
// carries over to the next control.
const movesToGoReserve = 5

// ClockPlan returns the soft limit (checked after each iteration) and the
// hard limit (checked every 64 nodes) of a move on the clock, given the
// time left after the move overhead, the increment and the moves to the
// next time control (0 in sudden death). It is the engine's whole time
// plan, exported so that tools reading a game's clocks can compare the
// time each move took with the time it was given.
//
// With mtg = movesToGo (at most 40) + movesToGoReserve, or 30 in sudden
// death, and cap = 3/4 left / min(movesToGo, 3) (a quarter of what is
// left unless the time control is one or two moves away):
//
//	soft = min(left/mtg + inc/2, 2/3 cap)
//	hard = min(4 soft, cap)
//
// Spending half the increment beyond left/mtg makes the clock settle
// around 15 increments rather than run down to a few (1.5 s at 10s+0.1s),
// a reserve against stalls the engine cannot see on a loaded machine; and
// a move never takes more than a quarter of what is left in sudden death.
// The soft limit stretches and shrinks with the search (see softStop).
func ClockPlan(left, inc time.Duration, movesToGo int) (soft, hard time.Duration) {
	left, inc = max(left, minThink), max(inc, 0)
	mtg, near := 30, 3
	if movesToGo > 0 {
		mtg, near = min(movesToGo, 40)+movesToGoReserve, min(movesToGo, 3)
	}
	capTime := left * 3 / 4 / time.Duration(near)
	soft = max(min(left/time.Duration(mtg)+inc/2, capTime*2/3), minThink)
	hard = max(min(4*soft, capTime), minThink)
	return soft, hard
}

// setTime sets the search's soft and hard limits from its limits: the
// move time, and the clock through ClockPlan.
func (s *Searcher) setTime(lim Limits, nRoot int) {
	s.softLimit, s.hardLimit = 0, 0
	if lim.MoveTime > 0 {
		s.hardLimit = max(lim.MoveTime-lim.MoveOverhead, minThink)
	}
	if !lim.UseClock {
		return
	}
	us := s.pos.SideToMove()
	soft, hard := ClockPlan(lim.Time[us]-lim.MoveOverhead, lim.Inc[us], lim.MovesToGo)
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
	if s.ponder && !s.pondering.Load() {
		s.ponder = false // ponderhit: the clock starts now
		s.start = time.Now()
	}
	if s.softLimit == 0 || s.ponder {
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
