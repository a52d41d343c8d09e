package uci

import (
	"context"
	"fmt"
	"io"
	"time"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/eval"
	"github.com/nnuelab/nnuelab/engine/search"
)

// DefaultBenchDepth is the depth "bench" searches each position to when
// no depth is given.
const DefaultBenchDepth = 12

// benchHashMB is the transposition table size bench uses, fresh for every
// position.
const benchHashMB = 16

// benchFENs are the bench positions: openings, middlegames with and
// without castling rights, tactical positions, and endgames down to K+R v K,
// mostly sampled from Stockfish self-play.
var benchFENs = []string{
	board.StartFEN,
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
	"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
	"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
	"r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
	"8/2k5/8/1K6/8/8/8/R7 w - - 0 1",
	"8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1",
	"6k1/pp4p1/2p5/2bp4/8/P5Pb/1P3rrP/2BRRN1K b - - 0 1",
	"r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
	"rnbqkbnr/pp1pp1p1/2p5/2P2p1p/3P4/1P6/P3PPPP/RNBQKBNR b KQkq - 0 4",
	"rnbqkbnr/p1pppp1p/8/1p6/2P2Pp1/8/PP1PPKPP/RNBQ1BNR w kq - 0 4",
	"r2qkbr1/ppp1pp1p/3nb3/8/2NP2nB/4PN2/PP3PP1/R2QKB1R w KQq - 1 13",
	"b6k/8/4p3/4b2p/5N1P/n3P1P1/3P1K2/2r5 w - - 4 37",
	"r4rk1/5pR1/4b2p/1Pp4P/R7/1PpPpP2/K1P1P2P/2q5 b - - 0 31",
	"2bqk1r1/1r2bppp/p1n5/1pp4P/4P1n1/2N2N2/PPQ2PP1/R1B1KB1R w Q - 4 15",
	"8/8/5n2/8/8/5p2/3K2k1/4q3 w - - 0 77",
	"1n3rk1/1p3npp/4N1q1/1Pb5/1p4Q1/8/r4PPP/2B2RK1 w - - 2 18",
	"r3q1k1/1p1n4/2p2rPP/p2p4/3P1B2/P1NB1Q2/RPP2K2/7R b - - 0 23",
	"8/k6r/8/2K5/6R1/8/2P5/8 b - - 3 76",
	"8/5rbk/4qn1P/pp1p2B1/P6P/3P2P1/nPP3BN/5RK1 b - - 0 30",
	"r1bqk1nr/ppp3bp/8/3Qppp1/P7/1NN4P/1PP1PPP1/R1B1KB1R b KQkq - 0 8",
	"rnb2knr/ppppqpp1/4p2p/8/2PP4/P1Q5/P2BPPPP/R3KBNR w KQ - 5 10",
	"8/8/P2k3p/1p6/6PP/2P5/1P3P2/1BK5 b - - 0 40",
	"rnb1kbnr/pp2pppp/3p1q2/2p5/8/1PNP2PP/P1P1PP2/R1BQKBNR b KQkq - 0 5",
	"1rbq1k1r/ppp1pp2/8/nP1P1nP1/3P4/2NB4/P1P3PP/R1BQ1RK1 b - - 1 16",
	"4r3/3N2pk/2pRp2p/p3Pp2/1rP2N1P/8/PP4P1/2K2B1R b - - 0 23",
	"r3k2r/p1pn4/3bb1P1/1P1p1p1p/4p2q/1QPPB3/1P1NPPBP/R3K2R b KQkq - 3 15",
	"rn1k1bnr/4pp2/ppppq1p1/6Pp/N1P1B2P/1P2PQ2/P2P1P2/2B1K2R b K - 3 15",
	"2rqkb1r/5ppp/2p2n2/p1n1p3/Q7/B1N2P2/P4PBP/1R2K2R w Kk - 1 18",
	"3rk3/1Qp1qp2/5np1/p7/4PP2/5N1P/P1r5/3R3K w - - 4 36",
	"3k1br1/1ppb1p1p/3q3P/3N4/3RP1p1/2P2N2/1B2P1P1/K4B2 w - - 0 27",
	"8/8/1rk5/5K2/8/8/P7/R7 w - - 15 64",
	"8/8/p4p2/k1n1r3/7K/8/8/1R6 w - - 6 62",
	"r5k1/pp1PP2p/6p1/8/8/3K4/1r6/4q3 b - - 0 35",
	"2b1k1n1/2p2pp1/2rb4/R2p4/1np2N1q/1P1PP3/1B1Q1PBP/4K2R w K - 0 20",
	"8/6k1/3K3p/pp5P/6p1/P7/8/8 w - - 0 41",
	"3rr1k1/1bqn1p1p/p5pb/P1p1p2n/2P1P3/2BN1PPB/R2NK2P/Q3R3 b - - 6 26",
	"1r1qkbnr/1bpp3p/1p3pp1/nP5Q/4Pp2/1P4P1/2PP3P/R1BNK1NR b KQk - 1 12",
	"1r3bk1/6pp/2R1p3/8/p2PpP2/3bP2P/N5P1/6K1 w - - 2 35",
}

