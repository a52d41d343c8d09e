package simd

import (
	"math/rand/v2"
	"slices"
	"testing"
)

// TestAffine7 holds Affine7 to Affine on inputs below 128, on both paths,
// with random and extreme values (127 * -128 everywhere is the largest pair
// sum VPMADDUBSW sees) and row counts that exercise the four-row and
// one-row loops.
func TestAffine7(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 7))
	saved := useAVX2
	defer func() { useAVX2 = saved }()
	for _, rows := range []int{1, 3, 4, 5, 8, 16, 31, 32} {
		for _, cols := range []int{32, 64, 96, 512, 1024, 4096} {
			for _, kind := range []string{"random", "extreme-neg", "extreme-pos"} {
				in := make([]uint8, cols)
				w := make([]int8, rows*cols)
				bias := make([]int32, rows)
				for i := range in {
					in[i] = uint8(rng.IntN(128))
					if kind != "random" {
						in[i] = 127
					}
				}
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
				for i := range bias {
					bias[i] = int32(rng.Uint32())
				}
				want := make([]int32, rows)
				affineGeneric(want, in, w, bias)
				for _, avx := range []bool{false, saved} {
					useAVX2 = avx
					got := make([]int32, rows)
					Affine7(got, in, w, bias)
					if !slices.Equal(got, want) {
						t.Fatalf("rows %d cols %d %s avx2=%v: Affine7 differs from Affine", rows, cols, kind, avx)
					}
				}
			}
		}
	}
}

func BenchmarkAffine7(b *testing.B) {
	for _, sz := range [][2]int{{16, 1024}, {32, 512}, {32, 32}} {
		rows, cols := sz[0], sz[1]
		in := make([]uint8, cols)
		w := make([]int8, rows*cols)
		bias := make([]int32, rows)
		out := make([]int32, rows)
		for i := range in {
			in[i] = uint8(i % 128)
		}
		b.Run("Affine7", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				Affine7(out, in, w, bias)
			}
		})
		b.Run("Affine", func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				Affine(out, in, w, bias)
			}
		})
	}
}
