package search

import (
	"bufio"
	"context"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/board/boardtest"
	"github.com/nnuelab/nnuelab/engine/eval"
)

// readFENs returns up to n positions of the shared reference set
// (3,000 positions from Stockfish self-play).
func readFENs(t testing.TB, n int) []string {
	t.Helper()
	fens := boardtest.Positions()
	return fens[:min(n, len(fens))]
}

func mustFEN(t testing.TB, fen string) *board.Position {
	t.Helper()
	p, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatalf("%s: %v", fen, err)
	}
	return p
}

func newSearcher(t testing.TB) *Searcher {
	t.Helper()
	tt, err := NewTT(16)
	if err != nil {
		t.Fatal(err)
	}
	return New(eval.NewPeSTO(), tt)
}

// checkingEval wraps an evaluator and verifies on every call that the
// incremental state equals a fresh evaluation: it proves that the search
// reports every make and unmake (null moves included) to the evaluator.
type checkingEval struct {
	t     testing.TB
	inc   eval.Evaluator
	fresh eval.Evaluator
	depth int
	calls int
}

func (c *checkingEval) Reset(p *board.Position) { c.inc.Reset(p); c.depth = 0 }
func (c *checkingEval) Push(d *board.Delta)     { c.inc.Push(d); c.depth++ }
func (c *checkingEval) Pop()                    { c.inc.Pop(); c.depth-- }
func (c *checkingEval) Evaluate(p *board.Position) int {
	c.calls++
	c.fresh.Reset(p)
	a, b := c.inc.Evaluate(p), c.fresh.Evaluate(p)
	if a != b {
		c.t.Fatalf("incremental eval %d != fresh %d at %s (push depth %d)", a, b, p.FEN(), c.depth)
	}
	return a
}

func TestSearchKeepsEvaluatorInStep(t *testing.T) {
	ce := &checkingEval{t: t, inc: eval.NewPeSTO(), fresh: eval.NewPeSTO()}
	tt, _ := NewTT(4)
	s := New(ce, tt)
	for _, fen := range readFENs(t, 12) {
		s.Search(context.Background(), mustFEN(t, fen), Limits{Depth: 7}, nil)
		if ce.depth != 0 {
			t.Fatalf("%s: %d pushes not popped after the search", fen, ce.depth)
		}
	}
	if ce.calls == 0 {
		t.Fatal("the evaluator was never called")
	}
}

func TestMates(t *testing.T) {
	f, err := os.Open("testdata/mates.epd")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		fen, n, _ := strings.Cut(line, ";")
		want, err := strconv.Atoi(strings.TrimSpace(n))
		if err != nil {
			t.Fatalf("bad line %q", line)
		}
		t.Run(fen, func(t *testing.T) {
			p := mustFEN(t, fen)
			s := newSearcher(t)
			var last Info
			// Pruning may find a longer mate first: deepen until a mate in
			// at most N turns up (the Mate limit), within a depth cap.
			r := s.Search(context.Background(), p, Limits{Mate: want, Depth: 4*want + 12}, func(i Info) { last = i })
			got, ok := MateIn(r.Score)
			if !ok || got != want {
				t.Fatalf("score %d (mate %d, %v), want mate %d; pv %v", r.Score, got, ok, want, last.PV)
			}
			// The PV must be legal, no longer than the mate, and when it is
			// complete (a table hit may cut it short) end in checkmate.
			q := p.Copy()
			for _, m := range last.PV {
				if !q.IsLegal(m) {
					t.Fatalf("illegal PV move %v in %s", m, q.FEN())
				}
				q.MakeMove(m)
			}
			if len(last.PV) > 2*want-1 || len(last.PV) == 0 {
				t.Errorf("PV of %d plies for a mate in %d", len(last.PV), want)
			}
			if len(last.PV) == 2*want-1 {
				var ml board.MoveList
				q.GenerateLegal(&ml)
				if ml.N != 0 || !q.InCheck() {
					t.Errorf("PV ends in %s, not checkmate", q.FEN())
				}
			}
			// The defender sees it too: after the first move it is mated in N-1.
			if want > 1 {
				q := p.Copy()
				q.MakeMove(r.Best)
				r2 := newSearcher(t).Search(context.Background(), q, Limits{Depth: 4*want + 8}, nil)
				if got, ok := MateIn(r2.Score); !ok || got != -(want-1) {
					t.Errorf("after %s: score %d, want mate -%d", p.UCI(r.Best), r2.Score, want-1)
				}
			}
		})
	}
}

func TestRootWithoutMoves(t *testing.T) {
	tests := []struct {
		name, fen string
		score     int
	}{
		{"checkmated", "7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", -MateScore},
		{"stalemated", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := newSearcher(t).Search(context.Background(), mustFEN(t, tc.fen), Limits{Depth: 5}, nil)
			if r.Best != board.NullMove || r.Score != tc.score {
				t.Errorf("got move %v score %d, want no move and %d", r.Best, r.Score, tc.score)
			}
		})
	}
}

