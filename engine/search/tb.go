package search

import (
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/syzygy"
)

// Tablebase scores sit between evaluations and mates: a position the
// tables call won, ply plies from the root, scores TBWin - ply, so that a
// nearer table win is preferred, every table win beats every evaluation and
// every mate beats every table win. Every score of magnitude TBBound or
// more and below MateBound is a table result.
const (
	TBWin   = MateBound - 1
	TBBound = TBWin - MaxPly
)

// Tablebase is what search asks of endgame tables (engine/syzygy's tables
// behind an adapter): the win/draw/loss of a position from the side to move
// (-2 loss, -1 loss saved by the fifty-move rule, 0 draw, 1 win spoiled by
// it, 2 win) and its distance to zeroing in plies (positive when the side to
// move wins, negative when it loses, 0 for a draw). Both are safe to call
// from many search threads at once; an error means no answer (no table,
// castling rights, a damaged file).
type Tablebase interface {
	MaxPieces() int
	ProbeWDL(p *board.Position) (int, error)
	ProbeDTZ(p *board.Position) (int, error)
}

// TBConfig says how search uses endgame tables; the zero value uses none.
// The fields follow Stockfish's UCI options of the same names.
type TBConfig struct {
	Tables Tablebase
	// ProbeDepth is the least remaining depth at which a node with as many
	// pieces as the tables hold is probed (SyzygyProbeDepth); nodes with
	// fewer pieces are probed at any depth.
	ProbeDepth int
	// ProbeLimit is the most pieces a probed position may have
	// (SyzygyProbeLimit); 0 means the tables' own limit.
	ProbeLimit int
	// Rule50 scores wins and losses that the fifty-move rule turns into
	// draws (cursed wins, blessed losses) as draws (Syzygy50MoveRule).
	Rule50 bool
	// Warn, if not nil, hears every failed probe other than "no table for
	// this material" (a damaged file, say); search goes on without it.
	Warn func(error)
}

// cardinality is the most pieces the tables are probed with.
func (c *TBConfig) cardinality() int {
	if c.Tables == nil {
		return 0
	}
	n := c.Tables.MaxPieces()
	if c.ProbeLimit > 0 && c.ProbeLimit < n {
		n = c.ProbeLimit
	}
	return n
}

// SetTablebase sets the endgame tables a searcher probes (see TBConfig).
// It must not be called during a search.
func (s *Searcher) SetTablebase(c TBConfig) { s.tbConf = c }

// SetTablebase sets every thread's tables; see Searcher.SetTablebase.
func (p *Pool) SetTablebase(c TBConfig) {
	for _, t := range p.threads {
		t.SetTablebase(c)
	}
}

// tbState is a searcher's use of the tables during one search.
type tbState struct {
	card int           // most pieces probed in the tree, 0 for none
	hits atomic.Uint64 // probes answered (the UCI tbhits), read by the leading thread
}

// totalTBHits is the tbhits of the search this searcher takes part in.
func (s *Searcher) totalTBHits() uint64 {
	if s.group == nil {
		return s.tb.hits.Load()
	}
	var n uint64
	for _, h := range s.group {
		n += h.tb.hits.Load()
	}
	return n
}

// tbScore turns a table's WDL (from the side to move at ply) into a score
// and the bound it is: a win is at least TBWin - ply (the position may
// also hold a mate), a loss at most its negation, a draw exact. With the
// fifty-move rule the spoiled results are draws, one unit off zero so that
// search still prefers the side of the fence the tables say.
func (c *TBConfig) tbScore(wdl, ply int) (int, Bound) {
	switch {
	case wdl == 2 || wdl == 1 && !c.Rule50:
		return TBWin - ply, BoundLower
	case wdl == -2 || wdl == -1 && !c.Rule50:
		return -TBWin + ply, BoundUpper
	}
	return wdl, BoundExact
}

// probeTree probes the tables at a node of the tree: only positions just
// after a capture or pawn move (whose table value the fifty-move counter
// cannot have changed) without castling rights, with few enough pieces.
func (s *Searcher) probeTree(depth, ply int) (int, Bound, bool) {
	p := s.pos
	n := p.Occupied().Count()
	if n > s.tb.card || n == s.tb.card && depth < s.tbConf.ProbeDepth ||
		p.HalfmoveClock() != 0 || p.CastlingRights() != 0 {
		return 0, 0, false
	}
	wdl, err := s.tbConf.Tables.ProbeWDL(p)
	if err != nil {
		s.tbWarn(err)
		return 0, 0, false
	}
	s.tb.hits.Add(1)
	v, b := s.tbConf.tbScore(wdl, ply)
	return v, b, true
}

