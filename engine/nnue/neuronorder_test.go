package nnue

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/nnue/simd"
)

// inFileOrder returns a copy of the sf15.1 net n with its neurons back in
// the file's order (through the functions that undo the reordering for
// the outside) and no order recorded: the net as it was before
// orderNeurons.
func inFileOrder(t *testing.T, n *Network) *Network {
	t.Helper()
	h := n.head.(*sf15Head)
	if h.order == nil {
		t.Fatal("the net's neurons were not reordered at load")
	}
	u := *n
	u.FTWeights, u.FTBias = n.TransformerInFileOrder()
	hu := *h
	hu.net, hu.order = &u, nil
	hu.stacks = slices.Clone(h.stacks)
	for s := range hu.stacks {
		st := &hu.stacks[s]
		st.w0 = h.fileOrderW0(&h.stacks[s])
		st.w0s = simd.SparseWeights(st.w0, h.l0, n.Width)
	}
	u.head = &hu
	return &u
}

// groupDensity returns the share of non-zero 4-byte groups of the
// transformed features of n over both perspectives of ps.
func groupDensity(n *Network, ps []*board.Position) float64 {
	x := make([]uint8, n.Width/2)
	nnz := make([]uint16, n.Width/8)
	total, nonZero := 0, 0
	for _, p := range ps {
		acc, _ := scratchAccumulators(n, p)
		for c := range acc {
			simd.PairwiseClippedReLU(x, acc[c])
			nonZero += simd.FindNNZ(nnz, x)
			total += len(nnz)
		}
	}
	return float64(nonZero) / float64(total)
}

// checkOrderExact holds the reordered net n to the same net in the file's
// order u: the same output, layers and (file-order) transformed features
// from scratch and incrementally along random games from each position of
// ps, with the sparse and the dense fc_0, and the same head parameters.
func checkOrderExact(t *testing.T, n, u *Network, ps []*board.Position, seed uint64) {
	t.Helper()
	if !slices.EqualFunc(n.HeadParams(), u.HeadParams(), func(a, b Param) bool {
		return a.Name == b.Name && slices.Equal(a.Q, b.Q)
	}) {
		t.Fatal("HeadParams differ between the reordered net and the file's order")
	}
	dense := *n
	dense.head = denseCopy(n.head.(*sf15Head))
	dense.head.(*sf15Head).net = &dense
	rng := rand.New(rand.NewPCG(seed, 26))
	evN, evU := NewEvaluator(n), NewEvaluator(u)
	checks := 0
	check := func(p *board.Position) {
		var trN, trU, trD Trace
		got, want, d := n.Evaluate(p, &trN), u.Evaluate(p, &trU), dense.Evaluate(p, &trD)
		incN, incU := evN.Raw(p, nil), evU.Raw(p, nil)
		if got != want || d != want || incN != want || incU != want ||
			!slices.EqualFunc(trN.Layers, trU.Layers, slices.Equal) || !slices.EqualFunc(trD.Layers, trU.Layers, slices.Equal) ||
			!slices.Equal(trN.Transformed, trU.Transformed) || trN.Positional != trU.Positional {
			t.Fatalf("%s: reordered %d (incremental %d, dense %d), file order %d (incremental %d)", p.FEN(), got, incN, d, want, incU)
		}
		checks++
	}
	var ml board.MoveList
	for _, p0 := range ps {
		p := p0.Copy()
		evN.Reset(p)
		evU.Reset(p)
		check(p)
		for ply := 0; ply < 12; ply++ {
			p.GenerateLegal(&ml)
			if ml.N == 0 {
				break
			}
			p.MakeMove(ml.Moves[rng.IntN(ml.N)])
			evN.Push(p.LastDelta())
			evU.Push(p.LastDelta())
			check(p)
		}
	}
	t.Logf("%d positions the same", checks)
}

