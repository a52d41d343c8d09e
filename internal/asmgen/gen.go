package main

import (
	"fmt"
	"go/token"
	"go/types"

	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/build"
	"github.com/mmcloughlin/avo/gotypes"
	. "github.com/mmcloughlin/avo/operand"
	"github.com/mmcloughlin/avo/reg"
)

// gen builds one package's assembly: one avo build context, printed as one
// .s file and one file of Go declarations. The kernel methods (simd.go,
// vec.go) call the instruction methods of the embedded context directly; all
// registers are avo's virtual registers, allocated by avo.
type gen struct {
	*build.Context

	// pkg is the target package's name and the named types its kernel
	// signatures mention (only as pointers, e.g. vec's *Adam), so that the
	// signatures type-check and the stubs print them unqualified.
	pkg *types.Package
}

// newGen starts the assembly of package name (import path path), built for
// amd64 with the gc toolchain and without the purego tag, as every kernel
// file of the project is.
func newGen(path, name string) *gen {
	g := &gen{Context: build.NewContext(), pkg: types.NewPackage(path, name)}
	g.ConstraintExpr("amd64,gc,!purego")
	return g
}

// declareStruct declares a named struct type of float32 fields in the target
// package, for kernel signatures that take a pointer to it, and returns its
// fields' byte offsets by name.
func (g *gen) declareStruct(name string, fields ...string) map[string]int {
	vars := make([]*types.Var, len(fields))
	offsets := map[string]int{}
	for i, f := range fields {
		vars[i] = types.NewField(token.NoPos, g.pkg, f, types.Typ[types.Float32], false)
		offsets[f] = 4 * i
	}
	tn := types.NewTypeName(token.NoPos, g.pkg, name, nil)
	types.NewNamed(tn, types.NewStruct(vars, nil), nil)
	g.pkg.Scope().Insert(tn)
	return offsets
}

// kernel starts the leaf function name (no frame, NOSPLIT) with the Go
// signature sig, a func type expression. The stub avo writes for it carries
// doc as its comment and go:noescape: no kernel retains a pointer.
func (g *gen) kernel(name, sig string, doc ...string) {
	g.Function(name)
	g.Attributes(attr.NOSPLIT)
	s, err := gotypes.ParseSignatureInPackage(g.pkg, sig)
	if err != nil {
		panic(fmt.Sprintf("%s: signature %q: %v", name, sig, err))
	}
	g.Signature(s)
	g.Doc(doc...)
	g.Pragma("noescape")
}

// arg loads the 64-bit argument name (a pointer, int or uint) into a new
// register.
func (g *gen) arg(name string) reg.GPVirtual {
	r := g.GP64()
	g.Load(g.Param(name), r)
	return r
}

// bytes loads the element count name and turns it into a byte count for
// elements of 1<<shift bytes.
func (g *gen) bytes(name string, shift int) reg.GPVirtual {
	n := g.arg(name)
	if shift > 0 {
		g.SHLQ(U8(shift), n)
	}
	return n
}

// addr is the frame address of the argument name (for loads straight from
// the frame, e.g. VBROADCASTSS).
func (g *gen) addr(name string) Mem {
	b, err := g.Param(name).Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}

// result is the frame address of the function's one result.
func (g *gen) result() Mem {
	b, err := g.ReturnIndex(0).Resolve()
	if err != nil {
		panic(err)
	}
	return b.Addr
}

// broadcast loads the small integer argument name and broadcasts its low
// byte (bcast VPBROADCASTB) or word (VPBROADCASTW) to every lane of a new
// YMM register.
func (g *gen) broadcast(name string, bcast func(ops ...Op)) reg.VecVirtual {
	r := g.GP32()
	g.Load(g.Param(name), r)
	x, y := g.XMM(), g.YMM()
	g.VMOVD(r, x)
	bcast(x, y)
	return y
}

// ymms returns k new YMM registers.
func (g *gen) ymms(k int) []reg.VecVirtual {
	v := make([]reg.VecVirtual, k)
	for j := range v {
		v[j] = g.YMM()
	}
	return v
}

// retInt32 stores the low dword of the XMM register x as the function's
// int32 result (through a general register: vet's asmdecl does not size a
// VMOVD to memory as 4 bytes).
func (g *gen) retInt32(x reg.Register) {
	r := g.GP32()
	g.VMOVD(x, r)
	g.Store(r, g.ReturnIndex(0))
}

// ret ends an AVX kernel: VZEROUPPER, then RET.
func (g *gen) ret() {
	g.VZEROUPPER()
	g.RET()
}

// at is the address base + i*scale + disp.
func at(base, i reg.Register, scale uint8, disp int) Mem {
	return Mem{Base: base, Index: i, Scale: scale, Disp: disp}
}

// stages emits the k steps of an unrolled block stage by stage: every step's
// first stage, then every step's second stage, and so on, so that the k
// independent chains interleave as in hand-scheduled code.
func stages(k int, stage ...func(j int)) {
	for _, s := range stage {
		for j := 0; j < k; j++ {
			s(j)
		}
	}
}

