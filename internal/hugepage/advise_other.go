//go:build !linux

package hugepage

import "unsafe"

// advise does nothing where there is no madvise.
func advise(p unsafe.Pointer, n uintptr) {}
