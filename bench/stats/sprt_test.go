package stats

import (
	"math"
	"testing"
)

func TestSPRTBounds(t *testing.T) {
	tests := []struct {
		alpha, beta, lo, hi float64
	}{
		{0.05, 0.05, math.Log(0.05 / 0.95), math.Log(0.95 / 0.05)}, // ±2.944439
		{0.05, 0.1, math.Log(0.1 / 0.95), math.Log(0.9 / 0.05)},
	}
	for _, tt := range tests {
		lo, hi := SPRT{Alpha: tt.alpha, Beta: tt.beta}.Bounds()
		if !near(lo, tt.lo, 1e-12) || !near(hi, tt.hi, 1e-12) {
			t.Errorf("Bounds(%g, %g) = %v, %v", tt.alpha, tt.beta, lo, hi)
		}
	}
	lo, hi := SPRT{Alpha: 0.05, Beta: 0.05}.Bounds()
	if !near(hi, 2.9444389791664403, 1e-12) || !near(lo, -hi, 1e-12) {
		t.Errorf("5%%/5%% bounds = %v, %v, want ∓2.944439", lo, hi)
	}
}

// The reference LLRs come from testdata/llr_reference.py, an independent
// plain-Python implementation of the published formulas (different root
// finder, different iteration); the comments give the closed-form
// approximations that the exact values must be near, computed by hand.
func TestSPRTLLR(t *testing.T) {
	tests := []struct {
		name       string
		p          Penta
		elo0, elo1 float64
		model      Model
		want       float64
	}{
		// Hand: mu = .5, pair var = .075. Normalized approximation
		// (games/2) ln((1+(nt-nt0)²)/(1+(nt-nt1)²)) with nt = 0,
		// nt1 = 5/347.4356 = 0.014391: 100*ln(1/(1+0.014391²)) = -0.020709.
		{"symmetric normalized", Penta{10, 20, 40, 20, 10}, 0, 5, Normalized, -0.0207094670},
		// Hand: GSPRT approximation N(s1-s0)(2mu-s0-s1)/(2 var) with
		// s0 = .5, s1 = L(5) = .5071953: 100*.0071953*(-.0071953)/.15 = -0.034515.
		{"symmetric logistic", Penta{10, 20, 40, 20, 10}, 0, 5, Logistic, -0.0345068510},
		{"1000 pairs normalized", Penta{12, 180, 550, 230, 28}, 0, 5, Normalized, 2.0128406302},
		{"1000 pairs logistic", Penta{12, 180, 550, 230, 28}, 0, 5, Logistic, 3.4479843013},
		{"few pairs, negative bounds", Penta{0, 3, 10, 6, 1}, -5, 0, Normalized, 0.1373366569},
		{"losing, [0, 2]", Penta{40, 300, 900, 280, 30}, 0, 2, Normalized, -0.4887363031},
		{"only DD (regularized)", Penta{0, 0, 5, 0, 0}, 0, 5, Logistic, -0.0676479534},
		{"no pairs", Penta{}, 0, 5, Normalized, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := SPRT{Elo0: tt.elo0, Elo1: tt.elo1, Alpha: 0.05, Beta: 0.05, Model: tt.model}
			if err := s.Validate(); err != nil {
				t.Fatal(err)
			}
			if got := s.LLR(tt.p); !near(got, tt.want, 1e-7) {
				t.Errorf("LLR(%v) = %.10f, want %.10f", tt.p, got, tt.want)
			}
		})
	}
}

// The approximations of the GSPRT must agree with the exact LLR to within a
// few per cent when the bounds are close (Van den Bergh, GSPRT_approximation).
func TestSPRTLLRNearApproximation(t *testing.T) {
	for _, p := range []Penta{{12, 180, 550, 230, 28}, {40, 300, 900, 280, 30}, {5, 50, 90, 40, 3}} {
		n := float64(p.Pairs())
		mu, v := meanVar(pairValues, p.floats())
		s0, s1 := ScoreFromElo(0), ScoreFromElo(5)
		approx := n * (s1 - s0) * (2*mu - s0 - s1) / (2 * v)
		exact := SPRT{Elo0: 0, Elo1: 5, Alpha: 0.05, Beta: 0.05, Model: Logistic}.LLR(p)
		if math.Abs(exact-approx) > 0.03*math.Abs(approx)+0.01 {
			t.Errorf("logistic %v: exact %v, approximation %v", p, exact, approx)
		}
		nt := (mu - 0.5) / math.Sqrt(2*v)
		nt1 := 5 / neloPerT
		approxN := n * math.Log((1+nt*nt)/(1+(nt-nt1)*(nt-nt1)))
		exactN := SPRT{Elo0: 0, Elo1: 5, Alpha: 0.05, Beta: 0.05, Model: Normalized}.LLR(p)
		if math.Abs(exactN-approxN) > 0.03*math.Abs(approxN)+0.01 {
			t.Errorf("normalized %v: exact %v, approximation %v", p, exactN, approxN)
		}
	}
}

// The fitted distributions must satisfy their hypotheses.
func TestMLEConstraints(t *testing.T) {
	phat := []float64{0.05, 0.2, 0.45, 0.25, 0.05}
	for _, s := range []float64{0.3, 0.5, 0.507, 0.7} {
		q := mleMean(pairValues, phat, s)
		mu, _ := meanVar(pairValues, q)
		if !near(mu, s, 1e-12) || !near(sum(q), 1, 1e-12) {
			t.Errorf("mleMean(%g): mean %v, total %v", s, mu, sum(q))
		}
	}
	for _, tv := range []float64{-0.1, 0, 0.02, 0.3} {
		q := mleTValue(pairValues, phat, 0.5, tv)
		mu, v := meanVar(pairValues, q)
		if got := (mu - 0.5) / math.Sqrt(v); !near(got, tv, 1e-10) || !near(sum(q), 1, 1e-10) {
			t.Errorf("mleTValue(%g): t-value %v, total %v", tv, got, sum(q))
		}
	}
	if q := mleMean(pairValues, phat, 1.2); q != nil {
		t.Errorf("mleMean outside the support = %v, want nil", q)
	}
}

func sum(x []float64) float64 {
	var s float64
	for _, v := range x {
		s += v
	}
	return s
}

func TestSPRTDecideAndValidate(t *testing.T) {
	s := SPRT{Elo0: 0, Elo1: 5, Alpha: 0.05, Beta: 0.05, Model: Normalized}
	for _, tt := range []struct {
		llr  float64
		want Decision
	}{{0, Continue}, {2.9, Continue}, {2.95, AcceptH1}, {-2.95, AcceptH0}, {math.NaN(), Continue}} {
		if got := s.Decide(tt.llr); got != tt.want {
			t.Errorf("Decide(%v) = %v, want %v", tt.llr, got, tt.want)
		}
	}
	bad := []SPRT{
		{Elo0: 5, Elo1: 0, Alpha: 0.05, Beta: 0.05, Model: Normalized},
		{Elo0: 0, Elo1: 5, Alpha: 0, Beta: 0.05, Model: Normalized},
		{Elo0: 0, Elo1: 5, Alpha: 0.05, Beta: 0.7, Model: Normalized},
		{Elo0: 0, Elo1: 5, Alpha: 0.05, Beta: 0.05, Model: "bayes"},
		{Elo0: math.NaN(), Elo1: 5, Alpha: 0.05, Beta: 0.05, Model: Logistic},
	}
	for _, b := range bad {
		if b.Validate() == nil {
			t.Errorf("Validate(%+v) = nil, want an error", b)
		}
	}
}
