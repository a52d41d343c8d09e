package train

import (
	"math"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/nnue"
	"github.com/nnuelab/nnuelab/nets/train/vec"
)

// Rengar's symmetric product-pooling net (docs/reference/rengar-net.md)
// trained with its parameters tied: the trainable tensors are the 184x32
// embeddings of the four symmetry subspaces, the tempo vector and the dense
// layers, exactly the tensors nnue.NewRengar takes. The 768x128 feature
// matrix of the side to move's view is built from them with the orbit
// signs (sv: own +1, opponent -1; sh: files a-d -1, e-h +1), as NewRengar
// builds its fixed-point rows, and its gradient is folded back onto the
// embeddings. The mirror symmetries therefore hold for every parameter
// value: by construction, not by training.

// rengarClip is Rengar's hardtanh bound, 127/128.
const rengarClip = 127.0 / 128

// rengarTied holds the embeddings and the matrix they expand to.
type rengarTied struct {
	params []*Param // pst.fs, pst.va, pst.ha, pst.ra: [184][32]
	virt   []float32
	// per matrix row (plane*64 + square, own pieces first): the folded
	// index (-1 if the row cannot occur) and the signs sv and sh.
	idx    [768]int
	sv, sh [768]float32
	grad   []float32 // gradient of virt, folded by fold
}

func newRengarTied(_ *nnue.FeatureSet, clip float32) *rengarTied {
	r := &rengarTied{virt: make([]float32, 768*128), grad: make([]float32, 768*128)}
	for _, n := range []string{"pst.fs", "pst.va", "pst.ha", "pst.ra"} {
		r.params = append(r.params, newParam(n, 1, clip, true, 184, 32))
	}
	for plane := 0; plane < 12; plane++ {
		t := plane % 6
		sv := float32(1)
		if plane >= 6 {
			sv = -1
		}
		for s := 0; s < 64; s++ {
			row := plane*64 + s
			own := s
			if plane >= 6 {
				own = s ^ 56 // an opponent's piece, seen from its own side
			}
			idx, sh, ok := nnue.RengarIndex(t, own)
			if !ok {
				r.idx[row] = -1
				continue
			}
			r.idx[row], r.sv[row], r.sh[row] = idx, sv, sh
		}
	}
	return r
}

// build expands the embeddings into the matrix: row = [fs, sv*va, sh*ha,
// sv*sh*ra] of the row's folded index.
func (r *rengarTied) build() {
	for k := range r.params {
		r.buildPart(k)
	}
}

// sign returns the sign of tensor k (fs, va, ha, ra) in matrix row row.
func (r *rengarTied) sign(k, row int) float32 {
	switch k {
	case 1:
		return r.sv[row]
	case 2:
		return r.sh[row]
	case 3:
		return r.sv[row] * r.sh[row]
	}
	return 1
}

// buildPart is build for tensor k alone: columns 32k..32k+31 of every row.
// The four parts write disjoint columns, so they can run in parallel.
func (r *rengarTied) buildPart(k int) {
	src := r.params[k].Data
	for row, i := range r.idx {
		dst := r.virt[row*128+32*k:][:32]
		if i < 0 {
			clear(dst)
			continue
		}
		sgn := r.sign(k, row)
		for j, v := range src[i*32:][:32] {
			dst[j] = sgn * v
		}
	}
}

// fold adds the matrix gradient r.grad into the embedding gradients g
// (indexed like r.params), rows in ascending order.
func (r *rengarTied) fold(g [][]float32) {
	for k := range r.params {
		r.foldPart(k, g[k], nil)
	}
}

// foldPart is fold for tensor k alone (its gradient g): the rows' columns
// 32k..32k+31, rows ascending. With touched, only the rows it marks are
// read: the others' gradients are zero, and adding them would leave g as
// it is (g starts at +0 and never becomes -0, so x + ±0 = x for every
// element), so the sums are those of fold.
func (r *rengarTied) foldPart(k int, g []float32, touched []bool) {
	for row, i := range r.idx {
		if i < 0 || (touched != nil && !touched[row]) {
			continue
		}
		vec.Axpy(g[i*32:][:32], r.grad[row*128+32*k:][:32], r.sign(k, row))
	}
}

