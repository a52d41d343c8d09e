package train

import (
	"math"
	"runtime"

	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/nnue"
	"github.com/nnuelab/nnuelab/nets/train/vec"
)

// The batch engine. One optimizer step runs in three phases:
//
//  1. Positions, in fixed chunks of chunkSize: features, forward, loss and
//     backward through the head (a batchHead on the whole chunk at once).
//     Each chunk keeps its own head gradients, transformer-bias gradient
//     and loss sum; the accumulator gradients go to one row per (position,
//     perspective) slot.
//  2. The transformer's weight gradient is gathered row by row, in
//     sub-batches (see subBatch): for each feature, the sum of the
//     accumulator gradients of the slots where it is active, in slot order
//     (a counting sort builds the lists). Only active rows are read; the
//     rows' Adam update follows over the whole matrix. A factorized
//     model's virtual rows are not gathered: each one's gradient is the
//     sum of its real rows' (virtualGrads), and the Adam pass rebuilds the
//     folded matrix the forward pass reads (Model.foldRow).
//  3. The chunk gradients are summed in chunk order and the head (and
//     bias) parameters take their Adam step.
//
// Every sum has a fixed order that does not depend on which worker ran
// what, so a run is deterministic for a seed, and even the same for any
// thread count.

// chunkSize is the number of positions per work item of phase 1: small
// enough that a sub-batch (see subBatch) holds several chunks for the
// workers to share.
const chunkSize = 64

// maxFeatures bounds the active features per perspective (32 pieces).
const maxFeatures = 32

// maxThreatFeatures bounds the active threat features per perspective:
// each of at most 32 pieces attacks at most 8 pieces (a slider sees one
// piece per ray, a knight or king has 8 squares, a pawn 2), so no position
// has more than 256 threats. Stockfish 18 assumes 128; positions of the
// data sets have 20 to 80.
const maxThreatFeatures = 256

// slotFeatures is the room for one perspective's features, threat
// features on top (a factorized model lists its real features only).
func (m *Model) slotFeatures() int {
	n := maxFeatures
	if m.fs.Threats() {
		n += maxThreatFeatures
	}
	return n
}

type chunkGrads struct {
	head [][]float32 // per head parameter
	bias []float32   // transformer bias (nil without one)
	loss float64
}

type engine struct {
	m       *Model
	loss    Loss
	cpPer   float64
	threads int
	pool    *workers

	// sub is the number of positions per sub-batch (see accumulate).
	sub int
	// the transformer's gradient, dense; touched marks the rows written
	ftGrad  []float32
	touched []bool

	// per sub-batch, by slot = 2*position + perspective (0 side to move)
	feats  []int32
	nfeat  []int32
	dacc   []float32
	chunks []*chunkGrads

	// per worker
	scratch []*evalScratch
	rowBuf  [][]float32
	batch   []*batchScratch // for a batchHead

	// gather lists: feature f's slots are list[start[f]:end[f]]
	start, end []int32
	list       []int32
	ccount     []int32 // per chunk and feature: counts, then write cursors

	headGrad [][]float32
	biasGrad []float32
	tiedGrad [][]float32

	// flops of the last step (see lastFlops)
	flops float64
}

// lastFlops returns the float operations of the last step: the
// transformer's row sums forward and gathers backward over the active
// features, the head's passes and the optimizer's update.
func (e *engine) lastFlops() float64 { return e.flops }

