package simd

import (
	"fmt"
	"math/rand/v2"
	"testing"
)

// Benchmarks: every kernel under both implementations at the accumulator
// widths of real nets (256: Stockfish 12 HalfKP, 512, 1024: Stockfish 15.1),
// named Kernel/n=WIDTH/IMPL so that the AVX2/Go ratio reads off directly.
// b.SetBytes counts every operand byte read or written once, so MB/s is the
// memory traffic the kernel sustains (all operands are L1-resident here: the
// kernels' own speed, not the cache misses of a real weight table).
//
//	go test ./engine/nnue/simd -run '^$' -bench . -benchtime 200ms

var benchWidths = []int{256, 512, 1024}

var (
	sinkInt32 int32
	sinkBytes []byte
)

func rand16(r *rand.Rand, n int) []int16 {
	s := make([]int16, n)
	for i := range s {
		s[i] = int16(r.IntN(2001) - 1000)
	}
	return s
}

// benchBoth runs f as sub-benchmarks n=WIDTH/IMPL for every width and
// kernel set.
func benchBoth(b *testing.B, widths []int, f func(b *testing.B, n int)) {
	for _, n := range widths {
		for _, im := range impls() {
			b.Run(fmt.Sprintf("n=%d/%s", n, im.name), func(b *testing.B) {
				withImpl(im, func() { f(b, n) })
			})
		}
	}
}

// BenchmarkBuiltinCopy is the yardstick for the accumulator updates: Go's
// copy (memmove) of an n-element int16 accumulator, the least any copy-make
// update must do.
func BenchmarkBuiltinCopy(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	for _, n := range benchWidths {
		b.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
			dst, src := make([]int16, n), rand16(r, n)
			b.SetBytes(int64(2 * 2 * n))
			for b.Loop() {
				copy(dst, src)
			}
		})
	}
}

func BenchmarkCopy(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 2))
	benchBoth(b, benchWidths, func(b *testing.B, n int) {
		dst, src := make([]int16, n), rand16(r, n)
		b.SetBytes(int64(2 * 2 * n))
		for b.Loop() {
			Copy(dst, src)
		}
	})
}

func BenchmarkAdd(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 3))
	benchBoth(b, benchWidths, func(b *testing.B, n int) {
		dst, a := rand16(r, n), rand16(r, n)
		b.SetBytes(int64(3 * 2 * n))
		for b.Loop() {
			Add(dst, a)
		}
	})
}

func BenchmarkSub(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 4))
	benchBoth(b, benchWidths, func(b *testing.B, n int) {
		dst, a := rand16(r, n), rand16(r, n)
		b.SetBytes(int64(3 * 2 * n))
		for b.Loop() {
			Sub(dst, a)
		}
	})
}

func BenchmarkAddSub(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 5))
	benchBoth(b, benchWidths, func(b *testing.B, n int) {
		dst, src, add, sub := make([]int16, n), rand16(r, n), rand16(r, n), rand16(r, n)
		b.SetBytes(int64(4 * 2 * n))
		for b.Loop() {
			AddSub(dst, src, add, sub)
		}
	})
}

func BenchmarkAddSubSub(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 6))
	benchBoth(b, benchWidths, func(b *testing.B, n int) {
		dst, src, add, s1, s2 := make([]int16, n), rand16(r, n), rand16(r, n), rand16(r, n), rand16(r, n)
		b.SetBytes(int64(5 * 2 * n))
		for b.Loop() {
			AddSubSub(dst, src, add, s1, s2)
		}
	})
}

func BenchmarkAddAddSubSub(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 7))
	benchBoth(b, benchWidths, func(b *testing.B, n int) {
		dst, src := make([]int16, n), rand16(r, n)
		a1, a2, s1, s2 := rand16(r, n), rand16(r, n), rand16(r, n), rand16(r, n)
		b.SetBytes(int64(6 * 2 * n))
		for b.Loop() {
			AddAddSubSub(dst, src, a1, a2, s1, s2)
		}
	})
}

func BenchmarkClippedReLU(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 8))
	benchBoth(b, benchWidths, func(b *testing.B, n int) {
		dst, src := make([]uint8, n), rand16(r, n)
		b.SetBytes(int64(3 * n))
		for b.Loop() {
			ClippedReLU(dst, src, 127)
		}
		sinkBytes = dst
	})
}

