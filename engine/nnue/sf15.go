package nnue

import (
	"bytes"
	"fmt"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/nnue/simd"
)

// Stockfish 15.1 HalfKAv2_hm (spec: docs/reference/sf15.1-nnue.md). With
// the sizes of archs/sf15.1.toml (width W = 1024, layers [16, 32, 1], 8
// layer stacks and PSQT buckets, b = (pieces-1)/4):
//
//	x    = pair(acc[stm]) ++ pair(acc[opp])         pair(A)[j] = clamp(A[j],0,127)*clamp(A[j+W/2],0,127) >> 7
//	o0   = b0 + W0·x                                16 (stack b)
//	in1  = [min(127, o0[i]² >> 19) for i < 15] ++ [clamp(o0[i] >> 6, 0, 127) for i < 15] ++ [0, 0]
//	o1   = b1 + W1·in1;  in2 = clamp(o1 >> 6, 0, 127)
//	o2   = b2 + w2·in2
//	fwd  = tdiv(o0[15] * 600*16, 127 * 2^6)         the skip connection
//	raw  = tdiv(tdiv(psqt[stm][b] - psqt[opp][b], 2) + o2 + fwd, 16)
//
// 127 is quant.qa, 6 quant.weight_shift (19 = 2*6 + 7), 16
// quant.output_divisor.

// sf15Stack is one layer stack. Rows are stored with the file's padded
// stride (a multiple of 32).
type sf15Stack struct {
	b0 []int32
	w0 []int8 // l0 rows of W
	// w0s is w0 in the sparse layer's layout (simd.SparseWeights), when
	// l0 is a multiple of simd.SparseRows: fc_0 then runs over the
	// non-zero 4-byte groups of its input only (nil: the dense Affine7).
	w0s []int8
	b1  []int32
	w1  []int8 // l1 rows of pad32(2*(l0-1))
	b2  int32
	w2  []int8 // pad32(l1)
}

// sf15Head is Stockfish 15.1's PSQT and layer stacks. Its Trace has
// PSQT = psqt[stm][b] - psqt[opp][b] (before the /2), Positional = o2 + fwd
// and Layers = [o0, in1 (without the padding), o1, in2, [o2, fwd]].
type sf15Head struct {
	net      *Network // for the output bucket selector
	stacks   []sf15Stack
	l0, l1   int
	qa       int32 // clip ceiling
	shift    uint  // weight shift of the clipped ReLUs
	sqrShift uint  // 2*shift + 7: the squared ReLU's shift
	div      int32 // output divisor
	skipNum  int32 // 600 * div
	skipDen  int32 // qa << shift
	desc     string
	// order is the transformer's neuron order (neuronorder.go): position p
	// of each half holds the file's neuron order[p]; nil: the file's.
	order []int
}

// sfScratch is the working memory of a Stockfish head's evaluation. An
// Evaluator keeps one, so that its evaluations do not clear 7 KB of stack
// each (Go zeroes every local array); one-off evaluations use a fresh
// local one. Nothing reads x, nnz or o0 before writing it. The dense
// layers read their inputs padded to a multiple of 32 with zeros: the
// padding of in1 (past 2*(l0-1)) and of o1 (past l1) is never left
// non-zero (in1[2*(l0-1)] is written and cleared again), so it stays the
// zero of a fresh scratch, and in2's padding is written from o1's, as
// zeros. A scratch therefore serves one head shape only (an
// Evaluator's net; the small net's evaluator has its own).
type sfScratch struct {
	x        [maxSF17Transformed]uint8
	nnz      [maxSF17Transformed / 4]uint16
	o0, o1   [maxSFDense]int32
	in1, in2 [maxSFDense]uint8
}

// forward implements head. The per-call buffers are stack arrays, so an
// evaluation does not allocate unless tr asks for the layers.
func (h *sf15Head) forward(us, them []int16, psqtUs, psqtThem []int32, pieces int, tr *Trace) int32 {
	var sc sfScratch
	return h.forwardScratch(&sc, us, them, psqtUs, psqtThem, pieces, tr)
}

