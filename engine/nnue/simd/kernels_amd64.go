//go:build amd64 && gc && !purego

package simd

import "golang.org/x/sys/cpu"

// hasAVX2 says whether the AVX2 kernels may run: the CPU has AVX2 and the
// OS saves the YMM registers (x/sys/cpu checks both).
var hasAVX2 = cpu.X86.HasAVX2

// The AVX2 kernels in kernels_amd64.s. They take base pointers and an
// element count n that the exported wrappers have checked (n > 0, a multiple
// of 16 for int16 and of 32 for bytes). go:noescape keeps the caller's
// slices on its stack: the kernels never retain a pointer.

//go:noescape
func copyAVX2(dst, src *int16, n int)

//go:noescape
func addAVX2(dst, a *int16, n int)

//go:noescape
func subAVX2(dst, a *int16, n int)

//go:noescape
func addSubAVX2(dst, src, add, sub *int16, n int)

//go:noescape
func addSubSubAVX2(dst, src, add, sub1, sub2 *int16, n int)

//go:noescape
func addAddSubSubAVX2(dst, src, add1, add2, sub1, sub2 *int16, n int)

//go:noescape
func clippedReLUAVX2(dst *uint8, src *int16, n int, max int16)

//go:noescape
func pairwiseClippedReLUAVX2(dst *uint8, src *int16, n int)

//go:noescape
func clipShiftAVX2(dst *uint8, src *int32, n int, shift uint, ceil uint8)

//go:noescape
func dotUint8Int8AVX2(a *uint8, w *int8, n int) int32

//go:noescape
func affineAVX2(out *int32, in *uint8, w *int8, bias *int32, rows, cols int)

//go:noescape
func affine7AVX2(out *int32, in *uint8, w *int8, bias *int32, rows, cols int)

//go:noescape
func dotReLUAVX2(acc, w *int16, n int) int32

//go:noescape
func dotClippedReLUAVX2(acc, w *int16, n int, max int16) int32

//go:noescape
func dotSquaredClippedReLUAVX2(acc, w *int16, n int, max int16) int32