func TestDraws(t *testing.T) {
	tests := []struct {
		name  string
		fen   string
		moves []string // played before the search, building the history
		depth int
		score func(int) bool
		want  string
	}{
		{"insufficient material", "8/8/4k3/8/8/3BK3/8/8 w - - 0 1", nil, 8, func(s int) bool { return s == 0 }, "0"},
		{"fifty-move rule", "8/8/8/4k3/8/8/8/K6Q w - - 99 80", nil, 6, func(s int) bool { return s == 0 }, "0"},
		{"mate beats the fifty-move rule", "7k/8/6K1/8/8/8/8/5Q2 w - - 99 80", nil, 4, func(s int) bool { return s == MateScore-1 }, "mate in 1"},
		// White's only move Kg1 repeats the position after 1.Kg1: a draw
		// instead of being mated.
		{"repetition saves the lost side", "7k/8/8/8/8/r7/q7/7K w - - 0 1",
			[]string{"h1g1", "a2b2", "g1h1", "b2a2"}, 8, func(s int) bool { return s == 0 }, "0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := mustFEN(t, tc.fen)
			for _, s := range tc.moves {
				m, err := p.ParseUCIMove(s)
				if err != nil {
					t.Fatal(err)
				}
				p.MakeMove(m)
			}
			r := newSearcher(t).Search(context.Background(), p, Limits{Depth: tc.depth}, nil)
			if !tc.score(r.Score) {
				t.Errorf("score %d (best %s), want %s", r.Score, p.UCI(r.Best), tc.want)
			}
		})
	}
}

// TestNeverIllegal searches reference positions with small node budgets
// (so that searches stop mid-iteration) and checks the move and the
// ponder move.
func TestNeverIllegal(t *testing.T) {
	fens := readFENs(t, 3000)
	s := newSearcher(t)
	n := 0
	for i := 0; i < len(fens); i += 10 {
		p := mustFEN(t, fens[i])
		var ml board.MoveList
		p.GenerateLegal(&ml)
		nodes := uint64(1 + i%2500)
		r := s.Search(context.Background(), p, Limits{Nodes: nodes}, nil)
		if ml.N == 0 {
			if r.Best != board.NullMove {
				t.Fatalf("%s: no legal move but got %v", fens[i], r.Best)
			}
			continue
		}
		if !p.IsLegal(r.Best) {
			t.Fatalf("%s: illegal best move %v", fens[i], r.Best)
		}
		if r.Ponder != board.NullMove {
			q := p.Copy()
			q.MakeMove(r.Best)
			if !q.IsLegal(r.Ponder) {
				t.Fatalf("%s: illegal ponder move %v after %s", fens[i], r.Ponder, p.UCI(r.Best))
			}
		}
		n++
	}
	if n < 250 {
		t.Fatalf("only %d positions searched", n)
	}
}

