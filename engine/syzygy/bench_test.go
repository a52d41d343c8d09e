package syzygy

import (
	"bufio"
	"fmt"
	"io"
	"os/exec"
	"runtime"
	"slices"
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
//   - paired: see benchPaired; the figure to quote against Fathom.
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
	b.Run("paired", func(b *testing.B) { benchPaired(b, sample) })
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

// benchPaired alternates passes over the sample between the probers
// within one benchmark, so that both see the same machine load (the
// separate benchmarks run seconds apart, and on a machine shared with
// other jobs their CPU time per probe drifts by a third between runs).
// A round is one pass of each, in a rotating order:
//
//   - go: ProbeWDL on copies of the sample's boards laid out one after
//     the other, as Fathom's driver holds its positions (an array of its
//     input, read in order); each copy shares its original's state stack.
//   - go-scattered: ProbeWDL on the sample's own boards, each allocated
//     on its own between the sample's other allocations (the go
//     benchmark's layout).
//   - fathom: tb_probe_wdl in the driver's -serve mode, timing its own
//     pass.
//
// Each side's figure is its thread's CPU time a probe; ns/op and
// cpu-ns/op are go's median over the rounds, fathom-cpu-ns/op and
// go-scattered-cpu-ns/op the others', and go/fathom and
// go-scattered/fathom the medians of the per-round ratios. An op is one
// probe of each prober; -benchtime sets the rounds (a round is about 3 x
// 20,000 probes).
func benchPaired(b *testing.B, sample []sample) {
	tables, err := Open(tablesDir)
	if err != nil {
		b.Fatal(err)
	}
	defer tables.Close()
	boards := make([]board.Position, len(sample))
	fens := make([]string, len(sample))
	for i, s := range sample {
		boards[i] = *s.pos
		fens[i] = s.fen
	}
	fathom := startFathomServer(b, fens)
	defer fathom.close()
	runtime.LockOSThread() // the thread clock follows one thread
	defer runtime.UnlockOSThread()
	pass := func(probe func(i int) (WDL, error)) float64 {
		start := cputime.Thread()
		for i := range sample {
			if _, err := probe(i); err != nil {
				b.Fatalf("%s: %v", sample[i].fen, err)
			}
		}
		return float64(cputime.Thread()-start) / float64(len(sample))
	}
	goPass := func() float64 {
		return pass(func(i int) (WDL, error) { return tables.ProbeWDL(&boards[i]) })
	}
	scatteredPass := func() float64 {
		return pass(func(i int) (WDL, error) { return tables.ProbeWDL(sample[i].pos) })
	}
	goPass() // load every table
	scatteredPass()
	fathom.pass()

	rounds := max(1, b.N/len(sample))
	var goNs, scNs, fNs, goRatio, scRatio []float64
	b.ResetTimer()
	for r := 0; r < rounds; r++ {
		var g, sc, f float64
		for k := 0; k < 3; k++ {
			switch (r + k) % 3 {
			case 0:
				g = goPass()
			case 1:
				sc = scatteredPass()
			case 2:
				f = fathom.pass()
			}
		}
		goNs, scNs, fNs = append(goNs, g), append(scNs, sc), append(fNs, f)
		goRatio, scRatio = append(goRatio, g/f), append(scRatio, sc/f)
	}
	b.StopTimer()
	median := func(x []float64) float64 {
		x = slices.Clone(x)
		slices.Sort(x)
		if len(x)%2 == 1 {
			return x[len(x)/2]
		}
		return (x[len(x)/2-1] + x[len(x)/2]) / 2
	}
	b.ReportMetric(median(goNs), "ns/op")
	b.ReportMetric(median(goNs), "cpu-ns/op")
	b.ReportMetric(median(scNs), "go-scattered-cpu-ns/op")
	b.ReportMetric(median(fNs), "fathom-cpu-ns/op")
	b.ReportMetric(median(goRatio), "go/fathom")
	b.ReportMetric(median(scRatio), "go-scattered/fathom")
	b.ReportMetric(float64(rounds), "rounds")
}

// fathomServer is the Fathom driver in its -serve mode: it holds the
// sample's positions and times a pass over them on request.
type fathomServer struct {
	tb  testing.TB
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

func startFathomServer(tb testing.TB, fens []string) *fathomServer {
	tb.Helper()
	cmd := exec.Command(fathomDriver(tb), "-serve", tablesDir)
	in, err := cmd.StdinPipe()
	if err != nil {
		tb.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		tb.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		tb.Fatal(err)
	}
	s := &fathomServer{tb: tb, cmd: cmd, in: in, out: bufio.NewReader(out)}
	if _, err := fmt.Fprintf(in, "%s\nend\n", strings.Join(fens, "\n")); err != nil {
		s.close()
		tb.Fatalf("fathom driver -serve: %v\n%s", err, stderr.String())
	}
	return s
}

// pass asks the driver for one timed pass and returns its CPU time a
// probe.
func (s *fathomServer) pass() float64 {
	s.tb.Helper()
	if _, err := io.WriteString(s.in, "1\n"); err != nil {
		s.tb.Fatalf("fathom driver -serve: %v", err)
	}
	line, err := s.out.ReadString('\n')
	if err != nil {
		s.tb.Fatalf("fathom driver -serve: %v (said %q)", err, line)
	}
	f := strings.Fields(line)
	if len(f) != 4 {
		s.tb.Fatalf("fathom driver -serve says %q", line)
	}
	cpu, err := strconv.ParseFloat(f[1], 64)
	if err != nil {
		s.tb.Fatalf("fathom driver -serve says %q", line)
	}
	return cpu
}

func (s *fathomServer) close() {
	s.in.Close()
	s.cmd.Wait()
}
