// Package search is nnuelab's alpha-beta search: iterative deepening,
// principal variation search with aspiration windows, quiescence search,
// a transposition table, null-move pruning, reverse futility pruning, late
// move reductions and pruning, singular and check extensions, history-based
// move ordering, and time management. It scores positions through an
// eval.Evaluator, so every architecture plays with the same search.
//
// A Searcher is one thread's state; it is not safe for concurrent use, but
// a running Search is stopped from any goroutine by cancelling its context.
// Given the same position, limits without a clock, and the same prior state
// (a fresh Searcher or one after Clear, and a cleared table), a search is
// deterministic: same nodes, same move.
package search

import (
	"context"
	"math"
	"slices"
	"sync/atomic"
	"time"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/eval"
)

// Score scale and limits. Scores are centipawns from the side to move's
// point of view; a mate in n plies scores MateScore - n (negated when being
// mated), and every score of magnitude MateBound or more is a mate.
const (
	MaxPly    = 128
	Infinity  = 32000
	MateScore = 31000
	MateBound = MateScore - MaxPly
)

// MateIn converts a mate score to UCI's "mate N" (moves, negative when the
// side to move is mated); ok is false for other scores.
func MateIn(score int) (moves int, ok bool) {
	switch {
	case score >= MateBound:
		return (MateScore - score + 1) / 2, true
	case score <= -MateBound:
		return -(MateScore + score) / 2, true
	}
	return 0, false
}

// Limits says when to stop. Zero fields mean no limit of that kind; with no
// limit at all the search runs until its context is cancelled or it reaches
// MaxPly.
type Limits struct {
	Depth int    // iterations to complete
	Nodes uint64 // nodes to search (checked at every node)
	// SoftNodes, if set, starts no new iteration once this many nodes are
	// searched (a soft limit, as datagen's in Viridithas and bullet-era
	// engines: the last iteration completes unless Nodes stops it).
	SoftNodes uint64
	MoveTime  time.Duration    // time for this move
	Mate      int              // stop once a mate in this many moves is found
	UseClock  bool             // play on the clock below
	Time      [2]time.Duration // remaining clock by colour (board.White, board.Black)
	Inc       [2]time.Duration // increment per move by colour
	MovesToGo int              // moves to the next time control, 0 for sudden death
	// MoveOverhead is subtracted from every time budget to cover the
	// latency between the engine and the clock (GUI, pipes, network).
	MoveOverhead time.Duration
	// SearchMoves restricts the root to these moves when not empty.
	SearchMoves []board.Move
	// MultiPV is the number of best lines to search and report (0 or 1:
	// one); the first line's move is the result.
	MultiPV int
	// Ponder starts the search in ponder mode: no time limit applies until
	// PonderHit, from which the clock limits count (see Searcher.PonderHit).
	Ponder bool
	// Start is when the clock started for this move (when the go command
	// arrived); zero means when Search is called.
	Start time.Time
}

// Info is a progress report: one per completed iteration, and one per
// aspiration-window failure after the first second.
type Info struct {
	Depth    int
	SelDepth int
	Score    int
	Bound    Bound // BoundExact, or BoundLower/BoundUpper after a window failure
	Nodes    uint64
	Time     time.Duration
	HashFull int    // permille
	TBHits   uint64 // positions the endgame tables answered
	MultiPV  int    // which line (1 = the best) this report is about
	PV       []board.Move
}

// NPS returns the nodes per second of the report.
func (i Info) NPS() uint64 {
	if i.Time <= 0 {
		return 0
	}
	return uint64(float64(i.Nodes) / i.Time.Seconds())
}

// Result is the outcome of a search. Best is board.NullMove only when the
// root has no legal move (Score is then -MateScore for checkmate or 0).
type Result struct {
	Best   board.Move
	Ponder board.Move
	Score  int
	Depth  int
	Nodes  uint64
	Time   time.Duration
}

// frame is the per-ply state of the search stack.
type frame struct {
	staticEval int
	move       board.Move
	piece      board.Piece // piece that made move, NoPiece for a null move
	excluded   board.Move  // singular-extension search skips this move
	killers    [2]board.Move
	cont       *[12][64]int16 // continuation history following this frame's move
	inCheck    bool
	doubleExt  int
}

// triedMoves are the moves a node searched before the one that failed
// high, whose histories get a malus.
type triedMoves struct {
	quiets, noisies   [64]board.Move
	nQuiets, nNoisies int
}