func newEngine(m *Model, loss Loss, threads int) *engine {
	if threads < 1 {
		threads = runtime.NumCPU()
	}
	e := &engine{m: m, loss: loss, cpPer: cpPerUnit(m.Spec), threads: threads, pool: newWorkers(threads)}
	for w := 0; w < threads; w++ {
		e.scratch = append(e.scratch, m.newEvalScratch())
		e.rowBuf = append(e.rowBuf, make([]float32, m.width))
		if _, ok := m.head.(batchHead); ok {
			e.batch = append(e.batch, &batchScratch{acc: make([]float32, chunkSize*2*m.width),
				out: make([]float32, chunkSize), dout: make([]float32, chunkSize)})
		}
	}
	e.start = make([]int32, m.rows)
	e.end = make([]int32, m.rows)
	e.touched = make([]bool, m.rows)
	if m.tied == nil {
		e.ftGrad = make([]float32, m.rows*m.width)
	}
	e.sub = subBatch(m.width, m.rows)
	for _, p := range m.all[m.headStart:] {
		e.headGrad = append(e.headGrad, make([]float32, len(p.Data)))
	}
	if m.ftBias != nil {
		e.biasGrad = make([]float32, m.width)
	}
	if m.tied != nil {
		for _, p := range m.tied.params {
			e.tiedGrad = append(e.tiedGrad, make([]float32, len(p.Data)))
		}
	}
	return e
}

// subBatchBytes is the least size the accumulator gradients of a
// sub-batch aim at: inside one core's L2 cache; maxSubBatchBytes the most.
var subBatchBytes, maxSubBatchBytes = 1 << 20, 8 << 20

// subBatch returns the sub-batch size for accumulators of width w and a
// transformer of rows rows: a multiple of chunkSize (chunks never straddle
// two sub-batches) of at least four chunks. Each sub-batch reads and
// writes every gradient row it touches once, so a transformer with many
// rows (halfkp's 41k: 42 MB of gradient) gains from fewer, larger
// sub-batches even when their accumulator gradients spill from L2 to L3;
// the size grows with the gradient's (a quarter of it, between
// subBatchBytes and maxSubBatchBytes). Measured on one core, medians of
// three: halfkp 19.0 -> 23.0 GFLOP per CPU-second at 8 MB, koivisto-16
// 6.7 -> 7.3, leorik-3.2 unchanged, and chess768 (0.8 MB of gradient) 9.8
// -> 7.2, so it keeps 1 MB. The sums do not depend on it.
func subBatch(w, rows int) int {
	bytes := min(max(subBatchBytes, rows*w*4/4), maxSubBatchBytes)
	n := bytes / (2 * 4 * w) / chunkSize * chunkSize
	return max(n, 4*chunkSize)
}

// parallel runs fn(worker, i) for i in [0, n) on the engine's workers.
func (e *engine) parallel(n int, fn func(w, i int)) { e.pool.run(n, fn) }

// grow sizes the buffers for sub-batches of sub positions in batches of b.
func (e *engine) grow(sub, b int) {
	slots := 2 * sub
	if len(e.nfeat) < slots {
		e.feats = make([]int32, slots*e.m.slotFeatures())
		e.nfeat = make([]int32, slots)
		e.dacc = make([]float32, slots*e.m.width)
	}
	for len(e.chunks) < (b+chunkSize-1)/chunkSize {
		c := &chunkGrads{}
		for _, p := range e.m.all[e.m.headStart:] {
			c.head = append(c.head, make([]float32, len(p.Data)))
		}
		if e.m.ftBias != nil {
			c.bias = make([]float32, e.m.width)
		}
		e.chunks = append(e.chunks, c)
	}
}

// targets returns score and wdl from the side to move's view.
func targets(r *datasets.Record) (score, wdl float64) {
	score, wdl = float64(r.Score), float64(r.Result.WDL())
	if r.SideToMove() == board.Black {
		score, wdl = -score, 1-wdl
	}
	return score, wdl
}

// batchHead is a head that runs a chunk of positions at once, its dense
// layers as products over the chunk (vec.MatMulNT, vec.MatMulNN) instead of
// one dot product or axpy per position and neuron. Its results are those of
// forward and backward position by position (see sf12Head.backwardBatch).
type batchHead interface {
	head
	// forwardBatch writes to out[p] the output of the position whose
	// accumulators are row p of acc, [us | them] (2*width floats), p < n
	// <= chunkSize, on a scratch from newScratch.
	forwardBatch(s any, acc []float32, n int, out []float32)
	// backwardBatch follows forwardBatch on the same scratch: dout[p] is
	// dL/dout of position p; it adds the parameter gradients into g and
	// writes the accumulator gradients to the rows of dacc ([dus | dthem]).
	backwardBatch(s any, acc []float32, n int, dout []float32, g [][]float32, dacc []float32)
}

