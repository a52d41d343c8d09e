package vec

import (
	"math/rand/v2"
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/internal/cputime"
)

// BenchmarkFMAPeak measures the machine's peak float32 rate on one core
// with a plain FMA loop (12 independent chains), in AVX2 and, where the CPU
// has it, AVX-512. It reports GFLOP/s of wall time and per CPU-second; the
// trainer's throughput report compares against it.
func BenchmarkFMAPeak(b *testing.B) {
	for _, tc := range []struct {
		name string
		wide bool
	}{{"avx2", false}, {"avx512", true}} {
		b.Run(tc.name, func(b *testing.B) {
			if FMAPeak(1, tc.wide) == 0 {
				b.Skip("instruction set not available")
			}
			const iters = 1 << 20
			var flops float64
			start, cpu0 := time.Now(), cputime.Process().Seconds()
			for i := 0; i < b.N; i++ {
				flops += FMAPeak(iters, tc.wide)
			}
			b.ReportMetric(flops/time.Since(start).Seconds()/1e9, "GFLOP/s")
			if cpu := cputime.Process().Seconds() - cpu0; cpu > 0 {
				b.ReportMetric(flops/cpu/1e9, "GFLOP/cpu-s")
			}
		})
	}
}

func BenchmarkSumRows(b *testing.B) {
	for _, width := range []int{256, 640} {
		rng := rand.New(rand.NewPCG(1, 1))
		m := randVec(rng, 768*width, 1)
		idx := make([]int32, 30)
		for i := range idx {
			idx[i] = int32(rng.IntN(768))
		}
		dst, init := make([]float32, width), randVec(rng, width, 1)
		b.Run(Implementation()+"/"+itoa(width), func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				SumRows(dst, init, m, width, idx)
			}
			b.ReportMetric(float64(len(idx)*width)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gadd/s")
		})
	}
}

func BenchmarkAdam(b *testing.B) {
	rng := rand.New(rand.NewPCG(1, 1))
	const n = 1 << 16
	p, m, v, g := randVec(rng, n, 1), make([]float32, n), make([]float32, n), randVec(rng, n, 1)
	h := AdamStep(10, 0.001, 0.9, 0.999, 1e-8, 0.01, true, 2)
	for i := 0; i < b.N; i++ {
		AdamUpdate(p, m, v, g, &h)
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds()/1e9, "Gparam/s")
}

func itoa(n int) string {
	s := ""
	for n > 0 || s == "" {
		s = string(rune('0'+n%10)) + s
		n /= 10
	}
	return s
}

// BenchmarkSumRowsRandom sums 30 random rows of 1 KB (256 floats) a call,
// as an accumulator's row sum reads them, from matrices of 1 MB (in L2),
// 42 MB (halfkp's transformer) and 205 MB, in GB of rows read per
// CPU-second: how fast the sparse rows come from each level of memory.
func BenchmarkSumRowsRandom(b *testing.B) {
	const width, per, calls = 256, 30, 1024
	for _, rows := range []int{1024, 41024, 200000} {
		rng := rand.New(rand.NewPCG(1, 1))
		m := randVec(rng, rows*width, 1) // written, so every page is real
		idx := make([]int32, per*calls)
		for i := range idx {
			idx[i] = int32(rng.IntN(rows))
		}
		dst := make([]float32, width)
		b.Run(itoa(rows*width*4>>20)+"MB", func(b *testing.B) {
			cpu0 := cputime.Process().Seconds()
			for i := 0; i < b.N; i++ {
				for k := 0; k < calls; k++ {
					SumRows(dst, nil, m, width, idx[k*per:][:per])
				}
			}
			if cpu := cputime.Process().Seconds() - cpu0; cpu > 0 {
				b.ReportMetric(float64(per*calls*width*4)*float64(b.N)/cpu/1e9, "GB/cpu-s")
			}
		})
	}
}
