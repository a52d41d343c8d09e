package inspect

import (
	"testing"

	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/nets/sfnet"
	_ "github.com/nnuelab/nnuelab/nets/sfnet/sf151" // exports Stockfish 15.1's net into the cache when missing
)

// BenchmarkSF151 measures `nets show sf15.1 --data` on 100k positions of
// the committed classical-2m set (issue 30's goal: under 30 s on 2 cores):
// the activation statistics alone, then the page with its figures. It
// needs Stockfish 15.1 installed (make deps), whose net is exported once
// into the cache.
//
//	go test ./nets/inspect -run X -bench SF151 -benchtime 1x
func BenchmarkSF151(b *testing.B) {
	if _, err := sfnet.Cached151(); err != nil {
		b.Skipf("Stockfish 15.1's net: %v", err)
	}
	v, err := Load("sf15.1", "")
	if err != nil {
		b.Fatal(err)
	}
	const positions = 100_000
	const data = "../../datasets/classical-2m/classical-2m.bin"
	var a *Activations
	b.Run("collect-100k", func(b *testing.B) {
		for i := 0; i < b.N; i++ {
			r, err := datasets.Open(data)
			if err != nil {
				b.Fatal(err)
			}
			a, err = Collect(v, r, data, Options{Limit: positions, Threads: 2})
			r.Close()
			if err != nil {
				b.Fatal(err)
			}
			if a.Positions != positions {
				b.Fatalf("%d positions", a.Positions)
			}
		}
		b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/100k")
		b.ReportMetric(float64(positions*b.N)/b.Elapsed().Seconds(), "positions/s")
	})
	b.Run("page", func(b *testing.B) {
		dir := b.TempDir()
		for i := 0; i < b.N; i++ {
			if _, err := WritePage(dir, v, a, PageOptions{Top: 8}); err != nil {
				b.Fatal(err)
			}
		}
		b.ReportMetric(b.Elapsed().Seconds()/float64(b.N), "s/page")
	})
}
