package nnue

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// TestFoldPSQT checks foldPSQT against row-by-row adds and subtractions
// for the usual 8 buckets (the unrolled path) and other widths, including
// int32 wraparound and empty lists.
func TestFoldPSQT(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, tc := range []struct {
		name       string
		width      int
		nadd, nsub int
	}{
		{"8/empty", 8, 0, 0},
		{"8/adds", 8, 5, 0},
		{"8/subs", 8, 0, 7},
		{"8/both", 8, 40, 33},
		{"1/both", 1, 3, 4},
		{"4/both", 4, 9, 2},
		{"16/both", 16, 6, 6},
	} {
		t.Run(tc.name, func(t *testing.T) {
			const rows = 50
			w := make([]int32, rows*tc.width)
			for i := range w {
				w[i] = rng.Int32() // full range: sums wrap
			}
			w[0] = math.MaxInt32
			pick := func(k int) []int32 {
				out := make([]int32, k)
				for i := range out {
					out[i] = int32(rng.IntN(rows))
				}
				return out
			}
			adds, subs := pick(tc.nadd), pick(tc.nsub)
			dst := make([]int32, tc.width)
			for i := range dst {
				dst[i] = rng.Int32()
			}
			want := slices.Clone(dst)
			for _, f := range adds {
				for i := range want {
					want[i] += w[int(f)*tc.width+i]
				}
			}
			for _, f := range subs {
				for i := range want {
					want[i] -= w[int(f)*tc.width+i]
				}
			}
			foldPSQT(dst, w, adds, subs)
			if !slices.Equal(dst, want) {
				t.Errorf("got %v, want %v", dst, want)
			}
		})
	}
}

// TestUpdate32 checks update32 (the unrolled 8-bucket path and the
// general one) against element-wise sums with int32 wraparound, for the
// row counts a move has and more, dst separate from src and the same.
func TestUpdate32(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, width := range []int{8, 1, 4, 16} {
		for _, counts := range [][2]int{{0, 0}, {1, 1}, {1, 2}, {2, 2}, {3, 1}, {0, 3}} {
			for _, inPlace := range []bool{false, true} {
				row := func() []int32 {
					r := make([]int32, width)
					for i := range r {
						r[i] = rng.Int32()
					}
					return r
				}
				adds, subs := make([][]int32, counts[0]), make([][]int32, counts[1])
				for i := range adds {
					adds[i] = row()
				}
				for i := range subs {
					subs[i] = row()
				}
				src := row()
				want := slices.Clone(src)
				for _, a := range adds {
					for i := range want {
						want[i] += a[i]
					}
				}
				for _, s := range subs {
					for i := range want {
						want[i] -= s[i]
					}
				}
				dst := make([]int32, width)
				if inPlace {
					dst = src
				}
				update32(dst, src, adds, subs)
				if !slices.Equal(dst, want) {
					t.Errorf("width %d, %v rows, in place %v: got %v, want %v", width, counts, inPlace, dst, want)
				}
			}
		}
	}
}