// ErrNoTable is what a Tablebase's error wraps (errors.Is) when it holds no
// table for a position's material: search then does without, silently.
// Adapters map their own "missing table" error to it.
var ErrNoTable = errNoTable{}

type errNoTable struct{}

func (errNoTable) Error() string { return "no table for this material" }

func isNoTable(err error) bool { return errors.Is(err, ErrNoTable) }

func (s *Searcher) tbWarn(err error) {
	if s.tbConf.Warn != nil && !isNoTable(err) {
		s.tbConf.Warn(err)
	}
}

// rootRank is a root move's rank by the tables: higher is better.
type rootRank struct {
	move  board.Move
	rank  int
	score int // what the tables say the move scores (for reports)
}

// Root ranks. A win the fifty-move rule allows ranks by its distance to
// zeroing, the nearest first (a move into a repeated position a notch
// below its distance): every move then brings the next capture, pawn move
// or mate closer, so a won position is converted whatever the evaluation
// makes of it. (Ranking all such wins alike and leaving the choice to
// search, as Stockfish does, let KRBvKR wins drift: a search that saw no
// progress among them shuffled until the margin the tables' rounding
// needs ran out, then repeated.) A win the rule spoils ranks below every
// win it allows, a loss by how long it holds out.
const (
	rankWin    = 1 << 16
	rankCursed = rankWin - 1000
	rankLoss   = -rankWin
)

// rankRoot ranks the root's legal moves by the tables: by distance to
// zeroing where the DTZ tables answer for every move (dtz true), else by
// win/draw/loss. It returns false when the root is not in the tables.
func (s *Searcher) rankRoot(legal []board.Move) (ranks []rootRank, dtz bool, ok bool) {
	p := s.pos
	c := &s.tbConf
	if c.Tables == nil || p.CastlingRights() != 0 || p.Occupied().Count() > c.cardinality() {
		return nil, false, false
	}
	if ranks, ok := s.rankByDTZ(legal); ok {
		return ranks, true, true
	}
	for _, m := range legal {
		p.MakeMove(m)
		wdl, err := c.Tables.ProbeWDL(p)
		p.UnmakeMove()
		if err != nil {
			s.tbWarn(err)
			return nil, false, false
		}
		s.tb.hits.Add(1)
		// A spoiled result (1, -1) ranks between the draw and the clean one.
		v, _ := c.tbScore(-wdl, 1)
		ranks = append(ranks, rootRank{move: m, rank: -wdl, score: v})
	}
	return ranks, false, true
}

// rankByDTZ ranks moves by distance to zeroing after them; see rankRoot.
func (s *Searcher) rankByDTZ(legal []board.Move) ([]rootRank, bool) {
	p := s.pos
	c := &s.tbConf
	clock := p.HalfmoveClock()
	ranks := make([]rootRank, 0, len(legal))
	for _, m := range legal {
		p.MakeMove(m)
		d, err := s.dtzAfter(p)
		rep := p.Repetitions() > 0
		p.UnmakeMove()
		if err != nil {
			s.tbWarn(err)
			return nil, false
		}
		s.tb.hits.Add(1)
		// d is the mover's distance to zeroing counted from before the
		// move (plies); with the clock it says whether the result comes
		// before the fifty-move rule does.
		r, v := 0, 0
		switch {
		case d > 0 && (d+clock <= 99 || !c.Rule50):
			r, v = rankWin-2*d-boolInt(rep), TBWin-1
		case d > 0:
			r = rankCursed - (d + clock)
			v, _ = c.tbScore(1, 1)
		case d < 0 && (-d+clock <= 99 || !c.Rule50):
			r, v = rankLoss-d, -TBWin+1
		case d < 0:
			r = rankLoss + (-d + clock)
			v, _ = c.tbScore(-1, 1)
		}
		ranks = append(ranks, rootRank{move: m, rank: r, score: v})
	}
	return ranks, true
}

