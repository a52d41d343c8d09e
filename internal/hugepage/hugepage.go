// Package hugepage allocates the large, randomly accessed tables of the
// engine (the transposition table, a network's feature-transformer
// weights) so that the kernel can back them with 2 MB pages.
//
// A search touches one random 64-byte line of a 16 MB transposition table
// per node and a few random rows of a 47 MB weight table per move; with
// 4 KB pages nearly every such access also misses the TLB and walks the
// page tables. Stockfish allocates both tables 2 MB-aligned and advises
// the kernel to use transparent huge pages (madvise MADV_HUGEPAGE), which
// Linux honours when /sys/kernel/mm/transparent_hugepage/enabled is
// "always" or "madvise" (the usual default). Make does the same for Go
// slices: the memory is an ordinary Go allocation (garbage-collected as
// usual, pointer-free element types only), over-allocated by up to 2 MB so
// that the slice can start on a 2 MB boundary, and advised where the
// platform has the call. The advice changes no value, only how the memory
// is mapped; where it is refused or unknown the slice is still returned.
package hugepage

import "unsafe"

// Size is the huge page size the slices are aligned to.
const Size = 2 << 20

// Threshold is the smallest allocation Make aligns and advises: below a
// few huge pages the over-allocation is not worth it.
const Threshold = 4 * Size

// Make returns a zeroed slice of n elements of T (which must not contain
// pointers), for n*sizeof(T) >= Threshold starting on a Size boundary with
// its memory advised for huge pages, otherwise as make([]T, n).
func Make[T any](n int) []T {
	var zero T
	es := int(unsafe.Sizeof(zero))
	if es == 0 || n*es < Threshold {
		return make([]T, n)
	}
	extra := (Size + es - 1) / es
	buf := make([]T, n+extra)
	addr := uintptr(unsafe.Pointer(unsafe.SliceData(buf)))
	skip := int((Size-addr%Size)%Size) / es
	if (addr+uintptr(skip*es))%Size != 0 {
		skip = 0 // the element size does not divide the gap: no alignment, advice still helps the interior
	}
	s := buf[skip : skip+n : skip+n]
	advise(unsafe.Pointer(unsafe.SliceData(s)), uintptr(n*es))
	return s
}
