package syzygy

import (
	"strconv"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/internal/cputime"
)

// cpuTimer resets the benchmark's timer and returns a function that
// reports the process's CPU time over the loop between as cpu-ns/op: on a
// machine shared with other jobs it varies less than the wall time.
func cpuTimer(b *testing.B) func() {
	b.ResetTimer()
	start := cputime.Process()
	return func() {
		b.ReportMetric(float64(cputime.Process()-start)/float64(b.N), "cpu-ns/op")
	}
}

// BenchmarkProbeWDL times WDL probes of TestAgainstFathom's sample
// (about 20,000 positions over every committed table, en passant
// included) in this package and in Fathom, the C reference prober:
// ns/op is nanoseconds a probe for both, so that their ratio can be
// quoted, and cpu-ns/op the same in CPU time (the figure to compare on a
// busy machine). Both have their tables loaded and their positions parsed
// before the clock starts; Fathom times its own loop of tb_probe_wdl
// calls (testdata/fathom/driver.c -bench) over positions it holds as 88
// bytes each, one after the other.
//
//   - go: ProbeWDL on the sample's board.Positions, as an engine calls
//     it. Each of the 20,000 holds its own 256-ply state stack, so the
//     probe's first reads of the board miss the caches, where a search's
//     one position would be in them.
//   - go-core: the probe on the positions already copied, laid out one
//     after the other as Fathom's are: the prober against the prober.
//   - go-parallel: ProbeWDL from GOMAXPROCS goroutines on shared tables.
//   - fathom: the reference.
func BenchmarkProbeWDL(b *testing.B) {
	sample := fullSample(b, false)
	b.Run("go", func(b *testing.B) {
		tables, err := Open(tablesDir)
		if err != nil {
			b.Fatal(err)
		}
		defer tables.Close()
		for _, s := range sample { // load every table first
			if _, err := tables.ProbeWDL(s.pos); err != nil {
				b.Fatalf("%s: %v", s.fen, err)
			}
		}
		defer cpuTimer(b)()
		for i := 0; i < b.N; i++ {
			if _, err := tables.ProbeWDL(sample[i%len(sample)].pos); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("go-core", func(b *testing.B) {
		// The prober without ProbeWDL's checks and copy of the board
		// position, on positions laid out contiguously as Fathom's
		// driver holds them: what the probe itself costs.
		tables, err := Open(tablesDir)
		if err != nil {
			b.Fatal(err)
		}
		defer tables.Close()
		ps := make([]position, len(sample))
		for i, s := range sample {
			if err := tables.prepare(s.pos, &ps[i]); err != nil {
				b.Fatal(err)
			}
			if _, _, err := tables.probeWDL(&ps[i]); err != nil {
				b.Fatal(err)
			}
		}
		defer cpuTimer(b)()
		for i := 0; i < b.N; i++ {
			if _, _, err := tables.probeWDL(&ps[i%len(ps)]); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("go-parallel", func(b *testing.B) {
		tables, err := Open(tablesDir)
		if err != nil {
			b.Fatal(err)
		}
		defer tables.Close()
		for _, s := range sample {
			if _, err := tables.ProbeWDL(s.pos); err != nil {
				b.Fatalf("%s: %v", s.fen, err)
			}
		}
		b.ResetTimer()
		b.RunParallel(func(pb *testing.PB) {
			// Each goroutine probes its own copies: a board.Position is
			// not safe to share (the tables are).
			local := make([]*board.Position, 0, len(sample))
			for _, s := range sample {
				local = append(local, s.pos.Copy())
			}
			i := 0
			for pb.Next() {
				if _, err := tables.ProbeWDL(local[i%len(local)]); err != nil {
					b.Error(err)
					return
				}
				i++
			}
		})
	})
	b.Run("fathom", func(b *testing.B) {
		fens := make([]string, len(sample))
		for i, s := range sample {
			fens[i] = s.fen
		}
		fathomDriver(b) // built before the clock starts
		b.ResetTimer()
		rounds := max(1, b.N/len(sample))
		line := runFathom(b, []string{"-bench", strconv.Itoa(rounds), tablesDir}, fens)
		f := strings.Fields(line[0])
		if len(f) != 4 {
			b.Fatalf("driver says %q", line[0])
		}
		ns, err1 := strconv.ParseFloat(f[0], 64)
		cpu, err2 := strconv.ParseFloat(f[1], 64)
		if err1 != nil || err2 != nil {
			b.Fatalf("driver says %q", line[0])
		}
		b.ReportMetric(ns, "ns/op")
		b.ReportMetric(cpu, "cpu-ns/op")
	})
}