// batchScratch is a worker's room for one chunk of a batchHead.
type batchScratch struct {
	acc       []float32 // chunkSize rows of [us | them]
	out, dout []float32
}

// forwardBackward is phase 1 for chunk c of batch, in the sub-batch that
// starts at position base (slots are numbered from there).
func (e *engine) forwardBackward(w, c int, batch []*datasets.Record, base int) {
	m, s, W := e.m, e.scratch[w], e.m.width
	g := e.chunks[c]
	for _, v := range g.head {
		clear(v)
	}
	clear(g.bias)
	g.loss = 0
	inv := 1 / float64(len(batch))
	hi := min((c+1)*chunkSize, len(batch))
	if bh, ok := m.head.(batchHead); ok {
		e.forwardBackwardBatch(bh, w, c, batch, base)
		return
	}
	for i := c * chunkSize; i < hi; i++ {
		r := batch[i]
		stm := r.SideToMove()
		su, st := 2*(i-base), 2*(i-base)+1
		mf := m.slotFeatures()
		fu := m.features(r, stm, e.feats[su*mf:su*mf:(su+1)*mf])
		e.nfeat[su] = int32(len(fu))
		vec.SumRows(s.us, m.bias(), m.matrix(), W, fu)
		var them, dthem []float32
		if m.both {
			ft := m.features(r, stm.Other(), e.feats[st*mf:st*mf:(st+1)*mf])
			e.nfeat[st] = int32(len(ft))
			vec.SumRows(s.them, m.bias(), m.matrix(), W, ft)
			them, dthem = s.them, e.dacc[st*W:][:W]
		} else {
			e.nfeat[st] = 0
		}
		o := m.bucket(r.PieceCount())
		out := m.head.forward(s.head, s.us, them, o)
		score, wdl := targets(r)
		l, d := e.loss.eval(out, e.cpPer, score, wdl)
		g.loss += l
		dus := e.dacc[su*W:][:W]
		m.head.backward(s.head, s.us, them, o, float32(d*inv), g.head, dus, dthem)
		if g.bias != nil {
			vec.Add(g.bias, dus)
			if dthem != nil {
				vec.Add(g.bias, dthem)
			}
		}
	}
}

// forwardBackwardBatch is forwardBackward for a batchHead: the chunk's
// accumulators into the worker's rows, then the head on the whole chunk.
// Position i's accumulator gradients [dus | dthem] are slots 2(i-base) and
// 2(i-base)+1, one row of the chunk's dacc (a head that reads the side to
// move's accumulator only leaves the second half alone; its slot has no
// features).
func (e *engine) forwardBackwardBatch(bh batchHead, w, c int, batch []*datasets.Record, base int) {
	m, s, W := e.m, e.scratch[w], e.m.width
	b := e.batch[w]
	g := e.chunks[c]
	lo, hi := c*chunkSize, min((c+1)*chunkSize, len(batch))
	n := hi - lo
	mf := m.slotFeatures()
	sides := 1
	if m.both {
		sides = 2
	}
	for i := lo; i < hi; i++ {
		r := batch[i]
		stm := r.SideToMove()
		acc := b.acc[(i-lo)*2*W:][:2*W]
		e.nfeat[2*(i-base)+1] = 0
		for k := 0; k < sides; k++ {
			side, slot := stm, 2*(i-base)+k
			if k == 1 {
				side = stm.Other()
			}
			f := m.features(r, side, e.feats[slot*mf:slot*mf:(slot+1)*mf])
			e.nfeat[slot] = int32(len(f))
			vec.SumRows(acc[k*W:][:W], m.bias(), m.matrix(), W, f)
		}
	}
	bh.forwardBatch(s.head, b.acc, n, b.out)
	inv := 1 / float64(len(batch))
	for i := lo; i < hi; i++ {
		score, wdl := targets(batch[i])
		l, d := e.loss.eval(b.out[i-lo], e.cpPer, score, wdl)
		g.loss += l
		b.dout[i-lo] = float32(d * inv)
	}
	dacc := e.dacc[2*(lo-base)*W:][:2*n*W]
	bh.backwardBatch(s.head, b.acc, n, b.dout, g.head, dacc)
	if g.bias != nil {
		for p := 0; p < 2*n; p++ {
			if p%2 == 0 || m.both {
				vec.Add(g.bias, dacc[p*W:][:W])
			}
		}
	}
}

