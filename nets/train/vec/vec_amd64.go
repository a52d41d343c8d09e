//go:build amd64 && gc && !purego

package vec

import "golang.org/x/sys/cpu"

// hasAVX2 says whether the assembly kernels may run: AVX2 and FMA, with the
// OS saving the YMM registers (x/sys/cpu checks that).
var hasAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// hasAVX512 gates the AVX-512 peak measurement only.
var hasAVX512 = cpu.X86.HasAVX512F

// Assembly kernels (vec_amd64.s). n is a positive multiple of 8 that the
// wrappers have checked; pointers are never retained.

//go:noescape
func sumRowsAVX2(dst, init, m *float32, stride, width int, idx *int32, n int)

//go:noescape
func addAVX2(dst, x *float32, n int)

//go:noescape
func axpyAVX2(dst, x *float32, a float32, n int)

//go:noescape
func dotAVX2(x, y *float32, n int) float32

//go:noescape
func clampAVX2(dst, src *float32, lo, hi float32, n int)

//go:noescape
func mulAVX2(dst, x, y *float32, n int)

//go:noescape
func maskScaleAVX2(dst, w, x *float32, lo, hi, a float32, n int)

//go:noescape
func adamAVX2(p, m, v, grad *float32, h *Adam, n int)

//go:noescape
func fmaPeakAVX2(iters int)

//go:noescape
func fmaPeakAVX512(iters int)
