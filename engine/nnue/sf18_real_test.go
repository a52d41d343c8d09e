package nnue_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board/boardtest"
	"github.com/nnuelab/nnuelab/engine/nnue"
	"github.com/nnuelab/nnuelab/nets/sfnet/sfnettest"
)

// Stockfish 18's real nets, from the npm package stockfish@18.0.8 (which
// `make sf-npm` installs; sfnettest extracts the nets into the net cache
// once). Their evaluations are checked against the engine itself in
// cmd/nnuelab (TestEvalTraceSF18); here, that the incremental evaluator
// (threat features included) equals a from-scratch evaluation, and the
// loading errors.

// TestSF18RealIncremental walks random search trees (moves, null moves,
// unmakes) from reference and lopsided positions and checks at every node
// that the evaluator, which keeps the big net's accumulators (threats
// included) and the small net's incrementally, gives the from-scratch
// value with the same steps; with the refresh cache (the arch's setting)
// and without, H unlimited and 2.
func TestSF18RealIncremental(t *testing.T) {
	checkRealIncremental(t, sfReal(t, sfnettest.V18, "sf18"), boardtest.Positions()[200:204], 18)
}

// TestSF18RealLoadErrors loads Stockfish 18's big net with the wrong
// architectures, 17.1's big net with sf18's, and a truncated copy: the
// errors name the file and what the architecture expected.
func TestSF18RealLoadErrors(t *testing.T) {
	paths := sfnettest.CachedNets(t, sfnettest.V18)
	big := paths["nn-c288c895ea92.nnue"]
	old := sfnettest.CachedNets(t, sfnettest.V171)["nn-1c0000000000.nnue"]
	f, err := os.Open(big)
	if err != nil {
		t.Fatal(err)
	}
	head := make([]byte, 50_000_000) // inside the threat weights
	if _, err := f.Read(head); err != nil {
		t.Fatal(err)
	}
	f.Close()
	cut := filepath.Join(t.TempDir(), "nn-c288c895ea92.nnue")
	if err := os.WriteFile(cut, head, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		arch, file string
		substr     []string
	}{
		{"sf18", old, []string{old, "arch sf18", "network hash", "HalfKAv2_hm 22528 + Full_Threats 79856 -> 1024x2 -> 8 x (16 -> 32 -> 1), PSQT 8, LEB128"}},
		{"sf17.1", big, []string{big, "arch sf17.1", "network hash", "HalfKAv2_hm 22528 -> 3072x2"}},
		{"sf17.1-small", big, []string{big, "network hash", "-> 128x2"}},
		{"sf18", cut, []string{cut, "truncated", "threat weights (int8)"}},
	} {
		spec, err := archs.Load(tc.arch)
		if err != nil {
			t.Fatal(err)
		}
		_, err = nnue.LoadFile(spec, tc.file)
		if err == nil {
			t.Errorf("%s with %s: no error", tc.file, tc.arch)
			continue
		}
		for _, s := range tc.substr {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s with %s: error %q does not mention %q", tc.file, tc.arch, err, s)
			}
		}
	}
}

// BenchmarkSF18 measures evaluations per second of sf18 (both nets, 18's
// Eval::evaluate) along search-like trees:
//
//	go test ./engine/nnue -run X -bench SF18 -count 5
func BenchmarkSF18(b *testing.B) {
	n := sfReal(b, sfnettest.V18, "sf18")
	ev := nnue.NewEvaluator(n)
	positions := nnue.BenchPositions(b)
	evals := 0
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p := positions[i%len(positions)]
		ev.Reset(p)
		evals += nnue.TreeWalk(ev, p, 2)
	}
	b.ReportMetric(float64(evals)/b.Elapsed().Seconds(), "evals/s")
}