// forwardScratch is forward with the working memory sc.
func (h *sf15Head) forwardScratch(sc *sfScratch, us, them []int16, psqtUs, psqtThem []int32, pieces int, tr *Trace) int32 {
	w := len(us)
	in := sc.x[:w]
	simd.PairwiseClippedReLU(in[:w/2], us)
	simd.PairwiseClippedReLU(in[w/2:], them)

	b := h.net.outputBucket(pieces)
	psqt := psqtUs[b] - psqtThem[b]
	positional := h.propagateScratch(sc, in, b, tr)
	raw := (psqt/2 + positional) / h.div

	if tr != nil {
		tr.Bucket = b
		tr.PSQT = psqt
		tr.Positional = positional
		tr.Raw = raw
		if h.order != nil {
			tr.setTransformed(unpermuteHalves(in, h.order))
		} else {
			tr.setTransformed(in)
		}
	}
	return raw
}

// propagate runs layer stack b on the transformed features in and returns
// its output o2 + fwd (tr.Layers, when tr is not nil).
func (h *sf15Head) propagate(in []uint8, b int, tr *Trace) int32 {
	var sc sfScratch
	return h.propagateScratch(&sc, in, b, tr)
}

// propagateScratch is propagate with the working memory sc (whose x may
// be in).
func (h *sf15Head) propagateScratch(sc *sfScratch, in []uint8, b int, tr *Trace) int32 {
	st := &h.stacks[b]
	o0, o1, in1, in2, nnz := &sc.o0, &sc.o1, &sc.in1, &sc.in2, sc.nnz[:]
	// Pairwise products are at most 127: the fast kernels are exact. Most
	// of them are zero, so fc_0 skips the all-zero 4-byte groups of its
	// input (Stockfish does since 16); the result is the dense one.
	if st.w0s != nil {
		k := simd.FindNNZ(nnz[:len(in)/4], in)
		simd.AffineSparse7(o0[:h.l0], in, st.w0s, st.b0, nnz[:k])
	} else {
		simd.Affine7(o0[:h.l0], in, st.w0, st.b0)
	}
	k := h.l0 - 1 // the last output of fc_0 is the skip connection
	if h.l0 == 16 {
		// Stockfish's shape: one kernel call for both activations; the
		// clipped half's sixteenth byte (of the skip output) lands on the
		// padding, which must stay zero.
		simd.SqrClip16(in1[:], k, o0[:16], h.sqrShift, h.shift, h.qa)
		in1[2*k] = 0
	} else {
		for i, v := range o0[:k] {
			// The square of a negative sum is positive: no ReLU before it.
			in1[i] = uint8(min((int64(v)*int64(v))>>h.sqrShift, int64(h.qa)))
			in1[k+i] = uint8(min(max(v>>h.shift, 0), h.qa))
		}
	}
	affineClipped(o1[:h.l1], in1[:pad32(2*k)], st.w1, st.b1, h.qa)
	clipShift(in2[:], o1[:], h.l1, h.shift, h.qa)
	o2 := st.b2 + simd.DotUint8Int8(in2[:pad32(h.l1)], st.w2)
	// int32 product and truncating division, as the engine computes it.
	fwd := o0[k] * h.skipNum / h.skipDen
	if tr != nil {
		tr.Layers = [][]int{ints32(o0[:h.l0]), ints8(in1[:2*k]), ints32(o1[:h.l1]), ints8(in2[:h.l1]), {int(o2), int(fwd)}}
	}
	return o2 + fwd
}

// SF15Adjusted returns Stockfish 15.1's material-adjusted NNUE value
// (NNUE::evaluate(pos, adjusted=true), which its main evaluation uses) from
// the Trace of an sf15.1 evaluation of p:
//
//	delta = 24 - npm/9560   (npm: both sides' non-pawn material, N 781, B 825, R 1276, Q 2538)
//	adj   = tdiv((1024-delta)*tdiv(psqt, 2) + (1024+delta)*positional, 1024*16)
func SF15Adjusted(tr *Trace, p *board.Position) int32 {
	npm := 781*p.ByType(board.Knight).Count() + 825*p.ByType(board.Bishop).Count() +
		1276*p.ByType(board.Rook).Count() + 2538*p.ByType(board.Queen).Count()
	delta := int64(24 - npm/9560)
	v := (1024-delta)*int64(tr.PSQT/2) + (1024+delta)*int64(tr.Positional)
	return int32(v / (1024 * 16))
}

// sf15Shape describes the architecture a spec gives a Stockfish 15.1 file,
// for errors.
func sf15Shape(spec *archs.Spec) string {
	l := spec.Head.Layers
	return fmt.Sprintf("HalfKAv2_hm %d -> %dx2 -> %d x (%d -> %d -> 1), PSQT %d", spec.Features.Size(),
		spec.Accumulator.Width, spec.Head.OutputBuckets, l[0], l[1], spec.Head.PSQTBuckets)
}