// rengarHead is Rengar's dense part (rengar-net.md) on the side to move's
// accumulator [fs | va | ha | ra]:
//
//	F, V, H, R = clamp(fs), clamp(va + tempo), clamp(ha), clamp(ra)   (+-127/128)
//	l2fs[i] = clamp(bias[i] + fs[i].F + absva[i].|V| + absha[i].|H| + absra[i].|R|)
//	l2va[i] = va[i].V + fsxva[i].(F*V) + haxra[i].(H*R)
//	y = l2va.outVA + (l2fs*l2va).outFxV;  out = scale * y
type rengarHead struct {
	scale                                  float32
	tempo, bias                            *Param
	fs, absva, absha, absra, va, fsxva, hr *Param
	outVA, outFxV                          *Param
}

func newRengarHead(spec *archs.Spec) *rengarHead {
	m := func(n string) *Param { return newParam(n, 1, noClip, true, 4, 32) }
	return &rengarHead{
		scale: float32(spec.Quant.Scale),
		tempo: newParam("tempo.va", 1, noClip, false, 32),
		bias:  newParam("l1.fs_bias", 1, noClip, false, 4),
		fs:    m("l1.fs"), absva: m("l1.absva"), absha: m("l1.absha"), absra: m("l1.absra"),
		va: m("l1.va"), fsxva: m("l1.fsxva"), hr: m("l1.haxra"),
		outVA:  newParam("l2.va", 1, noClip, true, 4),
		outFxV: newParam("l2.fsxva", 1, noClip, true, 4),
	}
}

// params are in nnue.FromFloat's names; the order is the gradient index.
func (h *rengarHead) params() []*Param {
	return []*Param{h.tempo, h.bias, h.fs, h.absva, h.absha, h.absra, h.va, h.fsxva, h.hr, h.outVA, h.outFxV}
}

// rengarScratch holds a chunk of positions (at most chunkSize), one row
// per position: pre = the accumulator with the tempo added, act = its
// clamp; x1 = [F | |V| | |H| | |R|] and x2 = [V | F*V | H*R], the inputs of
// the l2fs and l2va rows, which wfs = [fs | absva | absha | absra] and wva
// = [va | fsxva | haxra] (4 rows each) hold side by side, so that each
// layer is one product over the chunk.
type rengarScratch struct {
	pre, act, x1, x2             []float32
	l2pre, l2fs, l2va, prod      []float32
	dl2fs, dl2va, dl2fsT, dl2vaT []float32
	dx1, dx2                     []float32
	wfs, wva                     []float32
	// sgn is sign(act) (1, -1 or 0), built from neg and ones by the
	// forward pass for the backward; d and t hold one position's input
	// gradient before its mask.
	sgn, neg, ones, d, t []float32
	out                  [1]float32
	dout                 [1]float32
}

func (h *rengarHead) newScratch() any {
	n := chunkSize
	f := func(k int) []float32 { return make([]float32, k) }
	return &rengarScratch{pre: f(n * 128), act: f(n * 128), x1: f(n * 128), x2: f(n * 96),
		l2pre: f(n * 4), l2fs: f(n * 4), l2va: f(n * 4), prod: f(n * 4),
		dl2fs: f(n * 4), dl2va: f(n * 4), dl2fsT: f(n * 4), dl2vaT: f(n * 4),
		dx1: f(n * 128), dx2: f(n * 96), wfs: f(4 * 128), wva: f(4 * 96),
		sgn: f(n * 128), neg: f(n * 128), ones: ones(n * 128), d: f(128), t: f(128)}
}

func ones(n int) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = 1
	}
	return v
}

func clampR(x float32) float32 { return min(max(x, -rengarClip), rengarClip) }

