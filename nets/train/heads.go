package train

import (
	"math"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/nnue"
	"github.com/nnuelab/nnuelab/nets/train/vec"
)

var inf = float32(math.Inf(1))

// noClip is the bound of tensors the engine keeps in float.
const noClip = math.MaxFloat32

// linearHead is one output neuron per output bucket on the activated
// accumulators, as nnue.FromFloat defines it:
//
//	out = scale * (bias[o] + sum act(us_i) w[o][i] + sum act(them_i) w[o][W+i])
//
// with act = max(a, 0) (relu), clamp(a, 0, 1) (crelu) or clamp(a, 0, 1)^2
// (screlu), in the design's internal units.
type linearHead struct {
	width, buckets int
	both           bool
	kind           string
	hi             float32 // the activation's upper clip (+Inf for relu)
	scale          float32
	w, b           *Param
}

// newLinearHead returns the head of a linear spec and the unit of its
// feature transformer (the learning-rate multiplier of ft.*).
//
// Units: a clipped activation fixes the transformer's scale at 1. A plain
// ReLU leaves it free; 256/qa (at least 1) keeps the weights well above
// the quantization step 1/qa (Koivisto's qa 32 needs values of several
// units). The output weights' unit makes one unit of the parameter move
// the logit s*cp by about one (s = 2.5/400).
func newLinearHead(spec *archs.Spec) (*linearHead, float32, error) {
	q := spec.Quant
	h := &linearHead{width: spec.Accumulator.Width, buckets: spec.Head.OutputBuckets, both: spec.Head.Inputs == "stm+opp",
		kind: spec.Head.Activation, hi: 1, scale: float32(q.Scale)}
	ftUnit := float32(1)
	if h.kind == "relu" {
		h.hi = inf
		ftUnit = float32(max(1, 256/float64(q.QA)))
	}
	per := h.width
	if h.both {
		per *= 2
	}
	logitPerUnit := refLogit * cpPerUnit(spec) * float64(q.Scale)
	wUnit := float32(1 / (logitPerUnit * float64(ftUnit)))
	bUnit := float32(1 / logitPerUnit)
	// int16 output weights; with screlu the engines (and Leorik's AVX2
	// path) multiply a*w in int16, so |w| <= 32767/qa in integer units.
	wClip := clipBound(32767, float64(q.QB))
	if h.kind == "screlu" {
		wClip = clipBound(math.Floor(32767.0/float64(q.QA)), float64(q.QB))
	}
	// Output biases are int32 at qa*qb, int16 in Leorik's file.
	bClip := clipBound(math.MaxInt32, float64(q.QA*q.QB))
	if spec.Net.Format == "leorik" {
		bClip = clipBound(32767, float64(q.QA*q.QB))
	}
	h.w = newParam("out.weight", wUnit, wClip, true, h.buckets, per)
	h.b = newParam("out.bias", bUnit, bClip, false, h.buckets)
	h.w.Grid, h.b.Grid = float64(q.QB), float64(q.QA*q.QB)
	return h, ftUnit, nil
}

func (h *linearHead) params() []*Param { return []*Param{h.w, h.b} }

type linearScratch struct {
	cUs, cThem     []float32 // clamped accumulators
	actUs, actThem []float32 // activations (cUs itself unless screlu)
	tmp            []float32
}

func (h *linearHead) newScratch() any {
	s := &linearScratch{cUs: make([]float32, h.width), cThem: make([]float32, h.width), tmp: make([]float32, h.width)}
	s.actUs, s.actThem = s.cUs, s.cThem
	if h.kind == "screlu" {
		s.actUs, s.actThem = make([]float32, h.width), make([]float32, h.width)
	}
	return s
}

func (h *linearHead) activate(c, act, acc []float32) {
	vec.Clamp(c, acc, 0, h.hi)
	if h.kind == "screlu" {
		vec.Mul(act, c, c)
	}
}

