//go:build linux

package hugepage

import (
	"syscall"
	"unsafe"
)

// advise asks for transparent huge pages over the whole huge pages inside
// [p, p+n) (madvise MADV_HUGEPAGE), then drops the pages already there
// (MADV_DONTNEED): memory that the Go runtime recycles is often backed by
// 4 KB pages already, and the advice only changes how the kernel fills a
// page on its next fault. Dropping them is safe because the range is whole
// pages of a fresh, zeroed slice that nothing else shares: on the next
// touch the kernel maps zeroed (huge) pages again. Errors are ignored: the
// advice is optional.
func advise(p unsafe.Pointer, n uintptr) {
	start := (uintptr(p) + Size - 1) &^ (Size - 1)
	end := (uintptr(p) + n) &^ (Size - 1)
	if end <= start {
		return
	}
	b := unsafe.Slice((*byte)(unsafe.Add(p, start-uintptr(p))), end-start)
	if syscall.Madvise(b, syscall.MADV_HUGEPAGE) == nil {
		_ = syscall.Madvise(b, syscall.MADV_DONTNEED)
	}
}
