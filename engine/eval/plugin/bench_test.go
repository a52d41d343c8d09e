package plugin

import (
	"context"
	"fmt"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/eval"
)

// BenchmarkHost measures the host's paths end to end: EvaluateBatch from
// engine positions (packing included) through each Go-served and Node-served
// plugin, a search-style evaluation (push, evaluate, pop: one session round
// trip), and the in-process classical evaluation for scale.
func BenchmarkHost(b *testing.B) {
	const n = 4096
	recs := playout(&testing.T{}, recorder{}, 5, n)
	ps := make([]*board.Position, 0, n)
	for len(ps) < n {
		for _, r := range recs {
			p, _ := board.ParseFEN(r.fen)
			ps = append(ps, p)
		}
	}
	ps = ps[:n]
	scores := make([]int, n)
	b.Run("inprocess-classical", func(b *testing.B) {
		ev := eval.NewPeSTO()
		for b.Loop() {
			for i, p := range ps {
				ev.Reset(p)
				scores[i] = ev.Evaluate(p)
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/position")
	})
	for _, name := range []string{"gofloat", "nodepst"} {
		ev, err := Open(name, "")
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("%s/batch", name), func(b *testing.B) {
			for b.Loop() {
				if err := ev.EvaluateBatch(context.Background(), ps, scores); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*n), "ns/position")
		})
		b.Run(fmt.Sprintf("%s/search-eval", name), func(b *testing.B) {
			p := board.StartPosition()
			ev.Reset(p)
			m, _ := p.ParseUCIMove("e2e4")
			for b.Loop() {
				p.MakeMove(m)
				ev.Push(p.LastDelta())
				ev.Evaluate(p)
				p.UnmakeMove()
				ev.Pop()
			}
		})
		ev.Close()
	}
}
