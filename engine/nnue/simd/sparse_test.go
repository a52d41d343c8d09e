package simd

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
)

// sparseInput returns n bytes below 128 in which each 4-byte group is all
// zero with probability 1-density and otherwise random (zeros included);
// with extreme, the non-zero groups are 127 throughout.
func sparseInput(rng *rand.Rand, n int, density float64, extreme bool) []uint8 {
	in := make([]uint8, n)
	for c := 0; c < n/4; c++ {
		if rng.Float64() >= density {
			continue
		}
		for k := 0; k < 4; k++ {
			if extreme {
				in[4*c+k] = 127
			} else if rng.IntN(3) > 0 {
				in[4*c+k] = uint8(rng.IntN(128))
			}
		}
	}
	return in
}

// nnzReference lists the non-zero 4-byte groups of in the plain way.
func nnzReference(in []uint8) []uint16 {
	var out []uint16
	for c := 0; c < len(in)/4; c++ {
		if binary.LittleEndian.Uint32(in[4*c:]) != 0 {
			out = append(out, uint16(c))
		}
	}
	return out
}

// TestFindNNZ checks both implementations against the plain listing over
// lengths that exercise the two-block loop and the single block after it,
// from all-zero to all-non-zero inputs; single bytes set anywhere in a
// group (the top one included) must count.
func TestFindNNZ(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 1))
	forEachImpl(t, func(t *testing.T) {
		for _, n := range []int{32, 64, 96, 512, 1024, 1056, 3072, 4096} {
			for _, density := range []float64{0, 0.05, 0.3, 0.5, 0.9, 1} {
				in := sparseInput(rng, n, density, false)
				want := nnzReference(in)
				nnz := make([]uint16, n/4)
				k := FindNNZ(nnz, in)
				if !slices.Equal(nnz[:k], want) {
					t.Fatalf("n %d density %.2f: FindNNZ = %v, want %v", n, density, nnz[:k], want)
				}
			}
			// One byte in one group, at every position of the first 64.
			for pos := 0; pos < min(n, 64); pos++ {
				in := make([]uint8, n)
				in[pos] = 0x80 >> (pos % 8)
				nnz := make([]uint16, n/4)
				if k := FindNNZ(nnz, in); k != 1 || nnz[0] != uint16(pos/4) {
					t.Fatalf("n %d, byte %d set: FindNNZ = %v, want [%d]", n, pos, nnz[:k], pos/4)
				}
			}
		}
	})
}

// TestAffineSparse7 is the dense-versus-sparse property: on random inputs
// below 128 of every density, with random and extreme weights and random
// biases, FindNNZ followed by AffineSparse7 on the SparseWeights layout
// gives Affine's outputs bit for bit, on both paths; listing every group
// (zero ones too) gives the same again.
func TestAffineSparse7(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 2))
	forEachImpl(t, func(t *testing.T) {
		for _, rows := range []int{16, 32, 48} {
			for _, cols := range []int{32, 64, 96, 1024, 3072} {
				for _, kind := range []string{"random", "extreme-neg", "extreme-pos"} {
					for _, density := range []float64{0, 0.1, 0.4, 1} {
						in := sparseInput(rng, cols, density, kind != "random")
						w := make([]int8, rows*cols)
						for i := range w {
							switch kind {
							case "random":
								w[i] = int8(rng.IntN(256) - 128)
							case "extreme-neg":
								w[i] = -128
							default:
								w[i] = 127
							}
						}
						bias := make([]int32, rows)
						for i := range bias {
							bias[i] = int32(rng.Uint32())
						}
						want := make([]int32, rows)
						affineGeneric(want, in, w, bias)
						sw := SparseWeights(w, rows, cols)
						nnz := make([]uint16, cols/4)
						k := FindNNZ(nnz, in)
						got := make([]int32, rows)
						AffineSparse7(got, in, sw, bias, nnz[:k])
						if !slices.Equal(got, want) {
							t.Fatalf("rows %d cols %d %s density %.1f (%d groups): sparse %v, dense %v", rows, cols, kind, density, k, got, want)
						}
						all := make([]uint16, cols/4)
						for c := range all {
							all[c] = uint16(c)
						}
						clear(got)
						AffineSparse7(got, in, sw, bias, all)
						if !slices.Equal(got, want) {
							t.Fatalf("rows %d cols %d %s density %.1f, every group listed: sparse %v, dense %v", rows, cols, kind, density, got, want)
						}
					}
				}
			}
		}
	})
}

// TestSparseWeights checks the layout on a matrix whose weights name
// their place.
func TestSparseWeights(t *testing.T) {
	const rows, cols = 32, 64
	w := make([]int8, rows*cols)
	for i := range w {
		w[i] = int8(i * 7)
	}
	s := SparseWeights(w, rows, cols)
	for r := 0; r < rows; r++ {
		for j := 0; j < cols; j++ {
			b, o, c, k := r/16, r%16, j/4, j%4
			if got, want := s[b*16*cols+64*c+4*o+k], w[r*cols+j]; got != want {
				t.Fatalf("output %d input %d: sparse layout has %d, want %d", r, j, got, want)
			}
		}
	}
}

