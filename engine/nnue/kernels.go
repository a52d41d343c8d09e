package nnue

// The accumulator arithmetic in one place, so that the SIMD kernels of
// engine/nnue/simd replace these loops without touching their callers.
// int16 adds wrap, as the engines' SIMD adds do.

func addRow(dst, w []int16) {
	w = w[:len(dst)]
	for i := range dst {
		dst[i] += w[i]
	}
}

func subRow(dst, w []int16) {
	w = w[:len(dst)]
	for i := range dst {
		dst[i] -= w[i]
	}
}

func addRow32(dst, w []int32) {
	w = w[:len(dst)]
	for i := range dst {
		dst[i] += w[i]
	}
}

func subRow32(dst, w []int32) {
	w = w[:len(dst)]
	for i := range dst {
		dst[i] -= w[i]
	}
}