// TestNodeLimit: a node budget is kept to the node, except that depth 1
// always completes, so that the smallest budget still ends with a searched
// move and a score.
func TestNodeLimit(t *testing.T) {
	p := mustFEN(t, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
	d1 := newSearcher(t).Search(context.Background(), p, Limits{Depth: 1}, nil).Nodes
	for _, limit := range []uint64{1, 100, 5000, 50000} {
		var reports int
		r := newSearcher(t).Search(context.Background(), p, Limits{Nodes: limit}, func(Info) { reports++ })
		want := max(limit, d1+1)
		if r.Nodes > want || r.Nodes < want*9/10 {
			t.Errorf("nodes %d: searched %d, want %d (depth 1 takes %d)", limit, r.Nodes, want, d1)
		}
		if r.Depth < 1 || reports < 1 {
			t.Errorf("nodes %d: depth %d completed, %d reports", limit, r.Depth, reports)
		}
		if !p.IsLegal(r.Best) {
			t.Errorf("nodes %d: illegal move %v", limit, r.Best)
		}
	}
}

// TestSoftNodes: a soft node limit ends the search at the end of the first
// iteration that reaches it: the same search as a depth limit to that
// iteration, with at least the soft limit's nodes; a hard limit below it
// still stops mid-iteration.
func TestSoftNodes(t *testing.T) {
	p := mustFEN(t, "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
	for _, soft := range []uint64{1000, 5000, 20000} {
		r := newSearcher(t).Search(context.Background(), p, Limits{SoftNodes: soft}, nil)
		if r.Nodes < soft {
			t.Errorf("soft %d: stopped at %d nodes", soft, r.Nodes)
		}
		byDepth := newSearcher(t).Search(context.Background(), p, Limits{Depth: r.Depth}, nil)
		if byDepth.Nodes != r.Nodes || byDepth.Best != r.Best || byDepth.Score != r.Score {
			t.Errorf("soft %d: %d nodes, %v %d at depth %d; a depth-%d search: %d nodes, %v %d",
				soft, r.Nodes, r.Best, r.Score, r.Depth, r.Depth, byDepth.Nodes, byDepth.Best, byDepth.Score)
		}
		if prev := newSearcher(t).Search(context.Background(), p, Limits{Depth: r.Depth - 1}, nil); prev.Nodes >= soft {
			t.Errorf("soft %d: depth %d already had %d nodes: the search went one iteration too far", soft, r.Depth-1, prev.Nodes)
		}
		// (Depth 1 always completes, as TestNodeLimit says.)
		d1 := newSearcher(t).Search(context.Background(), p, Limits{Depth: 1}, nil).Nodes
		hard := newSearcher(t).Search(context.Background(), p, Limits{SoftNodes: soft, Nodes: soft / 2}, nil)
		if hard.Nodes > max(soft/2, d1+1) {
			t.Errorf("soft %d, hard %d: searched %d", soft, soft/2, hard.Nodes)
		}
	}
}

func TestMoveTime(t *testing.T) {
	p := board.StartPosition()
	start := time.Now()
	r := newSearcher(t).Search(context.Background(), p, Limits{MoveTime: 200 * time.Millisecond}, nil)
	el := time.Since(start)
	// Generous margins: the machine may be busy (736 ms seen at load 13);
	// the point is that the limit stops the search rather than the depth
	// cap, which the start position does not reach in minutes.
	if el < 100*time.Millisecond || el > 5*time.Second {
		t.Errorf("movetime 200ms took %v", el)
	}
	if !p.IsLegal(r.Best) {
		t.Errorf("illegal move %v", r.Best)
	}
}

func TestCancelStopsPromptly(t *testing.T) {
	p := board.StartPosition()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Result)
	go func() { done <- newSearcher(t).Search(ctx, p, Limits{}, nil) }()
	time.Sleep(150 * time.Millisecond)
	cancel()
	start := time.Now()
	select {
	case r := <-done:
		// An unstopped search runs for minutes; the bound leaves room for
		// a loaded machine.
		if el := time.Since(start); el > 3*time.Second {
			t.Errorf("stopped %v after cancel", el)
		}
		if !p.IsLegal(r.Best) {
			t.Errorf("illegal move %v", r.Best)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("search did not stop")
	}
}

func TestDeterministic(t *testing.T) {
	fens := readFENs(t, 8)
	run := func() (nodes []uint64, moves []board.Move) {
		s := newSearcher(t)
		for _, fen := range fens {
			s.TT().Clear()
			s.Clear()
			r := s.Search(context.Background(), mustFEN(t, fen), Limits{Depth: 8}, nil)
			nodes, moves = append(nodes, r.Nodes), append(moves, r.Best)
		}
		return
	}
	n1, m1 := run()
	n2, m2 := run()
	for i := range n1 {
		if n1[i] != n2[i] || m1[i] != m2[i] {
			t.Errorf("%s: run 1 %d nodes %v, run 2 %d nodes %v", fens[i], n1[i], m1[i], n2[i], m2[i])
		}
	}
}

func TestSearchMoves(t *testing.T) {
	p := board.StartPosition()
	m, _ := p.ParseUCIMove("a2a3")
	r := newSearcher(t).Search(context.Background(), p, Limits{Depth: 6, SearchMoves: []board.Move{m}}, nil)
	if r.Best != m {
		t.Errorf("searchmoves a2a3: got %s", p.UCI(r.Best))
	}
}

func TestMateIn(t *testing.T) {
	tests := []struct {
		score int
		moves int
		ok    bool
	}{
		{MateScore - 1, 1, true},
		{MateScore - 3, 2, true},
		{-(MateScore - 2), -1, true},
		{-MateScore, 0, true},
		{150, 0, false},
		{-MateBound + 1, 0, false},
	}
	for _, tc := range tests {
		if m, ok := MateIn(tc.score); m != tc.moves || ok != tc.ok {
			t.Errorf("MateIn(%d) = %d, %v; want %d, %v", tc.score, m, ok, tc.moves, tc.ok)
		}
	}
}

// TestOrderedMovesArePermutation checks that the staged move picker yields
// every legal move exactly once, also with killers, counter moves and
// histories left by a search.
func TestOrderedMovesArePermutation(t *testing.T) {
	s := newSearcher(t)
	for i, fen := range readFENs(t, 400) {
		p := mustFEN(t, fen)
		if i%20 == 0 {
			s.Search(context.Background(), p, Limits{Depth: 5}, nil)
		}
		var ml board.MoveList
		p.GenerateLegal(&ml)
		got := s.OrderedMoves(p)
		if len(got) != ml.N {
			t.Fatalf("%s: %d ordered moves, %d legal", fen, len(got), ml.N)
		}
		seen := map[board.Move]bool{}
		for _, m := range got {
			if seen[m] || !p.IsLegal(m) {
				t.Fatalf("%s: move %s repeated or illegal", fen, p.UCI(m))
			}
			seen[m] = true
		}
	}
}

func BenchmarkSearchDepth10(b *testing.B) {
	p := mustFEN(b, "r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10")
	s := newSearcher(b)
	b.ResetTimer()
	var nodes uint64
	for i := 0; i < b.N; i++ {
		s.TT().Clear()
		s.Clear()
		nodes += s.Search(context.Background(), p, Limits{Depth: 10}, nil).Nodes
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "nodes/s")
}

// TestLMRTable pins the reduction table: bench node counts must not depend
// on the platform's math.Log.
const lmrChecksum = 26477593

func TestLMRTable(t *testing.T) {
	sum := 0
	for d := range lmrTable {
		for m := range lmrTable[d] {
			sum += lmrTable[d][m] * (d + 1) * (m + 1)
		}
	}
	tests := []struct{ d, m, want int }{{1, 1, 0}, {3, 3, 1}, {8, 8, 2}, {10, 20, 3}, {63, 63, 8}}
	for _, tc := range tests {
		if got := lmrTable[tc.d][tc.m]; got != tc.want {
			t.Errorf("lmr(%d, %d) = %d, want %d", tc.d, tc.m, got, tc.want)
		}
	}
	if sum != lmrChecksum {
		t.Errorf("table checksum %d, want %d", sum, lmrChecksum)
	}
}

// TestPoisonedTableEval: the table checks only part of the key, so another
// position's entry can answer a probe, e.g. that of a position in check,
// whose static evaluation is stored as -Infinity. Taken as a quiet node's
// evaluation it made quiescence return -Infinity, the root +Infinity, and
// the aspiration loop search depth 1 forever (a datagen game hung so).
// With every child's entry poisoned that way, the search must still end
// with a score inside the range.
func TestPoisonedTableEval(t *testing.T) {
	pos, err := board.ParseFEN("3r4/1k3n2/b4Ppp/8/P1p1PQ1P/2Kp4/P2R3P/4R3 w - - 0 36")
	if err != nil {
		t.Fatal(err)
	}
	tt, _ := NewTT(1)
	s := New(eval.NewPeSTO(), tt)
	var ml board.MoveList
	pos.GenerateLegal(&ml)
	for _, m := range ml.Slice() {
		pos.MakeMove(m)
		tt.store(pos.Key(), board.NullMove, 0, -Infinity, 0, BoundUpper, false)
		pos.UnmakeMove()
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	res := s.Search(ctx, pos, Limits{Depth: 3}, nil)
	if ctx.Err() != nil {
		t.Fatal("the search did not end by itself")
	}
	if res.Depth != 3 || res.Score <= -MateBound || res.Score >= MateBound || !pos.IsLegal(res.Best) {
		t.Fatalf("depth %d score %d best %v", res.Depth, res.Score, res.Best)
	}
}

// TestMoveLoopPruningOff checks CudAD's datagen setting: without the move
// loop's low-depth pruning a fixed-depth search visits a larger tree (every
// move of a shallow node), still plays legal moves and finds the same mates.
func TestMoveLoopPruningOff(t *testing.T) {
	var on, off uint64
	for _, fen := range readFENs(t, 24) {
		p := mustFEN(t, fen)
		a := newSearcher(t).Search(context.Background(), p, Limits{Depth: 7}, nil)
		s := newSearcher(t)
		s.SetMoveLoopPruning(false)
		b := s.Search(context.Background(), p, Limits{Depth: 7}, nil)
		if !p.IsLegal(b.Best) {
			t.Fatalf("%s: illegal best move %v without move-loop pruning", fen, b.Best)
		}
		on, off = on+a.Nodes, off+b.Nodes
	}
	// Pruning skips a large share of shallow nodes' moves; without it the
	// same depths cost clearly more.
	t.Logf("depth 7 over 24 positions: %d nodes with move-loop pruning, %d without (%.2fx)", on, off, float64(off)/float64(on))
	if off < on+on/4 {
		t.Errorf("depth 7 over 24 positions: %d nodes with move-loop pruning, %d without; want at least 25%% more without", on, off)
	}
	// A mate found with pruning is found without it (pruning only hides moves).
	p := mustFEN(t, "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1")
	s := newSearcher(t)
	s.SetMoveLoopPruning(false)
	if n, ok := MateIn(s.Search(context.Background(), p, Limits{Depth: 6}, nil).Score); !ok || n != 1 {
		t.Errorf("back-rank mate in 1 without move-loop pruning: mate %d (%v)", n, ok)
	}
}
