package nnue_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/board/boardtest"
	"github.com/nnuelab/nnuelab/engine/nnue"
	"github.com/nnuelab/nnuelab/nets"
	"github.com/nnuelab/nnuelab/nets/sfnet/sfnettest"
)

// Stockfish 17.1's real nets, from the npm package stockfish@17.1.0 (which
// `make sf-npm` installs; sfnettest extracts the nets into the net cache
// once). Their evaluations are checked against the engine itself in
// cmd/nnuelab (TestEvalTraceSF17); here, that the incremental evaluator
// equals a from-scratch evaluation with both nets, and the loading errors.

// sfReal loads a Stockfish release's real nets (npm's stockfish@VERSION,
// extracted into the net cache) with the arch that reproduces it.
func sfReal(t testing.TB, version, arch string) *nnue.Network {
	t.Helper()
	sfnettest.CachedNets(t, version)
	spec, err := archs.Load(arch)
	if err != nil {
		t.Fatal(err)
	}
	n, err := nets.Load(spec, "")
	if err != nil {
		t.Fatal(err)
	}
	if n.Small == nil {
		t.Fatalf("%s loaded without its small net", arch)
	}
	return n
}

// TestSF17RealIncremental walks random search trees (moves, null moves,
// unmakes) from reference and lopsided positions and checks at every node
// that the evaluator, which keeps both nets' accumulators incrementally,
// gives the from-scratch value with the same steps; with the refresh
// cache (the arch's setting) and without, H unlimited and 2.
func TestSF17RealIncremental(t *testing.T) {
	checkRealIncremental(t, sfReal(t, sfnettest.V171, "sf17.1"), boardtest.Positions()[100:104], 171)
}

// checkRealIncremental walks random search trees from four fixed positions
// and extra, checking at every node that the incremental evaluator (H
// unlimited with the refresh cache, and H=2 without) gives n's
// from-scratch value and trace, and that both nets valued positions.
func checkRealIncremental(t *testing.T, n *nnue.Network, extra []string, seed uint64) {
	t.Helper()
	fens := []string{board.StartFEN,
		"8/kp4Q1/r4R2/p3p3/P2P4/3b2P1/1B1P3P/R1N3K1 b - - 0 31",
		"4k3/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1",
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	}
	fens = append(fens, extra...)
	used := map[string]int{}
	for _, cfg := range []struct {
		h     int
		cache bool
	}{{0, true}, {2, false}} {
		rng := rand.New(rand.NewPCG(uint64(cfg.h), seed))
		ev := nnue.NewEvaluatorWith(n, cfg.h, cfg.cache)
		checks := 0
		var visit func(p *board.Position, depth int)
		visit = func(p *board.Position, depth int) {
			var a, b nnue.Trace
			if inc, full := ev.Raw(p, &a), n.Evaluate(p, &b); inc != full || *a.Stockfish != *b.Stockfish {
				t.Fatalf("H=%d cache=%v %s: incremental %d %+v, from scratch %d %+v", cfg.h, cfg.cache, p.FEN(), inc, *a.Stockfish, full, *b.Stockfish)
			}
			used[b.Stockfish.Net]++
			checks++
			if depth == 0 {
				return
			}
			var ml board.MoveList
			p.GenerateLegal(&ml)
			for k := 0; k < 2 && ml.N > 0; k++ {
				if !p.InCheck() && rng.IntN(8) == 0 {
					p.MakeNullMove()
					ev.Push(&board.Delta{})
					visit(p, depth-1)
					p.UnmakeNullMove()
					ev.Pop()
					continue
				}
				p.MakeMove(ml.Moves[rng.IntN(ml.N)])
				ev.Push(p.LastDelta())
				visit(p, depth-1)
				p.UnmakeMove()
				ev.Pop()
			}
		}
		for _, fen := range fens {
			p, err := board.ParseFEN(fen)
			if err != nil {
				t.Fatal(err)
			}
			ev.Reset(p)
			visit(p, 5)
		}
		if checks < 400 {
			t.Fatalf("only %d checks", checks)
		}
	}
	t.Logf("nets whose value counted: %v", used)
	if used["small"] == 0 || used["big"] == 0 {
		t.Errorf("both nets should have counted: %v", used)
	}
}

// TestSF17RealLoadErrors loads Stockfish 17.1's nets with the wrong
// architectures and damaged: the errors name the file and what the
// architecture expected.
func TestSF17RealLoadErrors(t *testing.T) {
	paths := sfnettest.CachedNets(t, sfnettest.V171)
	big, small := paths["nn-1c0000000000.nnue"], paths["nn-37f18f62d772.nnue"]
	data, err := os.ReadFile(small)
	if err != nil {
		t.Fatal(err)
	}
	cut := filepath.Join(t.TempDir(), "nn-37f18f62d772.nnue")
	if err := os.WriteFile(cut, data[:len(data)-100], 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		arch, file string
		substr     []string
	}{
		{"sf17.1", small, []string{small, "arch sf17.1", "network hash", "HalfKAv2_hm 22528 -> 3072x2 -> 8 x (16 -> 32 -> 1), PSQT 8, LEB128"}},
		{"sf17.1-small", big, []string{big, "network hash", "-> 128x2"}},
		{"sf15.1", big, []string{big, "network hash"}},
		{"sf17.1-small", cut, []string{cut, "truncated", "layer stack 7"}},
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

// BenchmarkSF17 measures evaluations per second of sf17.1 (both nets,
// Eval::evaluate) along search-like trees, as BenchmarkShipped does for the
// shipped nets:
//
//	go test ./engine/nnue -run X -bench SF17 -count 5
func BenchmarkSF17(b *testing.B) {
	sfnettest.CachedNets(b, sfnettest.V171)
	for _, name := range []string{"sf17.1", "sf17.1-small"} {
		spec, err := archs.Load(name)
		if err != nil {
			b.Fatal(err)
		}
		n, err := nets.Load(spec, "")
		if err != nil {
			b.Fatal(err)
		}
		b.Run(name, func(b *testing.B) {
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
		})
	}
}
