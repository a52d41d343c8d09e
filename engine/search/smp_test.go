package search

import (
	"context"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/eval"
)

func newPool(t testing.TB, threads int) *Pool {
	t.Helper()
	tt, err := NewTT(16)
	if err != nil {
		t.Fatal(err)
	}
	evs := make([]eval.Evaluator, threads)
	for i := range evs {
		evs[i] = eval.NewPeSTO()
	}
	return NewPool(tt, evs)
}

// TestPoolOneThreadIsSearcher: a one-thread pool searches exactly as a lone
// searcher (same move, score and node count), so that bench stays what it
// was and results with Threads 1 stay reproducible.
func TestPoolOneThreadIsSearcher(t *testing.T) {
	for _, fen := range readFENs(t, 6) {
		p := mustFEN(t, fen)
		a := newSearcher(t).Search(context.Background(), p, Limits{Depth: 7}, nil)
		b := newPool(t, 1).Search(context.Background(), p, Limits{Depth: 7}, nil)
		if a.Best != b.Best || a.Score != b.Score || a.Nodes != b.Nodes || a.Depth != b.Depth {
			t.Errorf("%s: searcher %+v, pool %+v", fen, a, b)
		}
	}
}

// TestPoolThreads searches with several threads: legal moves, every
// thread's nodes counted, node limits kept within a few hundred nodes, and
// a stop obeyed at once.
func TestPoolThreads(t *testing.T) {
	pool := newPool(t, 3)
	helped := false
	for _, fen := range readFENs(t, 4) {
		p := mustFEN(t, fen)
		var reports []Info
		res := pool.Search(context.Background(), p, Limits{Depth: 8}, func(i Info) { reports = append(reports, i) })
		if !p.IsLegal(res.Best) || res.Depth < 8 {
			t.Errorf("%s: %+v", fen, res)
		}
		helperNodes := uint64(0)
		for _, h := range pool.threads[1:] {
			helperNodes += h.nodes
		}
		helped = helped || helperNodes > 0
		if res.Nodes != pool.threads[0].nodes+helperNodes {
			t.Errorf("%s: result counts %d nodes, threads %d + %d", fen, res.Nodes, pool.threads[0].nodes, helperNodes)
		}
		if len(reports) == 0 || reports[len(reports)-1].Nodes < pool.threads[0].nodes {
			t.Errorf("%s: reports %+v", fen, reports)
		}
		// Below the limit only when the search ends on its own (a mate
		// found, the maximum depth).
		res = pool.Search(context.Background(), p, Limits{Nodes: 30000}, nil)
		if res.Nodes > 30000+3*64+2000 || res.Nodes < 30000 && res.Depth < MaxPly-1 {
			t.Errorf("%s: node limit 30000 searched %d (depth %d)", fen, res.Nodes, res.Depth)
		}
	}
	ctx, cancel := context.WithCancel(context.Background())
	go func() { time.Sleep(200 * time.Millisecond); cancel() }()
	start := time.Now()
	res := pool.Search(ctx, board.StartPosition(), Limits{}, nil)
	// Unbounded unless cancelled; the bound leaves room for a loaded machine
	// (and the race detector, which runs this test too).
	if el := time.Since(start); el > 5*time.Second || res.Best == board.NullMove {
		t.Errorf("stopped search: %v after %v", res, el)
	}
	// The depth-8 searches above take milliseconds, and on a loaded
	// machine the leader may finish them before a helper goroutine is
	// scheduled (CI once saw that); 200 ms of search leaves the helpers
	// no such excuse.
	for _, h := range pool.threads[1:] {
		helped = helped || h.nodes > 0
	}
	if !helped {
		t.Error("the helper threads searched no node in five searches")
	}
}

// TestPoolConcurrentTable runs a two-thread pool many times on positions
// with tactics; go test -race checks the table's lock-free sharing.
func TestPoolConcurrentTable(t *testing.T) {
	pool := newPool(t, 2)
	for _, fen := range readFENs(t, 10) {
		p := mustFEN(t, fen)
		if res := pool.Search(context.Background(), p, Limits{Depth: 6}, nil); !p.IsLegal(res.Best) {
			t.Errorf("%s: illegal %v", fen, res.Best)
		}
	}
}

