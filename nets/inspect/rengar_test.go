package inspect

import (
	"slices"
	"testing"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/nnue"
)

// handRengar builds a Rengar net whose activations are known: no
// embedding weights (fs, ha and ra are 0 on every position), a tempo of 2
// on va's neurons 0..15 (clamped to +127/128: always saturated) and 0 on
// 16..31 (dead); the second layer's fs biases +2, +2, -2 and 0 (two
// neurons saturated at the top, one at the bottom, one dead).
func handRengar(t *testing.T) *Net {
	spec, err := archs.Load("rengar")
	if err != nil {
		t.Fatal(err)
	}
	w := &nnue.RengarWeights{}
	for j := 0; j < 16; j++ {
		w.TempoVA[j] = 2
	}
	w.L1fsBias = [4]float32{2, 2, -2, 0}
	w.L2va = [4]float32{0.5, 0.25, -0.25, 1}
	n, err := nnue.NewRengar(spec, w)
	if err != nil {
		t.Fatal(err)
	}
	v, err := New("hand-rengar", spec, n, nil)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// TestHandBuiltRengar: Rengar's traced activations, with a symmetric
// clamp that saturates at either end.
func TestHandBuiltRengar(t *testing.T) {
	v := handRengar(t)
	if !Supported(v) {
		t.Fatal("Rengar has no statistics")
	}
	const positions = 100
	a, err := Collect(v, sampleReader(t), "fresh-sf500", Options{Limit: positions, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Layers) != 2 || a.Positions != positions {
		t.Fatalf("%d layers over %d positions", len(a.Layers), a.Positions)
	}
	in, fs := a.Layers[0], a.Layers[1]
	if in.Units != 128 || in.Outputs != 128*positions || !in.Symmetric || in.Ceil != rengarCeil {
		t.Fatalf("inputs: %d units, %d outputs, symmetric %v, ceiling %d", in.Units, in.Outputs, in.Symmetric, in.Ceil)
	}
	// 96 of fs|ha|ra and 16 of va are zero, va's first 16 saturated.
	if in.ZeroShare() != 112.0/128 || in.SaturatedShare() != 16.0/128 {
		t.Errorf("inputs: zero %v saturated %v, want 0.875 and 0.125", in.ZeroShare(), in.SaturatedShare())
	}
	var wantSat, wantDead []int
	for u := 0; u < 128; u++ {
		if u >= 32 && u < 48 {
			wantSat = append(wantSat, u)
		} else {
			wantDead = append(wantDead, u)
		}
	}
	if got := in.AlwaysSaturated(); !slices.Equal(got, wantSat) {
		t.Errorf("inputs always saturated %v, want 32..47", got)
	}
	if got := in.Dead(); !slices.Equal(got, wantDead) {
		t.Errorf("inputs dead %v, want all but 32..47", got)
	}
	if fs.ZeroShare() != 0.25 || fs.SaturatedShare() != 0.75 {
		t.Errorf("l2 fs: zero %v saturated %v, want 0.25 and 0.75 (one at -127/128)", fs.ZeroShare(), fs.SaturatedShare())
	}
	if !slices.Equal(fs.AlwaysSaturated(), []int{0, 1, 2}) || !slices.Equal(fs.Dead(), []int{3}) {
		t.Errorf("l2 fs: always saturated %v, dead %v", fs.AlwaysSaturated(), fs.Dead())
	}
	// One float32 to a 4-byte group.
	if a.GroupValues != 1 || a.NonZeroGroupShare() != 16.0/128 {
		t.Errorf("groups of %d, %v non-zero; want 1 and 0.125", a.GroupValues, a.NonZeroGroupShare())
	}
}

// TestRengarCollect: the engine's Rengar trace gives statistics with zeros
// and saturation for the shipped net and random weights, and
// CollectPositions counts as Collect.
func TestRengarCollect(t *testing.T) {
	spec, err := archs.Load("rengar")
	if err != nil {
		t.Fatal(err)
	}
	n, err := nnue.NewRengar(spec, nnue.RandomRengarWeights(7, 0.5))
	if err != nil {
		t.Fatal(err)
	}
	random, err := New("random-rengar", spec, n, nil)
	if err != nil {
		t.Fatal(err)
	}
	shipped, err := Load("rengar-first", "")
	if err != nil {
		t.Fatal(err)
	}
	var ps []*board.Position
	r := sampleReader(t)
	for len(ps) < 500 {
		rec, err := r.Next()
		if err != nil {
			t.Fatal(err)
		}
		p, err := rec.Position()
		if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	for _, v := range []*Net{random, shipped} {
		a, err := Collect(v, sampleReader(t), "fresh-sf500", Options{Limit: 500, Threads: 2})
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		b, err := CollectPositions(v, ps, "fresh-sf500", Options{Threads: 1})
		if err != nil {
			t.Fatalf("%s: %v", v.Name, err)
		}
		for i := range a.Layers {
			la, lb := a.Layers[i], b.Layers[i]
			if la.Zero != lb.Zero || la.Saturated != lb.Saturated || la.Outputs != lb.Outputs || !slices.Equal(la.Active, lb.Active) {
				t.Errorf("%s %s: Collect and CollectPositions differ", v.Name, la.Name)
			}
		}
		in := a.Layers[0]
		if in.ZeroShare() == 0 && in.SaturatedShare() == 0 {
			t.Errorf("%s: no zero and no saturated input over 500 positions", v.Name)
		}
		t.Logf("%s: inputs zero %.4f saturated %.4f; l2 fs zero %.4f saturated %.4f", v.Name,
			in.ZeroShare(), in.SaturatedShare(), a.Layers[1].ZeroShare(), a.Layers[1].SaturatedShare())
	}
}

// TestCollectPositionsLimit: Options.Limit keeps the first positions, and
// no positions is an error naming the set.
func TestCollectPositionsLimit(t *testing.T) {
	v, _ := handLinear(t)
	ps := []*board.Position{board.StartPosition(), board.StartPosition(), board.StartPosition()}
	a, err := CollectPositions(v, ps, "three", Options{Limit: 2})
	if err != nil || a.Positions != 2 {
		t.Fatalf("%v positions, %v", a, err)
	}
	if _, err := CollectPositions(v, nil, "none", Options{}); err == nil || err.Error() != "none: no positions" {
		t.Errorf("no positions: %v", err)
	}
}
