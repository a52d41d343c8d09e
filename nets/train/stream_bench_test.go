package train

import (
	"path/filepath"
	"testing"

	"github.com/nnuelab/nnuelab/datasets"
)

// BenchmarkStream times the training stream alone (decoding, filter,
// interleave, shuffle buffer, hand-over) on generation 1's first shard of
// own self-play with the default filter: positions per second of one
// goroutine, to set against the trainer's positions per CPU-second.
func BenchmarkStream(b *testing.B) {
	files, _ := filepath.Glob("../../datasets/selfplay-gen1/s1-of-4.binpack")
	filter, err := datasets.ParseFilter("default")
	if err != nil {
		b.Fatal(err)
	}
	cfg := Config{Data: files, ValFraction: 0.02, Filter: filter}
	_, sd, err := scanStream(&cfg, 1)
	if err != nil {
		b.Fatal(err)
	}
	src := newStreamSource(sd, 1, 1<<20, 16384, 0)
	defer src.close()
	var k int64
	for b.Loop() {
		if _, err := src.next(k, 16384); err != nil {
			b.Fatal(err)
		}
		k += 16384
	}
	b.ReportMetric(float64(k)/b.Elapsed().Seconds(), "positions/s")
}