// TestMultiPV: k lines with k distinct first moves, scores in order, the
// first line's move the result; as many lines as legal moves at most; one
// line exactly as a single-PV search.
func TestMultiPV(t *testing.T) {
	for _, fen := range readFENs(t, 5) {
		p := mustFEN(t, fen)
		var legal board.MoveList
		p.GenerateLegal(&legal)
		byDepth := map[int][]Info{}
		res := newSearcher(t).Search(context.Background(), p, Limits{Depth: 6, MultiPV: 4}, func(i Info) {
			if i.Bound == BoundExact {
				byDepth[i.Depth] = append(byDepth[i.Depth], i)
			}
		})
		want := min(4, legal.N)
		for d := 1; d <= 6; d++ {
			lines := byDepth[d]
			if len(lines) != want {
				t.Fatalf("%s depth %d: %d lines, want %d", fen, d, len(lines), want)
			}
			var firsts []board.Move
			for k, l := range lines {
				if l.MultiPV != k+1 || len(l.PV) == 0 || !p.IsLegal(l.PV[0]) || slices.Contains(firsts, l.PV[0]) {
					t.Errorf("%s depth %d line %d: %+v", fen, d, k+1, l)
				}
				firsts = append(firsts, l.PV[0])
				if k > 0 && l.Score > lines[k-1].Score {
					t.Errorf("%s depth %d: line %d scores %d above line %d's %d", fen, d, k+1, l.Score, k, lines[k-1].Score)
				}
			}
			if d == 6 && res.Best != lines[0].PV[0] {
				t.Errorf("%s: best %v, first line %v", fen, res.Best, lines[0].PV[0])
			}
		}
		one := newSearcher(t).Search(context.Background(), p, Limits{Depth: 6, MultiPV: 1}, nil)
		plain := newSearcher(t).Search(context.Background(), p, Limits{Depth: 6}, nil)
		one.Time, plain.Time = 0, 0
		if one != plain {
			t.Errorf("%s: MultiPV 1 %+v, plain %+v", fen, one, plain)
		}
	}
	// Two legal moves, five lines asked: two lines.
	p := mustFEN(t, "7k/8/8/8/8/8/6q1/7K w - - 0 1")
	n := 0
	newSearcher(t).Search(context.Background(), p, Limits{Depth: 3, MultiPV: 5}, func(i Info) {
		if i.Depth == 3 {
			n++
		}
	})
	if n != 1 {
		t.Errorf("one legal move, MultiPV 5: %d lines at depth 3", n)
	}
}

// TestPonder: a ponder search ignores its clock until PonderHit, then
// keeps to it; a pool passes ponderhit to its leader.
func TestPonder(t *testing.T) {
	for _, threads := range []int{1, 2} {
		pool := newPool(t, threads)
		lim := Limits{Ponder: true, MoveTime: 100 * time.Millisecond}
		var res Result
		var wg sync.WaitGroup
		wg.Add(1)
		start := time.Now()
		go func() {
			defer wg.Done()
			res = pool.Search(context.Background(), board.StartPosition(), lim, nil)
		}()
		time.Sleep(400 * time.Millisecond)
		if res.Best != board.NullMove {
			t.Fatalf("%d threads: the ponder search ended before ponderhit, after %v", threads, time.Since(start))
		}
		hit := time.Now()
		pool.PonderHit()
		wg.Wait()
		// Unbounded without ponderhit; the upper bound leaves room for a
		// loaded machine (1.2 s seen at load 13 with two threads).
		if el := time.Since(hit); el > 5*time.Second || el < 50*time.Millisecond {
			t.Errorf("%d threads: movetime 100 ms after ponderhit took %v", threads, el)
		}
		if !board.StartPosition().IsLegal(res.Best) {
			t.Errorf("%d threads: %+v", threads, res)
		}
	}
}
