package train

import (
	"strconv"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/internal/cputime"
)

// BenchmarkStep times one optimizer step of 16384 positions (the default
// batch) per architecture on one or two threads and reports positions/s and the
// achieved GFLOP/s (the operation count of engine.lastFlops), per second of
// wall time and per CPU-second (other jobs on a shared machine lower the
// first, not the second). Names ending in /factorized train the design
// with virtual king-bucket rows, as the trainer's default (auto) does
// (quantization-aware training stays off in every case).
func BenchmarkStep(b *testing.B) {
	recs := ptrs(testRecords(b, 16384))
	for _, bc := range []struct {
		name    string
		threads int
	}{{"chess768", 1}, {"chess768", 2}, {"koivisto-5.13", 1}, {"koivisto-7.4", 1}, {"koivisto-16", 1}, {"leorik-3.1", 1},
		{"leorik-3.2", 1}, {"leorik-3.2", 2}, {"halfkp", 1}, {"halfkp", 2}, {"rengar", 1}, {"rengar", 2},
		{"halfkp/factorized", 1}, {"halfkp/factorized", 2}, {"koivisto-16/factorized", 1}, {"koivisto-16/factorized", 2}} {
		name, factorized := strings.CutSuffix(bc.name, "/factorized")
		b.Run(bc.name+"/threads="+strconv.Itoa(bc.threads), func(b *testing.B) {
			spec, err := archs.Load(name)
			if err != nil {
				b.Fatal(err)
			}
			var opts []Option
			if factorized {
				opts = append(opts, Factorized())
			}
			m, err := NewModel(spec, 1, opts...)
			if err != nil {
				b.Fatal(err)
			}
			e := newEngine(m, DefaultConfig().Loss, bc.threads)
			o := DefaultConfig().Optim
			var flops float64
			cpu0 := cputime.Process().Seconds()
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				e.step(recs, &hyper{o: &o, lr: 1e-4, step: i + 1})
				flops += e.lastFlops()
			}
			s := b.Elapsed().Seconds()
			b.ReportMetric(float64(len(recs))*float64(b.N)/s, "pos/s")
			b.ReportMetric(flops/s/1e9, "GFLOP/s")
			if cpu := cputime.Process().Seconds() - cpu0; cpu > 0 {
				b.ReportMetric(float64(len(recs))*float64(b.N)/cpu, "pos/cpu-s")
				b.ReportMetric(flops/cpu/1e9, "GFLOP/cpu-s")
			}
		})
	}
}
