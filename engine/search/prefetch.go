package search

import "unsafe"

// The transposition table's probes miss the caches most of the time (the
// table is megabytes, a probe touches one random cluster), and at the
// start of every node the search waits for one. So the search asks for
// the child's cluster as soon as a move is made, and the line comes in
// while the evaluator and the child's first checks run (Stockfish does
// the same in do_move). A prefetch changes no result, only when memory
// is read.
//
// prefetch is generated assembly on amd64 (internal/asmgen, like the NNUE
// kernels; regenerate with go generate ./engine/search) and a no-op
// elsewhere.
//
//go:generate env GOWORK=off go -C ../../internal/asmgen run . search

// prefetch starts bringing key's cluster into the caches.
func (t *TT) prefetch(key uint64) {
	prefetch(uintptr(unsafe.Pointer(t.cluster(key))))
}
