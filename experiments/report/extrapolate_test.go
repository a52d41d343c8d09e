package report

import (
	"math"
	"testing"
)

func TestFitScaling(t *testing.T) {
	// Exactly 60 Elo a doubling from -700 at 1M: the fit finds it, and the
	// line reaches -200 at 1M * 2^(500/60).
	var pts []ScalePoint
	for i, n := range []float64{1e6, 2e6, 4e6, 8e6} {
		pts = append(pts, ScalePoint{Positions: n, Elo: -700 + 60*float64(i), SE: 30 + float64(i)})
	}
	f, err := FitScaling(pts)
	if err != nil {
		t.Fatal(err)
	}
	if math.Abs(f.B-60) > 1e-9 || math.Abs(f.A-(-700-60*math.Log2(1e6))) > 1e-6 {
		t.Errorf("fit %+v", f)
	}
	n, ok := f.PositionsFor(-200)
	if want := 1e6 * math.Exp2(500.0/60); !ok || math.Abs(n/want-1) > 1e-9 {
		t.Errorf("positionsFor(-200) = %g, %v; want %g", n, ok, want)
	}
	if f.SEB <= 0 || f.Points != 4 {
		t.Errorf("SEB %v points %d", f.SEB, f.Points)
	}
	sp := func(n, elo, se float64) ScalePoint { return ScalePoint{Positions: n, Elo: elo, SE: se} }
	// Weights: a precise point pulls the line harder than a noisy one.
	g, _ := FitScaling([]ScalePoint{sp(1e6, -700, 10), sp(2e6, -640, 10), sp(4e6, -400, 1000)})
	if math.Abs(g.B-60) > 1 {
		t.Errorf("a noisy outlier moved the slope to %v", g.B)
	}
	// A falling line reaches nothing.
	h, _ := FitScaling([]ScalePoint{sp(1e6, -600, 20), sp(2e6, -650, 20)})
	if _, ok := h.PositionsFor(-200); ok {
		t.Error("a falling line reached -200")
	}
	for _, bad := range [][]ScalePoint{
		{sp(1e6, -600, 20)},
		{sp(1e6, -600, 20), sp(1e6, -500, 20)},
		{sp(1e6, -600, 0), sp(2e6, -500, 20)},
		{sp(0, -600, 10), sp(2e6, -500, 20)},
		{sp(1e6, math.Inf(-1), 10), sp(2e6, -500, 20)},
	} {
		if _, err := FitScaling(bad); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
	if se := SeFromInterval(-100, 100); math.Abs(se-51.02) > 0.01 {
		t.Errorf("SE of ±100: %v", se)
	}
}
