package stats

import (
	"fmt"
	"math"
)

// Model is the Elo scale the SPRT hypotheses are stated in.
type Model string

// The two Elo scales of SPRT bounds.
const (
	// Normalized Elo (Van den Bergh): the hypotheses fix the t-value
	// (mu - 1/2)/sigma of the score, so a bound means the same test
	// difficulty whatever the draw ratio or opening book. fishtest's and
	// fastchess's default.
	Normalized Model = "normalized"
	// Logistic Elo: the hypotheses fix the expected score
	// 1/(1+10^(-elo/400)). cutechess-cli's and older OpenBench bounds.
	Logistic Model = "logistic"
)

// SPRT is a sequential probability ratio test of H0: elo = Elo0 against
// H1: elo = Elo1 on game pairs, with the generalized (GSPRT) log-likelihood
// ratio of the pentanomial model: each hypothesis is represented by the
// maximum-likelihood pentanomial distribution that satisfies it, and the
// LLR is the log of the likelihood ratio of the observed pairs under those
// two distributions. See docs/match.md for the formula and its sources.
type SPRT struct {
	Elo0, Elo1  float64
	Alpha, Beta float64
	Model       Model
}

// Validate reports bounds the test cannot run with.
func (s SPRT) Validate() error {
	switch {
	case s.Model != Normalized && s.Model != Logistic:
		return fmt.Errorf("sprt model must be %q or %q, got %q", Normalized, Logistic, s.Model)
	case math.IsNaN(s.Elo0) || math.IsNaN(s.Elo1) || math.IsInf(s.Elo0, 0) || math.IsInf(s.Elo1, 0):
		return fmt.Errorf("sprt elo0 and elo1 must be finite")
	case s.Elo0 >= s.Elo1:
		return fmt.Errorf("sprt elo0 (%g) must be less than elo1 (%g)", s.Elo0, s.Elo1)
	case math.Abs(s.Elo0) > 1000 || math.Abs(s.Elo1) > 1000:
		return fmt.Errorf("sprt elo0 and elo1 must be within ±1000")
	case !(s.Alpha > 0 && s.Alpha < 0.5) || !(s.Beta > 0 && s.Beta < 0.5):
		return fmt.Errorf("sprt alpha and beta must be in (0, 0.5), got %g and %g", s.Alpha, s.Beta)
	}
	return nil
}

// Bounds returns Wald's stopping bounds on the LLR: lower = ln(beta/(1-alpha))
// (accept H0 at or below) and upper = ln((1-beta)/alpha) (accept H1 at or
// above).
func (s SPRT) Bounds() (lower, upper float64) {
	return math.Log(s.Beta / (1 - s.Alpha)), math.Log((1 - s.Beta) / s.Alpha)
}

// Decision is the state of a sequential test.
type Decision int

// The three states of an SPRT.
const (
	Continue Decision = iota // no bound crossed yet
	AcceptH0                 // lower bound crossed: elo0 is the better explanation
	AcceptH1                 // upper bound crossed: elo1 is the better explanation
)

// String returns "continue", "H0 accepted" or "H1 accepted".
func (d Decision) String() string {
	switch d {
	case AcceptH0:
		return "H0 accepted"
	case AcceptH1:
		return "H1 accepted"
	}
	return "continue"
}

// Decide compares an LLR with the bounds; NaN continues.
func (s SPRT) Decide(llr float64) Decision {
	lo, hi := s.Bounds()
	switch {
	case llr >= hi:
		return AcceptH1
	case llr <= lo:
		return AcceptH0
	}
	return Continue
}

// regularization replaces empty pentanomial classes so that every class has
// positive probability and the maximum-likelihood problems are well posed
// (fishtest and OpenBench use the same 1e-3).
const regularization = 1e-3

