package stats

import (
	"math"
	"testing"
)

func near(got, want, tol float64) bool {
	if math.IsInf(want, 0) || math.IsNaN(want) {
		return got == want || (math.IsNaN(got) && math.IsNaN(want))
	}
	return math.Abs(got-want) <= tol
}

func TestEloFromScore(t *testing.T) {
	tests := []struct {
		score, elo float64
	}{
		{0.5, 0},
		{0.75, 190.848501887865},  // -400*log10(1/3)
		{0.25, -190.848501887865}, // symmetric
		{0.9, 381.697003775730},   // -400*log10(1/9)
		{0, math.Inf(-1)},
		{1, math.Inf(1)},
		{-0.1, math.NaN()},
		{1.5, math.NaN()},
	}
	for _, tt := range tests {
		if got := EloFromScore(tt.score); !near(got, tt.elo, 1e-9) {
			t.Errorf("EloFromScore(%g) = %v, want %v", tt.score, got, tt.elo)
		}
	}
	for _, elo := range []float64{-600, -35, 0, 5, 100, 700} {
		if got := EloFromScore(ScoreFromElo(elo)); !near(got, elo, 1e-9) {
			t.Errorf("EloFromScore(ScoreFromElo(%g)) = %g", elo, got)
		}
	}
	if got := ScoreFromElo(100); !near(got, 0.6400649998028851, 1e-12) { // 1/(1+10^-0.25)
		t.Errorf("ScoreFromElo(100) = %v", got)
	}
}

func TestWDL(t *testing.T) {
	tests := []struct {
		name              string
		r                 WDL
		score, draws, los float64
		elo               Estimate
	}{
		// score 0.7; per-game variance (60*.3² + 20*.2² + 20*.7²)/100 = 0.16,
		// se = 0.04, interval 0.7 ± 1.96*0.04.
		{"60-20-20", WDL{60, 20, 20}, 0.7, 0.2, 0.5 * (1 + math.Erf(40/math.Sqrt(160))),
			Estimate{147.19071411783776, 86.22501520030423, 218.2517776410748}},
		// LOS = 1/2(1+erf(4/sqrt(32))) = Phi(1).
		{"10-0-6", WDL{10, 0, 6}, 10.0 / 16, 0, 0.8413447460685429,
			Estimate{EloFromScore(10.0 / 16), math.NaN(), math.NaN()}},
		{"all draws", WDL{0, 8, 0}, 0.5, 1, 0.5, Estimate{0, 0, 0}},
		{"all wins", WDL{4, 0, 0}, 1, 0, 0.5 * (1 + math.Erf(4/math.Sqrt(8))), Estimate{math.Inf(1), math.Inf(1), math.Inf(1)}},
		{"empty", WDL{}, math.NaN(), math.NaN(), 0.5, Estimate{math.NaN(), math.NaN(), math.NaN()}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.r.Score(); !near(got, tt.score, 1e-12) {
				t.Errorf("Score = %v, want %v", got, tt.score)
			}
			if got := tt.r.DrawRatio(); !near(got, tt.draws, 1e-12) {
				t.Errorf("DrawRatio = %v, want %v", got, tt.draws)
			}
			if got := tt.r.LOS(); !near(got, tt.los, 1e-12) {
				t.Errorf("LOS = %v, want %v", got, tt.los)
			}
			e := tt.r.Elo()
			if !near(e.Value, tt.elo.Value, 1e-6) {
				t.Errorf("Elo = %v, want %v", e.Value, tt.elo.Value)
			}
			if !math.IsNaN(tt.elo.Lower) && (!near(e.Lower, tt.elo.Lower, 1e-6) || !near(e.Upper, tt.elo.Upper, 1e-6)) {
				t.Errorf("interval = [%v, %v], want [%v, %v]", e.Lower, e.Upper, tt.elo.Lower, tt.elo.Upper)
			}
		})
	}
}

func TestPenta(t *testing.T) {
	tests := []struct {
		name   string
		p      Penta
		score  float64
		elo    Estimate
		los    float64
		nelo   Estimate
		checkI bool
	}{
		// Symmetric: mu = 1/2, pair variance (10*.25 + 20*.0625)*2/100 = 0.075,
		// se = sqrt(0.075/100); Elo interval 1/2 ± 1.96 se; nElo interval
		// ± 1.96 se / sqrt(2*0.075) * 800/ln 10.
		{"symmetric", Penta{10, 20, 40, 20, 10}, 0.5,
			Estimate{0, -37.44205973535754, 37.44205973535754}, 0.5,
			Estimate{0, -48.15123066909428, 48.15123066909428}, true},
		// mu = 0.5205, var = 0.03520475 (computed by hand from the counts),
		// LOS = Phi((mu-.5)/sqrt(var/1000)), nElo = (mu-.5)/sqrt(2 var)*800/ln 10.
		{"1000 pairs", Penta{12, 180, 550, 230, 28}, 0.5205,
			Estimate{14.252848935948975, 6.164730825887708, 22.356438926412103}, 0.9997248956164507,
			Estimate{26.841855200597436, 0, 0}, false},
		{"all WW", Penta{0, 0, 0, 0, 5}, 1, Estimate{math.Inf(1), math.Inf(1), math.Inf(1)}, 1,
			Estimate{math.NaN(), math.NaN(), math.NaN()}, true},
		{"all DD", Penta{0, 0, 3, 0, 0}, 0.5, Estimate{0, 0, 0}, 0.5,
			Estimate{math.NaN(), math.NaN(), math.NaN()}, true},
		{"empty", Penta{}, math.NaN(), Estimate{math.NaN(), math.NaN(), math.NaN()}, 0.5,
			Estimate{math.NaN(), math.NaN(), math.NaN()}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.p.Score(); !near(got, tt.score, 1e-12) {
				t.Errorf("Score = %v, want %v", got, tt.score)
			}
			e := tt.p.Elo()
			if !near(e.Value, tt.elo.Value, 1e-6) || !near(e.Lower, tt.elo.Lower, 1e-6) || !near(e.Upper, tt.elo.Upper, 1e-6) {
				t.Errorf("Elo = %+v, want %+v", e, tt.elo)
			}
			if got := tt.p.LOS(); !near(got, tt.los, 1e-9) {
				t.Errorf("LOS = %v, want %v", got, tt.los)
			}
			n := tt.p.NormalizedElo()
			if !near(n.Value, tt.nelo.Value, 1e-6) {
				t.Errorf("NormalizedElo = %v, want %v", n.Value, tt.nelo.Value)
			}
			if tt.checkI && (!near(n.Lower, tt.nelo.Lower, 1e-6) || !near(n.Upper, tt.nelo.Upper, 1e-6)) {
				t.Errorf("NormalizedElo interval = [%v, %v], want [%v, %v]", n.Lower, n.Upper, tt.nelo.Lower, tt.nelo.Upper)
			}
		})
	}
}

func TestPairClass(t *testing.T) {
	tests := []struct {
		a, b float64
		want int
	}{
		{0, 0, 0}, {0, 0.5, 1}, {0.5, 0, 1}, {1, 0, 2}, {0, 1, 2}, {0.5, 0.5, 2},
		{1, 0.5, 3}, {0.5, 1, 3}, {1, 1, 4}, {0.3, 1, -1}, {1, 2, -1}, {math.NaN(), 0, -1},
	}
	for _, tt := range tests {
		if got := PairClass(tt.a, tt.b); got != tt.want {
			t.Errorf("PairClass(%v, %v) = %d, want %d", tt.a, tt.b, got, tt.want)
		}
	}
}
