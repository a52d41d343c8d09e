package wdl

import (
	"math"
	"math/rand/v2"
	"testing"
)

// TestFitRecoversModel draws game outcomes from a known model and checks
// that the fit finds it again: the per-count a and b within a few percent,
// and the fitted chances within 1.5 points of the true ones.
func TestFitRecoversModel(t *testing.T) {
	truth := Model{A: [4]float64{-120, 250, -60, 160}, B: [4]float64{-40, 90, -30, 70}}
	rng := rand.New(rand.NewPCG(1, 2))
	var samples []Sample
	for _, m := range []int{20, 30, 40, 50, 60, 70, 78} {
		for range 4000 {
			v := rng.NormFloat64() * 300
			w, d, _ := truth.Probabilities(v, m)
			o, u := 0.0, rng.Float64()
			switch {
			case u < w:
				o = 1
			case u < w+d:
				o = 0.5
			}
			samples = append(samples, Sample{Score: v, Material: m, Outcome: o})
		}
	}
	md, bins, err := Fit(samples)
	if err != nil {
		t.Fatal(err)
	}
	if len(bins) != 7 {
		t.Fatalf("%d bins, want 7", len(bins))
	}
	for _, b := range bins {
		ta, tb := truth.Params(b.Material)
		if math.Abs(b.A-ta) > 0.08*ta || math.Abs(b.B-tb) > 0.1*tb {
			t.Errorf("material %d: a %.1f b %.1f, true %.1f %.1f", b.Material, b.A, b.B, ta, tb)
		}
	}
	for _, m := range []int{25, 45, 65} {
		for _, v := range []float64{-400, -100, 0, 50, 200, 600} {
			w1, d1, l1 := md.Probabilities(v, m)
			w0, d0, l0 := truth.Probabilities(v, m)
			if math.Abs(w1-w0) > 0.015 || math.Abs(d1-d0) > 0.015 || math.Abs(l1-l0) > 0.015 {
				t.Errorf("m %d v %v: fitted %.3f/%.3f/%.3f, true %.3f/%.3f/%.3f", m, v, w1, d1, l1, w0, d0, l0)
			}
		}
	}
}

func TestFitErrors(t *testing.T) {
	tests := []struct {
		name    string
		samples []Sample
	}{
		{"no data", nil},
		{"bad outcome", []Sample{{Score: 1, Material: 30, Outcome: 0.7}}},
		{"nan score", []Sample{{Score: math.NaN(), Material: 30, Outcome: 1}}},
		{"too few counts", func() []Sample {
			var s []Sample
			for i := range 3 * MinBin {
				s = append(s, Sample{Score: float64(i % 300), Material: 20 + i%3, Outcome: float64(i%3) / 2})
			}
			return s
		}()},
	}
	for _, tc := range tests {
		if _, _, err := Fit(tc.samples); err == nil {
			t.Errorf("%s: no error", tc.name)
		}
	}
}

func TestPerMille(t *testing.T) {
	md := Model{A: [4]float64{0, 0, 0, 150}, B: [4]float64{0, 0, 0, 80}}
	tests := []struct {
		v, mat  int
		w, d, l int
	}{
		{0, 40, 133, 734, 133},
		{150, 40, 500, 477, 23},
		{-150, 40, 23, 477, 500},
		{31000, 40, 1000, 0, 0},
		{-30990, 40, 0, 0, 1000},
	}
	for _, tc := range tests {
		w, d, l := md.PerMille(tc.v, 30872, tc.mat)
		if w != tc.w || d != tc.d || l != tc.l || w+d+l != 1000 {
			t.Errorf("PerMille(%d) = %d %d %d, want %d %d %d", tc.v, w, d, l, tc.w, tc.d, tc.l)
		}
	}
	if got := Material(16, 4, 4, 4, 2); got != 78 {
		t.Errorf("start material %d, want 78", got)
	}
}
