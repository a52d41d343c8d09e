package main

import (
	"fmt"

	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// The batched dense layers of the trainer (vec.MatMulNT, vec.MatMulNN) are
// tiled in Go; each tile is one of these register-blocked kernels, so that
// every loaded vector feeds several fused multiply-adds instead of one (the
// per-position Dot and Axpy load two vectors per FMA).

// dotTileRows and dotTileCols bound the dot tiles: r rows of a times c rows
// of b, r*c accumulators plus r row vectors and one of b in 16 registers.
const dotTileRows, dotTileCols = 3, 4

// NN tiles: r rows of dst times v vectors, r*v accumulators plus v vectors
// of b and one broadcast in 16 registers.
const axpyTileRows, axpyTileVecs = 4, 3

// gemmKernels emits every tile shape of both kinds.
func (g *gen) gemmKernels() {
	for r := 1; r <= dotTileRows; r++ {
		for c := 1; c <= dotTileCols; c++ {
			g.dotTile(r, c)
		}
	}
	for r := 1; r <= axpyTileRows; r++ {
		for v := 1; v <= axpyTileVecs; v++ {
			g.axpyTile(r, v)
		}
	}
}

// dotTile emits dst[i*ldd+j] = sum_k a[i*lda+k]*b[j*ldb+k] for i < r, j < c
// over k floats (a positive multiple of 8; strides in floats). Each output
// has one accumulator fed by one FMA per eight k, in order; its eight lanes
// are then added as (l0+l4, l1+l5, l2+l6, l3+l7) and two horizontal adds, as
// dotAVX2 adds its lanes.
func (g *gen) dotTile(r, c int) {
	name := fmt.Sprintf("dotTile%dx%dAVX2", r, c)
	g.kernel(name, "func(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k int)",
		fmt.Sprintf("%s sets dst[i*ldd+j] to the dot product of rows i of a and j of b (k floats, a multiple of 8) for i < %d, j < %d.", name, r, c))
	rowPtrs := func(base reg.GPVirtual, ld reg.GPVirtual, n int) []reg.GPVirtual {
		p := []reg.GPVirtual{base}
		for i := 1; i < n; i++ {
			q := g.GP64()
			g.LEAQ(at(p[i-1], ld, 1, 0), q)
			p = append(p, q)
		}
		return p
	}
	a := rowPtrs(g.arg("a"), g.bytes("lda", 2), r)
	b := rowPtrs(g.arg("b"), g.bytes("ldb", 2), c)
	k := g.bytes("k", 2)
	acc := make([][]reg.VecVirtual, r)
	for i := range acc {
		acc[i] = g.floats().zeros(g, c)
	}
	g.loop(k, 32, 1, func(off reg.GPVirtual, _ int) {
		av := g.ymms(r)
		for i := range r {
			g.VMOVUPS(at(a[i], off, 1, 0), av[i])
		}
		for j := range c {
			bv := g.YMM()
			g.VMOVUPS(at(b[j], off, 1, 0), bv)
			for i := range r {
				g.VFMADD231PS(bv, av[i], acc[i][j])
			}
		}
	})
	dst, ldd := g.arg("dst"), g.bytes("ldd", 2)
	for i := range r {
		for j := range c {
			s, hi := acc[i][j].AsX(), g.XMM()
			g.VEXTRACTF128(U8(1), acc[i][j], hi)
			g.VADDPS(hi, s, s)
			g.VHADDPS(s, s, s)
			g.VHADDPS(s, s, s)
			g.VMOVSS(s, Mem{Base: dst, Disp: 4 * j})
		}
		if i < r-1 {
			g.ADDQ(ldd, dst)
		}
	}
	g.ret()
}

// axpyTile emits dst[i*ldd:][:8v] = (add ? dst : 0) + sum_k a[i*lda+k] *
// b[k*ldb:][:8v] for i < r over k >= 1 terms (strides in floats): each
// output element adds its products in the order of k, one FMA each.
func (g *gen) axpyTile(r, v int) {
	name := fmt.Sprintf("axpyTile%dx%dAVX2", r, v)
	g.kernel(name, "func(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k int, add bool)",
		fmt.Sprintf("%s sets (add false) or adds to (add true) dst[i*ldd:][:%d] the sum over k of a[i*lda+k] times b[k*ldb:][:%d], for i < %d.", name, 8*v, 8*v, r))
	dst, ldd := g.arg("dst"), g.bytes("ldd", 2)
	acc := make([][]reg.VecVirtual, r)
	for i := range acc {
		acc[i] = g.ymms(v)
	}
	add := g.GP8()
	g.Load(g.Param("add"), add)
	g.TESTB(add, add)
	g.JZ(LabelRef("zero"))
	d := g.GP64()
	g.MOVQ(dst, d)
	for i := range r {
		for j := range v {
			g.VMOVUPS(Mem{Base: d, Disp: 32 * j}, acc[i][j])
		}
		if i < r-1 {
			g.ADDQ(ldd, d)
		}
	}
	g.JMP(LabelRef("body"))
	g.Label("zero")
	for i := range r {
		for j := range v {
			g.VXORPS(acc[i][j], acc[i][j], acc[i][j])
		}
	}
	g.Label("body")
	lda := g.bytes("lda", 2)
	a := []reg.GPVirtual{g.arg("a")}
	for i := 1; i < r; i++ {
		q := g.GP64()
		g.LEAQ(at(a[i-1], lda, 1, 0), q)
		a = append(a, q)
	}
	b, ldb, k := g.arg("b"), g.bytes("ldb", 2), g.bytes("k", 2)
	off := g.GP64()
	g.XORQ(off, off)
	g.Label("loop")
	bv := g.ymms(v)
	for j := range v {
		g.VMOVUPS(Mem{Base: b, Disp: 32 * j}, bv[j])
	}
	t := g.YMM()
	for i := range r {
		g.VBROADCASTSS(at(a[i], off, 1, 0), t)
		for j := range v {
			g.VFMADD231PS(bv[j], t, acc[i][j])
		}
	}
	g.ADDQ(ldb, b)
	g.ADDQ(U8(4), off)
	g.CMPQ(off, k)
	g.JB(LabelRef("loop"))
	for i := range r {
		for j := range v {
			g.VMOVUPS(acc[i][j], Mem{Base: dst, Disp: 32 * j})
		}
		if i < r-1 {
			g.ADDQ(ldd, dst)
		}
	}
	g.ret()
}
