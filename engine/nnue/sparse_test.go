package nnue

import (
	"bytes"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board"
)

// denseCopy returns a copy of h whose layer stacks run fc_0 densely
// (Affine7 on the row-major weights) instead of over the non-zero groups.
func denseCopy(h *sf15Head) *sf15Head {
	d := *h
	d.stacks = slices.Clone(h.stacks)
	for i := range d.stacks {
		d.stacks[i].w0s = nil
	}
	return &d
}

// checkSparseEqualsDense runs every layer stack of h on random transformer
// outputs (bytes up to 127, the pairwise product's range, with 4-byte
// groups zero at densities from none to all, and single bytes set) through
// the sparse fc_0 and the dense one and requires the same layers and
// output.
func checkSparseEqualsDense(t *testing.T, h *sf15Head, w int, seed uint64) {
	t.Helper()
	for i := range h.stacks {
		if h.stacks[i].w0s == nil {
			t.Fatalf("stack %d has no sparse weights: fc_0 of %d outputs should run sparse", i, h.l0)
		}
	}
	dense := denseCopy(h)
	rng := rand.New(rand.NewPCG(seed, 26))
	in := make([]uint8, w)
	for trial := 0; trial < 400; trial++ {
		density := []float64{0, 0.02, 0.2, 0.5, 0.8, 1}[trial%6]
		clear(in)
		for c := 0; c < w/4; c++ {
			if rng.Float64() < density {
				for k := 0; k < 4; k++ {
					if rng.IntN(2) == 0 {
						in[4*c+k] = uint8(rng.IntN(128))
					}
				}
			}
		}
		if trial%7 == 0 {
			in[rng.IntN(w)] = 127
		}
		for b := range h.stacks {
			var trS, trD Trace
			s, d := h.propagate(in, b, &trS), dense.propagate(in, b, &trD)
			if s != d || !slices.EqualFunc(trS.Layers, trD.Layers, slices.Equal) {
				t.Fatalf("trial %d (density %.2f) stack %d: sparse %d %v, dense %d %v", trial, density, b, s, trS.Layers, d, trD.Layers)
			}
		}
	}
}

// TestSparseFC0SF151 is the dense-versus-sparse property on Stockfish
// 15.1's net (1024 -> 16 per stack); TestSF15Exact holds the sparse path
// to the engine's own outputs, and cmd/nnuelab's TestEvalTraceSF17 and
// TestEvalTraceSF18 hold 17.1's and 18's nets (3072 -> 16, 1024 -> 16) to
// theirs.
func TestSparseFC0SF151(t *testing.T) {
	n := stockfishNet(t)
	checkSparseEqualsDense(t, n.head.(*sf15Head), n.Width, 1)
}

// TestSparseFC0Synthetic runs the property on synthetic nets of the
// sf15.1, sf17 and sf18 formats whose fc_0 has 16 or 32 outputs (the tiny
// specs' 4 stay dense), and holds the sf15.1 ones to the reference loops
// on the reference positions, from scratch and incrementally.
func TestSparseFC0Synthetic(t *testing.T) {
	rows := readTSV(t, "sf15.1-nnue-evals.tsv")[:200]
	for _, l0 := range []string{"16", "32"} {
		for _, tc := range []struct {
			spec  *archs.Spec
			bytes func(*archs.Spec) []byte
		}{
			{tinySpec(t, "sf15.1"), func(s *archs.Spec) []byte { return writeSynthSF(s, 5) }},
			{sf17TinySpec(t, "sf17-tiny", 128, ""), func(s *archs.Spec) []byte { return writeSynthSF17(s, 6, 30) }},
			{sf18TinySpec(t, "sf18-tiny", 64, ""), func(s *archs.Spec) []byte { return writeSynthSF18(s, 7) }},
		} {
			spec, err := tc.spec.Override("head.layers=[" + l0 + ", 8, 1]")
			if err != nil {
				t.Fatal(err)
			}
			n, err := Read(spec, bytes.NewReader(tc.bytes(spec)))
			if err != nil {
				t.Fatalf("%s with fc_0 %s: %v", tc.spec.Name, l0, err)
			}
			var h *sf15Head
			switch head := n.head.(type) {
			case *sf15Head:
				h = head
			case *sf17Head:
				h = &head.sf15Head
			}
			checkSparseEqualsDense(t, h, n.Width, 2)
			if _, ok := n.head.(*sf15Head); !ok {
				continue
			}
			ev := NewEvaluator(n)
			for _, row := range rows {
				p, _ := board.ParseFEN(row["fen"])
				acc, psqt := scratchAccumulators(n, p)
				us, them := p.SideToMove(), p.SideToMove().Other()
				want := refSF15(h, acc[us], acc[them], psqt[us], psqt[them], n.outputBucket(p.Occupied().Count()))
				ev.Reset(p)
				if got, inc := n.Evaluate(p, nil), ev.Raw(p, nil); got != want || inc != want {
					t.Fatalf("fc_0 %s, %s: head %d, incremental %d, reference loops %d", l0, row["fen"], got, inc, want)
				}
			}
		}
	}
}
