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