func row32(p *Param, i int) []float32 { return p.Data[i*32:][:32] }

// forward is forwardBatch on one position (us is its accumulator): the
// same sums as in training.
func (h *rengarHead) forward(sc any, us, _ []float32, _ int) float32 {
	s := sc.(*rengarScratch)
	h.forwardBatch(sc, us, 1, s.out[:])
	return s.out[0]
}

// backward is backwardBatch on one position.
func (h *rengarHead) backward(sc any, us, _ []float32, _ int, dout float32, g [][]float32, dus, _ []float32) {
	s := sc.(*rengarScratch)
	s.dout[0] = dout
	h.backwardBatch(sc, us, 1, s.dout[:], g, dus)
}

// forwardBatch computes the outputs of n positions whose accumulators
// start every 256 floats in acc (the engine's rows of [us | them]; Rengar
// reads us, 128 floats).
func (h *rengarHead) forwardBatch(sc any, acc []float32, n int, out []float32) {
	s := sc.(*rengarScratch)
	for i := 0; i < 4; i++ {
		copy(s.wfs[i*128:], row32(h.fs, i))
		copy(s.wfs[i*128+32:], row32(h.absva, i))
		copy(s.wfs[i*128+64:], row32(h.absha, i))
		copy(s.wfs[i*128+96:], row32(h.absra, i))
		copy(s.wva[i*96:], row32(h.va, i))
		copy(s.wva[i*96+32:], row32(h.fsxva, i))
		copy(s.wva[i*96+64:], row32(h.hr, i))
	}
	for p := 0; p < n; p++ {
		pre := s.pre[p*128:][:128]
		copy(pre, acc[p*256:][:128])
		vec.Add(pre[32:64], h.tempo.Data)
	}
	act := s.act[:n*128]
	vec.Clamp(act, s.pre[:n*128], -rengarClip, rengarClip)
	// sign(act) from two masks: 1 where act > 0, plus -1 where act < 0,
	// else +0; then |act| = act*sign(act), exactly the value of
	// "if act < 0 { -act } else { act }" (-0 stays -0), branch-free.
	sgn, neg := s.sgn[:n*128], s.neg[:n*128]
	inf := float32(math.Inf(1))
	vec.MaskScale(sgn, s.ones[:n*128], act, 0, inf, 1)
	vec.MaskScale(neg, s.ones[:n*128], act, -inf, 0, -1)
	vec.Add(sgn, neg)
	vec.Mul(s.x1[:n*128], act, sgn)
	for p := 0; p < n; p++ {
		a, x1, x2 := s.act[p*128:][:128], s.x1[p*128:][:128], s.x2[p*96:][:96]
		copy(x1[:32], a[:32])
		copy(x2[:32], a[32:64])
		vec.Mul(x2[32:64], a[:32], a[32:64])
		vec.Mul(x2[64:96], a[64:96], a[96:128])
	}
	vec.MatMulNT(s.l2pre, 4, s.x1, 128, s.wfs, 128, n, 4, 128)
	vec.MatMulNT(s.l2va, 4, s.x2, 96, s.wva, 96, n, 4, 96)
	for p := 0; p < n; p++ {
		var y float32
		for i := 0; i < 4; i++ {
			k := p*4 + i
			s.l2pre[k] = h.bias.Data[i] + s.l2pre[k]
			s.l2fs[k] = clampR(s.l2pre[k])
			s.prod[k] = s.l2fs[k] * s.l2va[k]
			// float32(x*y) here and below: no FMA fusion at GOAMD64=v3 (make fma-check).
			y += float32(h.outVA.Data[i]*s.l2va[k]) + float32(h.outFxV.Data[i]*s.prod[k])
		}
		out[p] = h.scale * y
	}
}

