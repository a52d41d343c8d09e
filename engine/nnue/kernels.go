package nnue

import "github.com/nnuelab/nnuelab/engine/nnue/simd"

// The accumulator arithmetic in one place, on the kernels of
// engine/nnue/simd (AVX2 where available, pure Go otherwise; identical
// results). Widths are multiples of 32 (arch validates it), which the
// kernels require. int16 adds wrap, as the engines' SIMD adds do.

func addRow(dst, w []int16) { simd.Add(dst, w[:len(dst)]) }

func subRow(dst, w []int16) { simd.Sub(dst, w[:len(dst)]) }

func addRow32(dst, w []int32) { simd.AddInt32(dst, w[:len(dst)]) }

func subRow32(dst, w []int32) { simd.SubInt32(dst, w[:len(dst)]) }

// update computes dst = src + sum(adds) - sum(subs) in one pass where a
// fused kernel exists (a quiet move, a capture, castling), else in steps.
func update(dst, src []int16, adds, subs [][]int16) {
	switch {
	case len(adds) == 1 && len(subs) == 1:
		simd.AddSub(dst, src, adds[0], subs[0])
	case len(adds) == 1 && len(subs) == 2:
		simd.AddSubSub(dst, src, adds[0], subs[0], subs[1])
	case len(adds) == 2 && len(subs) == 2:
		simd.AddAddSubSub(dst, src, adds[0], adds[1], subs[0], subs[1])
	default:
		simd.Copy(dst, src)
		for _, a := range adds {
			simd.Add(dst, a)
		}
		for _, s := range subs {
			simd.Sub(dst, s)
		}
	}
}

// update32 is update for the PSQT accumulators.
func update32(dst, src []int32, adds, subs [][]int32) {
	switch {
	case len(adds) == 1 && len(subs) == 1:
		simd.AddSubInt32(dst, src, adds[0], subs[0])
	case len(adds) == 1 && len(subs) == 2:
		simd.AddSubSubInt32(dst, src, adds[0], subs[0], subs[1])
	case len(adds) == 2 && len(subs) == 2:
		simd.AddAddSubSubInt32(dst, src, adds[0], adds[1], subs[0], subs[1])
	default:
		copy(dst, src)
		for _, a := range adds {
			simd.AddInt32(dst, a)
		}
		for _, s := range subs {
			simd.SubInt32(dst, s)
		}
	}
}

// affineClipped runs a dense layer on clipped-ReLU outputs with ceiling
// ceil: inputs below 128 allow the faster exact kernel.
func affineClipped(out []int32, in []uint8, w []int8, bias []int32, ceil int32) {
	if ceil <= 127 {
		simd.Affine7(out, in, w, bias)
		return
	}
	simd.Affine(out, in, w, bias)
}
