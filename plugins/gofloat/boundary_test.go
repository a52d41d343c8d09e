package main

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/plugins/sdk"
	"github.com/nnuelab/nnuelab/plugins/sdk/pluginpb"
)

// These tests measure what crossing the plugin boundary costs: the same
// evaluator in process (boards in, scores out) against the plugin process
// through go-plugin's gRPC connection (packed records out, scores back).

var fens = []string{
	"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
	"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
	"rnbqkb1r/pp1p1ppp/2p5/4P3/2B5/8/PPP1NnPP/RNBQK2R w KQkq - 0 6",
	"4k3/1P6/8/3pP3/8/8/6p1/4K2R w K d6 0 40",
}

// boards returns n boards cycling through fens, and their packed records.
func boards(tb testing.TB, n int) ([]sdk.Board, []byte) {
	bs := make([]sdk.Board, n)
	packed := make([]byte, n*sdk.PackedSize)
	for i := range bs {
		b, err := sdk.ParseFEN(fens[i%len(fens)])
		if err != nil {
			tb.Fatal(err)
		}
		bs[i] = b
		b.Pack(packed[i*sdk.PackedSize:])
	}
	return bs, packed
}

// launch builds this plugin and starts it.
func launch(tb testing.TB) (*sdk.Client, pluginpb.EvaluatorClient) {
	tb.Helper()
	bin := filepath.Join(tb.TempDir(), "gofloat")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		tb.Fatalf("go build: %v\n%s", err, out)
	}
	cl, err := sdk.Launch(sdk.LaunchConfig{Path: bin})
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(cl.Kill)
	api, err := cl.Evaluator()
	if err != nil {
		tb.Fatal(err)
	}
	return cl, api
}

// The figures the benchmarks report: ns/position in process, through the
// plugin's batch call at several batch sizes, and per session round trip.
func BenchmarkBoundary(b *testing.B) {
	_, api := launch(b)
	ctx := context.Background()
	for _, n := range []int{256, 1024, 4096} {
		bs, packed := boards(b, n)
		scores := make([]float32, n)
		b.Run(fmt.Sprintf("inprocess/batch=%d", n), func(b *testing.B) {
			for b.Loop() {
				_ = evaluator{}.EvaluateBatch(bs, scores)
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/position")
		})
		b.Run(fmt.Sprintf("plugin/batch=%d", n), func(b *testing.B) {
			for b.Loop() {
				if _, err := api.EvaluateBatch(ctx, &pluginpb.BatchRequest{Packed: packed}); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/position")
		})
	}
	b.Run("plugin/session-eval", func(b *testing.B) {
		s, err := api.Session(ctx)
		if err != nil {
			b.Fatal(err)
		}
		defer s.CloseSend()
		root := &pluginpb.Op{Op: &pluginpb.Op_NewGame{NewGame: &pluginpb.NewGame{Position: &pluginpb.Position{Fen: fens[0]}}}}
		push := &pluginpb.Op{Op: &pluginpb.Op_Push{Push: &pluginpb.Delta{Removed: []byte{0, 12}, Added: []byte{0, 28}}}}
		pop := &pluginpb.Op{Op: &pluginpb.Op_Pop{Pop: &pluginpb.Pop{}}}
		if err := s.Send(&pluginpb.SessionRequest{Ops: []*pluginpb.Op{root}}); err != nil {
			b.Fatal(err)
		}
		if _, err := s.Recv(); err != nil {
			b.Fatal(err)
		}
		req := &pluginpb.SessionRequest{Ops: []*pluginpb.Op{push, pop}, Eval: true}
		for b.Loop() {
			if err := s.Send(req); err != nil {
				b.Fatal(err)
			}
			if _, err := s.Recv(); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestBatchBoundary checks that a batch crosses the boundary as one call,
// not a round trip per position: its overhead per position must stay far
// below one round trip (46-120 µs here, plugins/README.md). The bound, 20
// µs, is that loose on purpose: on a loaded machine the overhead reached
// 5 µs (load average 11 on 2 cores), and timing is the benchmark's job
// (BenchmarkBoundary reports the real figures; the design target is 1 µs).
func TestBatchBoundary(t *testing.T) {
	if testing.Short() {
		t.Skip("timing test")
	}
	_, api := launch(t)
	const n = 4096
	bs, packed := boards(t, n)
	scores := make([]float32, n)
	ctx := context.Background()
	best := func(f func()) time.Duration {
		m := time.Duration(1 << 62)
		for range 7 {
			start := time.Now()
			f()
			m = min(m, time.Since(start))
		}
		return m
	}
	var resp *pluginpb.BatchResponse
	var err error
	across := best(func() {
		if resp, err = api.EvaluateBatch(ctx, &pluginpb.BatchRequest{Packed: packed}); err != nil {
			t.Fatal(err)
		}
	})
	in := best(func() { _ = evaluator{}.EvaluateBatch(bs, scores) })
	for i := range scores {
		if resp.Scores[i] != scores[i] {
			t.Fatalf("position %d: plugin %v, in process %v", i, resp.Scores[i], scores[i])
		}
	}
	per := func(d time.Duration) float64 { return float64(d.Nanoseconds()) / n / 1000 }
	t.Logf("%d positions: in process %.3f µs/position, across the boundary %.3f µs/position, overhead %.3f µs/position",
		n, per(in), per(across), per(across-in))
	if per(across-in) > 20 {
		t.Errorf("the boundary costs %.3f µs per position, want at most 20, far below a round trip (target 1)", per(across-in))
	}
}
