package nnue_test

import (
	"testing"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/nnue"
	"github.com/nnuelab/nnuelab/nets"
)

// BenchmarkShipped is BenchmarkIncremental on the nets that nnuelab ships
// (its own trained nets and the published ones), as the engine loads them,
// with the default history depth (unlimited) and without and with a refresh
// cache. Unlike the synthetic nets of BenchmarkIncremental, these have real
// weight tables, so their sizes and cache misses count.
//
//	go test ./engine/nnue -run X -bench Shipped -count 5
func BenchmarkShipped(b *testing.B) {
	entries, err := nets.Manifest()
	if err != nil {
		b.Fatal(err)
	}
	for _, e := range entries {
		spec, err := archs.Load(e.Arch)
		if err != nil {
			b.Fatal(err)
		}
		net, err := nets.Load(spec, "")
		if err != nil {
			b.Fatalf("%s: %v", e.Arch, err)
		}
		for _, cache := range []bool{false, true} {
			name := e.Arch
			if cache {
				name += "/cache"
			}
			b.Run(name, func(b *testing.B) {
				ev := nnue.NewEvaluatorWith(net, 0, cache)
				positions := nnue.BenchPositions(b)
				evals := 0
				b.ResetTimer()
				for i := 0; i < b.N; i++ {
					p := positions[i%len(positions)]
					ev.Reset(p)
					evals += nnue.TreeWalk(ev, p, 2)
				}
				b.ReportMetric(float64(evals)/b.Elapsed().Seconds(), "evals/s")
			})
		}
	}
}