// dtzAfter is the distance to zeroing of the side that just moved, counted
// in plies from before its move (positive when it wins): 1 when the move
// itself zeroes (a capture or pawn move) into a won position.
func (s *Searcher) dtzAfter(p *board.Position) (int, error) {
	t := s.tbConf.Tables
	var ml board.MoveList
	if p.GenerateLegal(&ml); ml.N == 0 {
		if p.InCheck() {
			return 1, nil // mate: the quickest win there is
		}
		return 0, nil
	}
	if p.HalfmoveClock() == 0 {
		// The move zeroed: what is left is the position's WDL.
		wdl, err := t.ProbeWDL(p)
		if err != nil {
			return 0, err
		}
		switch -wdl {
		case 2:
			return 1, nil
		case 1:
			return 101, nil
		case -1:
			return -101, nil
		case -2:
			return -1, nil
		}
		return 0, nil
	}
	d, err := t.ProbeDTZ(p)
	if err != nil {
		return 0, err
	}
	switch {
	case d > 0: // the opponent wins in d plies: we lose in one more
		return -d - 1, nil
	case d < 0:
		return -d + 1, nil
	}
	return 0, nil
}

// keepBest returns the moves of the best rank, and that rank's score.
func keepBest(ranks []rootRank) ([]board.Move, int) {
	best := ranks[0]
	for _, r := range ranks[1:] {
		if r.rank > best.rank {
			best = r
		}
	}
	var keep []board.Move
	for _, r := range ranks {
		if r.rank == best.rank {
			keep = append(keep, r.move)
		}
	}
	return keep, best.score
}

// rootTables restricts the root to the moves the tables rank best, when
// they hold the root: a won position is then never given away and is
// converted before the fifty-move rule, a drawn one never lost. With
// distance-to-zeroing ranks the tree is not probed (the ranks already say
// all the tables can); with win/draw/loss ranks only, it is.
func (s *Searcher) rootTables(legal *board.MoveList) {
	s.tb.hits.Store(0)
	s.tb.card = s.tbConf.cardinality()
	s.rootInTB = false
	if s.tb.card == 0 || s.pos.Occupied().Count() > s.tb.card {
		return // no tables, or the root is not in them: no work on every search
	}
	moves := make([]board.Move, 0, legal.N)
	for _, m := range legal.Slice() {
		if s.searchSet == nil || s.searchSet[m] {
			moves = append(moves, m)
		}
	}
	if len(moves) == 0 {
		return
	}
	ranks, dtz, ok := s.rankRoot(moves)
	if !ok {
		return
	}
	keep, score := keepBest(ranks)
	s.searchSet = map[board.Move]bool{}
	for _, m := range keep {
		s.searchSet[m] = true
	}
	s.rootInTB, s.rootTB = true, score
	if dtz || score <= 0 {
		s.tb.card = 0
	}
}

// rootScore is the score a search of the root reports: when the tables
// hold the root and the search found no mate, the tables' score.
func (s *Searcher) rootScore(v int) int {
	if s.rootInTB && v > -MateBound && v < MateBound {
		return s.rootTB
	}
	return v
}

// Syzygy returns Syzygy tables as search's Tablebase: a position they hold
// no table for (or cannot hold: castling rights, too many pieces) is
// ErrNoTable, which search passes over silently; anything else (a damaged
// file) is an error search reports through TBConfig.Warn.
func Syzygy(t *syzygy.Tables) Tablebase { return syzygyTables{t} }

type syzygyTables struct{ t *syzygy.Tables }

func (s syzygyTables) MaxPieces() int { return s.t.MaxPieces() }

func (s syzygyTables) ProbeWDL(p *board.Position) (int, error) {
	w, err := s.t.ProbeWDL(p)
	return int(w), noTable(err)
}

func (s syzygyTables) ProbeDTZ(p *board.Position) (int, error) {
	d, err := s.t.ProbeDTZ(p)
	return d, noTable(err)
}

func noTable(err error) error {
	var missing *syzygy.MissingError
	if errors.As(err, &missing) || errors.Is(err, syzygy.ErrCastling) || errors.Is(err, syzygy.ErrTooManyPieces) {
		return fmt.Errorf("%w: %v", ErrNoTable, err)
	}
	return err
}