// buildLists is the counting sort of the active (feature, slot) pairs by
// feature, slots ascending within a feature. It runs in parallel over parts
// of consecutive slots (one per worker): per-part counts, per feature
// totals and part offsets, then each part writes its slots at its offsets.
// The lists are exactly those of a serial sort, whatever the parts; one
// part per worker (not per chunk) keeps the passes over every feature few.
func (e *engine) buildLists(slots int) {
	rows := e.m.rows
	per := 2 * chunkSize
	nChunks := (slots + per - 1) / per
	parts := min(e.threads, nChunks)
	if len(e.ccount) < parts*rows {
		e.ccount = make([]int32, parts*rows)
	}
	cnt := func(p int) []int32 { return e.ccount[p*rows:][:rows] }
	// part p holds the slots of chunks [p*nChunks/parts, (p+1)*nChunks/parts).
	span := func(p int) (int, int) {
		return p * nChunks / parts * per, min((p+1)*nChunks/parts*per, slots)
	}
	mf := e.m.slotFeatures()
	e.parallel(parts, func(_, p int) {
		k := cnt(p)
		clear(k)
		lo, hi := span(p)
		for s := lo; s < hi; s++ {
			for _, f := range e.feats[s*mf:][:e.nfeat[s]] {
				k[f]++
			}
		}
	})
	var total int32
	for f := 0; f < rows; f++ {
		e.start[f] = total
		// Each part's count becomes its write cursor for the feature.
		for p := 0; p < parts; p++ {
			n := e.ccount[p*rows+f]
			e.ccount[p*rows+f] = total
			total += n
		}
		e.end[f] = total
	}
	if cap(e.list) < int(total) {
		e.list = make([]int32, total)
	}
	e.list = e.list[:total]
	e.parallel(parts, func(_, p int) {
		cur := cnt(p)
		lo, hi := span(p)
		for s := lo; s < hi; s++ {
			for _, f := range e.feats[s*mf:][:e.nfeat[s]] {
				e.list[cur[f]] = int32(s)
				cur[f]++
			}
		}
	})
}

// rowsOf returns the slots where feature f is active, ascending.
func (e *engine) rowsOf(f int) []int32 { return e.list[e.start[f]:e.end[f]] }

// hyper is the optimizer state of one step.
type hyper struct {
	o    *Optim
	lr   float64
	step int // 1-based Adam step
}

// Tensor parts for the decay scope (Optim.DecayScope).
const (
	partHead    = iota // a head tensor (or the transformer's bias)
	partFT             // the transformer's real rows, Rengar's tied tensors
	partVirtual        // a factorized transformer's virtual rows
)

// adam returns the update of tensor p, or of the rows of its part.
func (h *hyper) adam(p *Param, part int) vec.Adam {
	wd := 0.0
	if p.Decay && h.o.decays(part) {
		wd = h.o.WeightDecay
	}
	lr := h.lr * float64(p.LRMult)
	a := vec.AdamStep(h.step, lr, h.o.Beta1, h.o.Beta2, h.o.Eps*float64(p.LRMult), 0, true, p.Clip)
	// Decay acts on the tensor's own scale: decoupled decay shrinks by
	// lr*wd whatever the unit, L2 decay adds wd*p/unit^2 to the gradient
	// (both are the textbook forms on the unit-free parameter).
	if h.o.Kind == "adamw" {
		a.Decay = float32(1 - float64(h.lr*wd))
	} else {
		a.L2 = float32(wd / float64(p.LRMult*p.LRMult))
	}
	return a
}

// rowBlock is the number of transformer rows per work item of phase 2.
const rowBlock = 64

// phase3Block is the number of floats of a head tensor per work item of
// phase 3.
const phase3Block = 4096