func (h *linearHead) forward(sc any, us, them []float32, o int) float32 {
	s := sc.(*linearScratch)
	W := h.width
	w := h.w.Fwd[o*h.w.Shape[1]:][:h.w.Shape[1]]
	h.activate(s.cUs, s.actUs, us)
	sum := vec.Dot(s.actUs, w[:W])
	if h.both {
		h.activate(s.cThem, s.actThem, them)
		sum += vec.Dot(s.actThem, w[W:])
	}
	return h.scale * (h.b.Fwd[o] + sum)
}

func (h *linearHead) backward(sc any, us, them []float32, o int, dout float32, g [][]float32, dus, dthem []float32) {
	s := sc.(*linearScratch)
	W, per := h.width, h.w.Shape[1]
	k := float32(h.scale * dout)
	w := h.w.Fwd[o*per:][:per]
	gw := g[0][o*per:][:per]
	g[1][o] += k
	h.backSide(s.cUs, s.actUs, us, w[:W], gw[:W], dus, k)
	if h.both {
		h.backSide(s.cThem, s.actThem, them, w[W:], gw[W:], dthem, k)
	}
}

func (h *linearHead) backSide(c, act, acc, w, gw, dacc []float32, k float32) {
	vec.Axpy(gw, act, k)
	if h.kind == "screlu" {
		// d/da clamp(a,0,1)^2 = 2 clamp(a,0,1) inside (0, 1).
		vec.MaskScale(dacc, w, acc, 0, 1, 2*k)
		vec.Mul(dacc, dacc, c)
		return
	}
	vec.MaskScale(dacc, w, acc, 0, h.hi, k)
}

func (h *linearHead) flops() float64 {
	n := float64(h.width)
	if h.both {
		n *= 2
	}
	f := 2*n + 2*n + n // dot, axpy, mask-scale
	if h.kind == "screlu" {
		f += 2 * n // squares, chain rule
	}
	return f
}

// sf12Head is Stockfish 12's dense part in float (nnue.FromFloat's sf12
// tensors): x = clamp(acc, 0, 1) for both perspectives, side to move first;
// h1 = clamp(b1 + W1 x, 0, 1); h2 = clamp(b2 + W2 h1, 0, 1); out = b3 + w3 h2
// in NNUE::evaluate's internal units.
type sf12Head struct {
	width, n1, n2 int
	w1, b1        *Param
	w2, b2        *Param
	w3, b3        *Param
}

// newSF12Head sets the clip bounds from nnue.SF12FloatScales: int8 dense
// weights, int32 biases. Units: a hidden layer's weights sqrt(32/fan-in)
// (a unit step moves a neuron fed by fan-in inputs in [0, 1] about as much
// as at fan-in 32; without it, rates that suit the other heads kill the
// 512-input layer's clipped ReLUs), the output layer's such that one unit
// moves the logit by about one.
func newSF12Head(spec *archs.Spec) (*sf12Head, error) {
	l := spec.Head.Layers
	w := spec.Accumulator.Width
	hw, hb, ow, ob := nnue.SF12FloatScales(spec)
	outUnit := float32(1 / (refLogit * cpPerUnit(spec)))
	c := clipBound
	h := &sf12Head{width: w, n1: l[0], n2: l[1]}
	h.w1 = newParam("l1.weight", denseUnit(2*w), c(127, hw), true, h.n1, 2*w)
	h.b1 = newParam("l1.bias", 1, c(math.MaxInt32/2, hb), false, h.n1)
	h.w2 = newParam("l2.weight", denseUnit(h.n1), c(127, hw), true, h.n2, h.n1)
	h.b2 = newParam("l2.bias", 1, c(math.MaxInt32/2, hb), false, h.n2)
	h.w3 = newParam("out.weight", outUnit, c(127, ow), true, 1, h.n2)
	h.b3 = newParam("out.bias", outUnit, c(math.MaxInt32/2, ob), false, 1)
	h.w1.Grid, h.w2.Grid, h.b1.Grid, h.b2.Grid, h.w3.Grid, h.b3.Grid = hw, hw, hb, hb, ow, ob
	return h, nil
}

// denseUnit is the unit of a hidden layer's weights with fanIn inputs.
func denseUnit(fanIn int) float32 { return float32(min(1, math.Sqrt(32/float64(fanIn)))) }