// LLR returns the generalized log-likelihood ratio of H1 against H0 for the
// pair counts p: N * sum_i phat_i * ln(q1_i / q0_i), where phat is the
// (regularized) observed distribution over the pair scores 0, 1/4, 1/2, 3/4,
// 1 and qk is the distribution closest to phat in likelihood that satisfies
// hypothesis k: expected pair score ScoreFromElo(elok) for the logistic
// model, t-value (mu - 1/2)/sigma_pair = sqrt(2) * elok / (800/ln 10) for the
// normalized one. It is 0 without pairs and NaN if a hypothesis cannot be
// fitted (only for absurd bounds).
func (s SPRT) LLR(p Penta) float64 {
	if p.Pairs() == 0 {
		return 0
	}
	a := pairValues
	phat := make([]float64, 5)
	var n float64
	for i, c := range p {
		phat[i] = float64(c)
		if c == 0 {
			phat[i] = regularization
		}
		n += phat[i]
	}
	for i := range phat {
		phat[i] /= n
	}
	var q0, q1 []float64
	if s.Model == Logistic {
		q0 = mleMean(a, phat, ScoreFromElo(s.Elo0))
		q1 = mleMean(a, phat, ScoreFromElo(s.Elo1))
	} else {
		t0 := s.Elo0 / neloPerT * math.Sqrt2
		t1 := s.Elo1 / neloPerT * math.Sqrt2
		q0 = mleTValue(a, phat, 0.5, t0)
		q1 = mleTValue(a, phat, 0.5, t1)
	}
	if q0 == nil || q1 == nil {
		return math.NaN()
	}
	var llr float64
	for i := range phat {
		llr += float64(phat[i] * (math.Log(q1[i]) - math.Log(q0[i])))
	}
	return n * llr
}

// mleMean returns the distribution q on the values a that maximizes
// sum phat_i ln q_i subject to sum q_i a_i = s (Van den Bergh,
// "support_MLE_multinomial", Proposition 1.1): q_i = phat_i/(1 + x(a_i - s))
// with x the root of the secular equation sum phat_i (a_i-s)/(1+x(a_i-s)) = 0.
// It returns nil if s is not strictly inside the range of a.
func mleMean(a, phat []float64, s float64) []float64 {
	b := make([]float64, len(a))
	for i := range a {
		b[i] = a[i] - s
	}
	x, ok := secular(b, phat)
	if !ok {
		return nil
	}
	q := make([]float64, len(a))
	for i := range a {
		// float64(x*y) here and below: no FMA fusion at GOAMD64=v3 (make fma-check).
		q[i] = phat[i] / (1 + float64(x*b[i]))
	}
	return q
}

// mleTValue returns the distribution q on the values a that maximizes
// sum phat_i ln q_i subject to (mu(q) - ref)/sigma(q) = t (Van den Bergh,
// "normalized_elo_practical", section 4.1). The Lagrange conditions give
// q_i = phat_i/(1 + x b_i) with b_i = a_i - ref - t(sigma^2 + (a_i-mu)^2)/(2 sigma),
// where mu and sigma are those of q itself; it is solved by fixed-point
// iteration from the uniform distribution, each step solving the secular
// equation for x. It returns nil if an iteration cannot be solved.
func mleTValue(a, phat []float64, ref, t float64) []float64 {
	k := len(a)
	q := make([]float64, k)
	for i := range q {
		q[i] = 1 / float64(k)
	}
	b := make([]float64, k)
	for iter := 0; iter < 200; iter++ {
		mu, v := meanVar(a, q)
		sigma := math.Sqrt(v)
		if !(sigma > 0) {
			return nil
		}
		for i := range a {
			d := a[i] - mu
			b[i] = a[i] - ref - t*(v+float64(d*d))/(2*sigma)
		}
		x, ok := secular(b, phat)
		if !ok {
			return nil
		}
		var change float64
		for i := range a {
			next := phat[i] / (1 + float64(x*b[i]))
			change = math.Max(change, math.Abs(next-q[i]))
			q[i] = next
		}
		if change < 1e-13 {
			break
		}
	}
	return q
}

// secular solves sum_i w_i b_i / (1 + x b_i) = 0 for x in the interval where
// every 1 + x b_i is positive, (-1/max b, -1/min b). The left side falls
// strictly from +Inf to -Inf there, so bisection finds the one root. It
// needs min b < 0 < max b.
func secular(b, w []float64) (float64, bool) {
	minB, maxB := math.Inf(1), math.Inf(-1)
	for i := range b {
		if w[i] > 0 {
			minB = math.Min(minB, b[i])
			maxB = math.Max(maxB, b[i])
		}
	}
	if !(minB < 0 && maxB > 0) {
		return 0, false
	}
	lo, hi := -1/maxB, -1/minB
	f := func(x float64) float64 {
		var sum float64
		for i := range b {
			sum += w[i] * b[i] / (1 + float64(x*b[i]))
		}
		return sum
	}
	for iter := 0; iter < 200; iter++ {
		mid := lo + float64((hi-lo)/2)
		if mid <= lo || mid >= hi {
			break
		}
		if f(mid) > 0 {
			lo = mid
		} else {
			hi = mid
		}
	}
	return lo + float64((hi-lo)/2), true
}
