package nnue

import (
	"fmt"

	arch "github.com/nnuelab/nnuelab/archs"
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
// Tensor names: "ft.weight" [features][width], "ft.bias" [width], and for a
// linear head "out.weight" [buckets][inputs*width], "out.bias" [buckets]; for
// rengar the RengarWeights fields ("pst.fs" [184][32], ..., "l2.fsxva" [4]).
func FromFloat(spec *arch.Spec, tensors []Tensor) (*Network, error) {
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
	case "linear":
	default:
		return nil, fmt.Errorf("float nets of head type %q are not supported yet", spec.Head.Type)
	}
	n := newNetwork(spec)
	h := newLinearHead(n)
	n.head = h
	qa, qb := spec.Quant.QA, spec.Quant.QB
	ftw, err := get("ft.weight", n.Features.Size(), n.Width)
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

func rengarFromFloat(spec *arch.Spec, get func(string, ...int) ([]float32, error)) (*Network, error) {
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
