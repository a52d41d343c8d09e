package nnue

import (
	"fmt"
	"math"

	"github.com/nnuelab/nnuelab/archs"
)

// Tensor is a named float32 array with its shape, the unit of nnuelab's own
// float network files (the format lives in nets/; the engine only sees
// tensors).
type Tensor struct {
	Name  string
	Shape []int
	Data  []float32
}

// FromFloat builds the network of spec from float32 tensors, quantizing them
// with the spec's multipliers (as Koivisto 5.x did at load time), so that an
// experiment can change the multipliers without retraining. A tensor with
// the wrong shape, a missing tensor or a weight that overflows after
// quantization is an error.
//
// Tensor names: "ft.weight" [features][width] (with features.threats, the
// threat features' rows follow the piece-square ones), "ft.bias" [width], and
//
//   - linear head: "out.weight" [buckets][inputs*width], "out.bias"
//     [buckets]. The float head computes
//     out = scale * (bias + sum act(acc_i) * w_i), act being max(a, 0),
//     clamp(a, 0, 1) or clamp(a, 0, 1)^2, in the design's internal units.
//   - sf12 head: "l1.weight" [l1][2*width] (side to move's inputs first),
//     "l1.bias" [l1], "l2.weight" [l2][l1], "l2.bias" [l2], "out.weight"
//     [1][l2], "out.bias" [1]. The float head computes
//     x = clamp(acc, 0, 1) (both perspectives), h1 = clamp(b1 + W1 x, 0, 1),
//     h2 = clamp(b2 + W2 h1, 0, 1), out = b3 + w3 h2 in NNUE::evaluate's
//     internal units (see SF12FloatScales for the quantization).
//   - rengar: the RengarWeights fields ("pst.fs" [184][32], ..., "l2.fsxva" [4]).
func FromFloat(spec *archs.Spec, tensors []Tensor) (*Network, error) {
	byName := map[string]*Tensor{}
	for i := range tensors {
		byName[tensors[i].Name] = &tensors[i]
	}
	get := func(name string, shape ...int) ([]float32, error) {
		t, ok := byName[name]
		if !ok {
			return nil, fmt.Errorf("tensor %q missing", name)
		}
		want := 1
		for _, d := range shape {
			want *= d
		}
		if fmt.Sprint(t.Shape) != fmt.Sprint(shape) || len(t.Data) != want {
			return nil, fmt.Errorf("tensor %q has shape %v, arch %s needs %v", name, t.Shape, spec.Name, shape)
		}
		return t.Data, nil
	}
	switch spec.Head.Type {
	case "rengar":
		return rengarFromFloat(spec, get)
	case "linear", "sf12":
	default:
		return nil, fmt.Errorf("float nets of head type %q are not supported yet", spec.Head.Type)
	}
	n := newNetwork(spec)
	qa, qb := spec.Quant.QA, spec.Quant.QB
	ftw, err := get("ft.weight", spec.Features.Inputs(), n.Width)
	if err != nil {
		return nil, err
	}
	for i, w := range ftw {
		if n.FTWeights[i], err = quantize16(w, qa, "ft.weight", i); err != nil {
			return nil, err
		}
	}
	ftb, err := get("ft.bias", n.Width)
	if err != nil {
		return nil, err
	}
	for i, w := range ftb {
		if n.FTBias[i], err = quantize16(w, qa, "ft.bias", i); err != nil {
			return nil, err
		}
	}
	if spec.Head.Type == "sf12" {
		if n.head, err = sf12FromFloat(spec, get); err != nil {
			return nil, err
		}
		return n, nil
	}
	h := newLinearHead(n)
	n.head = h
	per := len(h.out[0])
	ow, err := get("out.weight", len(h.out), per)
	if err != nil {
		return nil, err
	}
	for o := range h.out {
		for j := range h.out[o] {
			if h.out[o][j], err = quantize16(ow[o*per+j], qb, "out.weight", o*per+j); err != nil {
				return nil, err
			}
		}
	}
	ob, err := get("out.bias", len(h.out))
	if err != nil {
		return nil, err
	}
	for o, w := range ob {
		if h.bias[o], err = quantize32(w, qa*qb, "out.bias", o); err != nil {
			return nil, err
		}
	}
	return n, nil
}