// stackOffset frames sit below ply 0 so that ply-1 .. ply-4 always exist.
const stackOffset = 4

// Searcher is the state of one search thread: its evaluator, a
// transposition table (shareable between threads later), history tables and
// the search stack.
type Searcher struct {
	tt  *TT
	ev  eval.Evaluator
	pos *board.Position

	nodes     uint64
	selDepth  int
	rootDepth int
	stopped   bool
	done      <-chan struct{}
	start     time.Time
	nodeLimit uint64
	hardLimit time.Duration // 0: none
	softLimit time.Duration // 0: none
	rootBest  board.Move
	searchSet map[board.Move]bool
	// rootSkip holds the moves of the better lines of a MultiPV search,
	// which the root skips while it searches the next line.
	rootSkip []board.Move

	// Lazy SMP: group holds every thread of the search this searcher takes
	// part in (nil when it searches alone), whose node counts add up
	// against a node limit; published is this searcher's count as the
	// others see it, written every 64 nodes. pondering is set while a ponder search waits for ponderhit;
	// ponder is the search goroutine's copy of it.
	group     []*Searcher
	published atomic.Uint64
	// tbConf says how to use endgame tables; tb is their use in a search
	// and rootTB the root's table score when the root is in them.
	tbConf    TBConfig
	tb        tbState
	rootTB    int
	rootInTB  bool
	pondering atomic.Bool
	ponder    bool
	// noEndgames turns eval.Endgame off (SetEndgameKnowledge).
	noEndgames bool
	// noMovePruning turns the move loop's low-depth pruning off
	// (SetMoveLoopPruning).
	noMovePruning bool

	stack     [MaxPly + stackOffset + 2]frame
	pv        [MaxPly + 1][MaxPly + 1]board.Move
	pvLen     [MaxPly + 1]int
	rootNodes [4096]uint64

	// Move pickers and tried-move lists live here rather than on the Go
	// stack, which would zero their 3 KB at every node; slot 1 of a ply is
	// the singular-extension search's, which runs inside slot 0's loop.
	pickers [MaxPly + 1][2]picker
	tried   [MaxPly + 1][2]triedMoves

	hist     [2][64][64]int16
	capHist  [12][64][7]int16
	contHist [13][64][12][64]int16 // [prev piece][prev to][piece][to]; row 12 is a dummy for null moves
	counter  [12][64]board.Move
}

// New returns a searcher that evaluates with ev and stores results in tt.
func New(ev eval.Evaluator, tt *TT) *Searcher {
	s := &Searcher{ev: ev, tt: tt}
	s.resetStack()
	return s
}

// resetStack empties the search stack; the frames below ply 0 stand for
// "no move" and "in check" (so that nothing counts as improving on them).
func (s *Searcher) resetStack() {
	for i := range s.stack {
		s.stack[i] = frame{piece: board.NoPiece, cont: &s.contHist[12][0], inCheck: i < stackOffset}
	}
}

// SetEvaluator replaces the evaluator (the UCI Arch and EvalFile options).
func (s *Searcher) SetEvaluator(ev eval.Evaluator) { s.ev = ev }

// Evaluator returns the searcher's evaluator.
func (s *Searcher) Evaluator() eval.Evaluator { return s.ev }

// TT returns the searcher's transposition table.
func (s *Searcher) TT() *TT { return s.tt }

// Clear forgets everything learnt from earlier searches (histories,
// killers, counter moves), as a new game requires. It does not clear the
// transposition table.
func (s *Searcher) Clear() {
	s.hist = [2][64][64]int16{}
	s.capHist = [12][64][7]int16{}
	clear(s.contHist[:])
	s.counter = [12][64]board.Move{}
	s.resetStack()
}

var lmrTable [64][64]int

// The reduction table is floor(0.75 + ln(d) ln(m) / 2.25). The 1e-9 keeps a
// last-bit difference between math.Log implementations (assembly on some
// architectures, pure Go on others) from flipping an entry, so that bench
// node counts agree across machines; TestLMRTable pins the table.
func init() {
	for d := 1; d < 64; d++ {
		for m := 1; m < 64; m++ {
			x := float64(math.Log(float64(d)) * math.Log(float64(m)))
			lmrTable[d][m] = int(0.75 + x/2.25 + 1e-9)
		}
	}
}

