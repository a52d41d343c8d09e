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

// update32 is update for the PSQT accumulators; the usual 8 buckets are
// summed in locals (registers).
func update32(dst, src []int32, adds, subs [][]int32) {
	if len(dst) == 8 && len(src) == 8 {
		s := (*[8]int32)(src)
		p0, p1, p2, p3, p4, p5, p6, p7 := s[0], s[1], s[2], s[3], s[4], s[5], s[6], s[7]
		for _, a := range adds {
			r := (*[8]int32)(a)
			p0, p1, p2, p3 = p0+r[0], p1+r[1], p2+r[2], p3+r[3]
			p4, p5, p6, p7 = p4+r[4], p5+r[5], p6+r[6], p7+r[7]
		}
		for _, a := range subs {
			r := (*[8]int32)(a)
			p0, p1, p2, p3 = p0-r[0], p1-r[1], p2-r[2], p3-r[3]
			p4, p5, p6, p7 = p4-r[4], p5-r[5], p6-r[6], p7-r[7]
		}
		*(*[8]int32)(dst) = [8]int32{p0, p1, p2, p3, p4, p5, p6, p7}
		return
	}
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

// foldPSQT adds the rows adds of the PSQT matrix w (rows of len(dst)
// int32s) to dst and subtracts the rows subs, wrapping like int32. The
// usual 8 buckets are summed in locals (registers) and stored once, not
// read and written per row.
func foldPSQT(dst, w []int32, adds, subs []int32) {
	if len(dst) != 8 {
		for _, f := range adds {
			addRow32(dst, w[int(f)*len(dst):])
		}
		for _, f := range subs {
			subRow32(dst, w[int(f)*len(dst):])
		}
		return
	}
	d := (*[8]int32)(dst)
	p0, p1, p2, p3, p4, p5, p6, p7 := d[0], d[1], d[2], d[3], d[4], d[5], d[6], d[7]
	for _, f := range adds {
		r := (*[8]int32)(w[int(f)*8:])
		p0, p1, p2, p3 = p0+r[0], p1+r[1], p2+r[2], p3+r[3]
		p4, p5, p6, p7 = p4+r[4], p5+r[5], p6+r[6], p7+r[7]
	}
	for _, f := range subs {
		r := (*[8]int32)(w[int(f)*8:])
		p0, p1, p2, p3 = p0-r[0], p1-r[1], p2-r[2], p3-r[3]
		p4, p5, p6, p7 = p4-r[4], p5-r[5], p6-r[6], p7-r[7]
	}
	*d = [8]int32{p0, p1, p2, p3, p4, p5, p6, p7}
}