// referencePositions returns the positions of Stockfish 15.1's reference
// table (testdata/sf15.1-nnue-evals.tsv).
func referencePositions(t *testing.T) []*board.Position {
	var ps []*board.Position
	for _, row := range readTSV(t, "sf15.1-nnue-evals.tsv") {
		p, err := board.ParseFEN(row["fen"])
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	return ps
}

// TestNeuronOrderSF151 holds Stockfish 15.1's net with its neurons
// reordered at load to the same net in the file's order on the reference
// positions and random games from them, and logs the share of non-zero
// groups of fc_0's input on the reference positions (which the load's
// sample does not contain) in both orders. The AVX2 and the pure-Go
// kernels: run it with -tags purego too.
func TestNeuronOrderSF151(t *testing.T) {
	n := stockfishNet(t)
	u := inFileOrder(t, n)
	ps := referencePositions(t)
	before, after := groupDensity(u, ps), groupDensity(n, ps)
	t.Logf("non-zero 4-byte groups of fc_0's input on %d reference positions: %.3f in the file's order, %.3f reordered", len(ps), before, after)
	if after >= before {
		t.Errorf("reordering did not make fc_0's input sparser: %.3f -> %.3f", before, after)
	}
	if testing.Short() {
		ps = ps[:300]
	}
	checkOrderExact(t, n, u, ps, 1)
	w, b := n.TransformerInFileOrder()
	if slices.Equal(w, n.FTWeights) || slices.Equal(b, n.FTBias) {
		t.Error("TransformerInFileOrder returned the engine's order")
	}
}

// TestNeuronOrderSynthetic does the same on synthetic sf15.1 nets with
// fc_0 of 16 and 32 outputs (sparse: reordered) and checks that the order
// is the load's own: reading the file again gives the same net.
func TestNeuronOrderSynthetic(t *testing.T) {
	ps := referencePositions(t)[:200]
	for _, l0 := range []string{"16", "32"} {
		spec, err := tinySpec(t, "sf15.1").Override("head.layers=[" + l0 + ", 8, 1]")
		if err != nil {
			t.Fatal(err)
		}
		file := writeSynthSF(spec, 5)
		n, err := Read(spec, bytes.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		checkOrderExact(t, n, inFileOrder(t, n), ps, 2)
		again, err := Read(spec, bytes.NewReader(file))
		if err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(again.FTWeights, n.FTWeights) || !slices.Equal(again.head.(*sf15Head).order, n.head.(*sf15Head).order) {
			t.Fatal("two loads of one file gave different orders")
		}
	}
}

// TestNeuronOrderDenseUnchanged: a net whose fc_0 runs dense (4 outputs)
// keeps the file's order.
func TestNeuronOrderDenseUnchanged(t *testing.T) {
	spec := tinySpec(t, "sf15.1")
	n, err := Read(spec, bytes.NewReader(writeSynthSF(spec, 5)))
	if err != nil {
		t.Fatal(err)
	}
	if h := n.head.(*sf15Head); h.stacks[0].w0s != nil || h.order != nil {
		t.Fatalf("fc_0 of %d: sparse %v, order %v", h.l0, h.stacks[0].w0s != nil, h.order)
	}
}

// TestActivityOrder: groups of 4 started by the most active neuron left
// and filled by the neurons active where the group is; nil for the
// identity.
func TestActivityOrder(t *testing.T) {
	set := func(bs ...int) []uint64 {
		var w uint64
		for _, b := range bs {
			w |= 1 << b
		}
		return []uint64{w}
	}
	// Neuron 5 is active most; 1, 6 and 7 where it is, 3 elsewhere.
	active := [][]uint64{set(), set(0, 1), set(9), set(5, 6, 7), set(), set(0, 1, 2, 3), set(0, 1, 2), set(2, 3), set()}
	if got, want := activityOrder(active), []int{5, 6, 1, 7, 3, 2, 0, 4, 8}; !slices.Equal(got, want) {
		t.Errorf("got %v, want %v", got, want)
	}
	if got := activityOrder([][]uint64{set(1, 2), set(1), set(1), set(2), set(3)}); got != nil {
		t.Errorf("identity: got %v", got)
	}
	row := []int{10, 11, 12, 20, 21, 22}
	order := []int{2, 0, 1}
	permuteHalves(row, make([]int, 6), order)
	if !slices.Equal(row, []int{12, 10, 11, 22, 20, 21}) {
		t.Errorf("permuteHalves: %v", row)
	}
	if back := unpermuteHalves(row, order); !slices.Equal(back, []int{10, 11, 12, 20, 21, 22}) {
		t.Errorf("unpermuteHalves: %v", back)
	}
}
