package nnue

import (
	"fmt"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/nnue/simd"
)

// Stockfish 12 HalfKP (spec: docs/reference/halfkp-sf12.md). With the
// sizes of archs/halfkp.toml (width W = 256, layers [32, 32, 1]):
//
//	x   = clamp(acc[stm], 0, 127) ++ clamp(acc[opp], 0, 127)   2W uint8
//	s1  = b1 + W1·x         h1 = clamp(s1 >> 6, 0, 127)          32
//	s2  = b2 + W2·h1        h2 = clamp(s2 >> 6, 0, 127)          32
//	out = b3 + w3·h2        raw = tdiv(out, 16)
//
// 127 is the spec's quant.qa, 6 its quant.weight_shift and 16 its
// quant.output_divisor.

// sf12Head is Stockfish 12's dense part. Weight rows are stored with the
// file's padded stride (a multiple of 32), which is also what the simd
// kernels want. Its Trace has Positional = out (before the division) and
// Layers = [s1, h1, s2, h2].
type sf12Head struct {
	qa     int32 // clip ceiling of every clipped ReLU
	shift  uint  // the dense layers' fixed-point shift
	div    int32 // final divisor (truncating)
	n1, n2 int   // hidden layer sizes
	w1     []int8
	b1     []int32
	w2     []int8
	b2     []int32
	w3     []int8
	b3     int32
	desc   string
}

// transform writes the feature transformer's output, side to move first.
func (h *sf12Head) transform(x []uint8, us, them []int16) {
	w := len(us)
	simd.ClippedReLU(x[:w], us, int16(h.qa))
	simd.ClippedReLU(x[w:2*w], them, int16(h.qa))
}

// forward implements head. The per-call buffers are stack arrays, so an
// evaluation does not allocate unless tr asks for the layers.
func (h *sf12Head) forward(us, them []int16, _, _ []int32, _ int, tr *Trace) int32 {
	var x [maxSFTransformed]uint8
	in := x[:2*len(us)]
	h.transform(in, us, them)

	var s1, s2 [maxSFDense]int32
	var h1, h2 [maxSFDense]uint8 // zero beyond n1 / n2: the padding inputs
	affineClipped(s1[:h.n1], in, h.w1, h.b1, h.qa)
	clipShift(h1[:], s1[:], h.n1, h.shift, h.qa)
	affineClipped(s2[:h.n2], h1[:pad32(h.n1)], h.w2, h.b2, h.qa)
	clipShift(h2[:], s2[:], h.n2, h.shift, h.qa)
	out := h.b3 + simd.DotUint8Int8(h2[:pad32(h.n2)], h.w3)
	raw := out / h.div // Go's / truncates toward zero, like C's

	if tr != nil {
		tr.Bucket = 0
		tr.PSQT = 0
		tr.Positional = out
		tr.Raw = raw
		tr.Layers = [][]int{ints32(s1[:h.n1]), ints8(h1[:h.n1]), ints32(s2[:h.n2]), ints8(h2[:h.n2])}
		tr.setTransformed(in)
	}
	return raw
}

// ints32 and ints8 copy a layer for a Trace.
func ints32(v []int32) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

func ints8(v []uint8) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}

// sf12Shape describes the architecture a spec gives a Stockfish 12 file,
// for errors.
func sf12Shape(spec *archs.Spec) string {
	l := spec.Head.Layers
	return fmt.Sprintf("HalfKP %d -> %dx2 -> %d -> %d -> 1", spec.Features.Size(), spec.Accumulator.Width, l[0], l[1])
}

// readSF12 reads a Stockfish 12 .nnue file: header (version, whole hash,
// description), the feature transformer (hash, int16 biases, int16 weights
// feature-major) and the dense part (hash, then per layer int32 biases and
// int8 weights row-major with padded stride). Every size comes from the
// spec; the hashes, which encode those sizes, must match them.
func readSF12(spec *archs.Spec, r *reader) (*Network, error) {
	if spec.Head.Type != "sf12" {
		return nil, fmt.Errorf("net format sf12 needs head type \"sf12\", arch %s has %q", spec.Name, spec.Head.Type)
	}
	fh, err := checkSFFeatures(spec, "halfkp")
	if err != nil {
		return nil, err
	}
	if err := checkSpec(spec); err != nil {
		return nil, err
	}
	w, layers, q := spec.Accumulator.Width, spec.Head.Layers, spec.Quant
	ftHash := sfFTHash(fh, w)
	denseHash := sfDenseHash(w, layers)
	desc, err := readSFHeader(spec, r, sfVersion12, ftHash^denseHash, sf12Shape(spec))
	if err != nil {
		return nil, err
	}
	if err := expectHash(r, "feature-transformer hash", ftHash); err != nil {
		return nil, err
	}
	n := newNetwork(spec)
	if err := r.int16s(n.FTBias, "feature-transformer biases"); err != nil {
		return nil, err
	}
	if err := r.int16s(n.FTWeights, "feature-transformer weights"); err != nil {
		return nil, err
	}
	if err := expectHash(r, "dense-part hash", denseHash); err != nil {
		return nil, err
	}
	h := &sf12Head{
		qa: int32(q.QA), shift: uint(q.WeightShift), div: int32(q.OutputDivisor),
		n1: layers[0], n2: layers[1],
		w1: make([]int8, layers[0]*pad32(2*w)), b1: make([]int32, layers[0]),
		w2: make([]int8, layers[1]*pad32(layers[0])), b2: make([]int32, layers[1]),
		w3:   make([]int8, pad32(layers[1])),
		desc: desc,
	}
	var b3 [1]int32
	for _, part := range []struct {
		i32  []int32
		i8   []int8
		what string
	}{
		{i32: h.b1, what: "layer 1 biases"}, {i8: h.w1, what: "layer 1 weights"},
		{i32: h.b2, what: "layer 2 biases"}, {i8: h.w2, what: "layer 2 weights"},
		{i32: b3[:], what: "output bias"}, {i8: h.w3, what: "output weights"},
	} {
		if part.i32 != nil {
			err = r.int32s(part.i32, part.what)
		} else {
			err = r.int8s(part.i8, part.what)
		}
		if err != nil {
			return nil, err
		}
	}
	h.b3 = b3[0]
	n.head = h
	return n, nil
}