func (h *sf12Head) params() []*Param { return []*Param{h.w1, h.b1, h.w2, h.b2, h.w3, h.b3} }

type sf12Scratch struct {
	x, dx      []float32
	s1, h1, d1 []float32
	s2, h2, d2 []float32
	dh1        []float32

	// a chunk of positions (sf12Head.forwardBatch): row p of each matrix
	// is position p's vector above; d1t and d2t are d1 and d2 transposed
	// (neuron-major), the left factors of the weight gradients.
	bx, bdx          []float32
	bs1, bh1, bd1    []float32
	bs2, bh2, bd2    []float32
	bdh1, bd1t, bd2t []float32
}

func (h *sf12Head) newScratch() any {
	n, w2 := chunkSize, 2*h.width
	return &sf12Scratch{x: make([]float32, w2), dx: make([]float32, w2),
		s1: make([]float32, h.n1), h1: make([]float32, h.n1), d1: make([]float32, h.n1), dh1: make([]float32, h.n1),
		s2: make([]float32, h.n2), h2: make([]float32, h.n2), d2: make([]float32, h.n2),
		bx: make([]float32, n*w2), bdx: make([]float32, n*w2),
		bs1: make([]float32, n*h.n1), bh1: make([]float32, n*h.n1), bd1: make([]float32, n*h.n1),
		bs2: make([]float32, n*h.n2), bh2: make([]float32, n*h.n2), bd2: make([]float32, n*h.n2),
		bdh1: make([]float32, n*h.n1), bd1t: make([]float32, n*h.n1), bd2t: make([]float32, n*h.n2)}
}

// dense runs one hidden layer on n inputs of in floats (rows of x): s =
// b + x W^T, then h = clamp(s, 0, 1). Each output is the bias plus one
// vec.MatMulNT dot product, the same sum whether n is 1 or a chunk, so the
// per-position forward (validation) and the batched one (training) agree
// bit for bit.
func dense(s, hOut, x []float32, w, b *Param, n, in, out int) {
	vec.MatMulNT(s, out, x, in, w.Fwd, in, n, out, in)
	for p := 0; p < n; p++ {
		row := s[p*out:][:out]
		for i, v := range b.Fwd {
			row[i] = v + row[i]
		}
	}
	vec.Clamp(hOut[:n*out], s[:n*out], 0, 1)
}

func (h *sf12Head) forward(sc any, us, them []float32, _ int) float32 {
	s := sc.(*sf12Scratch)
	W := h.width
	vec.Clamp(s.x[:W], us, 0, 1)
	vec.Clamp(s.x[W:], them, 0, 1)
	dense(s.s1, s.h1, s.x, h.w1, h.b1, 1, 2*W, h.n1)
	dense(s.s2, s.h2, s.h1, h.w2, h.b2, 1, h.n1, h.n2)
	return h.b3.Fwd[0] + vec.Dot(h.w3.Fwd, s.h2)
}

// forwardBatch is forward for n <= chunkSize positions whose accumulators
// are the rows of acc, each [us | them] (2*width floats): the dense layers
// as products over the batch.
func (h *sf12Head) forwardBatch(sc any, acc []float32, n int, out []float32) {
	s := sc.(*sf12Scratch)
	w2 := 2 * h.width
	vec.Clamp(s.bx[:n*w2], acc[:n*w2], 0, 1)
	dense(s.bs1, s.bh1, s.bx, h.w1, h.b1, n, w2, h.n1)
	dense(s.bs2, s.bh2, s.bh1, h.w2, h.b2, n, h.n1, h.n2)
	for p := 0; p < n; p++ {
		out[p] = h.b3.Fwd[0] + vec.Dot(h.w3.Fwd, s.bh2[p*h.n2:][:h.n2])
	}
}

// transpose sets dst[j*m+i] = src[i*n+j] for an m x n matrix src.
func transpose(dst, src []float32, m, n int) {
	for i := 0; i < m; i++ {
		for j, v := range src[i*n:][:n] {
			dst[j*m+i] = v
		}
	}
}

