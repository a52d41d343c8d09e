package nets

import (
	"context"
	"sync"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/board/boardtest"
	"github.com/nnuelab/nnuelab/engine/eval"
	"github.com/nnuelab/nnuelab/engine/search"
)

// TestClonedEvaluatorsInParallel: evaluators cloned for the threads of a
// parallel search share the net and give, each on its own goroutine, the
// evaluations a lone evaluator gives; a two-thread search over them plays
// legal moves. go test -race checks that evaluating shares nothing mutable.
func TestClonedEvaluatorsInParallel(t *testing.T) {
	fens := boardtest.Positions()[:200]
	for _, arch := range []string{"leorik-3.1", "koivisto-16-256", "halfkp-128", "chess768"} {
		ev, err := eval.New(arch, "")
		if err != nil {
			t.Fatal(err)
		}
		c, ok := ev.(eval.Cloner)
		if !ok {
			t.Fatalf("%s: evaluator cannot clone", arch)
		}
		want := make([]int, len(fens))
		for i, f := range fens {
			p := mustPos(t, f)
			ev.Reset(p)
			want[i] = ev.Evaluate(p)
		}
		var wg sync.WaitGroup
		for range 2 {
			cl := c.Clone()
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i, f := range fens {
					p := mustPos(t, f)
					cl.Reset(p)
					if got := cl.Evaluate(p); got != want[i] {
						t.Errorf("%s: clone evaluates %s as %d, original %d", arch, f, got, want[i])
						return
					}
				}
			}()
		}
		wg.Wait()
		tt, _ := search.NewTT(8)
		pool := search.NewPool(tt, []eval.Evaluator{ev, c.Clone()})
		p := mustPos(t, fens[7])
		if res := pool.Search(context.Background(), p, search.Limits{Depth: 6}, nil); !p.IsLegal(res.Best) {
			t.Errorf("%s: two-thread search played %v", arch, res.Best)
		}
	}
}

func mustPos(t *testing.T, fen string) *board.Position {
	t.Helper()
	p, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	return p
}
