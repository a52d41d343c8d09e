//go:build !linux

package search

// physicalMemoryMB returns 0: the machine's RAM is not known here.
func physicalMemoryMB() int { return 0 }

// availableMemoryMB returns 0: the memory available is not known here.
func availableMemoryMB() int { return 0 }