// accumulate runs phases 1 and 2 of a batch in sub-batches of e.sub
// positions: the accumulator gradients of a sub-batch stay in cache while
// they are gathered into the transformer's dense gradient (e.ftGrad, or
// Rengar's matrix gradient), rows marked in e.touched. Sub-batches and the
// slots within each are summed in order, so the result does not depend on
// the threads.
func (e *engine) accumulate(batch []*datasets.Record) {
	m := e.m
	W := m.width
	e.grow(min(len(batch), e.sub), len(batch))
	grad := e.ftGrad
	if m.tied != nil {
		grad = m.tied.grad
	}
	blocks := (m.rows + rowBlock - 1) / rowBlock
	var active int
	for s0 := 0; s0 < len(batch); s0 += e.sub {
		s1 := min(s0+e.sub, len(batch))
		c0, c1 := s0/chunkSize, (s1+chunkSize-1)/chunkSize
		e.parallel(c1-c0, func(w, c int) { e.forwardBackward(w, c0+c, batch, s0) })
		e.buildLists(2 * (s1 - s0))
		active += e.activeFeatures()
		e.parallel(blocks, func(_, b int) {
			for f := b * rowBlock; f < min((b+1)*rowBlock, m.rows); f++ {
				slots := e.rowsOf(f)
				if len(slots) == 0 {
					continue
				}
				g := grad[f*W:][:W]
				if e.touched[f] {
					vec.SumRows(g, g, e.dacc, W, slots)
				} else {
					vec.SumRows(g, nil, e.dacc, W, slots)
					e.touched[f] = true
				}
			}
		})
	}
	// float64(x*y) here and below: no FMA fusion at GOAMD64=v3 (make fma-check).
	e.flops = float64(2*float64(W)*float64(active)) + float64(float64(len(batch))*m.head.flops()) + m.flopsPerStep()
}

// activeFeatures returns the active (feature, slot) pairs of the lists
// just built, as the operation count has them (lastFlops): a factorized
// model's virtual features count beside their real ones, as when the
// forward pass and the gather summed their rows slot by slot, although
// the folded matrix and virtualGrads now do that work once per row and
// step.
func (e *engine) activeFeatures() int {
	n := len(e.list)
	m := e.m
	if m.folded != nil {
		for j := 0; j < m.factor; j++ {
			for b := 0; b < m.buckets(); b++ {
				f := b*m.fStride + m.fOffset + j
				n += int(e.end[f] - e.start[f])
			}
		}
	}
	return n
}

// virtualGrads sets the gradients of a factorized model's virtual rows
// j0 <= j < j1 (rows realRows+j of e.ftGrad) to the sums of the gradients
// of the real rows beside them, in bucket order, and marks touched those
// that any of them touches. Virtual feature j is active in a slot exactly
// when one of its real features is (a perspective has one king, so one
// bucket), so this is the sum over the slots of the accumulator
// gradients, taken row by row. Buckets go outermost, so that the real rows
// are read in runs of j1-j0 consecutive rows.
func (e *engine) virtualGrads(j0, j1 int) {
	m, W := e.m, e.m.width
	for j := j0; j < j1; j++ {
		e.touched[m.realRows+j] = false
	}
	for b := 0; b < m.buckets(); b++ {
		for j := j0; j < j1; j++ {
			f, v := b*m.fStride+m.fOffset+j, m.realRows+j
			if !e.touched[f] {
				continue
			}
			if !e.touched[v] {
				copy(e.ftGrad[v*W:][:W], e.ftGrad[f*W:][:W])
				e.touched[v] = true
			} else {
				vec.Add(e.ftGrad[v*W:][:W], e.ftGrad[f*W:][:W])
			}
		}
	}
}

// adamRow applies a's update to transformer row f with its gradient (zero
// if no position touched it) and clears its mark.
func (e *engine) adamRow(f int, a *vec.Adam) {
	m, W := e.m, e.m.width
	row := m.ft.Data[f*W:][:W]
	mm, vv := m.ft.M[f*W:][:W], m.ft.V[f*W:][:W]
	if e.touched[f] {
		vec.AdamUpdate(row, mm, vv, e.ftGrad[f*W:][:W], a)
		e.touched[f] = false
	} else {
		vec.AdamUpdate(row, mm, vv, nil, a)
	}
}