// TestSparsePreconditions: shapes the kernels do not take and group
// indices out of range panic on both paths, before anything is written
// past the slices.
func TestSparsePreconditions(t *testing.T) {
	mustPanic := func(t *testing.T, what string, f func()) {
		t.Helper()
		defer func() {
			if recover() == nil {
				t.Errorf("%s: no panic", what)
			}
		}()
		f()
	}
	forEachImpl(t, func(t *testing.T) {
		in := make([]uint8, 64)
		w := make([]int8, 16*64)
		out, bias := make([]int32, 16), make([]int32, 16)
		mustPanic(t, "FindNNZ short nnz", func() { FindNNZ(make([]uint16, 15), in) })
		mustPanic(t, "FindNNZ ragged input", func() { FindNNZ(make([]uint16, 16), in[:60]) })
		mustPanic(t, "AffineSparse7 8 rows", func() { AffineSparse7(out[:8], in, w[:8*64], bias[:8], nil) })
		mustPanic(t, "AffineSparse7 bias", func() { AffineSparse7(out, in, w, bias[:15], nil) })
		mustPanic(t, "AffineSparse7 weights", func() { AffineSparse7(out, in, w[:100], bias, nil) })
		mustPanic(t, "AffineSparse7 index 16 of 16 groups", func() { AffineSparse7(out, in, w, bias, []uint16{3, 16}) })
		mustPanic(t, "AffineSparse7 index in the tail", func() { AffineSparse7(out, in, w, bias, []uint16{1, 2, 999}) })
		mustPanic(t, "SparseWeights rows", func() { SparseWeights(w[:8*64], 8, 64) })
	})
}

// FuzzSparse feeds arbitrary bytes to the sparse layer: the first 64*k
// bytes (k the largest that fits with the weights) become the input,
// masked below 128 and with every group whose first byte is even zeroed,
// the rest 16 rows of weights and the biases; asm and Go must agree with
// each other and with the dense Affine.
//
//	go test ./engine/nnue/simd -run '^$' -fuzz FuzzSparse -fuzztime 30s
func FuzzSparse(f *testing.F) {
	f.Add(slices.Repeat([]byte{0xff}, 64*17))
	f.Add(slices.Repeat([]byte{0x81, 0x7f, 0x00, 0x80}, 300))
	seq := make([]byte, 64*17*4)
	for i := range seq {
		seq[i] = byte(i * 37)
	}
	f.Add(seq)
	f.Fuzz(func(t *testing.T, data []byte) {
		cols := len(data) / 17 / 32 * 32 // cols inputs and 16*cols weights
		if cols == 0 {
			return
		}
		in := make([]uint8, cols)
		for c := 0; c < cols/4; c++ {
			if data[4*c]%2 == 0 {
				continue
			}
			for k := 0; k < 4; k++ {
				in[4*c+k] = data[4*c+k] & 0x7f
			}
		}
		w := make([]int8, 16*cols)
		for i := range w {
			w[i] = int8(data[cols+i])
		}
		bias := make([]int32, 16)
		for i := range bias {
			bias[i] = int32(uint32(data[i]) * 0x01010101)
		}
		want := make([]int32, 16)
		affineGeneric(want, in, w, bias)
		sw := SparseWeights(w, 16, cols)
		wantNNZ := nnzReference(in)
		for _, im := range impls() {
			withImpl(im, func() {
				nnz := make([]uint16, cols/4)
				k := FindNNZ(nnz, in)
				if !slices.Equal(nnz[:k], wantNNZ) {
					t.Fatalf("%s: FindNNZ = %v, want %v", im.name, nnz[:k], wantNNZ)
				}
				got := make([]int32, 16)
				AffineSparse7(got, in, sw, bias, nnz[:k])
				if !slices.Equal(got, want) {
					t.Fatalf("%s: sparse %v, dense %v", im.name, got, want)
				}
			})
		}
	})
}

// BenchmarkSparse compares the dense Affine7 with FindNNZ + AffineSparse7
// at Stockfish's first-layer shapes, at the density of groups that
// Stockfish 15.1's net shows in search (about a third) and others.
func BenchmarkSparse(b *testing.B) {
	rng := rand.New(rand.NewPCG(26, 3))
	for _, cols := range []int{1024, 3072} {
		for _, density := range []float64{0.15, 0.3, 0.6} {
			in := sparseInput(rng, cols, density, false)
			w := make([]int8, 16*cols)
			for i := range w {
				w[i] = int8(rng.IntN(256) - 128)
			}
			sw := SparseWeights(w, 16, cols)
			bias, out := make([]int32, 16), make([]int32, 16)
			nnz := make([]uint16, cols/4)
			for _, im := range impls() {
				withImpl(im, func() {
					b.Run(fmt.Sprintf("%d/density=%.2f/%s/dense", cols, density, im.name), func(b *testing.B) {
						for i := 0; i < b.N; i++ {
							Affine7(out, in, w, bias)
						}
					})
					b.Run(fmt.Sprintf("%d/density=%.2f/%s/sparse", cols, density, im.name), func(b *testing.B) {
						for i := 0; i < b.N; i++ {
							k := FindNNZ(nnz, in)
							AffineSparse7(out, in, sw, bias, nnz[:k])
						}
					})
				})
			}
		}
	}
}
