//go:build amd64 && gc && !purego

package vec

import "golang.org/x/sys/cpu"

// hasAVX2 says whether the assembly kernels may run: AVX2 and FMA, with the
// OS saving the YMM registers (x/sys/cpu checks that).
var hasAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasFMA

// hasAVX512 gates the AVX-512 peak measurement only.
var hasAVX512 = cpu.X86.HasAVX512F

// The assembly kernels are generated (generate.go): vec_amd64.s and their
// declarations in vec_stubs_amd64.go. n is a positive multiple of 8 that the
// wrappers have checked; pointers are never retained.