// adamFactorized is the transformer's Adam step for a factorized model:
// the virtual rows first (their gradients, virtualGrads, then their
// update), then the real rows in order, each one's update followed by its
// folded row (the new row plus its new virtual row).
func (e *engine) adamFactorized(own, virt *vec.Adam) {
	m := e.m
	vblocks := (m.factor + rowBlock - 1) / rowBlock
	e.parallel(vblocks, func(_, it int) {
		j0, j1 := it*rowBlock, min((it+1)*rowBlock, m.factor)
		e.virtualGrads(j0, j1)
		for j := j0; j < j1; j++ {
			e.adamRow(m.realRows+j, virt)
		}
	})
	blocks := (m.realRows + rowBlock - 1) / rowBlock
	e.parallel(blocks, func(_, b int) {
		for f := b * rowBlock; f < min((b+1)*rowBlock, m.realRows); f++ {
			e.adamRow(f, own)
			m.foldRow(f)
		}
	})
}

// step runs one optimizer step on batch and returns its mean loss.
func (e *engine) step(batch []*datasets.Record, h *hyper) float64 {
	m := e.m
	e.accumulate(batch)
	nChunks := (len(batch) + chunkSize - 1) / chunkSize
	blocks := (m.rows + rowBlock - 1) / rowBlock
	switch {
	case m.folded != nil:
		own, virt := h.adam(m.ft, partFT), h.adam(m.ft, partVirtual)
		e.adamFactorized(&own, &virt)
	case m.tied == nil:
		// Adam on every row (a row no position used still moves with its
		// momentum), the gradient of the used ones.
		own := h.adam(m.ft, partFT)
		e.parallel(blocks, func(_, b int) {
			for f := b * rowBlock; f < min((b+1)*rowBlock, m.rows); f++ {
				e.adamRow(f, &own)
			}
		})
	default:
		// Rengar's four embeddings are independent: each one's gradient
		// (the matrix gradient's rows folded in ascending order), Adam step
		// and columns of the rebuilt matrix are one work item.
		t := m.tied
		e.parallel(len(t.params), func(_, k int) {
			g := e.tiedGrad[k]
			clear(g)
			t.foldPart(k, g, e.touched)
			p := t.params[k]
			a := h.adam(p, partFT)
			vec.AdamUpdate(p.Data, p.M, p.V, g, &a)
			t.buildPart(k)
		})
		clear(e.touched)
	}

	// Phase 3: chunk sums in chunk order, then the small tensors.
	var loss float64
	for c := 0; c < nChunks; c++ {
		loss += e.chunks[c].loss
	}
	// Items are blocks of phase3Block floats of each tensor, so that a
	// large head tensor (sf12's l1.weight: 16k floats in each of 256
	// chunks) is shared by the workers; every element still sums its
	// chunks in order.
	heads := m.all[m.headStart:]
	type item struct {
		p        *Param
		dst      []float32
		get      func(c *chunkGrads) []float32
		from, to int
	}
	var items []item
	add := func(p *Param, dst []float32, get func(c *chunkGrads) []float32) {
		for from := 0; from < len(dst); from += phase3Block {
			items = append(items, item{p, dst, get, from, min(from+phase3Block, len(dst))})
		}
	}
	for k, p := range heads {
		add(p, e.headGrad[k], func(c *chunkGrads) []float32 { return c.head[k] })
	}
	if m.ftBias != nil {
		add(m.ftBias, e.biasGrad, func(c *chunkGrads) []float32 { return c.bias })
	}
	e.parallel(len(items), func(_, i int) {
		it := items[i]
		dst := it.dst[it.from:it.to]
		copy(dst, it.get(e.chunks[0])[it.from:it.to])
		for c := 1; c < nChunks; c++ {
			vec.Add(dst, it.get(e.chunks[c])[it.from:it.to])
		}
		a := h.adam(it.p, partHead)
		p := it.p
		vec.AdamUpdate(p.Data[it.from:it.to], p.M[it.from:it.to], p.V[it.from:it.to], dst, &a)
		p.refreshRange(it.from, it.to)
	})
	return loss / float64(len(batch))
}