// backwardBatch follows forwardBatch on the same scratch: dout[p] is
// dL/dout of position p; it adds the parameter gradients into g and writes
// the accumulator gradients to the rows of dacc ([dus | dthem] per
// position). Every gradient sums its positions in order with fused
// multiply-adds, as backward's per-position axpys did: the weight gradients
// and accumulator gradients are those of n calls of backward.
func (h *sf12Head) backwardBatch(sc any, acc []float32, n int, dout []float32, g [][]float32, dacc []float32) {
	s := sc.(*sf12Scratch)
	w2, n1, n2 := 2*h.width, h.n1, h.n2
	gw1, gb1, gw2, gb2, gw3, gb3 := g[0], g[1], g[2], g[3], g[4], g[5]
	for p := 0; p < n; p++ {
		d := dout[p]
		gb3[0] += d
		vec.Axpy(gw3, s.bh2[p*n2:][:n2], d)
		d2 := s.bd2[p*n2:][:n2]
		vec.MaskScale(d2, h.w3.Fwd, s.bs2[p*n2:][:n2], 0, 1, d)
		vec.Add(gb2, d2)
	}
	transpose(s.bd2t, s.bd2, n, n2)
	vec.MatMulNN(gw2, n1, s.bd2t, n, s.bh1, n1, n2, n1, n, true)
	vec.MatMulNN(s.bdh1, n1, s.bd2, n2, h.w2.Fwd, n1, n, n1, n2, false)
	vec.MaskScale(s.bd1[:n*n1], s.bdh1[:n*n1], s.bs1[:n*n1], 0, 1, 1)
	for p := 0; p < n; p++ {
		vec.Add(gb1, s.bd1[p*n1:][:n1])
	}
	transpose(s.bd1t, s.bd1, n, n1)
	vec.MatMulNN(gw1, w2, s.bd1t, n, s.bx, w2, n1, w2, n, true)
	vec.MatMulNN(s.bdx, w2, s.bd1, n1, h.w1.Fwd, w2, n, w2, n1, false)
	vec.MaskScale(dacc[:n*w2], s.bdx[:n*w2], acc[:n*w2], 0, 1, 1)
}

func (h *sf12Head) backward(sc any, us, them []float32, _ int, dout float32, g [][]float32, dus, dthem []float32) {
	s := sc.(*sf12Scratch)
	W := h.width
	gw1, gb1, gw2, gb2, gw3, gb3 := g[0], g[1], g[2], g[3], g[4], g[5]
	gb3[0] += dout
	vec.Axpy(gw3, s.h2, dout)
	vec.MaskScale(s.d2, h.w3.Fwd, s.s2, 0, 1, dout)
	vec.Add(gb2, s.d2)
	clear(s.dh1)
	for i, d := range s.d2 {
		if d != 0 {
			vec.Axpy(gw2[i*h.n1:][:h.n1], s.h1, d)
			vec.Axpy(s.dh1, h.w2.Fwd[i*h.n1:][:h.n1], d)
		}
	}
	vec.MaskScale(s.d1, s.dh1, s.s1, 0, 1, 1)
	vec.Add(gb1, s.d1)
	clear(s.dx)
	for i, d := range s.d1 {
		if d != 0 {
			vec.Axpy(gw1[i*2*W:][:2*W], s.x, d)
			vec.Axpy(s.dx, h.w1.Fwd[i*2*W:][:2*W], d)
		}
	}
	vec.MaskScale(dus, s.dx[:W], us, 0, 1, 1)
	vec.MaskScale(dthem, s.dx[W:], them, 0, 1, 1)
}

func (h *sf12Head) flops() float64 {
	in := float64(2 * h.width)
	n1, n2 := float64(h.n1), float64(h.n2)
	// float64(x*y) here and below: no FMA fusion at GOAMD64=v3 (make fma-check).
	fwd := float64(2*in*n1) + float64(2*n1*n2) + float64(2*n2)
	return fwd + float64(2*fwd) + float64(4*in) // backward: two products per weight; masks
}
