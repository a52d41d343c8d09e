package nnue

import (
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/nnue/simd"
)

// entry is one ply of the accumulator stack.
type entry struct {
	acc      [2][]int16
	psqt     [2][]int32
	computed [2]bool
	delta    board.Delta
	kings    [2]board.Square
	views    [2]view
	pieces   int
	// With threat features: the board after the move (valid when mbOK),
	// and the threats the move removed and added (diffed: computed once,
	// with the board, by threatDelta when first needed, for both
	// perspectives). Push leaves both to the first evaluation that needs
	// them, so a node never evaluated costs no board.
	mb               mailbox
	mbOK, diffed     bool
	thRemoved, thAdd []threat
}

// cacheSlot is one refresh-cache entry: an accumulator and the pieces it
// holds, per perspective and king view (bucket and mirror).
type cacheSlot struct {
	acc    []int16
	psqt   []int32
	pieces [12]board.Bitboard
}

// Stats counts how evaluations obtained their accumulators, per perspective
// update: Served[d] were updated from the accumulator d plies back (d = 0:
// already computed), Refreshes were rebuilt (from scratch or the cache).
type Stats struct {
	Served    [65]uint64 // d >= 64 counted in Served[64]
	Refreshes uint64
	CacheHits uint64
}

// Evaluator evaluates positions along a search incrementally. It implements
// eval.Evaluator: Reset at the root, Push after each move with the board's
// delta, Pop after each unmake, Evaluate at any node. Accumulators are
// computed lazily: an evaluation walks back at most History plies to the
// nearest computed accumulator and applies the deltas since, else refreshes.
type Evaluator struct {
	net      *Network
	history  int // 0 = unlimited
	useCache bool
	stack    []entry
	top      int
	cache    [2][]cacheSlot
	stats    Stats
	feats    []int
	// small evaluates the network's small net (Network.Small), if any,
	// along the same moves.
	small *Evaluator
	// threats is the scratch list of a refresh's threats.
	threats []threat
	// addIdx and subIdx are the scratch lists of a refresh's feature
	// indices.
	addIdx, subIdx []int32
	// sc is the Stockfish heads' working memory (scratch).
	sc *sfScratch
}

// NewEvaluator returns an evaluator for net with the spec's history depth
// and refresh-cache setting.
func NewEvaluator(net *Network) *Evaluator {
	return NewEvaluatorWith(net, net.Spec.History, net.Spec.RefreshCache)
}

// NewEvaluatorWith returns an evaluator with an explicit history depth H
// (0 = unlimited) and refresh-cache setting, for ablations.
func NewEvaluatorWith(net *Network, history int, refreshCache bool) *Evaluator {
	e := &Evaluator{net: net, history: history, useCache: refreshCache}
	if refreshCache {
		for c := range e.cache {
			e.cache[c] = make([]cacheSlot, 2*net.Features.KingBuckets())
		}
	}
	if net.Small != nil {
		e.small = NewEvaluatorWith(net.Small, history, refreshCache)
	}
	return e
}

// Clone returns a new evaluator of the same network (shared, read-only)
// with the same history depth and refresh-cache setting, for another
// search thread.
func (e *Evaluator) Clone() *Evaluator { return NewEvaluatorWith(e.net, e.history, e.useCache) }

// Network returns the evaluator's network.
func (e *Evaluator) Network() *Network { return e.net }

// Stats returns the counters since the last ResetStats.
func (e *Evaluator) Stats() Stats { return e.stats }

// ResetStats zeroes the counters.
func (e *Evaluator) ResetStats() { e.stats = Stats{} }

func (e *Evaluator) grow() *entry {
	if e.top == len(e.stack) {
		w, pb := e.net.Width, e.net.PSQTBuckets
		var en entry
		for c := 0; c < 2; c++ {
			en.acc[c] = make([]int16, w)
			if pb > 0 {
				en.psqt[c] = make([]int32, pb)
			}
		}
		e.stack = append(e.stack, en)
	}
	return &e.stack[e.top]
}

// Reset sets the evaluator up on p, discarding the stack. The refresh
// cache survives, since it is keyed by the pieces it holds.
func (e *Evaluator) Reset(p *board.Position) {
	if e.small != nil {
		e.small.Reset(p)
	}
	e.top = 0
	en := e.grow()
	en.computed = [2]bool{}
	en.delta = board.Delta{}
	for c := board.White; c <= board.Black; c++ {
		en.kings[c] = p.King(c)
		en.views[c] = e.net.Features.view(c, en.kings[c])
	}
	en.pieces = p.Occupied().Count()
	if e.net.Features.threats {
		en.mb = mailboxOf(p, board.NoSquare)
		en.mbOK = true
	}
	// The root is computed at once: search may never evaluate it (a root in
	// check), and every later walk-back wants a computed base to reach.
	e.computeAll(p)
}

