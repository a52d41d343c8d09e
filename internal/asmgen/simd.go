package main

import (
	"fmt"
	"strings"

	"github.com/mmcloughlin/avo/attr"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// simdKernels builds the AVX2 integer kernels of package simd
// (engine/nnue/simd). Go operand order throughout: sources first, destination
// last, so VPSUBW(b, a, d) is d = a - b. The Go wrappers guarantee n > 0 and
// a whole number of 32-byte vectors, so no kernel has a scalar tail. Loads and
// stores are unaligned: Go does not align slices to 32 bytes, and an
// unaligned access within a cache line costs the same.
func simdKernels(g *gen) {
	// Accumulator updates, int16 lanes wrapping like epi16 arithmetic.
	g.accUpdate("copyAVX2", "src", nil, nil)
	g.accUpdate("addAVX2", "dst", []string{"a"}, nil)
	g.accUpdate("subAVX2", "dst", nil, []string{"a"})
	g.accUpdate("addSubAVX2", "src", []string{"add"}, []string{"sub"})
	g.accUpdate("addSubSubAVX2", "src", []string{"add"}, []string{"sub1", "sub2"})
	g.accUpdate("addAddSubSubAVX2", "src", []string{"add1", "add2"}, []string{"sub1", "sub2"})
	g.int8Update("addInt8AVX2", false)
	g.int8Update("subInt8AVX2", true)
	g.int8Rows()
	g.int16Rows()
	g.prefetchRows()

	// Activations to uint8.
	g.clippedReLU()
	g.pairwiseClippedReLU("pairwiseClippedReLUAVX2", 127)
	g.pairwiseClippedReLU("pairwiseClippedReLU255AVX2", 255)
	g.clipShift()
	g.sqrClip16()

	// Dot products and dense layers.
	g.dotUint8Int8()
	g.affine("affineAVX2", true, 4)
	g.affine("affine7AVX2", false, 4)
	g.findNNZ()
	g.affineSparse()
	g.dotActivation("dotReLUAVX2", false)
	g.dotActivation("dotClippedReLUAVX2", true)
	g.dotSquaredClippedReLU()
}

// accUpdate emits an int16 accumulator update, dst = src + adds... - subs...
// (src "dst" for the in-place updates dst += a), four vectors (128 bytes)
// per iteration and then one at a time. The signature lists dst, src (unless
// it is dst), the adds, the subs and n.
func (g *gen) accUpdate(name, src string, adds, subs []string) {
	params := []string{"dst"}
	if src != "dst" {
		params = append(params, src)
	}
	params = append(params, adds...)
	params = append(params, subs...)
	formula := src + strings.Join(append(prefixed(" + ", adds), prefixed(" - ", subs)...), "")
	g.kernel(name, fmt.Sprintf("func(%s *int16, n int)", strings.Join(params, ", ")),
		fmt.Sprintf("%s sets dst = %s over n int16 elements.", name, formula))

	ptr := map[string]reg.Register{}
	for _, p := range params {
		ptr[p] = g.arg(p)
	}
	n := g.bytes("n", 1)
	var terms []term
	for _, a := range adds {
		terms = append(terms, term{ptr[a], func(m Mem, v reg.VecVirtual) { g.VPADDW(m, v, v) }})
	}
	for _, s := range subs {
		terms = append(terms, term{ptr[s], func(m Mem, v reg.VecVirtual) { g.VPSUBW(m, v, v) }})
	}
	g.update(g.ints(), ptr["dst"], ptr[src], n, 4, terms...)
	g.ret()
}

// int8Update emits the update of an int16 accumulator by an int8 row (threat
// features' weights), dst = dst + a or dst - a with a sign-extended
// (VPMOVSXBW: 16 bytes to 16 words), four vectors (64 elements) per
// iteration and then one at a time. n counts elements.
func (g *gen) int8Update(name string, sub bool) {
	op := "+"
	if sub {
		op = "-"
	}
	g.kernel(name, "func(dst *int16, a *int8, n int)",
		fmt.Sprintf("%s sets dst = dst %s a (int8, sign-extended) over n int16 elements.", name, op))
	dst, a, n := g.arg("dst"), g.arg("a"), g.arg("n")
	g.loop(n, 16, 4, func(i reg.GPVirtual, k int) {
		v, w := g.ymms(k), g.ymms(k)
		stages(k,
			func(j int) { g.VPMOVSXBW(at(a, i, 1, 16*j), w[j]) },
			func(j int) { g.VMOVDQU(at(dst, i, 2, 32*j), v[j]) },
			func(j int) {
				if sub {
					g.VPSUBW(w[j], v[j], v[j])
				} else {
					g.VPADDW(w[j], v[j], v[j])
				}
			},
			func(j int) { g.VMOVDQU(v[j], at(dst, i, 2, 32*j)) },
		)
	})
	g.ret()
}

// int8Rows emits the fused update of an int16 accumulator by rows of an
// int8 matrix (a ply's or a refresh's threat features): dst += w[adds[0]]
// + ... - w[subs[0]] - ..., each row n elements, sign-extended. The
// accumulator is held in registers eight vectors (128 elements, two cache
// lines of an int8 row) at a time while every row is folded in, so it is
// loaded and stored once, not once per row, and each row's address is
// computed once per 128 elements. Row r starts at w + r*n.
func (g *gen) int8Rows() {
	g.rows("int8RowsAVX2", "int8", "(int8, sign-extended, rows of n elements)")
}

// int16Rows emits int8Rows for an int16 matrix (a refresh's piece-square
// features): row r starts at w + 2*r*n, and its vectors are added as they
// are.
func (g *gen) int16Rows() {
	g.rows("int16RowsAVX2", "int16", "(rows of n elements)")
}

// rows emits the fused row update for rows of elem ("int8" or "int16").
func (g *gen) rows(name, elem, what string) {
	g.kernel(name, "func(dst *int16, w *"+elem+", adds *int32, nadd int, subs *int32, nsub int, n int)",
		name+" sets dst += the rows adds[0..nadd) of w - the rows subs[0..nsub) "+what+" over n int16 elements.")
	dst, w := g.arg("dst"), g.arg("w")
	adds, nadd, subs, nsub := g.arg("adds"), g.arg("nadd"), g.arg("subs"), g.arg("nsub")
	n := g.arg("n")
	stride := n // bytes between rows
	if elem == "int16" {
		stride = g.GP64()
		g.LEAQ(at(n, n, 1, 0), stride)
	}
	g.loop(n, 16, 8, func(i reg.GPVirtual, k int) {
		// k accumulator vectors and, for int8 rows, up to four temporaries
		// for the sign-extended row (reused: the CPU renames them).
		v, x := g.ymms(k), g.ymms(min(k, 4))
		for j := 0; j < k; j++ {
			g.VMOVDQU(at(dst, i, 2, 32*j), v[j])
		}
		r, p := g.GP64(), g.GP64()
		fold := func(label string, idx, count reg.Register, sub bool) {
			g.XORQ(r, r)
			g.CMPQ(r, count)
			g.JAE(LabelRef(label + "done"))
			g.Label(label)
			g.MOVLQSX(at(idx, r, 4, 0), p)
			g.IMULQ(stride, p)
			g.ADDQ(w, p)
			for j := 0; j < k; j++ {
				// int16 rows are added straight from memory.
				var row Op = at(p, i, 2, 32*j)
				if elem == "int8" {
					t := x[j%len(x)]
					g.VPMOVSXBW(at(p, i, 1, 16*j), t)
					row = t
				}
				if sub {
					g.VPSUBW(row, v[j], v[j])
				} else {
					g.VPADDW(row, v[j], v[j])
				}
			}
			g.INCQ(r)
			g.CMPQ(r, count)
			g.JB(LabelRef(label))
			g.Label(label + "done")
		}
		fold(fmt.Sprintf("adds%d", k), adds, nadd, false)
		fold(fmt.Sprintf("subs%d", k), subs, nsub, true)
		for j := 0; j < k; j++ {
			g.VMOVDQU(v[j], at(dst, i, 2, 32*j))
		}
	})
	g.ret()
}

// prefetchRows emits a software prefetch (PREFETCHT0, which never faults)
// of the first cache line of rows of a matrix: w + rows[i]*stride bytes
// for i < n (n > 0), so that rows read a little later (the PSQT columns of
// a ply's threat features, summed after the threat rows' pass) are on
// their way meanwhile. It touches no vector register.
func (g *gen) prefetchRows() {
	g.kernel("prefetchRowsAVX2", "func(w *int32, rows *int32, n int, stride int)",
		"prefetchRowsAVX2 asks the CPU to bring the cache line at w + rows[i]*stride bytes into every cache level, for i < n (n > 0); it never faults.")
	w, rows, n, stride := g.arg("w"), g.arg("rows"), g.arg("n"), g.arg("stride")
	i, p := g.GP64(), g.GP64()
	g.XORQ(i, i)
	g.Label("loop")
	g.MOVLQSX(at(rows, i, 4, 0), p)
	g.IMULQ(stride, p)
	g.PREFETCHT0(at(w, p, 1, 0))
	g.INCQ(i)
	g.CMPQ(i, n)
	g.JB(LabelRef("loop"))
	g.RET()
}

// prefixed returns each of names with prefix p.
func prefixed(p string, names []string) []string {
	out := make([]string, len(names))
	for i, s := range names {
		out[i] = p + s
	}
	return out
}

// packOrder puts the quadwords of VPACKUSWB/VPACKSSWB back in memory order:
// the packs work within 128-bit lanes, so from sources A (first 16 words) and
// B (next 16) they yield A0 B0 A1 B1 (A0 = A's low lane), and VPERMQ with
// order 0, 2, 1, 3 makes that A0 A1 B0 B1.
const packOrder = 0xD8

// clippedReLU emits dst[i] = min(packus(src[i]), max): saturating to
// [0, 255] and then taking the unsigned byte minimum with max <= 255 is
// clamp(src[i], 0, max). Two output vectors (64 elements) per iteration.
func (g *gen) clippedReLU() {
	g.kernel("clippedReLUAVX2", "func(dst *uint8, src *int16, n int, max int16)",
		"clippedReLUAVX2 sets dst[i] = clamp(src[i], 0, max) for n elements, 0 <= max <= 255.")
	dst, src, n := g.arg("dst"), g.arg("src"), g.arg("n")
	max := g.broadcast("max", g.VPBROADCASTB)
	// i counts output bytes; the int16 source is at twice the offset.
	g.loop(n, 32, 2, func(i reg.GPVirtual, k int) {
		lo, hi := g.ymms(k), g.ymms(k)
		stages(k,
			func(j int) { g.VMOVDQU(at(src, i, 2, 64*j), lo[j]) },
			func(j int) { g.VMOVDQU(at(src, i, 2, 64*j+32), hi[j]) },
			func(j int) { g.VPACKUSWB(hi[j], lo[j], lo[j]) },
			func(j int) { g.VPERMQ(U8(packOrder), lo[j], lo[j]) },
			func(j int) { g.VPMINUB(max, lo[j], lo[j]) },
			func(j int) { g.VMOVDQU(lo[j], at(dst, i, 1, 32*j)) },
		)
	})
	g.ret()
}

// pairwiseClippedReLU emits a pairwise product with clip ceil (127 or
// 255): dst[j] = clamp(src[j],0,ceil) * clamp(src[j+n],0,ceil) >> s, s = 7
// for 127 (Stockfish 15.1), 9 for 255 (Stockfish 18's threat net, whose
// product is divided by 512). The product is at most 127*127 = 16129 or
// 255*255 = 65025, below 2^16, so VPMULLW's low word is exact as an
// unsigned number, VPSRLW shifts it as one, and the result (at most 126 or
// 127) packs without saturation. One output vector per iteration.
func (g *gen) pairwiseClippedReLU(name string, ceil int) {
	shift := map[int]uint8{127: 7, 255: 9}[ceil]
	g.kernel(name, "func(dst *uint8, src *int16, n int)",
		fmt.Sprintf("%s sets dst[j] = clamp(src[j],0,%d) * clamp(src[j+n],0,%d) >> %d for j < n.", name, ceil, ceil, shift))
	dst, src, n := g.arg("dst"), g.arg("src"), g.arg("n")
	second := g.GP64()
	g.LEAQ(at(src, n, 2, 0), second) // src[n:]
	zero, c127 := g.YMM(), g.YMM()
	g.VPXOR(zero, zero, zero)
	g.VPCMPEQW(c127, c127, c127)
	g.VPSRLW(U8(16-bitsOf(ceil)), c127, c127) // ceil in every word
	g.loop(n, 32, 1, func(i reg.GPVirtual, _ int) {
		v := g.ymms(4) // first half: v[0], v[1]; second half: v[2], v[3]
		g.VMOVDQU(at(src, i, 2, 0), v[0])
		g.VMOVDQU(at(src, i, 2, 32), v[1])
		g.VMOVDQU(at(second, i, 2, 0), v[2])
		g.VMOVDQU(at(second, i, 2, 32), v[3])
		stages(4,
			func(j int) { g.VPMAXSW(zero, v[j], v[j]) },
			func(j int) { g.VPMINSW(c127, v[j], v[j]) })
		stages(2,
			func(j int) { g.VPMULLW(v[j+2], v[j], v[j]) },
			func(j int) { g.VPSRLW(U8(shift), v[j], v[j]) })
		g.VPACKUSWB(v[1], v[0], v[0])
		g.VPERMQ(U8(packOrder), v[0], v[0])
		g.VMOVDQU(v[0], at(dst, i, 1, 0))
	})
	g.ret()
}

// bitsOf returns the number of bits of 2^k - 1.
func bitsOf(v int) int {
	b := 0
	for ; v > 0; v >>= 1 {
		b++
	}
	return b
}

// clipShift emits the clipped ReLU between dense layers, int32 sums to
// uint8: dst[i] = min(packus(packss(src[i] >> shift)), ceil). Both
// saturations are monotonic and leave [0, 255] alone, so with ceil <= 255
// this is clamp(src[i] >> shift, 0, ceil). VPSRAD shifts by the whole 64-bit
// count, filling with the sign from 32 on, like Go's >>. VPACKSSDW and
// VPACKUSWB both pack within 128-bit lanes, so packing four vectors A, B, C,
// D of eight sums leaves the dwords (four bytes each) in the order A0 B0 C0 D0
// A1 B1 C1 D1; VPERMD with clipShiftOrder puts them back in memory order.
func (g *gen) clipShift() {
	order := g.StaticGlobal("clipShiftOrder")
	g.DataAttributes(attr.RODATA | attr.NOPTR)
	for k, v := range []uint32{0, 4, 1, 5, 2, 6, 3, 7} {
		g.AddDatum(4*k, U32(v))
	}

	g.kernel("clipShiftAVX2", "func(dst *uint8, src *int32, n int, shift uint, ceil uint8)",
		"clipShiftAVX2 sets dst[i] = clamp(src[i] >> shift, 0, ceil) for n elements.")
	dst, src, n := g.arg("dst"), g.arg("src"), g.arg("n")
	shift := g.XMM()
	g.VMOVQ(g.arg("shift"), shift)
	ceil := g.broadcast("ceil", g.VPBROADCASTB)
	perm := g.YMM()
	g.VMOVDQU(order, perm)
	// i counts output bytes; the int32 source is at four times the offset.
	g.loop(n, 32, 1, func(i reg.GPVirtual, _ int) {
		v := g.ymms(4)
		stages(4,
			func(j int) { g.VMOVDQU(at(src, i, 4, 32*j), v[j]) },
			func(j int) { g.VPSRAD(shift, v[j], v[j]) })
		g.VPACKSSDW(v[1], v[0], v[0])
		g.VPACKSSDW(v[3], v[2], v[2])
		g.VPACKUSWB(v[2], v[0], v[0])
		g.VPERMD(v[0], perm, v[0])
		g.VPMINUB(ceil, v[0], v[0])
		g.VMOVDQU(v[0], at(dst, i, 1, 0))
	})
	g.ret()
}

// dotUint8Int8 emits an exact uint8 x int8 dot product by the even/odd
// split. VPMADDUBSW multiplies unsigned by signed bytes and adds adjacent
// pairs into a saturating int16, and 255*-128*2 = -65280 does not fit; with
// a & 0x00ff and a & 0xff00 per word only one product per word is non-zero,
// |a*w| <= 32640, exact, and VPMADDWD against words of 1 widens adjacent
// words to int32. Four multiplies per 32 bytes, two vectors per iteration;
// the int32 sums wrap, and wrapping addition does not depend on the order,
// so the result equals the Go loop's bit for bit.
func (g *gen) dotUint8Int8() {
	g.kernel("dotUint8Int8AVX2", "func(a *uint8, w *int8, n int) int32",
		"dotUint8Int8AVX2 returns the exact sum of a[i]*w[i] over n elements, wrapped to int32.")
	a, w, n := g.arg("a"), g.arg("w"), g.arg("n")
	ones, even := g.YMM(), g.YMM()
	g.VPCMPEQW(ones, ones, ones)
	g.VPSRLW(U8(8), ones, even) // 0x00ff words: the even bytes
	g.VPSRLW(U8(15), ones, ones)
	acc := g.reduce(g.ints(), n, 32, 2, 1, 2, func(i reg.GPVirtual, k int, acc func(int) []reg.VecVirtual) {
		x, lo, hi := g.ymms(k), g.ymms(k), g.ymms(k)
		stages(k, func(j int) { g.VMOVDQU(at(a, i, 1, 32*j), x[j]) })
		stages(k,
			func(j int) { g.VPAND(even, x[j], lo[j]) },
			func(j int) { g.VPANDN(x[j], even, hi[j]) })
		stages(k,
			func(j int) { g.VPMADDUBSW(at(w, i, 1, 32*j), lo[j], lo[j]) },
			func(j int) { g.VPMADDUBSW(at(w, i, 1, 32*j), hi[j], hi[j]) })
		stages(k,
			func(j int) { g.VPMADDWD(ones, lo[j], lo[j]) },
			func(j int) { g.VPMADDWD(ones, hi[j], hi[j]) })
		stages(k,
			func(j int) { g.VPADDD(lo[j], acc(j)[0], acc(j)[0]) },
			func(j int) { g.VPADDD(hi[j], acc(j)[1], acc(j)[1]) })
	})
	g.VPADDD(acc[1], acc[0], acc[0])
	g.retInt32(g.hsum32(acc[0]))
	g.ret()
}

// affineBlock is the number of 32-byte steps whose high-bit products the
// split affine kernel may add up in int16 before widening them: each is at
// most 2*128 in magnitude, so 127 steps stay within 32512.
const affineBlock = 127

// affine emits a dense layer, out[r] = bias[r] + sum_c w[r*cols+c] * in[c],
// rows rows at a time (they share one load of the input; their int32
// accumulators are folded with VPHADDD into one XMM of sums, the bias added
// and the outputs stored together), then one row at a time for the rows
// left over.
//
// With split (affineAVX2, any uint8 input) the input is split into
// lo = a & 0x7f and b = a >> 7 (a = lo + 128*b): VPMADDUBSW(lo, w) pairs are
// at most 2*127*128 = 32512, exact, widened to int32 with VPMADDWD against
// words of 1 every step; VPMADDUBSW(b, w) pairs are at most 256, so up to
// 127 steps add up in int16 and are then widened and scaled by VPMADDWD
// against words of 128. Three multiplies per 32 bytes and row, the split
// shared by the rows; about 11% faster than the even/odd split of
// dotUint8Int8 for 1024->16. Without split (affine7AVX2) the inputs are
// below 128, the byte pairs cannot saturate, and one multiply per 32 bytes
// and row is exact.
func (g *gen) affine(name string, split bool, rows int) {
	if rows != 4 {
		panic("affine: the row fold is written for 4 rows")
	}
	doc := name + " sets out[r] = bias[r] + sum_c w[r*cols+c]*in[c] for rows outputs, wrapped to int32"
	if split {
		doc += "."
	} else {
		doc += ", for inputs below 128."
	}
	g.kernel(name, "func(out *int32, in *uint8, w *int8, bias *int32, rows, cols int)", doc)
	out, in, w, bias := g.arg("out"), g.arg("in"), g.arg("w"), g.arg("bias")
	nrows, cols := g.arg("rows"), g.arg("cols")
	ones := g.YMM()
	g.VPCMPEQW(ones, ones, ones)
	g.VPSRLW(U8(15), ones, ones) // 1 in every word
	var m80 reg.VecVirtual
	if split {
		m80 = g.YMM() // 0x80 in every byte
		t := g.YMM()
		g.VPSLLW(U8(7), ones, m80)
		g.VPSLLW(U8(8), m80, t)
		g.VPOR(t, m80, m80)
	}

	// rowBlock emits the loop that does r rows per iteration (label prefix
	// p) and returns their int32 accumulators.
	rowBlock := func(p string, r int, row []reg.Register) []reg.VecVirtual {
		acc := g.ymms(r)
		for _, a := range acc {
			g.VPXOR(a, a, a)
		}
		var hacc []reg.VecVirtual
		if split {
			hacc = g.ymms(r)
			for _, h := range hacc {
				g.VPXOR(h, h, h)
			}
		}
		i := g.GP64()
		g.XORQ(i, i)
		end := cols
		if split {
			// Blocks of at most affineBlock steps: end = min(i + block, cols).
			g.Label(p + "block")
			end = g.GP64()
			g.MOVQ(i, end)
			g.ADDQ(U32(32*affineBlock), end)
			g.CMPQ(end, cols)
			g.CMOVQHI(cols, end)
		}
		g.Label(p + "inner")
		x := g.YMM()
		g.VMOVDQU(at(in, i, 1, 0), x)
		if split {
			b := g.YMM()
			g.VPAND(m80, x, b)
			g.VPXOR(b, x, x) // lo = a & 0x7f
			g.VPSRLW(U8(7), b, b)
			for k := range r {
				t, u := g.YMM(), g.YMM()
				g.VPMADDUBSW(at(row[k], i, 1, 0), x, t)
				g.VPMADDUBSW(at(row[k], i, 1, 0), b, u)
				g.VPMADDWD(ones, t, t)
				g.VPADDD(t, acc[k], acc[k])
				g.VPADDW(u, hacc[k], hacc[k])
			}
		} else {
			for k := range r {
				t := g.YMM()
				g.VPMADDUBSW(at(row[k], i, 1, 0), x, t)
				g.VPMADDWD(ones, t, t)
				g.VPADDD(t, acc[k], acc[k])
			}
		}
		g.ADDQ(U8(32), i)
		g.CMPQ(i, end)
		g.JB(LabelRef(p + "inner"))
		if split {
			// acc += 128*hacc; hacc = 0.
			w128 := g.YMM()
			g.VPSLLW(U8(7), ones, w128)
			for k := range r {
				g.VPMADDWD(w128, hacc[k], hacc[k])
				g.VPADDD(hacc[k], acc[k], acc[k])
				g.VPXOR(hacc[k], hacc[k], hacc[k])
			}
			g.CMPQ(i, cols)
			g.JB(LabelRef(p + "block"))
		}
		return acc
	}

	p := fmt.Sprintf("rows%d", rows)
	g.Label(p)
	g.CMPQ(nrows, U8(rows))
	g.JB(LabelRef("rows1"))
	row := make([]reg.Register, rows)
	row[0] = w
	for k := 1; k < rows; k++ {
		r := g.GP64()
		g.LEAQ(at(row[k-1], cols, 1, 0), r)
		row[k] = r
	}
	acc := rowBlock(p, rows, row)
	// Per 128-bit lane: [r0 r0 r1 r1] after the first VPHADDD, [r2 r2 r3 r3]
	// after the second, [r0 r1 r2 r3] after the third; then add the lanes.
	g.VPHADDD(acc[1], acc[0], acc[0])
	g.VPHADDD(acc[3], acc[2], acc[2])
	g.VPHADDD(acc[2], acc[0], acc[0])
	hi := g.XMM()
	g.VEXTRACTI128(U8(1), acc[0], hi)
	g.VPADDD(hi, acc[0].AsX(), acc[0].AsX())
	g.VPADDD(Mem{Base: bias}, acc[0].AsX(), acc[0].AsX())
	g.VMOVDQU(acc[0].AsX(), Mem{Base: out})
	g.ADDQ(U8(4*rows), out)
	g.ADDQ(U8(4*rows), bias)
	g.LEAQ(at(row[rows-1], cols, 1, 0), w) // the next block starts after the last row
	g.SUBQ(U8(rows), nrows)
	g.JMP(LabelRef(p))

	g.Label("rows1")
	g.TESTQ(nrows, nrows)
	g.JZ(LabelRef("done"))
	acc = rowBlock("rows1", 1, []reg.Register{w})
	// The bias is added in the vector unit: no round trip through a
	// general register on the way to the store.
	sum, b := g.hsum32(acc[0]), g.XMM()
	g.VMOVD(Mem{Base: bias}, b)
	g.VPADDD(b, sum, sum)
	g.VMOVD(sum, Mem{Base: out})
	g.ADDQ(U8(4), out)
	g.ADDQ(U8(4), bias)
	g.ADDQ(cols, w)
	g.DECQ(nrows)
	g.JMP(LabelRef("rows1"))

	g.Label("done")
	g.ret()
}

// dotActivation emits sum act(acc[i]) * w[i] for int16 activations and
// weights, act = max(x, 0) or, with clip, clamp(x, 0, max). After the clamp
// to [0, 32767] the activation times any int16 weight is exact in VPMADDWD
// (the only saturating input, -32768 * -32768 twice, cannot occur) and the
// pair sum fits int32. Four vectors per iteration into two accumulators.
func (g *gen) dotActivation(name string, clip bool) {
	sig, act := "func(acc, w *int16, n int) int32", "max(acc[i], 0)"
	if clip {
		sig, act = "func(acc, w *int16, n int, max int16) int32", "clamp(acc[i], 0, max)"
	}
	g.kernel(name, sig, fmt.Sprintf("%s returns the sum of %s * w[i] over n elements, wrapped to int32.", name, act))
	a, w, n := g.arg("acc"), g.arg("w"), g.bytes("n", 1)
	var max reg.VecVirtual
	if clip {
		max = g.broadcast("max", g.VPBROADCASTW)
	}
	zero := g.YMM()
	g.VPXOR(zero, zero, zero)
	sum := g.reduce(g.ints(), n, 32, 4, 2, 1, func(i reg.GPVirtual, k int, acc func(int) []reg.VecVirtual) {
		v := g.ymms(k)
		steps := []func(j int){
			func(j int) { g.VMOVDQU(at(a, i, 1, 32*j), v[j]) },
			func(j int) { g.VPMAXSW(zero, v[j], v[j]) },
		}
		if clip {
			steps = append(steps, func(j int) { g.VPMINSW(max, v[j], v[j]) })
		}
		steps = append(steps,
			func(j int) { g.VPMADDWD(at(w, i, 1, 32*j), v[j], v[j]) },
			func(j int) { g.VPADDD(v[j], acc(j)[0], acc(j)[0]) })
		stages(k, steps...)
	})
	g.retInt32(g.hsum32(sum[0]))
	g.ret()
}

// dotSquaredClippedReLU emits the SCReLU output layer, sum c*c * w[i] with
// c = clamp(acc[i], 0, max <= 255). c*c <= 65025 fits 16 unsigned bits and
// VPMULLW gives it exactly, but VPMADDWD reads words as signed: where
// c*c >= 32768 it multiplies by c*c - 65536. The kernel adds back 65536*w for
// those lanes: VPSRAW $15 turns the square into a mask m (-1 where wrapped,
// else 0), VPMADDWD(m, w) sums -w over the wrapped lanes into a second
// accumulator, and the result is main - (correction << 16), all modulo 2^32.
// The signed square is never -32768 (no square is 32768), so no VPMADDWD
// here saturates. Two vectors per iteration.
func (g *gen) dotSquaredClippedReLU() {
	g.kernel("dotSquaredClippedReLUAVX2", "func(acc, w *int16, n int, max int16) int32",
		"dotSquaredClippedReLUAVX2 returns the sum of clamp(acc[i], 0, max)^2 * w[i] over n elements, wrapped to int32, 0 <= max <= 255.")
	a, w, n := g.arg("acc"), g.arg("w"), g.bytes("n", 1)
	max := g.broadcast("max", g.VPBROADCASTW)
	zero := g.YMM()
	g.VPXOR(zero, zero, zero)
	// Each set is {main, correction}.
	sum := g.reduce(g.ints(), n, 32, 2, 2, 2, func(i reg.GPVirtual, k int, acc func(int) []reg.VecVirtual) {
		c, wv, m := g.ymms(k), g.ymms(k), g.ymms(k)
		stages(k,
			func(j int) { g.VMOVDQU(at(a, i, 1, 32*j), c[j]) },
			func(j int) { g.VMOVDQU(at(w, i, 1, 32*j), wv[j]) },
			func(j int) { g.VPMAXSW(zero, c[j], c[j]) },
			func(j int) { g.VPMINSW(max, c[j], c[j]) },
			func(j int) { g.VPMULLW(c[j], c[j], c[j]) },
			func(j int) { g.VPSRAW(U8(15), c[j], m[j]) },
			func(j int) { g.VPMADDWD(wv[j], c[j], c[j]) },
			func(j int) { g.VPMADDWD(wv[j], m[j], m[j]) },
			func(j int) { g.VPADDD(c[j], acc(j)[0], acc(j)[0]) },
			func(j int) { g.VPADDD(m[j], acc(j)[1], acc(j)[1]) },
		)
	})
	g.VPSLLD(U8(16), sum[1], sum[1])
	g.VPSUBD(sum[1], sum[0], sum[0])
	g.retInt32(g.hsum32(sum[0]))
	g.ret()
}

// findNNZ emits the search for the non-zero 4-byte groups of a uint8 vector
// (the input of Stockfish's sparse first dense layer): out[0..count) =
// the indices c, increasing, of the groups in[4c:4c+4] that are not all
// zero; it returns count. Per 32 bytes (eight groups): VPCMPEQD against
// zero and VMOVMSKPS give an eight-bit mask of the zero groups, inverted to
// the non-zero ones; lut (256 rows of eight uint16) lists each mask's set
// bits in order, and those eight words plus the index of the block's first
// group are stored at out[count] in one 16-byte store, of which the first
// POPCNT(mask) count. A store may write up to seven words past the new
// count, never past the group it is at: out needs n/4 entries. Two blocks
// per iteration.
func (g *gen) findNNZ() {
	g.kernel("findNNZAVX2", "func(in *uint8, n int, lut *uint16, out *uint16) int",
		"findNNZAVX2 writes the indices of the non-zero 4-byte groups of in[0:n] to out, in order, and returns their count.")
	in, n, lut, out := g.arg("in"), g.arg("n"), g.arg("lut"), g.arg("out")
	count := g.GP64()
	g.XORQ(count, count)
	zero, base, eight := g.YMM(), g.XMM(), g.XMM()
	g.VPXOR(zero, zero, zero)
	g.VPXOR(base, base, base) // the first group's index, in every word
	g.VPCMPEQW(eight, eight, eight)
	g.VPSRLW(U8(15), eight, eight)
	g.VPSLLW(U8(3), eight, eight) // 8 in every word
	g.loop(n, 32, 2, func(i reg.GPVirtual, k int) {
		v, m, row := g.ymms(k), make([]reg.GPVirtual, k), make([]reg.VecVirtual, k)
		for j := range k {
			m[j], row[j] = g.GP64(), g.XMM()
		}
		stages(k,
			func(j int) { g.VMOVDQU(at(in, i, 1, 32*j), v[j]) },
			func(j int) { g.VPCMPEQD(zero, v[j], v[j]) },
			func(j int) { g.VMOVMSKPS(v[j], m[j].As32()) },
			func(j int) { g.XORQ(U32(0xff), m[j]) })
		for j := range k {
			p := g.GP64()
			g.POPCNTQ(m[j], p)
			g.SHLQ(U8(4), m[j]) // 16 bytes a row of lut
			g.VMOVDQU(at(lut, m[j], 1, 0), row[j])
			g.VPADDW(base, row[j], row[j])
			g.VMOVDQU(row[j], at(out, count, 2, 0))
			g.ADDQ(p, count)
			g.VPADDW(eight, base, base)
		}
	})
	g.Store(count, g.ReturnIndex(0))
	g.ret()
}

// affineSparse emits the sparse first dense layer for a block of 16
// outputs: out[0:16] = bias[0:16] + sum over k < count of the products of
// the 4-byte group c = nnz[k] of in with its weights, which the sparse
// layout keeps together: w[64c + 4o + b] is the weight of input 4c+b for
// output o. Per group: the four input bytes broadcast to every dword
// (VPBROADCASTD), two VPMADDUBSW against the group's 64 weight bytes
// (outputs 0-7 and 8-15), exact for inputs below 128 (a pair is at most
// 2*127*128 = 32512 in magnitude), VPMADDWD against words of 1 to add the
// pairs of each output into its dword, and VPADDD into the accumulators.
// Two groups per iteration into two sets of accumulators. Every index is
// checked against groups (the number of groups of in): the kernel returns
// false at the first one out of range, without storing.
func (g *gen) affineSparse() {
	g.kernel("affineSparse16AVX2", "func(out *int32, in *uint8, w *int8, bias *int32, nnz *uint16, count, groups int) bool",
		"affineSparse16AVX2 sets out[0:16] = bias[0:16] + the products of the 4-byte groups nnz[0:count] of in with their weights (sparse layout), for inputs below 128; false if an index is not below groups.")
	out, in, w, bias := g.arg("out"), g.arg("in"), g.arg("w"), g.arg("bias")
	nnz, count, groups := g.arg("nnz"), g.arg("count"), g.arg("groups")
	ones := g.YMM()
	g.VPCMPEQW(ones, ones, ones)
	g.VPSRLW(U8(15), ones, ones) // 1 in every word
	acc := [2][2]reg.VecVirtual{{g.YMM(), g.YMM()}, {g.YMM(), g.YMM()}}
	g.VMOVDQU(Mem{Base: bias}, acc[0][0])
	g.VMOVDQU(Mem{Base: bias, Disp: 32}, acc[0][1])
	g.VPXOR(acc[1][0], acc[1][0], acc[1][0])
	g.VPXOR(acc[1][1], acc[1][1], acc[1][1])
	k := g.GP64()
	g.XORQ(k, k)
	// body emits the groups nnz[k+j] for j < steps, group j into set j.
	body := func(steps int) {
		c, x := make([]reg.GPVirtual, steps), g.ymms(steps)
		t := [][2]reg.VecVirtual{}
		for j := range steps {
			c[j] = g.GP64()
			t = append(t, [2]reg.VecVirtual{g.YMM(), g.YMM()})
		}
		stages(steps,
			func(j int) { g.MOVWQZX(at(nnz, k, 2, 2*j), c[j]) },
			func(j int) {
				g.CMPQ(c[j], groups)
				g.JAE(LabelRef("bad"))
			},
			func(j int) { g.VPBROADCASTD(at(in, c[j], 4, 0), x[j]) },
			func(j int) { g.SHLQ(U8(6), c[j]) }, // 64 weight bytes a group
			func(j int) { g.VPMADDUBSW(at(w, c[j], 1, 0), x[j], t[j][0]) },
			func(j int) { g.VPMADDUBSW(at(w, c[j], 1, 32), x[j], t[j][1]) },
			func(j int) { g.VPMADDWD(ones, t[j][0], t[j][0]) },
			func(j int) { g.VPMADDWD(ones, t[j][1], t[j][1]) },
			func(j int) { g.VPADDD(t[j][0], acc[j][0], acc[j][0]) },
			func(j int) { g.VPADDD(t[j][1], acc[j][1], acc[j][1]) })
	}
	end := g.GP64()
	g.MOVQ(count, end)
	g.ANDQ(I8(-2), end) // the groups that fill whole iterations
	g.JZ(LabelRef("tail"))
	g.Label("loop2")
	body(2)
	g.ADDQ(U8(2), k)
	g.CMPQ(k, end)
	g.JB(LabelRef("loop2"))
	g.Label("tail")
	g.CMPQ(k, count)
	g.JAE(LabelRef("store"))
	body(1)
	g.Label("store")
	g.VPADDD(acc[1][0], acc[0][0], acc[0][0])
	g.VPADDD(acc[1][1], acc[0][1], acc[0][1])
	g.VMOVDQU(acc[0][0], Mem{Base: out})
	g.VMOVDQU(acc[0][1], Mem{Base: out, Disp: 32})
	ok := g.GP8()
	g.MOVB(U8(1), ok)
	g.Store(ok, g.ReturnIndex(0))
	g.ret()
	g.Label("bad")
	bad := g.GP8()
	g.XORB(bad, bad)
	g.Store(bad, g.ReturnIndex(0))
	g.ret()
}

// sqrClip16 emits the activations of Stockfish's first dense layer (15.1
// to 18) for 16 int32 sums v: the squared one, min((v*v) >> sqrShift,
// ceil), stored as 16 bytes at dst, then the clipped one, clamp(v >> shift,
// 0, ceil), stored as 16 bytes at dst+off (after the first store, so a
// smaller off overwrites the first bytes' tail). The square works on
// c = min(|v|, 65535) (VPABSD, whose -2^31 reads as 2^31 unsigned, then
// VPMINUD): c*c fits 32 unsigned bits, so VPMULLD and a logical shift give
// (c*c) >> sqrShift exactly, and the Go wrapper uses this kernel only when
// (65535*65535) >> sqrShift >= ceil, where any |v| > 65535 clamps to ceil
// either way. Both results are at most ceil <= 255 and pack without
// saturation: VPACKUSDW and VPACKUSWB pack within 128-bit lanes, VPERMQ
// (packOrder) and a pack of the two halves put the bytes in order.
func (g *gen) sqrClip16() {
	g.kernel("sqrClip16AVX2", "func(dst *uint8, off int, src *int32, sqrShift, shift uint, ceil int32)",
		"sqrClip16AVX2 sets dst[i] = min((src[i]*src[i]) >> sqrShift, ceil), then dst[off+i] = clamp(src[i] >> shift, 0, ceil), for i < 16.")
	dst, off, src := g.arg("dst"), g.arg("off"), g.arg("src")
	sqrShift, shift := g.XMM(), g.XMM()
	g.VMOVQ(g.arg("sqrShift"), sqrShift)
	g.VMOVQ(g.arg("shift"), shift)
	ceil, lim, zero := g.YMM(), g.YMM(), g.YMM()
	r := g.GP32()
	g.Load(g.Param("ceil"), r)
	g.VMOVD(r, ceil.AsX())
	g.VPBROADCASTD(ceil.AsX(), ceil)
	g.VPCMPEQD(lim, lim, lim)
	g.VPSRLD(U8(16), lim, lim) // 65535 in every dword
	g.VPXOR(zero, zero, zero)
	v := g.ymms(2)
	g.VMOVDQU(Mem{Base: src}, v[0])
	g.VMOVDQU(Mem{Base: src, Disp: 32}, v[1])
	// pack stores the 16 dwords of a (all in [0, 255]) as bytes at m.
	pack := func(a []reg.VecVirtual, m Mem) {
		hi := g.XMM()
		g.VPACKUSDW(a[1], a[0], a[0])
		g.VPERMQ(U8(packOrder), a[0], a[0])
		g.VEXTRACTI128(U8(1), a[0], hi)
		g.VPACKUSWB(hi, a[0].AsX(), a[0].AsX())
		g.VMOVDQU(a[0].AsX(), m)
	}
	sq := g.ymms(2)
	stages(2,
		func(j int) { g.VPABSD(v[j], sq[j]) },
		func(j int) { g.VPMINUD(lim, sq[j], sq[j]) },
		func(j int) { g.VPMULLD(sq[j], sq[j], sq[j]) },
		func(j int) { g.VPSRLD(sqrShift, sq[j], sq[j]) },
		func(j int) { g.VPMINUD(ceil, sq[j], sq[j]) })
	pack(sq, Mem{Base: dst})
	stages(2,
		func(j int) { g.VPSRAD(shift, v[j], v[j]) },
		func(j int) { g.VPMAXSD(zero, v[j], v[j]) },
		func(j int) { g.VPMINSD(ceil, v[j], v[j]) })
	pack(v, at(dst, off, 1, 0))
	g.ret()
}