// loop emits the loop almost every kernel runs: a byte offset i over 0, step,
// 2*step, ... below n, which the Go wrappers guarantee is positive and a
// multiple of step. While whole blocks of unroll steps remain, one iteration
// does unroll steps; what is left then goes one step at a time (with unroll
// 2, at most one step is left, so it is straight code, not a loop). body(i, k)
// emits k steps at byte offsets i, i+step, ..., i+(k-1)*step; step*unroll must
// be a power of two.
func (g *gen) loop(n reg.Register, step, unroll int, body func(i reg.GPVirtual, k int)) {
	i := g.GP64()
	g.XORQ(i, i)
	single := func() {
		g.Label("loop1")
		body(i, 1)
		g.ADDQ(Imm(uint64(step)), i)
		g.CMPQ(i, n)
		g.JB(LabelRef("loop1"))
	}
	if unroll == 1 {
		single()
		return
	}
	block := step * unroll
	if block&(block-1) != 0 {
		panic(fmt.Sprintf("loop: block of %d bytes is not a power of two", block))
	}
	end := g.GP64()
	g.MOVQ(n, end)
	g.ANDQ(I32(int32(-block)), end)
	g.JZ(LabelRef("tail"))

	g.Label(fmt.Sprintf("loop%d", unroll))
	body(i, unroll)
	g.ADDQ(Imm(uint64(block)), i)
	g.CMPQ(i, end)
	g.JB(LabelRef(fmt.Sprintf("loop%d", unroll)))

	g.Label("tail")
	g.CMPQ(i, n)
	g.JAE(LabelRef("done"))
	if unroll == 2 {
		body(i, 1)
	} else {
		single()
	}
	g.Label("done")
}

// lanes are the instructions a kernel shape needs for one kind of lane:
// integer (int16 or int32 lanes, VMOVDQU/VPADDD/VPXOR) or float32
// (VMOVUPS/VADDPS/VXORPS). The two kinds' instructions compute the same bits
// for moves and zeroing; they differ in the execution domain.
type lanes struct {
	movu func(src, dst Op)    // unaligned load or store
	add  func(b, a, sum Op)   // lane-wise sum of the reductions' accumulators
	xor  func(b, a, xored Op) // zeroing (xor with itself)
}

// ints is the integer kind of lane.
func (g *gen) ints() lanes {
	return lanes{g.VMOVDQU, func(b, a, s Op) { g.VPADDD(b, a, s) }, g.VPXOR}
}

// floats is the float32 kind of lane.
func (g *gen) floats() lanes {
	return lanes{
		func(src, dst Op) { g.VMOVUPS(src, dst) },
		func(b, a, s Op) { g.VADDPS(b, a, s) },
		func(b, a, x Op) { g.VXORPS(b, a, x) },
	}
}

// zeros returns k new YMM registers set to zero.
func (l lanes) zeros(g *gen, k int) []reg.VecVirtual {
	v := g.ymms(k)
	for _, r := range v {
		l.xor(r, r, r)
	}
	return v
}

// A term folds one more input into the running vector of an element-wise
// update: fold(m, v) sets v = v op m for the input's vector at address m.
type term struct {
	in   reg.Register
	fold func(m Mem, v reg.VecVirtual)
}

// update emits the body of an element-wise kernel over n bytes: for every
// vector, dst = src folded with each term in order. Each block loads every
// step's src vector, then folds the terms stage by stage and stores last, so
// dst may be the same memory as src or any input.
func (g *gen) update(l lanes, dst, src, n reg.Register, unroll int, terms ...term) {
	g.loop(n, 32, unroll, func(i reg.GPVirtual, k int) {
		v := g.ymms(k)
		steps := []func(j int){func(j int) { l.movu(at(src, i, 1, 32*j), v[j]) }}
		for _, t := range terms {
			steps = append(steps, func(j int) { t.fold(at(t.in, i, 1, 32*j), v[j]) })
		}
		steps = append(steps, func(j int) { l.movu(v[j], at(dst, i, 1, 32*j)) })
		stages(k, steps...)
	})
}

// reduce emits the body of a dot-product kernel over n bytes: sets sets of
// per accumulators, all zeroed, and the loop (step bytes a step, unroll steps
// per iteration). body(i, k, acc) emits k steps at i; step j adds into the
// set acc(j) = set j % sets, so the steps of a block feed independent chains
// and the single steps after the blocks feed set 0. After the loop the sets
// are added up pairwise (set 0 += set 1, set 2 += set 3, then set 0 += set 2,
// ...: the order matters for floating point) and set 0 is returned.
func (g *gen) reduce(l lanes, n reg.Register, step, unroll, sets, per int, body func(i reg.GPVirtual, k int, acc func(j int) []reg.VecVirtual)) []reg.VecVirtual {
	acc := make([][]reg.VecVirtual, sets)
	for s := range acc {
		acc[s] = l.zeros(g, per)
	}
	g.loop(n, step, unroll, func(i reg.GPVirtual, k int) {
		body(i, k, func(j int) []reg.VecVirtual { return acc[j%sets] })
	})
	for d := 1; d < sets; d *= 2 {
		for s := 0; s+d < sets; s += 2 * d {
			for p := range acc[s] {
				l.add(acc[s+d][p], acc[s][p], acc[s][p])
			}
		}
	}
	return acc[0]
}

// hsum32 adds the eight int32 lanes of y into the low dword of its XMM half
// and returns that half.
func (g *gen) hsum32(y reg.VecVirtual) reg.Register {
	x, t := y.AsX(), g.XMM()
	g.VEXTRACTI128(U8(1), y, t)
	g.VPADDD(t, x, x)
	g.VPSHUFD(U8(0x4e), x, t)
	g.VPADDD(t, x, x)
	g.VPSHUFD(U8(0xb1), x, t)
	g.VPADDD(t, x, x)
	return x
}
