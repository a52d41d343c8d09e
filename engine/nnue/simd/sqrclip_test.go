package simd

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// sqrClipReference is SqrClip16 written from its definition.
func sqrClipReference(dst []uint8, off int, src []int32, sqrShift, shift uint, ceil int32) {
	for i, v := range src {
		sq := (int64(v) * int64(v)) >> sqrShift
		dst[i] = uint8(min(sq, int64(ceil)))
	}
	for i, v := range src {
		c := v >> shift
		if c < 0 {
			c = 0
		}
		if c > ceil {
			c = ceil
		}
		dst[off+i] = uint8(c)
	}
}

// sqrClipInputs are sums around every boundary the kernel has: zero, the
// clip at ceil << shift, the square's threshold, 65535 and 65536 (where
// the kernel's clamp of |v| starts), the int32 extremes.
func sqrClipInputs(rng *rand.Rand) []int32 {
	var vs []int32
	for _, b := range []int64{0, 1, 63, 64, 8127, 8128, 8192, 23170, 46340, 65535, 65536, 1 << 20, math.MaxInt32} {
		for _, d := range []int64{-1, 0, 1} {
			for _, sign := range []int64{1, -1} {
				if v := sign * (b + d); v >= math.MinInt32 && v <= math.MaxInt32 {
					vs = append(vs, int32(v))
				}
			}
		}
	}
	vs = append(vs, math.MinInt32)
	for len(vs)%16 != 0 || len(vs) < 256 {
		switch rng.IntN(3) {
		case 0:
			vs = append(vs, int32(rng.Uint32()))
		case 1:
			vs = append(vs, int32(rng.IntN(1<<17)-1<<16))
		default:
			vs = append(vs, int32(rng.IntN(20000)-10000))
		}
	}
	rng.Shuffle(len(vs), func(i, j int) { vs[i], vs[j] = vs[j], vs[i] })
	return vs
}

// TestSqrClip16 holds both paths to the definition over shifts for which
// the AVX2 kernel runs (Stockfish's 19 and 6 among them) and for which the
// wrapper falls back to Go, every ceiling and the overlapping and separate
// offsets, with the bytes around the two stores guarded.
func TestSqrClip16(t *testing.T) {
	rng := rand.New(rand.NewPCG(26, 16))
	vs := sqrClipInputs(rng)
	forEachImpl(t, func(t *testing.T) {
		for _, sh := range [][2]uint{{19, 6}, {7, 0}, {0, 0}, {13, 3}, {25, 9}, {26, 10}, {31, 12}, {40, 33}} {
			for _, ceil := range []int32{0, 1, 126, 127, 255} {
				for _, off := range []int{0, 15, 16, 20} {
					for k := 0; k+16 <= len(vs); k += 16 {
						src := vs[k : k+16]
						n := max(16, off+16)
						want := make([]uint8, n+8)
						for i := range want {
							want[i] = 0xA5
						}
						got := slices.Clone(want)
						sqrClipReference(want, off, src, sh[0], sh[1], ceil)
						SqrClip16(got[:n], off, src, sh[0], sh[1], ceil)
						if !slices.Equal(got, want) {
							t.Fatalf("shifts %v ceil %d off %d src %v:\n got %v\nwant %v", sh, ceil, off, src, got, want)
						}
					}
				}
			}
		}
	})
}

// FuzzSqrClip16 compares the AVX2 kernel with the Go twin on arbitrary
// sums and parameters.
//
//	go test ./engine/nnue/simd -run '^$' -fuzz FuzzSqrClip16 -fuzztime 30s
func FuzzSqrClip16(f *testing.F) {
	f.Add(make([]byte, 64), uint8(19), uint8(6), uint8(127), uint8(15))
	f.Add(slices.Repeat([]byte{0xff, 0xff, 0x00, 0x80}, 16), uint8(25), uint8(0), uint8(255), uint8(0))
	f.Fuzz(func(t *testing.T, data []byte, sqrShift, shift, ceil, off uint8) {
		if len(data) < 64 {
			return
		}
		src := make([]int32, 16)
		for i := range src {
			src[i] = int32(binary.LittleEndian.Uint32(data[4*i:]))
		}
		o := int(off % 32)
		want := make([]uint8, 48)
		sqrClipReference(want, o, src, uint(sqrShift%40), uint(shift%40), int32(ceil))
		for _, im := range impls() {
			withImpl(im, func() {
				got := make([]uint8, 48)
				SqrClip16(got, o, src, uint(sqrShift%40), uint(shift%40), int32(ceil))
				if !slices.Equal(got, want) {
					t.Fatalf("%s: %v, want %v", im.name, got, want)
				}
			})
		}
	})
}