// evalLoss returns the mean loss of the model on recs (forward only), summed
// in chunk order.
func (e *engine) evalLoss(recs []datasets.Record) float64 {
	if len(recs) == 0 {
		return math.NaN()
	}
	n := (len(recs) + chunkSize - 1) / chunkSize
	sums := make([]float64, n)
	e.parallel(n, func(w, c int) {
		s := e.scratch[w]
		for i := c * chunkSize; i < min((c+1)*chunkSize, len(recs)); i++ {
			r := &recs[i]
			out := e.m.evaluate(r, s)
			score, wdl := targets(r)
			l, _ := e.loss.eval(out, e.cpPer, score, wdl)
			sums[c] += l
		}
	})
	var total float64
	for _, s := range sums {
		total += s
	}
	return total / float64(len(recs))
}

// gradients returns the mean loss of batch and the gradient of every
// parameter (aligned with m.all) without changing the model: the unfused
// path that the gradient checks and the fused step are tested against.
func (e *engine) gradients(batch []*datasets.Record) (float64, [][]float32) {
	m := e.m
	W := m.width
	e.accumulate(batch)
	nChunks := (len(batch) + chunkSize - 1) / chunkSize
	src := e.ftGrad
	if m.tied != nil {
		src = m.tied.grad
	}
	if m.folded != nil {
		e.virtualGrads(0, m.factor)
	}
	ft := make([]float32, m.rows*W)
	for f, ok := range e.touched {
		if ok {
			copy(ft[f*W:][:W], src[f*W:][:W])
		}
		e.touched[f] = false
	}
	var out [][]float32
	if m.tied == nil {
		bias := make([]float32, W)
		for c := 0; c < nChunks; c++ {
			vec.Add(bias, e.chunks[c].bias)
		}
		out = append(out, ft, bias)
	} else {
		copy(m.tied.grad, ft)
		for range m.tied.params {
			out = append(out, make([]float32, 184*32))
		}
		m.tied.fold(out)
	}
	var loss float64
	for k, p := range m.all[m.headStart:] {
		g := make([]float32, len(p.Data))
		for c := 0; c < nChunks; c++ {
			vec.Add(g, e.chunks[c].head[k])
		}
		out = append(out, g)
	}
	for c := 0; c < nChunks; c++ {
		loss += e.chunks[c].loss
	}
	return loss / float64(len(batch)), out
}

// evalQuantized returns the mean loss on recs of the quantized network n
// (the engine's integer evaluation, truncated output) and the mean
// |quantized - float| output in centipawns, summed in chunk order. A record
// that does not make a legal board.Position (the engine's evaluator needs
// one; training does not) is left out of both and counted in skipped.
func (e *engine) evalQuantized(n *nnue.Network, recs []datasets.Record) (loss, errCP float64, skipped int) {
	nc := (len(recs) + chunkSize - 1) / chunkSize
	sums, diffs := make([]float64, nc), make([]float64, nc)
	bad := make([]int, nc)
	e.parallel(nc, func(w, c int) {
		s := e.scratch[w]
		for i := c * chunkSize; i < min((c+1)*chunkSize, len(recs)); i++ {
			r := &recs[i]
			p, err := r.Position()
			if err != nil {
				bad[c]++
				continue
			}
			q := float32(n.Evaluate(p, nil))
			score, wdl := targets(r)
			l, _ := e.loss.eval(q, e.cpPer, score, wdl)
			sums[c] += l
			diffs[c] += float64(math.Abs(float64(q)-float64(e.m.evaluate(r, s))) * e.cpPer)
		}
	})
	for c := range sums {
		loss += sums[c]
		errCP += diffs[c]
		skipped += bad[c]
	}
	if used := len(recs) - skipped; used > 0 {
		return loss / float64(used), errCP / float64(used), skipped
	}
	return math.NaN(), math.NaN(), skipped
}