// Push records a move (or a null move, with an empty delta).
func (e *Evaluator) Push(d *board.Delta) {
	if e.small != nil {
		e.small.Push(d)
	}
	prev := &e.stack[e.top]
	kings, views, pieces := prev.kings, prev.views, prev.pieces
	e.top++
	en := e.grow()
	en.mbOK, en.diffed = false, false
	en.delta = *d
	en.computed = [2]bool{}
	if d.KingMoved {
		for i := 0; i < int(d.NAdded); i++ {
			if a := d.Added[i]; a.Piece.Type() == board.King {
				c := a.Piece.Color()
				kings[c] = a.Square
				views[c] = e.net.Features.view(c, a.Square)
			}
		}
	}
	en.kings, en.views = kings, views
	en.pieces = pieces - int(d.NRemoved) + int(d.NAdded)
}

// Pop takes back the last Push.
func (e *Evaluator) Pop() {
	if e.small != nil {
		e.small.Pop()
	}
	if e.top > 0 {
		e.top--
	}
}

// Raw returns the network output for p (which must match the pushed
// moves) in internal units from the side to move's point of view.
func (e *Evaluator) Raw(p *board.Position, tr *Trace) int32 {
	if _, ok := e.net.head.(*sf17Head); ok {
		return sf17Evaluate(e.net, p, tr, e)
	}
	e.computeAll(p)
	en := &e.stack[e.top]
	us, them := p.SideToMove(), p.SideToMove().Other()
	if h, ok := e.net.head.(*sf15Head); ok {
		return h.forwardScratch(e.scratch(), en.acc[us], en.acc[them], en.psqt[us], en.psqt[them], en.pieces, tr)
	}
	return e.net.head.forward(en.acc[us], en.acc[them], en.psqt[us], en.psqt[them], en.pieces, tr)
}

// scratch returns the evaluator's working memory for the Stockfish heads,
// allocated on first use.
func (e *Evaluator) scratch() *sfScratch {
	if e.sc == nil {
		e.sc = new(sfScratch)
	}
	return e.sc
}

// Evaluate returns the evaluation of p in centipawns from the side to
// move's point of view.
func (e *Evaluator) Evaluate(p *board.Position) int {
	return e.net.CentipawnsAt(e.Raw(p, nil), p)
}

// update computes the top accumulator of perspective c.
func (e *Evaluator) update(p *board.Position, c board.Color) {
	// Walk back to a computed accumulator with the same view, at most
	// history plies.
	top := e.top
	src := -1
	for i := top; i >= 0; i-- {
		if e.history > 0 && top-i > e.history {
			break
		}
		if e.stack[i].views[c] != e.stack[top].views[c] {
			break // the king changed bucket or mirror: deltas cannot bridge it
		}
		if e.stack[i].computed[c] {
			src = i
			break
		}
	}
	if src < 0 {
		e.refresh(p, c)
		return
	}
	d := top - src
	if d > 64 {
		d = 64
	}
	e.stats.Served[d]++
	for i := src + 1; i <= top; i++ {
		e.apply(&e.stack[i-1], &e.stack[i], c)
	}
}

// apply computes next's accumulator of perspective c from prev's and
// next's delta; both have the same view.
func (e *Evaluator) apply(prev, next *entry, c board.Color) {
	n := e.net
	v := next.views[c]
	d := &next.delta
	var addBuf, subBuf [2][]int16
	var addBuf32, subBuf32 [2][]int32
	adds, subs := addBuf[:0], subBuf[:0]
	adds32, subs32 := addBuf32[:0], subBuf32[:0]
	for i := 0; i < int(d.NRemoved); i++ {
		if f := n.Features.index(v, c, d.Removed[i].Piece, d.Removed[i].Square); f >= 0 {
			subs = append(subs, n.row(f))
			if n.PSQTBuckets > 0 {
				subs32 = append(subs32, n.psqtRow(f))
			}
		}
	}
	for i := 0; i < int(d.NAdded); i++ {
		if f := n.Features.index(v, c, d.Added[i].Piece, d.Added[i].Square); f >= 0 {
			adds = append(adds, n.row(f))
			if n.PSQTBuckets > 0 {
				adds32 = append(adds32, n.psqtRow(f))
			}
		}
	}
	update(next.acc[c], prev.acc[c], adds, subs)
	if n.PSQTBuckets > 0 {
		update32(next.psqt[c], prev.psqt[c], adds32, subs32)
	}
	if n.Features.threats {
		if !next.diffed {
			// prev is computed, so its board is valid.
			next.mb = prev.mb
			next.thRemoved, next.thAdd = threatDelta(&next.mb, d, next.thRemoved[:0], next.thAdd[:0])
			next.mbOK, next.diffed = true, true
		}
		var psqt []int32
		if n.PSQTBuckets > 0 {
			psqt = next.psqt[c]
		}
		n.addThreats(next.acc[c], psqt, v.tv, next.thAdd, next.thRemoved)
	}
	next.computed[c] = true
}