// BenchmarkClipShift: n is the width of a dense layer's output (32 in
// Stockfish 12's head), so the widths are smaller than the accumulator's.
func BenchmarkClipShift(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 9))
	benchBoth(b, []int{32, 64, 128}, func(b *testing.B, n int) {
		dst, src := make([]uint8, n), make([]int32, n)
		for i := range src {
			src[i] = int32(r.IntN(1<<16) - 1<<15)
		}
		b.SetBytes(int64(5 * n))
		for b.Loop() {
			ClipShift(dst, src, 6, 127)
		}
		sinkBytes = dst
	})
}

// BenchmarkPairwiseClippedReLU: n is the int16 input width (one perspective
// of Stockfish 15.1 is 1024 -> 512 bytes).
func BenchmarkPairwiseClippedReLU(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 9))
	benchBoth(b, benchWidths, func(b *testing.B, n int) {
		dst, src := make([]uint8, n/2), rand16(r, n)
		b.SetBytes(int64(2*n + n/2))
		for b.Loop() {
			PairwiseClippedReLU(dst, src)
		}
		sinkBytes = dst
	})
}

// BenchmarkDotUint8Int8: n bytes of each operand.
func BenchmarkDotUint8Int8(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 10))
	benchBoth(b, benchWidths, func(b *testing.B, n int) {
		a, w := make([]uint8, n), make([]int8, n)
		for i := range a {
			a[i], w[i] = uint8(r.Uint32()), int8(r.Uint32())
		}
		b.SetBytes(int64(2 * n))
		for b.Loop() {
			sinkInt32 += DotUint8Int8(a, w)
		}
	})
}

// BenchmarkAffine at the head shapes of real nets: Stockfish 15.1's first
// layer (1024 -> 16), a 512 -> 32 layer (Stockfish 12's first is 512 -> 32),
// and the small 32 -> 32 and 32 -> 1 layers behind them.
func BenchmarkAffine(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 11))
	for _, shape := range [][2]int{{1024, 16}, {512, 32}, {32, 32}, {32, 1}} {
		cols, rows := shape[0], shape[1]
		for _, im := range impls() {
			b.Run(fmt.Sprintf("%dx%d/%s", cols, rows, im.name), func(b *testing.B) {
				in, w := make([]uint8, cols), make([]int8, rows*cols)
				for i := range in {
					in[i] = uint8(r.IntN(128))
				}
				for i := range w {
					w[i] = int8(r.Uint32())
				}
				out, bias := make([]int32, rows), make([]int32, rows)
				b.SetBytes(int64(cols + rows*cols + 8*rows))
				withImpl(im, func() {
					for b.Loop() {
						Affine(out, in, w, bias)
					}
				})
			})
		}
	}
}

func BenchmarkDotReLU(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 12))
	benchBoth(b, benchWidths, func(b *testing.B, n int) {
		acc, w := rand16(r, n), rand16(r, n)
		b.SetBytes(int64(2 * 2 * n))
		for b.Loop() {
			sinkInt32 += DotReLU(acc, w)
		}
	})
}

func BenchmarkDotClippedReLU(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 13))
	benchBoth(b, benchWidths, func(b *testing.B, n int) {
		acc, w := rand16(r, n), rand16(r, n)
		b.SetBytes(int64(2 * 2 * n))
		for b.Loop() {
			sinkInt32 += DotClippedReLU(acc, w, 255)
		}
	})
}

func BenchmarkDotSquaredClippedReLU(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 14))
	benchBoth(b, benchWidths, func(b *testing.B, n int) {
		acc, w := rand16(r, n), rand16(r, n)
		b.SetBytes(int64(2 * 2 * n))
		for b.Loop() {
			sinkInt32 += DotSquaredClippedReLU(acc, w, 255)
		}
	})
}

// BenchmarkAddSubInt32 is the PSQT companion (8 buckets), pure Go.
func BenchmarkAddSubInt32(b *testing.B) {
	dst, src, add, sub := make([]int32, 8), make([]int32, 8), make([]int32, 8), make([]int32, 8)
	b.SetBytes(4 * 4 * 8)
	for b.Loop() {
		AddSubInt32(dst, src, add, sub)
	}
}
