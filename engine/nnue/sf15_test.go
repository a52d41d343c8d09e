package nnue

import (
	"slices"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
)

// TestSF15Exact checks every row of sf15.1-nnue-evals.tsv (bucket, PSQT
// difference, positional output and NNUE::evaluate of Stockfish 15.1 with
// its default net, which the test exports from the installed Stockfish),
// from scratch and through the incremental evaluator, and the adjusted
// value of sf15.1-nnue-evals-extended.tsv.
func TestSF15Exact(t *testing.T) {
	n := stockfishNet(t)
	ext := readTSV(t, "sf15.1-nnue-evals-extended.tsv")
	ev := NewEvaluator(n)
	bad := 0
	fail := func(format string, args ...any) {
		t.Helper()
		bad++
		if bad <= 8 {
			t.Errorf(format, args...)
		}
	}
	for i, row := range readTSV(t, "sf15.1-nnue-evals.tsv") {
		fen := row["fen"]
		p, err := board.ParseFEN(fen)
		if err != nil {
			t.Fatal(err)
		}
		var tr Trace
		got := n.Evaluate(p, &tr)
		if want := atoi(t, row["bucket"]); int64(tr.Bucket) != want {
			fail("%s: bucket %d, want %d", fen, tr.Bucket, want)
		}
		if want := atoi(t, row["psqt"]); int64(tr.PSQT) != want {
			fail("%s: psqt %d, want %d", fen, tr.PSQT, want)
		}
		if want := atoi(t, row["positional"]); int64(tr.Positional) != want {
			fail("%s: positional %d, want %d", fen, tr.Positional, want)
		}
		if want := atoi(t, row["nnue"]); int64(got) != want || tr.Raw != got {
			fail("%s: nnue %d (trace %d), want %d", fen, got, tr.Raw, want)
		}
		if ext[i]["fen"] != fen {
			t.Fatalf("row %d: the extended file has %q", i, ext[i]["fen"])
		}
		if want := atoi(t, ext[i]["nnue_adjusted"]); int64(SF15Adjusted(&tr, p)) != want {
			fail("%s: nnue_adjusted %d, want %d", fen, SF15Adjusted(&tr, p), want)
		}
		ev.Reset(p)
		if inc := ev.Raw(p, nil); inc != got {
			fail("%s: incremental evaluator %d, from scratch %d", fen, inc, got)
		}
	}
	if bad > 0 {
		t.Fatalf("%d mismatches", bad)
	}
}