func rengarFromFloat(spec *archs.Spec, get func(string, ...int) ([]float32, error)) (*Network, error) {
	w := &RengarWeights{}
	mats := []struct {
		name string
		dst  *[184][32]float32
	}{{"pst.fs", &w.PSTfs}, {"pst.va", &w.PSTva}, {"pst.ha", &w.PSTha}, {"pst.ra", &w.PSTra}}
	for _, m := range mats {
		d, err := get(m.name, 184, 32)
		if err != nil {
			return nil, err
		}
		for i := range m.dst {
			copy(m.dst[i][:], d[i*32:])
		}
	}
	l1 := []struct {
		name string
		dst  *[4][32]float32
	}{{"l1.fs", &w.L1fs}, {"l1.absva", &w.L1absVA}, {"l1.absha", &w.L1absHA}, {"l1.absra", &w.L1absRA},
		{"l1.va", &w.L1va}, {"l1.fsxva", &w.L1fsxVA}, {"l1.haxra", &w.L1haxRA}}
	for _, m := range l1 {
		d, err := get(m.name, 4, 32)
		if err != nil {
			return nil, err
		}
		for i := range m.dst {
			copy(m.dst[i][:], d[i*32:])
		}
	}
	vecs := []struct {
		name string
		dst  []float32
	}{{"tempo.va", w.TempoVA[:]}, {"l1.fs_bias", w.L1fsBias[:]}, {"l2.va", w.L2va[:]}, {"l2.fsxva", w.L2fsxVA[:]}}
	for _, v := range vecs {
		d, err := get(v.name, len(v.dst))
		if err != nil {
			return nil, err
		}
		copy(v.dst, d)
	}
	return NewRengar(spec, w)
}

// SF12FloatScales returns the multipliers that turn the float sf12 head's
// tensors into Stockfish 12's integers for spec (qa = quant.qa,
// 2^quant.weight_shift, div = quant.output_divisor):
//
//	hidden weights  round(w * 2^shift)          int8
//	hidden biases   round(b * qa * 2^shift)     int32
//	output weights  round(w * div / qa)         int8
//	output bias     round(b * div)              int32
//
// With activations held as qa*h in 0..qa, the integer layers then compute
// the float formulas up to rounding: s >> shift = qa*(b + W h) and
// out/div = b3 + w3 h2. Trainers clip to the ranges these scales allow.
func SF12FloatScales(spec *archs.Spec) (hiddenW, hiddenB, outW, outB float64) {
	q := spec.Quant
	one := float64(int64(1) << q.WeightShift)
	return one, float64(q.QA) * one, float64(q.OutputDivisor) / float64(q.QA), float64(q.OutputDivisor)
}

// quantize8 rounds w*scale half away from zero into int8, failing on overflow.
func quantize8(w float32, scale float64, what string, i int) (int8, error) {
	v := math.Round(float64(w) * scale)
	if v < math.MinInt8 || v > math.MaxInt8 || math.IsNaN(v) {
		return 0, fmt.Errorf("%s[%d] = %g times %g overflows int8", what, i, w, scale)
	}
	return int8(v), nil
}

// quantize32f is quantize32 with a non-integer scale.
func quantize32f(w float32, scale float64, what string, i int) (int32, error) {
	v := math.Round(float64(w) * scale)
	if v < math.MinInt32 || v > math.MaxInt32 || math.IsNaN(v) {
		return 0, fmt.Errorf("%s[%d] = %g times %g overflows int32", what, i, w, scale)
	}
	return int32(v), nil
}

// sf12FromFloat quantizes the float sf12 head (see FromFloat) into
// Stockfish 12's integer layers with their padded row strides.
func sf12FromFloat(spec *archs.Spec, get func(string, ...int) ([]float32, error)) (*sf12Head, error) {
	if err := checkSpec(spec); err != nil {
		return nil, err
	}
	w, layers, q := spec.Accumulator.Width, spec.Head.Layers, spec.Quant
	n1, n2 := layers[0], layers[1]
	h := &sf12Head{
		qa: int32(q.QA), shift: uint(q.WeightShift), div: int32(q.OutputDivisor),
		n1: n1, n2: n2,
		w1: make([]int8, n1*pad32(2*w)), b1: make([]int32, n1),
		w2: make([]int8, n2*pad32(n1)), b2: make([]int32, n2),
		w3:   make([]int8, pad32(n2)),
		desc: "nnuelab float net quantized at load: " + sf12Shape(spec),
	}
	hw, hb, ow, ob := SF12FloatScales(spec)
	dense := []struct {
		wname, bname string
		out, in      int
		w            []int8
		b            []int32
		ws, bs       float64
	}{
		{"l1.weight", "l1.bias", n1, 2 * w, h.w1, h.b1, hw, hb},
		{"l2.weight", "l2.bias", n2, n1, h.w2, h.b2, hw, hb},
		{"out.weight", "out.bias", 1, n2, h.w3, make([]int32, 1), ow, ob},
	}
	for _, d := range dense {
		fw, err := get(d.wname, d.out, d.in)
		if err != nil {
			return nil, err
		}
		stride := pad32(d.in)
		for i := 0; i < d.out; i++ {
			for j := 0; j < d.in; j++ {
				if d.w[i*stride+j], err = quantize8(fw[i*d.in+j], d.ws, d.wname, i*d.in+j); err != nil {
					return nil, err
				}
			}
		}
		fb, err := get(d.bname, d.out)
		if err != nil {
			return nil, err
		}
		for i, v := range fb {
			if d.b[i], err = quantize32f(v, d.bs, d.bname, i); err != nil {
				return nil, err
			}
		}
		if d.wname == "out.weight" {
			h.b3 = d.b[0]
		}
	}
	return h, nil
}
