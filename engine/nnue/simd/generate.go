package simd

// The AVX2 kernels (kernels_amd64.s) and their Go declarations
// (kernels_stubs_amd64.go) are written by the avo generator in
// internal/asmgen, its own module (so it runs with GOWORK=off); edit the
// generator, never its output, and regenerate with
//
//	go generate ./engine/nnue/simd
//
// make test fails when the committed files differ from what it writes.

//go:generate env GOWORK=off go -C ../../../internal/asmgen run . simd