// TestSF15WorkedExamples checks the intermediate values that the spec's
// section 12 lists for two positions.
func TestSF15WorkedExamples(t *testing.T) {
	n := stockfishNet(t)
	h := n.head.(*sf15Head)
	type example struct {
		fen                      string
		accStm, accStmHi, accOpp []int // acc[stm][0..7], acc[stm][512..519], acc[opp][0..7]
		psqtStm                  []int // psqtAcc[stm][0..7] (nil: only bucket 7 known)
		psqt7Stm, psqt7Opp       int
		x                        []int // transformed[0..7]
		o0, in1, o1, in2         []int
		o2, fwd, positional, raw int
		psqtHalf, adjusted       int
	}
	for _, ex := range []example{{
		fen:      board.StartFEN,
		accStm:   []int{67, 9, -143, -149, -78, -346, -331, 83},
		accStmHi: []int{603, 229, 109, 123, -35, -1160, -343, -6},
		accOpp:   []int{67, 9, -143, -149, -78, -346, -331, 83},
		psqtStm:  []int{17845, -5505, -2312, 11177, 12277, 6729, 3333, -258},
		psqt7Stm: -258, psqt7Opp: -258,
		x:   []int{66, 8, 0, 0, 0, 0, 0, 0},
		o0:  []int{6064, -5515, -4551, -2131, -6313, -2654, -136, 3277, 2605, 10312, 2184, -576, -6443, 830, -2384, 1665},
		in1: []int{70, 58, 39, 8, 76, 13, 0, 20, 12, 127, 9, 0, 79, 1, 10, 94, 0, 0, 0, 0, 0, 0, 51, 40, 127, 34, 0, 0, 12, 0},
		o1: []int{1294, -4138, -5777, -6569, -4004, 1546, -4136, -318, -13421, -4438, -4022, 777, -1643, -5875, 1580, -6182,
			121, -1664, -2363, -4990, -6222, 865, -4351, -5366, 213, -3519, 1386, 1108, -8115, -10174, -7503, -5570},
		in2: []int{20, 0, 0, 0, 0, 24, 0, 0, 0, 0, 0, 12, 0, 0, 24, 0, 1, 0, 0, 0, 0, 13, 0, 0, 3, 0, 21, 17, 0, 0, 0, 0},
		o2:  -848, fwd: 1966, positional: 1118, raw: 69, psqtHalf: 0, adjusted: 71,
	}, {
		fen:      "rnbqkbnr/pp1pp1p1/2p5/2P2p1p/3P4/1P6/P3PPPP/RNBQKBNR b KQkq - 0 4",
		accStm:   []int{81, 23, -229, 25, -24, -204, -89, 84},
		accOpp:   []int{-128, 26, -153, -154, -178, -347, -361, 84},
		psqt7Stm: -1185, psqt7Opp: 31,
		x:  []int{80, 22, 0, 20, 0, 0, 0, 19},
		o0: []int{2577, -915, -5623, -528, -3067, -731, -561, 2797, 1927, 10773, 812, -1531, -3327, 2908, -2404, -1705},
		o2: 385, fwd: -2013, positional: -1628, raw: -139, psqtHalf: -608, adjusted: -141,
	}} {
		p, err := board.ParseFEN(ex.fen)
		if err != nil {
			t.Fatal(err)
		}
		acc, psqt := scratchAccumulators(n, p)
		if h.order != nil {
			// The spec's neuron indices are the file's (neuronorder.go).
			for c := range acc {
				acc[c] = unpermuteHalves(acc[c], h.order)
			}
		}
		us, them := p.SideToMove(), p.SideToMove().Other()
		var tr Trace
		raw := n.Evaluate(p, &tr)
		eq := func(what string, got, want []int) {
			t.Helper()
			if want != nil && !slices.Equal(got, want) {
				t.Errorf("%s: %s\n got %v\nwant %v", ex.fen, what, got, want)
			}
		}
		eq("acc[stm][0..7]", ints16(acc[us][:8]), ex.accStm)
		eq("acc[stm][512..519]", ints16(acc[us][512:520]), ex.accStmHi)
		eq("acc[opp][0..7]", ints16(acc[them][:8]), ex.accOpp)
		eq("psqtAcc[stm]", ints32(psqt[us]), ex.psqtStm)
		eq("psqtAcc[stm][7], psqtAcc[opp][7]", []int{int(psqt[us][7]), int(psqt[them][7])}, []int{ex.psqt7Stm, ex.psqt7Opp})
		x := make([]uint8, n.Width)
		pairwise(x[:n.Width/2], acc[us])
		pairwise(x[n.Width/2:], acc[them])
		eq("transformed[0..7]", ints8(x[:8]), ex.x)
		eq("Trace.Transformed[0..7]", ints32(tr.Transformed[:8]), ex.x)
		eq("o0", tr.Layers[0], ex.o0)
		eq("fc_1 input", tr.Layers[1], ex.in1)
		eq("o1", tr.Layers[2], ex.o1)
		eq("fc_2 input", tr.Layers[3], ex.in2)
		eq("o2, fwd", tr.Layers[4], []int{ex.o2, ex.fwd})
		eq("positional, raw, psqt/2, adjusted", []int{int(tr.Positional), int(raw), int(tr.PSQT / 2), int(SF15Adjusted(&tr, p))},
			[]int{ex.positional, ex.raw, ex.psqtHalf, ex.adjusted})
		if tr.Bucket != 7 || h.net != n {
			t.Errorf("%s: bucket %d, want 7", ex.fen, tr.Bucket)
		}
	}
}

// pairwise is the spec's pairwise product written out plainly, to check
// the transformed vector independently of the simd kernel.
func pairwise(dst []uint8, acc []int16) {
	half := len(acc) / 2
	for j := range dst {
		x := min(max(int(acc[j]), 0), 127)
		y := min(max(int(acc[j+half]), 0), 127)
		dst[j] = uint8(x * y >> 7)
	}
}

// TestSF15Children evaluates every legal child of the first reference
// positions through the incremental evaluator (Push of the move's delta)
// and compares with a from-scratch evaluation.
func TestSF15Children(t *testing.T) {
	n := stockfishNet(t)
	ev := NewEvaluator(n)
	rows := readTSV(t, "sf15.1-nnue-evals.tsv")
	for _, row := range rows[:60] {
		p, err := board.ParseFEN(row["fen"])
		if err != nil {
			t.Fatal(err)
		}
		ev.Reset(p)
		ev.Raw(p, nil)
		var ml board.MoveList
		p.GenerateLegal(&ml)
		for _, m := range ml.Moves[:ml.N] {
			p.MakeMove(m)
			ev.Push(p.LastDelta())
			if inc, full := ev.Raw(p, nil), n.Evaluate(p, nil); inc != full {
				t.Fatalf("%s after %s: incremental %d, from scratch %d", row["fen"], p.FEN(), inc, full)
			}
			ev.Pop()
			p.UnmakeMove()
		}
	}
}

// BenchmarkStockfishHeads measures the heads alone (transform and dense
// layers) on the accumulators of a middlegame position.
func BenchmarkStockfishHeads(b *testing.B) {
	p, _ := board.ParseFEN("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
	for _, tc := range []struct {
		name string
		net  func(testing.TB) *Network
	}{{"sf12", synthSF12Net}, {"sf15.1", stockfishNet}} {
		b.Run(tc.name, func(b *testing.B) {
			n := tc.net(b)
			acc, psqt := scratchAccumulators(n, p)
			pieces := p.Occupied().Count()
			b.ReportAllocs()
			for b.Loop() {
				n.head.forward(acc[0], acc[1], psqt[0], psqt[1], pieces, nil)
			}
		})
	}
}
