package vec

// The AVX2+FMA kernels (vec_amd64.s) and their Go declarations
// (vec_stubs_amd64.go) are written by the avo generator in internal/asmgen,
// its own module (so it runs with GOWORK=off); edit the generator, never its
// output, and regenerate with
//
//	go generate ./nets/train/vec
//
// make test fails when the committed files differ from what it writes.

//go:generate env GOWORK=off go -C ../../../internal/asmgen run . vec
