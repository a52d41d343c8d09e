//go:build amd64 && gc && !purego

package simd

import "golang.org/x/sys/cpu"

// hasAVX2 says whether the AVX2 kernels may run: the CPU has AVX2 and the
// OS saves the YMM registers (x/sys/cpu checks both), and POPCNT, which
// findNNZAVX2 uses (every AVX2 CPU has it).
var hasAVX2 = cpu.X86.HasAVX2 && cpu.X86.HasPOPCNT

// The AVX2 kernels are generated (generate.go): kernels_amd64.s and their
// declarations in kernels_stubs_amd64.go. They take base pointers and an
// element count n that the exported wrappers have checked (n > 0, a multiple
// of 16 for int16 and of 32 for bytes). go:noescape keeps the caller's slices
// on its stack: the kernels never retain a pointer.
