//go:build !amd64 || !gc || purego

package simd

// hasAVX2 is false without assembly: the pure-Go twins always run.
const hasAVX2 = false

// Stubs for the assembly kernels so that the shared wrappers compile; they
// are unreachable because useAVX2 is never true in this build.

func copyAVX2(dst, src *int16, n int)                                 { unreachable() }
func addAVX2(dst, a *int16, n int)                                    { unreachable() }
func subAVX2(dst, a *int16, n int)                                    { unreachable() }
func addSubAVX2(dst, src, add, sub *int16, n int)                     { unreachable() }
func addSubSubAVX2(dst, src, add, sub1, sub2 *int16, n int)           { unreachable() }
func addAddSubSubAVX2(dst, src, add1, add2, sub1, sub2 *int16, n int) { unreachable() }
func addInt8AVX2(dst *int16, a *int8, n int)                          { unreachable() }
func subInt8AVX2(dst *int16, a *int8, n int)                          { unreachable() }
func int8RowsAVX2(dst *int16, w *int8, adds *int32, nadd int, subs *int32, nsub int, n int) {
	unreachable()
}
func int16RowsAVX2(dst *int16, w *int16, adds *int32, nadd int, subs *int32, nsub int, n int) {
	unreachable()
}
func prefetchRowsAVX2(w *int32, rows *int32, n int, stride int) { unreachable() }
func clippedReLUAVX2(dst *uint8, src *int16, n int, max int16)  { unreachable() }
func pairwiseClippedReLUAVX2(dst *uint8, src *int16, n int)     { unreachable() }
func pairwiseClippedReLU255AVX2(dst *uint8, src *int16, n int)  { unreachable() }
func sqrClip16AVX2(dst *uint8, off int, src *int32, sqrShift, shift uint, ceil int32) {
	unreachable()
}
func clipShiftAVX2(dst *uint8, src *int32, n int, shift uint, ceil uint8)     { unreachable() }
func affineAVX2(out *int32, in *uint8, w *int8, bias *int32, rows, cols int)  { unreachable() }
func affine7AVX2(out *int32, in *uint8, w *int8, bias *int32, rows, cols int) { unreachable() }

func dotUint8Int8AVX2(a *uint8, w *int8, n int) int32 { unreachable(); return 0 }

func findNNZAVX2(in *uint8, n int, lut *uint16, out *uint16) int { unreachable(); return 0 }

func affineSparse16AVX2(out *int32, in *uint8, w *int8, bias *int32, nnz *uint16, count, groups int) bool {
	unreachable()
	return false
}

func dotReLUAVX2(acc, w *int16, n int) int32 { unreachable(); return 0 }

func dotClippedReLUAVX2(acc, w *int16, n int, max int16) int32 {
	unreachable()
	return 0
}

func dotSquaredClippedReLUAVX2(acc, w *int16, n int, max int16) int32 {
	unreachable()
	return 0
}

func unreachable() { panic("simd: assembly kernel called in a build without assembly") }