// refresh rebuilds the top accumulator of perspective c from the position,
// through the refresh cache when it is on.
func (e *Evaluator) refresh(p *board.Position, c board.Color) {
	n := e.net
	en := &e.stack[e.top]
	en.computed[c] = true
	e.stats.Refreshes++
	v := en.views[c]
	if !e.useCache {
		copy(en.acc[c], n.FTBias)
		if n.PSQTBuckets > 0 {
			clear(en.psqt[c])
		}
		e.feats = n.Features.Active(p, c, e.feats[:0])
		adds := e.addIdx[:0]
		for _, f := range e.feats {
			adds = append(adds, int32(f))
		}
		if n.PSQTBuckets > 0 {
			foldPSQT(en.psqt[c], n.PSQT, adds, nil)
		}
		simd.AddSubRows(en.acc[c], n.FTWeights, adds, nil)
		e.addIdx = adds
		e.refreshThreats(p, en, c)
		return
	}
	slot := &e.cache[c][n.Features.slot(v)]
	if slot.acc == nil {
		slot.acc = append([]int16(nil), n.FTBias...)
		if n.PSQTBuckets > 0 {
			slot.psqt = make([]int32, n.PSQTBuckets)
		}
	} else {
		e.stats.CacheHits++
	}
	// The changed features' rows are folded into the slot in one pass
	// (simd.AddSubRows), not one pass over the accumulator per row.
	adds, subs := e.addIdx[:0], e.subIdx[:0]
	for pc := board.Piece(0); pc < board.NoPiece; pc++ {
		now := p.Pieces(pc.Color(), pc.Type())
		for b := slot.pieces[pc] &^ now; b != 0; {
			sq := b.PopLSB()
			if f := n.Features.index(v, c, pc, sq); f >= 0 {
				subs = append(subs, int32(f))
			}
		}
		for b := now &^ slot.pieces[pc]; b != 0; {
			sq := b.PopLSB()
			if f := n.Features.index(v, c, pc, sq); f >= 0 {
				adds = append(adds, int32(f))
			}
		}
		slot.pieces[pc] = now
	}
	if n.PSQTBuckets > 0 {
		foldPSQT(slot.psqt, n.PSQT, adds, subs)
	}
	simd.AddSubRows(slot.acc, n.FTWeights, adds, subs)
	e.addIdx, e.subIdx = adds, subs
	copy(en.acc[c], slot.acc)
	if n.PSQTBuckets > 0 {
		copy(en.psqt[c], slot.psqt)
	}
	e.refreshThreats(p, en, c)
}

// refreshThreats adds every threat on en's board (p) to its accumulators
// of perspective c (the refresh cache holds the piece-square part only).
func (e *Evaluator) refreshThreats(p *board.Position, en *entry, c board.Color) {
	n := e.net
	if !n.Features.threats {
		return
	}
	if !en.mbOK {
		en.mb = mailboxOf(p, board.NoSquare)
		en.mbOK = true
	}
	e.threats = en.mb.threats(e.threats[:0])
	var psqt []int32
	if n.PSQTBuckets > 0 {
		psqt = en.psqt[c]
	}
	n.addThreats(en.acc[c], psqt, en.views[c].tv, e.threats, nil)
}

// computeAll brings both perspectives' accumulators of the top entry up to
// date.
func (e *Evaluator) computeAll(p *board.Position) {
	en := &e.stack[e.top]
	for c := board.White; c <= board.Black; c++ {
		if !en.computed[c] {
			e.update(p, c)
		}
	}
}