// Bench searches every bench position to depth with a fresh
// transposition table and fresh histories, single-threaded, using the
// evaluator of arch (with network file evalFile), and writes one line per
// position followed by the totals. Its last two lines are
// "Nodes searched: N" and "Nodes/second: M", as OpenBench expects; N
// depends only on the build and the depth. If the evaluator fails and
// falls back (eval.Faulter), Bench stops with an error naming the
// position and prints no totals.
func Bench(w io.Writer, depth int, arch, evalFile string) (nodes uint64, err error) {
	return BenchThreads(w, depth, 1, arch, evalFile)
}

// BenchThreads is Bench with a Lazy SMP search of threads threads, for
// measuring how speed scales; with more than one thread the node count
// varies from run to run (the threads race through the shared table).
func BenchThreads(w io.Writer, depth, threads int, arch, evalFile string) (nodes uint64, err error) {
	if depth < 1 || depth >= search.MaxPly {
		return 0, fmt.Errorf("bench depth %d out of range 1..%d", depth, search.MaxPly-1)
	}
	if threads < 1 || threads > MaxThreads {
		return 0, fmt.Errorf("bench threads %d out of range 1..%d", threads, MaxThreads)
	}
	evs, err := newEvaluators(arch, evalFile, threads)
	if err != nil {
		return 0, err
	}
	tt, err := search.NewTT(benchHashMB)
	if err != nil {
		return 0, err
	}
	// An evaluator that falls back when its backend fails (a plugin whose
	// process died) would make the node count and speed those of another
	// evaluation: its fault stops the search at once and fails the bench.
	var stop context.CancelFunc
	for _, ev := range evs {
		if n, ok := ev.(eval.Notifier); ok {
			n.SetNotify(func(string) {
				if stop != nil {
					stop()
				}
			})
		}
	}
	s := search.NewPool(tt, evs)
	var elapsed time.Duration
	for i, fen := range benchFENs {
		p, err := board.ParseFEN(fen)
		if err != nil {
			return 0, fmt.Errorf("bench position %d: %w", i+1, err)
		}
		tt.Clear()
		s.Clear()
		ctx, cancel := context.WithCancel(context.Background())
		stop = cancel
		r := s.Search(ctx, p, search.Limits{Depth: depth}, nil)
		cancel()
		for _, ev := range evs {
			if err := eval.Fault(ev); err != nil {
				return 0, fmt.Errorf("bench position %d/%d (%s): %w; bench stopped without totals (they would mix in the fallback evaluation)",
					i+1, len(benchFENs), fen, err)
			}
		}
		nodes += r.Nodes
		elapsed += r.Time
		fmt.Fprintf(w, "position %2d/%d  %-8s %-14s nodes %10d  %s\n", i+1, len(benchFENs),
			p.UCI(r.Best), scoreString(r.Score, search.BoundExact), r.Nodes, fen)
	}
	ms := elapsed.Milliseconds()
	nps := uint64(0)
	if elapsed > 0 {
		nps = uint64(float64(nodes) / elapsed.Seconds())
	}
	fmt.Fprintln(w, "===========================")
	fmt.Fprintf(w, "Total time (ms) : %d\n", ms)
	fmt.Fprintf(w, "Nodes searched: %d\n", nodes)
	fmt.Fprintf(w, "Nodes/second: %d\n", nps)
	return nodes, nil
}
