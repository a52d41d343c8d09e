package search

import (
	"context"
	"sync"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/eval"
)

// Pool searches with several threads by Lazy SMP: every thread searches
// the same root with its own evaluator, histories and stack, and they share
// one transposition table, through which each finds the others' results.
// The first thread leads: it manages the clock and reports progress, and
// the others stop when it does; a node limit counts every thread's nodes.
// With one thread a Pool searches exactly as a lone Searcher.
type Pool struct {
	tt      *TT
	threads []*Searcher
}

// NewPool returns a pool of len(evs) threads (at least one), thread i
// evaluating with evs[i], sharing tt.
func NewPool(tt *TT, evs []eval.Evaluator) *Pool {
	p := &Pool{tt: tt}
	p.SetEvaluators(evs)
	return p
}

// SetEvaluators sets the number of threads to len(evs) (at least one) and
// their evaluators; threads that stay keep their histories. It must not be
// called during a search.
func (p *Pool) SetEvaluators(evs []eval.Evaluator) {
	if len(evs) == 0 {
		panic("search: a pool needs at least one evaluator")
	}
	for i, ev := range evs {
		if i < len(p.threads) {
			p.threads[i].SetEvaluator(ev)
		} else {
			t := New(ev, p.tt)
			if len(p.threads) > 0 {
				t.noEndgames = p.threads[0].noEndgames
				t.tbConf = p.threads[0].tbConf
			}
			p.threads = append(p.threads, t)
		}
	}
	p.threads = p.threads[:len(evs)]
	for _, t := range p.threads {
		t.group = nil
		if len(p.threads) > 1 {
			t.group = p.threads
		}
	}
}

// Threads returns the number of threads.
func (p *Pool) Threads() int { return len(p.threads) }

// Main returns the leading thread's searcher (for its evaluator and the
// debug commands).
func (p *Pool) Main() *Searcher { return p.threads[0] }

// TT returns the shared transposition table.
func (p *Pool) TT() *TT { return p.tt }

// Clear forgets every thread's histories (a new game); see Searcher.Clear.
func (p *Pool) Clear() {
	for _, t := range p.threads {
		t.Clear()
	}
}

// SetEndgameKnowledge sets every thread's use of eval.Endgame; see
// Searcher.SetEndgameKnowledge.
func (p *Pool) SetEndgameKnowledge(on bool) {
	for _, t := range p.threads {
		t.SetEndgameKnowledge(on)
	}
}

// PonderHit ends the ponder mode of a running search (see
// Searcher.PonderHit); it may be called from any goroutine.
func (p *Pool) PonderHit() { p.threads[0].PonderHit() }

// Search searches pos within lim with every thread and returns the result
// (see Searcher.Search). Only the leading thread reports.
func (p *Pool) Search(ctx context.Context, pos *board.Position, lim Limits, report func(Info)) Result {
	p.tt.newSearch()
	main := p.threads[0]
	if len(p.threads) == 1 {
		return main.search(ctx, pos, lim, report)
	}
	// A helper's count from the last search must not count towards this
	// one's node limit before the helper starts.
	for _, h := range p.threads[1:] {
		h.published.Store(0)
	}
	hctx, stopHelpers := context.WithCancel(ctx)
	// Helpers search without a clock (the leader stops them) and without
	// the leader's extra lines (they fill the table for the best line);
	// they share the node limit, which every thread checks.
	hlim := Limits{Depth: lim.Depth, Nodes: lim.Nodes, SearchMoves: lim.SearchMoves, Start: lim.Start}
	results := make([]Result, len(p.threads))
	var wg sync.WaitGroup
	for i, h := range p.threads[1:] {
		wg.Add(1)
		go func() {
			defer wg.Done()
			results[i+1] = h.search(hctx, pos, hlim, nil)
		}()
	}
	results[0] = main.search(ctx, pos, lim, report)
	stopHelpers()
	wg.Wait()
	res := results[0]
	res.Nodes = 0
	for _, t := range p.threads {
		res.Nodes += t.nodes
	}
	// A helper that completed a deeper iteration with a better score than
	// the leader's knows more; its move is played (Stockfish's thread
	// vote, reduced to its clearest case). A MultiPV search keeps the
	// leader's lines.
	if lim.MultiPV <= 1 {
		for _, r := range results[1:] {
			if r.Best != board.NullMove && r.Depth > res.Depth && r.Score > res.Score {
				res.Best, res.Ponder, res.Score, res.Depth = r.Best, r.Ponder, r.Score, r.Depth
			}
		}
	}
	return res
}