// backwardBatch follows forwardBatch: dout[p] is dL/dout of position p;
// the parameter gradients are added into g (summed over the positions in
// order) and the accumulator gradients written to dacc, every 256 floats
// like acc.
func (h *rengarHead) backwardBatch(sc any, _ []float32, n int, dout []float32, g [][]float32, dacc []float32) {
	s := sc.(*rengarScratch)
	gTempo, gBias, gOutVA, gOutFxV := g[0], g[1], g[9], g[10]
	for p := 0; p < n; p++ {
		dy := dout[p] * h.scale
		for i := 0; i < 4; i++ {
			k := p*4 + i
			gOutVA[i] += float32(dy * s.l2va[k])
			gOutFxV[i] += float32(dy * s.prod[k])
			s.dl2va[k] = dy * (h.outVA.Data[i] + float32(h.outFxV.Data[i]*s.l2fs[k]))
			s.dl2fs[k] = 0
			if s.l2pre[k] > -rengarClip && s.l2pre[k] < rengarClip {
				s.dl2fs[k] = dy * h.outFxV.Data[i] * s.l2va[k]
			}
			gBias[i] += s.dl2fs[k]
		}
	}
	// Weight gradients: dl2^T x, one product per tensor (its 32 columns of
	// x1 or x2).
	transpose(s.dl2fsT, s.dl2fs, n, 4)
	transpose(s.dl2vaT, s.dl2va, n, 4)
	for t, gi := range []int{2, 3, 4, 5} { // fs, absva, absha, absra
		vec.MatMulNN(g[gi], 32, s.dl2fsT, n, s.x1[32*t:], 128, 4, 32, n, true)
	}
	for t, gi := range []int{6, 7, 8} { // va, fsxva, haxra
		vec.MatMulNN(g[gi], 32, s.dl2vaT, n, s.x2[32*t:], 96, 4, 32, n, true)
	}
	// Input gradients: dl2 W, then through the products, |.| and clamps.
	vec.MatMulNN(s.dx1, 128, s.dl2fs, 4, s.wfs, 128, n, 128, 4, false)
	vec.MatMulNN(s.dx2, 96, s.dl2va, 4, s.wva, 96, n, 96, 4, false)
	// Through the products, |.| and clamps, element by element:
	//
	//	dF = dx1.F + dFV*V
	//	dV = dx1.|V|*sign(V) + dx2.V + dFV*F
	//	dH = dx1.|H|*sign(H) + dHR*R
	//	dR = dx1.|R|*sign(R) + dHR*H
	//
	// each zero where the clamp's input is outside its bounds. The vector
	// kernels do each product and sum in this order (Mul and Add round as
	// the scalar operations, MaskScale by 1 keeps or zeroes), with the
	// forward pass's sign(act).
	sgn := s.sgn[:n*128]
	d, t := s.d, s.t
	for p := 0; p < n; p++ {
		a, pre, dx1, dx2 := s.act[p*128:][:128], s.pre[p*128:][:128], s.dx1[p*128:][:128], s.dx2[p*96:][:96]
		sg := sgn[p*128:][:128]
		dFV, dHR := dx2[32:64], dx2[64:96]
		// dF
		copy(d[:32], dx1[:32])
		vec.Mul(t[:32], dFV, a[32:64])
		vec.Add(d[:32], t[:32])
		// dV
		vec.Mul(d[32:64], dx1[32:64], sg[32:64])
		vec.Add(d[32:64], dx2[:32])
		vec.Mul(t[32:64], dFV, a[:32])
		vec.Add(d[32:64], t[32:64])
		// dH, dR
		vec.Mul(d[64:], dx1[64:], sg[64:])
		vec.Mul(t[64:96], dHR, a[96:128])
		vec.Mul(t[96:], dHR, a[64:96])
		vec.Add(d[64:], t[64:])
		dus := dacc[p*256:][:128]
		vec.MaskScale(dus, d, pre, -rengarClip, rengarClip, 1)
		vec.Add(gTempo, dus[32:64])
	}
}

func (h *rengarHead) flops() float64 {
	// forward: 7 dots of 32 per output (4 outputs) + elementwise; backward
	// about three times that.
	return 4 * (4 * 7 * 64)
}
