package main

import (
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// vecKernels builds the AVX2+FMA float32 kernels of package vec
// (nets/train/vec). n is a positive multiple of 8 floats (one YMM register),
// checked by the Go wrappers, which handle the tails. Every kernel keeps the
// order of its floating-point operations lane by lane (which products are
// fused, which accumulator a vector goes into, how the accumulators are
// added up), so a change of scheduling or registers leaves the results bit
// for bit the same.
func vecKernels(g *gen) {
	g.sumRows(8)
	g.vecAdd()
	g.axpy()
	g.dot()
	g.clamp()
	g.mul()
	g.maskScale()
	g.adam()
	g.gemmKernels()
	g.fmaPeak("fmaPeakAVX2", 256, 12)
	g.fmaPeak("fmaPeakAVX512", 512, 12)
}

// sumRows emits dst[0:width] = init (or 0 when init is nil) +
// sum_k m[idx[k]*stride:][0:width]. The columns go in blocks of regs vectors
// (8*regs floats) held in registers while all rows are added, then in
// blocks of one vector; every column's sum adds the rows in the order of idx.
func (g *gen) sumRows(regs int) {
	g.kernel("sumRowsAVX2", "func(dst, init, m *float32, stride, width int, idx *int32, n int)",
		"sumRowsAVX2 sets dst[0:width] = init (or 0 when init is nil) + the sum over k < n of the rows m[idx[k]*stride:][:width].")
	dst, init, m := g.arg("dst"), g.arg("init"), g.arg("m")
	stride, width := g.bytes("stride", 2), g.bytes("width", 2)
	idx, n := g.arg("idx"), g.arg("n")
	col := g.GP64() // byte offset of the current column block
	g.XORQ(col, col)

	// block emits the loop over column blocks of k vectors while at least
	// one whole block is left; p prefixes its labels, next is where it goes
	// when it has run out.
	block := func(p string, k int, next string) {
		g.Label(p)
		if k == 1 {
			g.CMPQ(col, width)
			g.JGE(LabelRef(next))
		} else {
			left := g.GP64()
			g.MOVQ(width, left)
			g.SUBQ(col, left)
			g.CMPQ(left, U32(32*k))
			g.JLT(LabelRef(next))
		}
		v := g.ymms(k)
		g.TESTQ(init, init)
		g.JZ(LabelRef(p + "zero"))
		for j := range k {
			g.VMOVUPS(at(init, col, 1, 32*j), v[j])
		}
		g.JMP(LabelRef(p + "rows"))
		g.Label(p + "zero")
		for j := range k {
			g.VXORPS(v[j], v[j], v[j])
		}
		g.Label(p + "rows")
		r, base := g.GP64(), g.GP64()
		g.XORQ(r, r)
		g.LEAQ(at(m, col, 1, 0), base)
		g.Label(p + "row")
		g.CMPQ(r, n)
		g.JGE(LabelRef(p + "store"))
		row := g.GP64()
		g.MOVLQSX(at(idx, r, 4, 0), row)
		g.IMULQ(stride, row)
		addr := at(base, row, 1, 0)
		if k > 1 {
			// Many loads from one row: form its address once.
			g.ADDQ(base, row)
			addr = Mem{Base: row}
		}
		for j := range k {
			g.VADDPS(addr.Offset(32*j), v[j], v[j])
		}
		g.INCQ(r)
		g.JMP(LabelRef(p + "row"))
		g.Label(p + "store")
		for j := range k {
			g.VMOVUPS(v[j], at(dst, col, 1, 32*j))
		}
		g.ADDQ(U32(32*k), col)
		g.JMP(LabelRef(p))
	}
	block("wide", regs, "one")
	block("one", 1, "done")
	g.Label("done")
	g.ret()
}

// vecAdd emits dst += x, four vectors per iteration.
func (g *gen) vecAdd() {
	g.kernel("addAVX2", "func(dst, x *float32, n int)", "addAVX2 sets dst += x over n elements.")
	dst, x, n := g.arg("dst"), g.arg("x"), g.bytes("n", 2)
	g.update(g.floats(), dst, dst, n, 4, term{x, func(m Mem, v reg.VecVirtual) { g.VADDPS(m, v, v) }})
	g.ret()
}

// axpy emits dst += a*x with one fused multiply-add per vector, four vectors
// per iteration.
func (g *gen) axpy() {
	g.kernel("axpyAVX2", "func(dst, x *float32, a float32, n int)", "axpyAVX2 sets dst += a*x over n elements (fused).")
	dst, x, n := g.arg("dst"), g.arg("x"), g.bytes("n", 2)
	a := g.YMM()
	g.VBROADCASTSS(g.addr("a"), a)
	g.update(g.floats(), dst, dst, n, 4, term{x, func(m Mem, v reg.VecVirtual) { g.VFMADD231PS(m, a, v) }})
	g.ret()
}

// dot emits sum x[i]*y[i]: four accumulators fed by fused multiply-adds,
// four vectors per iteration and the vectors after the last whole block into
// the first accumulator, then (a0+a1) + (a2+a3) and the eight lanes added as
// (l0+l4, l1+l5, l2+l6, l3+l7) and two horizontal adds.
func (g *gen) dot() {
	g.kernel("dotAVX2", "func(x, y *float32, n int) float32", "dotAVX2 returns the sum of x[i]*y[i] over n elements (fused, in eight lanes).")
	x, y, n := g.arg("x"), g.arg("y"), g.bytes("n", 2)
	sum := g.reduce(g.floats(), n, 32, 4, 4, 1, func(i reg.GPVirtual, k int, acc func(int) []reg.VecVirtual) {
		for j := range k {
			v := g.YMM()
			g.VMOVUPS(at(x, i, 1, 32*j), v)
			g.VFMADD231PS(at(y, i, 1, 32*j), v, acc(j)[0])
		}
	})
	s, hi := sum[0].AsX(), g.XMM()
	g.VEXTRACTF128(U8(1), sum[0], hi)
	g.VADDPS(hi, s, s)
	g.VHADDPS(s, s, s)
	g.VHADDPS(s, s, s)
	g.VMOVSS(s, g.result())
	g.ret()
}

// clamp emits dst = min(max(src, lo), hi), one vector per iteration.
func (g *gen) clamp() {
	g.kernel("clampAVX2", "func(dst, src *float32, lo, hi float32, n int)", "clampAVX2 sets dst = min(max(src, lo), hi) over n elements.")
	dst, src := g.arg("dst"), g.arg("src")
	lo, hi := g.YMM(), g.YMM()
	g.VBROADCASTSS(g.addr("lo"), lo)
	g.VBROADCASTSS(g.addr("hi"), hi)
	n := g.bytes("n", 2)
	g.loop(n, 32, 1, func(i reg.GPVirtual, _ int) {
		v := g.YMM()
		g.VMOVUPS(at(src, i, 1, 0), v)
		g.VMAXPS(lo, v, v)
		g.VMINPS(hi, v, v)
		g.VMOVUPS(v, at(dst, i, 1, 0))
	})
	g.ret()
}

// mul emits dst = x*y, one vector per iteration.
func (g *gen) mul() {
	g.kernel("mulAVX2", "func(dst, x, y *float32, n int)", "mulAVX2 sets dst = x*y over n elements.")
	dst, x, y, n := g.arg("dst"), g.arg("x"), g.arg("y"), g.bytes("n", 2)
	g.update(g.floats(), dst, x, n, 1, term{y, func(m Mem, v reg.VecVirtual) { g.VMULPS(m, v, v) }})
	g.ret()
}

// maskScale emits dst = a*w where lo < x < hi and 0 elsewhere (ordered
// compares: a NaN x gives 0), one vector per iteration.
func (g *gen) maskScale() {
	g.kernel("maskScaleAVX2", "func(dst, w, x *float32, lo, hi, a float32, n int)",
		"maskScaleAVX2 sets dst = a*w where lo < x < hi, else 0, over n elements.")
	dst, w, x := g.arg("dst"), g.arg("w"), g.arg("x")
	lo, hi, a := g.YMM(), g.YMM(), g.YMM()
	g.VBROADCASTSS(g.addr("lo"), lo)
	g.VBROADCASTSS(g.addr("hi"), hi)
	g.VBROADCASTSS(g.addr("a"), a)
	n := g.bytes("n", 2)
	const gtOQ, ltOQ = 0x1E, 0x11 // VCMPPS predicates: greater / less than, ordered, quiet
	g.loop(n, 32, 1, func(i reg.GPVirtual, _ int) {
		v, above, below, s := g.YMM(), g.YMM(), g.YMM(), g.YMM()
		g.VMOVUPS(at(x, i, 1, 0), v)
		g.VCMPPS(U8(gtOQ), lo, v, above)
		g.VCMPPS(U8(ltOQ), hi, v, below)
		g.VANDPS(below, above, above)
		g.VMULPS(at(w, i, 1, 0), a, s)
		g.VANDPS(above, s, s)
		g.VMOVUPS(s, at(dst, i, 1, 0))
	})
	g.ret()
}

// adamFields are the fields of vec.Adam in order, all float32; the last one
// is padding.
var adamFields = []string{"B1", "OneMinusB1", "B2", "OneMinusB2", "A1", "C2", "Eps", "Decay", "L2", "Clip", "NegClip", "_"}

// adam emits one Adam/AdamW step, one vector per iteration, with the
// per-step constants of h broadcast once:
//
//	g' = g + L2*p (fused)
//	m  = B1*m + (1-B1)*g' (the second product fused)
//	v  = B2*v + (1-B2)*g'^2 (the second product fused)
//	p  = clamp(Decay*p - A1*m / (C2*sqrt(v) + Eps), -Clip, Clip)
func (g *gen) adam() {
	off := g.declareStruct("Adam", adamFields...)
	g.kernel("adamAVX2", "func(p, m, v, grad *float32, h *Adam, n int)",
		"adamAVX2 applies one Adam step with the constants h to p, m and v over n elements.")
	p, m, v, grad, h := g.arg("p"), g.arg("m"), g.arg("v"), g.arg("grad"), g.arg("h")
	n := g.bytes("n", 2)
	c := map[string]reg.VecVirtual{}
	for _, f := range adamFields[:len(adamFields)-1] {
		c[f] = g.YMM()
		g.VBROADCASTSS(Mem{Base: h, Disp: off[f]}, c[f])
	}
	g.loop(n, 32, 1, func(i reg.GPVirtual, _ int) {
		gr, pv, mv, vv, den := g.YMM(), g.YMM(), g.YMM(), g.YMM(), g.YMM()
		g.VMOVUPS(at(grad, i, 1, 0), gr)
		g.VMOVUPS(at(p, i, 1, 0), pv)
		g.VFMADD231PS(pv, c["L2"], gr) // g' = g + L2*p
		g.VMOVUPS(at(m, i, 1, 0), mv)
		g.VMULPS(c["B1"], mv, mv)
		g.VFMADD231PS(gr, c["OneMinusB1"], mv) // m = B1*m + (1-B1)*g'
		g.VMULPS(gr, gr, gr)
		g.VMOVUPS(at(v, i, 1, 0), vv)
		g.VMULPS(c["B2"], vv, vv)
		g.VFMADD231PS(gr, c["OneMinusB2"], vv) // v = B2*v + (1-B2)*g'^2
		g.VMOVUPS(mv, at(m, i, 1, 0))
		g.VMOVUPS(vv, at(v, i, 1, 0))
		g.VSQRTPS(vv, den)
		g.VMULPS(c["C2"], den, den)
		g.VADDPS(c["Eps"], den, den) // C2*sqrt(v) + Eps
		step := g.YMM()
		g.VMULPS(c["A1"], mv, step)
		g.VDIVPS(den, step, step)
		g.VMULPS(c["Decay"], pv, pv)
		g.VSUBPS(step, pv, pv)
		g.VMINPS(c["Clip"], pv, pv)
		g.VMAXPS(c["NegClip"], pv, pv)
		g.VMOVUPS(pv, at(p, i, 1, 0))
	})
	g.ret()
}

// fmaPeak emits iters iterations of chains independent FMA chains on vector
// registers of bits bits (256: AVX2, 512: AVX-512F), enough chains to cover
// the FMA latency on two ports; it measures the machine's peak float32 rate.
func (g *gen) fmaPeak(name string, bits, chains int) {
	g.kernel(name, "func(iters int)",
		name+" runs iters iterations of independent vector FMA chains (the peak-rate measurement).")
	iters := g.arg("iters")
	vec, zero := g.YMM, func(v reg.VecVirtual) { g.VXORPS(v, v, v) }
	if bits == 512 {
		// VXORPS on ZMM registers needs AVX512DQ; VPXORD is AVX512F.
		vec, zero = g.ZMM, func(v reg.VecVirtual) { g.VPXORD(v, v, v) }
	}
	acc := make([]reg.VecVirtual, chains)
	for j := range acc {
		acc[j] = vec()
		zero(acc[j])
	}
	a, b := vec(), vec()
	zero(a)
	zero(b)
	g.TESTQ(iters, iters)
	g.JLE(LabelRef("done"))
	g.Label("loop")
	for _, r := range acc {
		g.VFMADD231PS(a, b, r)
	}
	g.DECQ(iters)
	g.JNZ(LabelRef("loop"))
	g.Label("done")
	g.ret()
}
