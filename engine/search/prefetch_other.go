//go:build !amd64 || !gc || purego

package search

// prefetch does nothing where there is no assembly (see prefetch.go).
func prefetch(addr uintptr) {}