func lmr(depth, moveCount int) int {
	return lmrTable[min(depth, 63)][min(moveCount, 63)]
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// Search searches p (which it does not modify) within lim and returns the
// best move. report, if not nil, receives progress from the search
// goroutine. Cancelling ctx stops the search within about a millisecond;
// the result is then the best move found so far.
func (s *Searcher) Search(ctx context.Context, p *board.Position, lim Limits, report func(Info)) Result {
	s.tt.newSearch()
	return s.search(ctx, p, lim, report)
}

// rootLine is one line of a MultiPV search as its last completed
// iteration left it.
type rootLine struct {
	move     board.Move
	score    int
	selDepth int
	pv       []board.Move
}

// search is Search without ageing the table, which the threads of a Lazy
// SMP search share: the pool ages it once.
func (s *Searcher) search(ctx context.Context, p *board.Position, lim Limits, report func(Info)) Result {
	s.pos = p.Copy()
	s.ev.Reset(s.pos)
	s.done = ctx.Done()
	s.start = lim.Start
	if s.start.IsZero() {
		s.start = time.Now()
	}
	s.nodes = 0
	s.published.Store(0)
	s.stopped = false
	s.rootBest = board.NullMove
	s.rootSkip = s.rootSkip[:0]
	s.rootNodes = [4096]uint64{}
	s.resetStack()
	s.ponder = lim.Ponder
	s.pondering.Store(lim.Ponder)

	var legal board.MoveList
	s.pos.GenerateLegal(&legal)
	s.searchSet = nil
	if len(lim.SearchMoves) > 0 {
		s.searchSet = map[board.Move]bool{}
		for _, m := range lim.SearchMoves {
			if s.pos.IsLegal(m) {
				s.searchSet[m] = true
			}
		}
		if len(s.searchSet) == 0 {
			s.searchSet = nil
		}
	}
	s.rootTables(&legal)
	nRoot := legal.N
	if s.searchSet != nil {
		nRoot = len(s.searchSet)
	}
	if nRoot == 0 {
		score := 0
		if s.pos.InCheck() {
			score = -MateScore
		}
		return Result{Score: score, Time: time.Since(s.start)}
	}
	s.setTime(lim, nRoot)
	s.nodeLimit = lim.Nodes

	maxDepth := MaxPly - 1
	if lim.Depth > 0 && lim.Depth < maxDepth {
		maxDepth = lim.Depth
	}
	res := Result{}
	// Until depth 1 completes, play the first move in search order.
	for _, m := range s.OrderedMoves(s.pos) {
		if s.searchSet == nil || s.searchSet[m] {
			res.Best = m
			break
		}
	}
	lines := make([]rootLine, min(max(lim.MultiPV, 1), nRoot))
	prevScore := 0
	stability := 0
	for depth := 1; depth <= maxDepth; depth++ {
		s.rootDepth = depth
		s.rootSkip = s.rootSkip[:0]
		for k := range lines {
			s.selDepth = 0
			line := &lines[k]
			// The previous iteration's move of this line is searched first.
			s.rootBest = line.move
			score, done := s.aspiration(depth, line.score, report)
			if s.pvLen[0] > 0 && s.pv[0][0] != board.NullMove && (done || k == 0) {
				// The root's PV changes only when a move's search completed
				// and beat alpha, so even an interrupted iteration's first
				// move is at least as good as the last completed one's.
				if k == 0 && s.pv[0][0] != res.Best {
					stability = 0
				}
				line.move = s.pv[0][0]
				line.pv = append([]board.Move(nil), s.pv[0][:s.pvLen[0]]...) // reports may keep it
				if k == 0 {
					res.Best = line.move
				}
			}
			if !done {
				break
			}
			line.score, line.selDepth = score, s.selDepth
			s.rootSkip = append(s.rootSkip, line.move)
		}
		if s.stopped {
			break
		}
		// A later line can come out better than an earlier one (each
		// line's search sees only the moves the earlier lines left).
		slices.SortStableFunc(lines, func(a, b rootLine) int { return b.score - a.score })
		if lines[0].move != res.Best {
			stability = 0
			res.Best = lines[0].move
		}
		s.rootBest = res.Best
		stability++
		score := lines[0].score
		res.Depth, res.Score = depth, s.rootScore(score)
		if report != nil {
			nodes, elapsed, full := s.totalNodes(), time.Since(s.start), s.tt.HashFull()
			for k, l := range lines {
				report(Info{Depth: depth, SelDepth: l.selDepth, Score: s.rootScore(l.score), Bound: BoundExact,
					Nodes: nodes, Time: elapsed, HashFull: full, TBHits: s.totalTBHits(), MultiPV: k + 1, PV: l.pv})
			}
		}
		if lim.Mate > 0 && score >= MateScore-2*lim.Mate {
			break
		}
		if lim.SoftNodes > 0 && s.totalNodes() >= lim.SoftNodes {
			break
		}
		if s.softStop(depth, stability, score, prevScore, res.Best, nRoot) {
			break
		}
		prevScore = score
	}
	if pv := lines[0].pv; len(pv) > 1 && pv[0] == res.Best {
		res.Ponder = pv[1]
	}
	s.rootBest = res.Best
	res.Nodes = s.totalNodes()
	res.Time = time.Since(s.start)
	return res
}

// aspiration searches the root to depth with a window around the previous
// iteration's score, widening it until the score falls inside; done is
// false when the search was stopped first.
func (s *Searcher) aspiration(depth, prev int, report func(Info)) (score int, done bool) {
	delta := 12
	alpha, beta := -Infinity, Infinity
	if depth >= 4 {
		alpha, beta = max(prev-delta, -Infinity), min(prev+delta, Infinity)
	}
	for {
		v := s.negamax(alpha, beta, depth, 0, false)
		if s.stopped {
			return 0, false
		}
		// A bound at the edge of the score range cannot be widened:
		// take it rather than search the same window again.
		if v <= alpha && alpha <= -Infinity || v >= beta && beta >= Infinity {
			return max(-Infinity+1, min(v, Infinity-1)), true
		}
		if v <= alpha {
			beta = (alpha + beta) / 2
			alpha = max(v-delta, -Infinity)
			s.reportBound(report, depth, v, BoundUpper)
		} else if v >= beta {
			beta = min(v+delta, Infinity)
			s.reportBound(report, depth, v, BoundLower)
		} else {
			return v, true
		}
		delta += delta / 2
	}
}

// totalNodes is the node count of the search this searcher takes part
// in: its own and the other threads' (as they last published them).
func (s *Searcher) totalNodes() uint64 {
	n := s.nodes
	for _, h := range s.group {
		if h != s {
			n += h.published.Load()
		}
	}
	return n
}

// PonderHit ends ponder mode: the search goes on as a normal one whose
// clock starts now. It may be called from any goroutine.
func (s *Searcher) PonderHit() { s.pondering.Store(false) }

func (s *Searcher) reportBound(report func(Info), depth, v int, b Bound) {
	if report == nil || time.Since(s.start) < time.Second {
		return
	}
	pv := append([]board.Move(nil), s.pv[0][:s.pvLen[0]]...)
	report(Info{Depth: depth, SelDepth: s.selDepth, Score: s.rootScore(v), Bound: b,
		Nodes: s.totalNodes(), Time: time.Since(s.start), HashFull: s.tt.HashFull(), TBHits: s.totalTBHits(),
		MultiPV: len(s.rootSkip) + 1, PV: pv})
}

// validEval reports whether a static evaluation read from the table can be
// one: an in-check node stores -Infinity, and the table checks only part of
// the key, so another position's entry (one in check, say) can answer a
// probe. Such a value taken as this node's evaluation once made a
// quiescence search return -Infinity and the root's aspiration loop spin
// forever (datagen game 2816 of seed 101 with chess768).
func validEval(v int) bool { return v > -MateBound && v < MateBound }

// checkStop polls the stop conditions; the clock and the context every
// 64 nodes (well under a millisecond with any in-process evaluator,
// a few with an out-of-process plugin), the node limit at every node.
func (s *Searcher) checkStop() bool {
	if s.stopped {
		return true
	}
	// The node limit waits for depth 1 to complete, so that even a tiny
	// budget ends with a searched move and a score (a labeller's "go
	// nodes 100" needs one); depth 1 costs at most a few thousand nodes.
	// With other threads every thread counts all threads' nodes, every 64
	// nodes, so that the limit holds even while one thread waits for a CPU.
	if s.nodeLimit != 0 && s.nodes >= s.nodeLimit && s.rootDepth > 1 && s.group == nil {
		s.stopped = true
		return true
	}
	if s.nodes&63 == 0 {
		s.published.Store(s.nodes)
		select {
		case <-s.done:
			s.stopped = true
		default:
		}
		if s.ponder && !s.pondering.Load() {
			s.ponder = false // ponderhit: the clock starts now
			s.start = time.Now()
		}
		if s.hardLimit > 0 && !s.ponder && time.Since(s.start) >= s.hardLimit {
			s.stopped = true
		}
		if s.nodeLimit != 0 && s.group != nil && s.rootDepth > 1 && s.totalNodes() >= s.nodeLimit {
			s.stopped = true
		}
	}
	return s.stopped
}

// evaluate returns the static evaluation, scaled towards a draw as the
// fifty-move counter runs and kept clear of the mate range. Pawnless
// endgames eval.Endgame knows are scored by it instead (a known win or
// draw) or with its mop-up term added (see SetEndgameKnowledge). A known
// score is not scaled by the fifty-move counter: a win of 10,000 scaled
// would lose about 50 a ply, more than any step of progress gains, and the
// search would prefer short lines to progress.
func (s *Searcher) evaluate() int {
	v, kind := 0, eval.NotKnown
	if !s.noEndgames {
		v, kind = eval.Endgame(s.pos)
	}
	switch kind {
	case eval.KnownScore:
		return max(min(v, TBBound-1), -TBBound+1)
	case eval.Guided:
		v += s.ev.Evaluate(s.pos)
	default:
		v = s.ev.Evaluate(s.pos)
	}
	v = v * (200 - s.pos.HalfmoveClock()) / 200
	return max(min(v, TBBound-1), -TBBound+1)
}

// SetEndgameKnowledge turns the search's knowledge of pawnless endgames
// (eval.Endgame, on by default) on or off, for experiments that compare an
// evaluator with and without it. It must not be called during a search.
func (s *Searcher) SetEndgameKnowledge(on bool) { s.noEndgames = !on }

// SetMoveLoopPruning turns the move loop's low-depth pruning (late-move,
// futility, history and SEE pruning of the moves of a node; on by default)
// on or off. Off is CudAD's setting for Koivisto's self-play: every move of
// a shallow node is searched, so that a fixed node budget buys a narrower,
// fuller tree. Null-move, reverse futility and late-move reductions stay.
// It must not be called during a search.
func (s *Searcher) SetMoveLoopPruning(on bool) { s.noMovePruning = !on }

// isDraw reports a draw by the fifty-move rule, repetition (one earlier
// occurrence suffices inside the search) or insufficient material.
func (s *Searcher) isDraw(inCheck bool) bool {
	p := s.pos
	if p.HalfmoveClock() >= 100 {
		if !inCheck {
			return true
		}
		var ml board.MoveList
		p.GenerateLegal(&ml)
		return ml.N > 0
	}
	if p.Repetitions() > 0 {
		return true
	}
	if p.ByType(board.Pawn)|p.ByType(board.Rook)|p.ByType(board.Queen) == 0 {
		if minors := p.ByType(board.Knight) | p.ByType(board.Bishop); !minors.More() {
			return true
		}
	}
	return false
}

func hasNonPawn(p *board.Position, c board.Color) bool {
	return p.ByColor(c)&^(p.Pieces(c, board.Pawn)|p.Pieces(c, board.King)) != 0
}

func (s *Searcher) negamax(alpha, beta, depth, ply int, cutNode bool) int {
	if depth <= 0 {
		return s.qsearch(alpha, beta, ply)
	}
	s.pvLen[ply] = ply
	if s.checkStop() {
		return 0
	}
	s.nodes++
	if ply > s.selDepth {
		s.selDepth = ply
	}
	p := s.pos
	us := p.SideToMove()
	pvNode := beta-alpha > 1
	root := ply == 0
	ss := &s.stack[ply+stackOffset]
	inCheck := p.InCheck()
	ss.inCheck = inCheck
	// In a pawnless endgame of a few pieces the defender's moves are not
	// pruned (except in rook and bishop against rook), nor losing captures
	// reduced (see fewPieces).
	few := fewPieces(p)
	guarded := few && defending(p) && !rookBishopRook(p)

	if !root {
		if s.isDraw(inCheck) {
			return 0
		}
		if ply >= MaxPly-1 {
			if inCheck {
				return 0
			}
			return s.evaluate()
		}
		// Mate distance pruning: no line from here beats a shorter mate.
		alpha = max(alpha, -MateScore+ply)
		beta = min(beta, MateScore-ply-1)
		if alpha >= beta {
			return alpha
		}
	}

	excluded := ss.excluded
	key := p.Key()
	var te ttEntry
	ttHit := false
	if excluded == board.NullMove {
		te, ttHit = s.tt.probe(key)
	}
	ttMove := board.NullMove
	ttScore := 0
	if ttHit {
		ttMove = te.move
		ttScore = scoreFromTT(te.ttScore(), ply)
		if !pvNode && te.draft() >= depth && p.HalfmoveClock() < 90 {
			if b := te.bound(); b == BoundExact || b == BoundLower && ttScore >= beta || b == BoundUpper && ttScore <= alpha {
				return ttScore
			}
		}
	}
	if root && s.rootBest != board.NullMove {
		ttMove = s.rootBest
	}
	ttPV := pvNode || ttHit && te.isPV()

	// Endgame tables: a position they answer needs no search when their
	// answer is exact or cuts (kept deeper than any search would).
	if !root && s.tb.card > 0 && excluded == board.NullMove {
		if v, b, ok := s.probeTree(depth, ply); ok &&
			(b == BoundExact || b == BoundLower && v >= beta || b == BoundUpper && v <= alpha) {
			s.tt.store(key, board.NullMove, scoreToTT(v, ply), -Infinity, min(depth+6, MaxPly-1), b, ttPV)
			return v
		}
	}

	// Static evaluation, refined by the table's bound when it is tighter.
	ev := -Infinity
	if inCheck {
		ss.staticEval = -Infinity
	} else {
		if ttHit && validEval(te.staticEv()) {
			ss.staticEval = te.staticEv()
		} else if excluded == board.NullMove {
			ss.staticEval = s.evaluate()
		}
		ev = ss.staticEval
		if ttHit && (te.bound() == BoundLower && ttScore > ev || te.bound() == BoundUpper && ttScore < ev || te.bound() == BoundExact) {
			ev = ttScore
		}
	}
	improving := false
	if !inCheck {
		if prev := &s.stack[ply+stackOffset-2]; !prev.inCheck {
			improving = ss.staticEval > prev.staticEval
		} else if prev := &s.stack[ply+stackOffset-4]; !prev.inCheck {
			improving = ss.staticEval > prev.staticEval
		} else {
			improving = true
		}
	}
	s.stack[ply+stackOffset+2].killers = [2]board.Move{}

	if !pvNode && !inCheck && excluded == board.NullMove && !guarded {
		// Reverse futility pruning: far enough above beta, assume a cut.
		if depth <= 8 && ev < MateBound && ev-80*(depth-boolInt(improving)) >= beta {
			return (ev + beta) / 2
		}
		// Razoring: hopeless at low depth unless a capture saves it.
		if depth <= 3 && ev+200+150*depth <= alpha {
			if v := s.qsearch(alpha, alpha+1, ply); v <= alpha {
				return v
			}
		}
		// Null-move pruning.
		if depth >= 3 && ev >= beta && ss.staticEval >= beta-15*depth+150 &&
			s.stack[ply+stackOffset-1].move != board.NullMove && hasNonPawn(p, us) && beta > -MateBound {
			r := 4 + depth/4 + min((ev-beta)/200, 3)
			ss.move, ss.piece, ss.cont = board.NullMove, board.NoPiece, &s.contHist[12][0]
			p.MakeNullMove()
			s.tt.prefetch(p.Key())
			s.ev.Push(p.LastDelta())
			v := -s.negamax(-beta, -beta+1, depth-r, ply+1, !cutNode)
			p.UnmakeNullMove()
			s.ev.Pop()
			if s.stopped {
				return 0
			}
			if v >= beta {
				if v >= MateBound {
					v = beta
				}
				return v
			}
		}
	}

	// Internal iterative reduction: without a table move this node was
	// never searched deeply, so search it shallower first.
	if depth >= 4 && ttMove == board.NullMove && (pvNode || cutNode) && excluded == board.NullMove {
		depth--
	}

	slot := boolInt(excluded != board.NullMove)
	mp := &s.pickers[ply][slot]
	mp.init(s, ply, ttMove, false)
	tried := &s.tried[ply][slot]
	tried.nQuiets, tried.nNoisies = 0, 0
	bestScore, bestMove := -Infinity, board.NullMove
	moveCount, searched := 0, 0
	for m := mp.next(); m != board.NullMove; m = mp.next() {
		if m == excluded || root && (s.searchSet != nil && !s.searchSet[m] || slices.Contains(s.rootSkip, m)) {
			continue
		}
		moveCount++
		// Ask for the child's table entry now, while the pruning tests
		// run, not only once the move is made (wasted on pruned moves).
		s.tt.prefetch(p.KeyAfter(m))
		noisy := isNoisy(p, m)
		pc := p.PieceOn(m.From())
		hist := 0
		if !noisy {
			hist = s.quietScore(ply, pc, m)
		}

		if !root && !s.noMovePruning && bestScore > -MateBound && hasNonPawn(p, us) && !guarded {
			lmrDepth := max(depth-1-lmr(depth, moveCount), 0)
			if !noisy {
				// Late move pruning.
				if depth <= 8 && moveCount >= (3+depth*depth)/(2-boolInt(improving)) {
					mp.skipQuiets = true
					continue
				}
				// Futility pruning.
				if !inCheck && lmrDepth <= 8 && ss.staticEval+100+100*lmrDepth <= alpha {
					mp.skipQuiets = true
					continue
				}
				// History pruning.
				if lmrDepth <= 3 && hist < -3000*depth {
					continue
				}
				if !seeGE(p, m, -25*lmrDepth*lmrDepth) {
					continue
				}
			} else if depth <= 8 && !seeGE(p, m, -90*depth) {
				continue
			}
		}

		// Singular extension: if every other move fails well below the
		// table's score, the table move is the only one and is searched
		// deeper; if even a reduced search of the others beats beta, cut.
		ext := 0
		if !root && m == ttMove && excluded == board.NullMove && depth >= 8 && ttHit &&
			te.draft() >= depth-3 && te.bound()&BoundLower != 0 && ttScore < MateBound && ttScore > -MateBound &&
			ply < 2*s.rootDepth {
			sBeta := ttScore - 2*depth
			ss.excluded = m
			v := s.negamax(sBeta-1, sBeta, (depth-1)/2, ply, cutNode)
			ss.excluded = board.NullMove
			if s.stopped {
				return 0
			}
			if v < sBeta {
				ext = 1
				if !pvNode && v < sBeta-20 && ss.doubleExt < 6 {
					ext = 2
				}
			} else if sBeta >= beta {
				return sBeta
			} else if ttScore >= beta {
				ext = -1
			}
		}

		nodesBefore := s.nodes
		ss.move, ss.piece, ss.cont = m, pc, &s.contHist[pc][m.To()]
		p.MakeMove(m)
		s.tt.prefetch(p.Key())
		s.ev.Push(p.LastDelta())
		givesCheck := p.InCheck()
		if givesCheck && ext == 0 && ply < 2*s.rootDepth {
			ext = 1
		}
		s.stack[ply+stackOffset+1].doubleExt = ss.doubleExt + boolInt(ext == 2)
		newDepth := depth - 1 + ext
		searched++

		v := 0
		if depth >= 3 && searched > 1+boolInt(pvNode) && (!noisy || mp.stage == stageBadNoisy && !few) {
			r := lmr(depth, moveCount)
			r += boolInt(cutNode) + boolInt(!improving) - boolInt(ttPV) - boolInt(givesCheck)
			if !noisy {
				r -= hist / 8192
				if m == mp.k1 || m == mp.k2 || m == mp.cm {
					r--
				}
			}
			d := max(1, min(newDepth-r, newDepth))
			v = -s.negamax(-alpha-1, -alpha, d, ply+1, true)
			if v > alpha && d < newDepth {
				v = -s.negamax(-alpha-1, -alpha, newDepth, ply+1, !cutNode)
			}
		} else if !pvNode || searched > 1 {
			v = -s.negamax(-alpha-1, -alpha, newDepth, ply+1, !cutNode)
		}
		if pvNode && (searched == 1 || v > alpha) {
			v = -s.negamax(-beta, -alpha, newDepth, ply+1, false)
		}
		p.UnmakeMove()
		s.ev.Pop()
		if s.stopped {
			return 0
		}
		if root {
			s.rootNodes[m&4095] += s.nodes - nodesBefore
		}

		if v > bestScore {
			bestScore = v
			if v > alpha {
				bestMove = m
				if pvNode {
					s.pv[ply][ply] = m
					n := copy(s.pv[ply][ply+1:], s.pv[ply+1][ply+1:s.pvLen[ply+1]])
					s.pvLen[ply] = ply + 1 + n
				}
				if v >= beta {
					s.updateHistories(ply, depth, m, noisy, tried.quiets[:tried.nQuiets], tried.noisies[:tried.nNoisies])
					break
				}
				alpha = v
			}
		}
		if noisy && tried.nNoisies < len(tried.noisies) {
			tried.noisies[tried.nNoisies] = m
			tried.nNoisies++
		} else if !noisy && tried.nQuiets < len(tried.quiets) {
			tried.quiets[tried.nQuiets] = m
			tried.nQuiets++
		}
	}

	if moveCount == 0 {
		if excluded != board.NullMove {
			return alpha
		}
		if inCheck {
			return -MateScore + ply
		}
		return 0
	}
	if excluded == board.NullMove {
		b := BoundUpper
		if bestScore >= beta {
			b = BoundLower
		} else if pvNode && bestMove != board.NullMove {
			b = BoundExact
		}
		se := ss.staticEval
		s.tt.store(key, bestMove, scoreToTT(bestScore, ply), se, depth, b, ttPV)
	}
	return bestScore
}

func (s *Searcher) qsearch(alpha, beta, ply int) int {
	s.pvLen[ply] = ply
	if s.checkStop() {
		return 0
	}
	s.nodes++
	if ply > s.selDepth {
		s.selDepth = ply
	}
	p := s.pos
	inCheck := p.InCheck()
	ss := &s.stack[ply+stackOffset]
	ss.inCheck = inCheck
	if s.isDraw(inCheck) {
		return 0
	}
	if ply >= MaxPly-1 {
		if inCheck {
			return 0
		}
		return s.evaluate()
	}
	pvNode := beta-alpha > 1

	key := p.Key()
	te, ttHit := s.tt.probe(key)
	ttMove, ttScore := board.NullMove, 0
	if ttHit {
		ttMove = te.move
		ttScore = scoreFromTT(te.ttScore(), ply)
		if !pvNode {
			if b := te.bound(); b == BoundExact || b == BoundLower && ttScore >= beta || b == BoundUpper && ttScore <= alpha {
				return ttScore
			}
		}
	}

	bestScore, staticEval := -Infinity, -Infinity
	if !inCheck {
		if ttHit && validEval(te.staticEv()) {
			staticEval = te.staticEv()
		} else {
			staticEval = s.evaluate()
		}
		bestScore = staticEval
		if ttHit && (te.bound() == BoundLower && ttScore > bestScore || te.bound() == BoundUpper && ttScore < bestScore) {
			bestScore = ttScore
		}
		if bestScore >= beta {
			if !ttHit {
				s.tt.store(key, board.NullMove, scoreToTT(bestScore, ply), staticEval, 0, BoundLower, false)
			}
			return bestScore
		}
		alpha = max(alpha, bestScore)
	}
	ss.staticEval = staticEval
	futilityBase := staticEval + 200

	few := fewPieces(p) // every capture and evasion searched (see fewPieces)
	mp := &s.pickers[ply][0]
	mp.init(s, ply, ttMove, !inCheck)
	bestMove := board.NullMove
	moveCount := 0
	for m := mp.next(); m != board.NullMove; m = mp.next() {
		moveCount++
		s.tt.prefetch(p.KeyAfter(m))
		if !inCheck && !few {
			// Futility: even winning the captured piece leaves us below alpha.
			if m.Kind() != board.Promotion {
				victim := board.Pawn
				if m.Kind() != board.EnPassant {
					victim = p.PieceOn(m.To()).Type()
				}
				if fv := futilityBase + seeValue[victim]; fv <= alpha {
					bestScore = max(bestScore, fv)
					continue
				}
			}
			if !seeGE(p, m, 0) {
				continue
			}
		} else if inCheck && !few && bestScore > -MateBound && !isNoisy(p, m) && moveCount > 2 {
			// In check, after two evasions, quiet ones rarely matter.
			continue
		}
		pc := p.PieceOn(m.From())
		ss.move, ss.piece, ss.cont = m, pc, &s.contHist[pc][m.To()]
		p.MakeMove(m)
		s.tt.prefetch(p.Key())
		s.ev.Push(p.LastDelta())
		v := -s.qsearch(-beta, -alpha, ply+1)
		p.UnmakeMove()
		s.ev.Pop()
		if s.stopped {
			return 0
		}
		if v > bestScore {
			bestScore = v
			if v > alpha {
				bestMove = m
				if pvNode {
					s.pv[ply][ply] = m
					n := copy(s.pv[ply][ply+1:], s.pv[ply+1][ply+1:s.pvLen[ply+1]])
					s.pvLen[ply] = ply + 1 + n
				}
				if v >= beta {
					break
				}
				alpha = v
			}
		}
	}
	if inCheck && moveCount == 0 {
		return -MateScore + ply
	}
	b := BoundUpper
	if bestScore >= beta {
		b = BoundLower
	}
	s.tt.store(key, bestMove, scoreToTT(bestScore, ply), staticEval, 0, b, false)
	return bestScore
}
