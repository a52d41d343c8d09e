package nnue

import (
	"fmt"

	"github.com/nnuelab/nnuelab/engine/nnue/simd"

	"github.com/nnuelab/nnuelab/archs"
)

// linearHead is one output neuron per output bucket on the activated
// accumulators: Koivisto (ReLU), Leorik (SCReLU), chess768.
//
//	relu/crelu: s = bias + sum act(acc_i) * w_i
//	screlu:     s = tdiv(sum act(acc_i)^2 * w_i, QA) + bias
//	out       = tdiv(s * scale, QA * QB)
//
// The weights of bucket o are out[o] (stm rows, then the other side's rows
// when inputs are "stm+opp"); biases are stored scaled by QA*QB.
type linearHead struct {
	net        *Network
	activation string
	both       bool
	out        [][]int16
	bias       []int32
	qa, qb     int64
	scale      int64
}

func newLinearHead(n *Network) *linearHead {
	s := n.Spec
	h := &linearHead{net: n, activation: s.Head.Activation, both: s.Head.Inputs == "stm+opp",
		qa: int64(s.Quant.QA), qb: int64(s.Quant.QB), scale: int64(s.Quant.Scale)}
	per := n.Width
	if h.both {
		per *= 2
	}
	h.out = make([][]int16, s.Head.OutputBuckets)
	for i := range h.out {
		h.out[i] = make([]int16, per)
	}
	h.bias = make([]int32, s.Head.OutputBuckets)
	return h
}

func (h *linearHead) dot(acc, w []int16) int64 {
	switch h.activation {
	case "relu":
		return int64(simd.DotReLU(acc, w))
	case "crelu":
		return int64(simd.DotClippedReLU(acc, w, int16(h.qa)))
	}
	return int64(simd.DotSquaredClippedReLU(acc, w, int16(h.qa)))
}

func (h *linearHead) forward(us, them []int16, _, _ []int32, pieces int, tr *Trace) int32 {
	o := h.net.outputBucket(pieces)
	w := h.out[o]
	W := len(us)
	sum := h.dot(us, w[:W])
	if h.both {
		sum += h.dot(them, w[W:])
	}
	// Engines sum in int32; wrap the same way so that any net gives their result.
	sum = int64(int32(sum))
	var s int64
	if h.activation == "screlu" {
		s = sum/h.qa + int64(h.bias[o])
	} else {
		s = sum + int64(h.bias[o])
	}
	out := int32(s * h.scale / (h.qa * h.qb)) // Go's / truncates toward zero, like C
	if tr != nil {
		tr.Bucket = o
		tr.Positional = int32(s)
		tr.Raw = out
		tr.Transformed = h.activate(tr.Transformed[:0], us)
		if h.both {
			tr.Transformed = h.activate(tr.Transformed, them)
		}
	}
	return out
}

// activate appends act(acc_i) for a Trace: what the dot kernels compute
// inside, one value at a time.
func (h *linearHead) activate(dst []int32, acc []int16) []int32 {
	for _, a := range acc {
		v := max(int32(a), 0)
		switch h.activation {
		case "crelu":
			v = min(v, int32(h.qa))
		case "screlu":
			v = min(v, int32(h.qa))
			v *= v
		}
		dst = append(dst, v)
	}
	return dst
}

// readLinearInt16 reads the headerless int16 nets of Koivisto (6.14 on)
// and Leorik: feature rows (bucket-major), biases, output weights (per
// output bucket: side to move, then other), output bias(es) (Koivisto one
// int32, Leorik one int16 per bucket).
func readLinearInt16(spec *archs.Spec, r *reader) (*Network, error) {
	if spec.Head.Type != "linear" {
		return nil, fmt.Errorf("format %s needs a linear head, arch has %q", spec.Net.Format, spec.Head.Type)
	}
	n := newNetwork(spec)
	h := newLinearHead(n)
	n.head = h
	if err := r.int16s(n.FTWeights, "feature weights"); err != nil {
		return nil, err
	}
	if err := r.int16s(n.FTBias, "feature biases"); err != nil {
		return nil, err
	}
	for o := range h.out {
		if err := r.int16s(h.out[o], fmt.Sprintf("output weights of bucket %d", o)); err != nil {
			return nil, err
		}
	}
	if spec.Net.Format == "leorik" {
		b := make([]int16, len(h.bias))
		if err := r.int16s(b, "output biases"); err != nil {
			return nil, err
		}
		for i, v := range b {
			h.bias[i] = int32(v)
		}
	} else {
		if len(h.bias) != 1 {
			return nil, fmt.Errorf("a Koivisto net has one output bucket, arch has %d", len(h.bias))
		}
		if err := r.int32s(h.bias, "output bias"); err != nil {
			return nil, err
		}
	}
	return n, nil
}

// readKoivistoFloat reads a Koivisto 5.x float net (u64 count, then
// float32 feature weights, biases, output weights, output bias) and
// quantizes it with the spec's QA and QB as Koivisto did at load time.
func readKoivistoFloat(spec *archs.Spec, r *reader) (*Network, error) {
	if spec.Head.Type != "linear" || spec.Head.OutputBuckets != 1 {
		return nil, fmt.Errorf("format koivisto-float needs a linear head with one output, arch has %q with %d", spec.Head.Type, spec.Head.OutputBuckets)
	}
	n := newNetwork(spec)
	h := newLinearHead(n)
	n.head = h
	count, err := r.u64("value count")
	if err != nil {
		return nil, err
	}
	want := uint64(len(n.FTWeights) + len(n.FTBias) + len(h.out[0]) + 1)
	if count != want {
		return nil, fmt.Errorf("header says %d values, architecture %s needs %d", count, spec.Name, want)
	}
	qa, qb := spec.Quant.QA, spec.Quant.QB
	buf := make([]float32, n.Width)
	for f := 0; f < n.Features.Size(); f++ {
		if err := r.float32s(buf, "feature weights"); err != nil {
			return nil, err
		}
		row := n.row(f)
		for j, w := range buf {
			if row[j], err = quantize16(w, qa, "feature weight", f*n.Width+j); err != nil {
				return nil, err
			}
		}
	}
	if err := r.float32s(buf, "feature biases"); err != nil {
		return nil, err
	}
	for j, w := range buf {
		if n.FTBias[j], err = quantize16(w, qa, "feature bias", j); err != nil {
			return nil, err
		}
	}
	out := make([]float32, len(h.out[0]))
	if err := r.float32s(out, "output weights"); err != nil {
		return nil, err
	}
	for j, w := range out {
		if h.out[0][j], err = quantize16(w, qb, "output weight", j); err != nil {
			return nil, err
		}
	}
	var b [1]float32
	if err := r.float32s(b[:], "output bias"); err != nil {
		return nil, err
	}
	if h.bias[0], err = quantize32(b[0], qa*qb, "output bias", 0); err != nil {
		return nil, err
	}
	return n, nil
}
