package train

import (
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
	fs, va, ha, ra := r.params[0].Data, r.params[1].Data, r.params[2].Data, r.params[3].Data
	for row := range r.idx {
		dst := r.virt[row*128:][:128]
		i := r.idx[row]
		if i < 0 {
			clear(dst)
			continue
		}
		sv, sh := r.sv[row], r.sh[row]
		for j := 0; j < 32; j++ {
			dst[j] = fs[i*32+j]
			dst[32+j] = sv * va[i*32+j]
			dst[64+j] = sh * ha[i*32+j]
			dst[96+j] = sv * sh * ra[i*32+j]
		}
	}
}

// fold adds the matrix gradient r.grad into the embedding gradients g
// (indexed like r.params), rows in ascending order.
func (r *rengarTied) fold(g [][]float32) {
	for row := range r.idx {
		i := r.idx[row]
		if i < 0 {
			continue
		}
		src := r.grad[row*128:][:128]
		sv, sh := r.sv[row], r.sh[row]
		vec.Axpy(g[0][i*32:][:32], src[0:32], 1)
		vec.Axpy(g[1][i*32:][:32], src[32:64], sv)
		vec.Axpy(g[2][i*32:][:32], src[64:96], sh)
		vec.Axpy(g[3][i*32:][:32], src[96:128], sv*sh)
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

type rengarScratch struct {
	pre                [4][32]float32 // fs, va+tempo, ha, ra before the clamp
	act                [4][32]float32 // F, V, H, R
	abs                [4][32]float32 // |V|, |H|, |R| at 1..3
	fv, hr             [32]float32
	l2pre, l2fs, l2va  [4]float32
	dAct               [4][32]float32
	dl2fs, dl2va, prod [4]float32
}

func (h *rengarHead) newScratch() any { return &rengarScratch{} }

func clampR(x float32) float32 { return min(max(x, -rengarClip), rengarClip) }

func abs32(x float32) float32 {
	if x < 0 {
		return -x
	}
	return x
}

func sign32(x float32) float32 {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

func row32(p *Param, i int) []float32 { return p.Data[i*32:][:32] }

func (h *rengarHead) forward(sc any, us, _ []float32, _ int) float32 {
	s := sc.(*rengarScratch)
	for k := 0; k < 4; k++ {
		copy(s.pre[k][:], us[32*k:32*k+32])
	}
	vec.Add(s.pre[1][:], h.tempo.Data)
	for k := 0; k < 4; k++ {
		for j := 0; j < 32; j++ {
			s.act[k][j] = clampR(s.pre[k][j])
			s.abs[k][j] = abs32(s.act[k][j])
		}
	}
	vec.Mul(s.fv[:], s.act[0][:], s.act[1][:])
	vec.Mul(s.hr[:], s.act[2][:], s.act[3][:])
	var y float32
	for i := 0; i < 4; i++ {
		s.l2pre[i] = h.bias.Data[i] + vec.Dot(row32(h.fs, i), s.act[0][:]) + vec.Dot(row32(h.absva, i), s.abs[1][:]) +
			vec.Dot(row32(h.absha, i), s.abs[2][:]) + vec.Dot(row32(h.absra, i), s.abs[3][:])
		s.l2fs[i] = clampR(s.l2pre[i])
		s.l2va[i] = vec.Dot(row32(h.va, i), s.act[1][:]) + vec.Dot(row32(h.fsxva, i), s.fv[:]) + vec.Dot(row32(h.hr, i), s.hr[:])
		s.prod[i] = s.l2fs[i] * s.l2va[i]
		y += h.outVA.Data[i]*s.l2va[i] + h.outFxV.Data[i]*s.prod[i]
	}
	return h.scale * y
}

func (h *rengarHead) backward(sc any, _, _ []float32, _ int, dout float32, g [][]float32, dus, _ []float32) {
	s := sc.(*rengarScratch)
	gTempo, gBias, gFS, gAbsVA, gAbsHA, gAbsRA, gVA, gFSxVA, gHR, gOutVA, gOutFxV := g[0], g[1], g[2], g[3], g[4], g[5], g[6], g[7], g[8], g[9], g[10]
	dy := dout * h.scale
	for i := 0; i < 4; i++ {
		gOutVA[i] += dy * s.l2va[i]
		gOutFxV[i] += dy * s.prod[i]
		s.dl2va[i] = dy * (h.outVA.Data[i] + h.outFxV.Data[i]*s.l2fs[i])
		s.dl2fs[i] = 0
		if s.l2pre[i] > -rengarClip && s.l2pre[i] < rengarClip {
			s.dl2fs[i] = dy * h.outFxV.Data[i] * s.l2va[i]
		}
	}
	// dAct[k] = d loss / d activated subspace k; d|x|/dx = sign(x).
	for k := range s.dAct {
		clear(s.dAct[k][:])
	}
	var dFV, dHR [32]float32
	for i := 0; i < 4; i++ {
		a, b := s.dl2fs[i], s.dl2va[i]
		gBias[i] += a
		if a != 0 {
			vec.Axpy(row32p(gFS, i), s.act[0][:], a)
			vec.Axpy(row32p(gAbsVA, i), s.abs[1][:], a)
			vec.Axpy(row32p(gAbsHA, i), s.abs[2][:], a)
			vec.Axpy(row32p(gAbsRA, i), s.abs[3][:], a)
			vec.Axpy(s.dAct[0][:], row32(h.fs, i), a)
			vec.Axpy(s.dAct[1][:], row32(h.absva, i), a) // times sign(V) below
			vec.Axpy(s.dAct[2][:], row32(h.absha, i), a)
			vec.Axpy(s.dAct[3][:], row32(h.absra, i), a)
		}
		if b != 0 {
			vec.Axpy(row32p(gVA, i), s.act[1][:], b)
			vec.Axpy(row32p(gFSxVA, i), s.fv[:], b)
			vec.Axpy(row32p(gHR, i), s.hr[:], b)
		}
	}
	for k := 1; k < 4; k++ {
		for j := 0; j < 32; j++ {
			s.dAct[k][j] *= sign32(s.act[k][j])
		}
	}
	for i := 0; i < 4; i++ {
		if b := s.dl2va[i]; b != 0 {
			vec.Axpy(s.dAct[1][:], row32(h.va, i), b)
			vec.Axpy(dFV[:], row32(h.fsxva, i), b)
			vec.Axpy(dHR[:], row32(h.hr, i), b)
		}
	}
	for j := 0; j < 32; j++ {
		s.dAct[0][j] += dFV[j] * s.act[1][j]
		s.dAct[1][j] += dFV[j] * s.act[0][j]
		s.dAct[2][j] += dHR[j] * s.act[3][j]
		s.dAct[3][j] += dHR[j] * s.act[2][j]
	}
	for k := 0; k < 4; k++ {
		for j := 0; j < 32; j++ {
			d := float32(0)
			if x := s.pre[k][j]; x > -rengarClip && x < rengarClip {
				d = s.dAct[k][j]
			}
			dus[32*k+j] = d
		}
	}
	vec.Add(gTempo, dus[32:64])
}

func row32p(g []float32, i int) []float32 { return g[i*32:][:32] }

func (h *rengarHead) flops() float64 {
	// forward: 7 dots of 32 per output (4 outputs) + elementwise; backward
	// about three times that.
	return 4 * (4 * 7 * 64)
}