// readSF15 reads a Stockfish 15.1 .nnue file: header (version, whole hash,
// description), the feature transformer (hash, int16 biases, int16 weights
// and int32 PSQT weights, both feature-major) and one block per layer stack
// (hash, then per layer int32 biases and int8 weights row-major with padded
// stride). Every size comes from the spec; the hashes, which encode the
// sizes, must match them.
func readSF15(spec *archs.Spec, r *reader) (*Network, error) {
	if spec.Head.Type != "sf15" {
		return nil, fmt.Errorf("net format sf15.1 needs head type \"sf15\", arch %s has %q", spec.Name, spec.Head.Type)
	}
	fh, err := checkSFFeatures(spec, "halfkav2_hm")
	if err != nil {
		return nil, err
	}
	if err := checkSpec(spec); err != nil {
		return nil, err
	}
	w, layers, q := spec.Accumulator.Width, spec.Head.Layers, spec.Quant
	l0, l1 := layers[0], layers[1]
	ftHash := sfFTHash(fh, w)
	stackHash := sfDenseHash(w, layers)
	desc, err := readSFHeader(spec, r, sfVersion15, ftHash^stackHash, sf15Shape(spec))
	if err != nil {
		return nil, err
	}
	if err := expectHash(r, "feature-transformer hash", ftHash); err != nil {
		return nil, err
	}
	// Stockfish 16 and later may store the transformer LEB128-compressed
	// under the same version number; say so rather than reading garbage.
	if magic, _ := r.r.Peek(17); bytes.Equal(magic, []byte("COMPRESSED_LEB128")) {
		return nil, fmt.Errorf("LEB128-compressed feature transformer at byte %d (a Stockfish 16+ net): not the Stockfish 15.1 format (arch sf17.1 reads Stockfish 16/17's)", r.off)
	}
	n := newNetwork(spec)
	if err := r.int16s(n.FTBias, "feature-transformer biases"); err != nil {
		return nil, err
	}
	if err := r.int16s(n.FTWeights, "feature-transformer weights"); err != nil {
		return nil, err
	}
	if err := r.int32s(n.PSQT, "PSQT weights"); err != nil {
		return nil, err
	}
	h := &sf15Head{
		net: n, l0: l0, l1: l1,
		qa: int32(q.QA), shift: uint(q.WeightShift), sqrShift: uint(2*q.WeightShift + 7),
		div: int32(q.OutputDivisor), skipNum: int32(600 * q.OutputDivisor), skipDen: int32(q.QA << q.WeightShift),
		stacks: make([]sf15Stack, spec.Head.OutputBuckets),
		desc:   desc,
	}
	if err := h.readStacks(r, stackHash, w); err != nil {
		return nil, err
	}
	n.head = h
	h.orderNeurons()
	return n, nil
}

// readStacks reads the layer stacks (each: its hash, then per layer int32
// biases and int8 weights row-major with padded stride) of a transformer of
// width w.
func (h *sf15Head) readStacks(r *reader, stackHash uint32, w int) error {
	l0, l1 := h.l0, h.l1
	var err error
	for s := range h.stacks {
		st := &h.stacks[s]
		if err := expectHash(r, fmt.Sprintf("layer stack %d hash", s), stackHash); err != nil {
			return err
		}
		st.b0, st.w0 = make([]int32, l0), make([]int8, l0*w)
		st.b1, st.w1 = make([]int32, l1), make([]int8, l1*pad32(2*(l0-1)))
		st.w2 = make([]int8, pad32(l1))
		var b2 [1]int32
		for _, part := range []struct {
			i32  []int32
			i8   []int8
			what string
		}{
			{i32: st.b0, what: "fc_0 biases"}, {i8: st.w0, what: "fc_0 weights"},
			{i32: st.b1, what: "fc_1 biases"}, {i8: st.w1, what: "fc_1 weights"},
			{i32: b2[:], what: "fc_2 bias"}, {i8: st.w2, what: "fc_2 weights"},
		} {
			what := fmt.Sprintf("layer stack %d %s", s, part.what)
			if part.i32 != nil {
				err = r.int32s(part.i32, what)
			} else {
				err = r.int8s(part.i8, what)
			}
			if err != nil {
				return err
			}
		}
		st.b2 = b2[0]
		if l0%simd.SparseRows == 0 {
			st.w0s = simd.SparseWeights(st.w0, l0, w)
		}
	}
	return nil
}
