package main

import (
	"github.com/mmcloughlin/avo/attr"
	"github.com/mmcloughlin/avo/gotypes"
	. "github.com/mmcloughlin/avo/operand"
)

// searchKernels builds the one assembly routine of package search
// (engine/search): a software prefetch, which Go has no intrinsic for.
func searchKernels(g *gen) {
	g.Function("prefetch")
	g.Attributes(attr.NOSPLIT)
	s, err := gotypes.ParseSignatureInPackage(g.pkg, "func(addr uintptr)")
	if err != nil {
		panic(err)
	}
	g.Signature(s)
	g.Doc("prefetch asks the CPU to bring the cache line at addr into every cache level (PREFETCHT0); it never faults.")
	a := g.arg("addr")
	g.PREFETCHT0(Mem{Base: a})
	g.RET()
}
