package uci

import (
	"bytes"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/eval"
)

func TestBenchPositionsAreValid(t *testing.T) {
	if len(benchFENs) < 36 || len(benchFENs) > 50 {
		t.Errorf("%d bench positions, want about 40", len(benchFENs))
	}
	seen := map[string]bool{}
	for _, fen := range benchFENs {
		p, err := board.ParseFEN(fen)
		if err != nil {
			t.Errorf("%s: %v", fen, err)
			continue
		}
		var ml board.MoveList
		p.GenerateLegal(&ml)
		if ml.N == 0 {
			t.Errorf("%s: no legal moves", fen)
		}
		if seen[fen] {
			t.Errorf("%s twice", fen)
		}
		seen[fen] = true
	}
}

func TestBenchInProcess(t *testing.T) {
	var a, b bytes.Buffer
	na, err := Bench(&a, 5, eval.Classical, "")
	if err != nil {
		t.Fatal(err)
	}
	nb, _ := Bench(&b, 5, eval.Classical, "")
	if na != nb || na == 0 {
		t.Errorf("bench 5: %d then %d nodes", na, nb)
	}
	lines := strings.Split(strings.TrimSpace(a.String()), "\n")
	if len(lines) != len(benchFENs)+4 {
		t.Errorf("%d lines, want %d", len(lines), len(benchFENs)+4)
	}
	for _, bad := range []int{0, -1, 1000} {
		if _, err := Bench(&a, bad, eval.Classical, ""); err == nil {
			t.Errorf("depth %d accepted", bad)
		}
	}
	if _, err := Bench(&a, 3, "no-such-arch", ""); err == nil {
		t.Error("unknown arch accepted")
	}
}

// BenchmarkBench times the bench at a reduced depth; nodes/s is the
// figure docs/perf.md reports (at the default depth, via nnuelab bench).
func BenchmarkBench(b *testing.B) {
	var nodes uint64
	for i := 0; i < b.N; i++ {
		var w bytes.Buffer
		n, err := Bench(&w, 10, eval.Classical, "")
		if err != nil {
			b.Fatal(err)
		}
		nodes += n
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}
