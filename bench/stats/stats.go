// Package stats turns chess match results into the numbers engine testers
// publish: Elo difference with a 95% interval, likelihood of superiority,
// draw ratio, normalized Elo, and the sequential probability ratio test on
// game pairs (the pentanomial model of fishtest, OpenBench and fastchess).
//
// Scores are from the first player's point of view: a win is 1, a draw 1/2,
// a loss 0. A game pair is two games from the same opening with colours
// reversed; its score (0, 1/2, 1, 3/2 or 2 points) falls into one of five
// classes, counted by [Penta].
package stats

import (
	"math"
)

// z95 is the two-sided 95% quantile of the standard normal distribution.
const z95 = 1.959963984540054

// neloPerT converts a t-value (mean minus 1/2, over the per-game standard
// deviation) into normalized Elo: 800/ln(10), as defined by Van den Bergh.
const neloPerT = 800 / math.Ln10

// EloFromScore returns the logistic Elo difference that predicts the
// expected score s (0 < s < 1): -400*log10(1/s - 1). It is -Inf at 0 and
// +Inf at 1, NaN outside [0, 1].
func EloFromScore(s float64) float64 {
	switch {
	case math.IsNaN(s) || s < 0 || s > 1:
		return math.NaN()
	case s == 0:
		return math.Inf(-1)
	case s == 1:
		return math.Inf(1)
	}
	return -400 * math.Log10(1/s-1)
}

// ScoreFromElo returns the expected score of a player elo points stronger:
// 1/(1 + 10^(-elo/400)).
func ScoreFromElo(elo float64) float64 {
	return 1 / (1 + math.Pow(10, -elo/400))
}

// Estimate is a point estimate with its 95% confidence interval. Bounds may
// be infinite when the score interval reaches 0 or 1, and all three are NaN
// when there is no data.
type Estimate struct {
	Value, Lower, Upper float64
}

// WDL counts game results from the first player's point of view.
type WDL struct {
	Wins, Draws, Losses int
}

// Games returns the number of games counted.
func (r WDL) Games() int { return r.Wins + r.Draws + r.Losses }

// Score returns the mean score per game, NaN without games.
func (r WDL) Score() float64 {
	n := r.Games()
	if n == 0 {
		return math.NaN()
	}
	// float64(x*y) here and below: no FMA fusion at GOAMD64=v3 (make fma-check).
	return (float64(r.Wins) + float64(float64(r.Draws)/2)) / float64(n)
}

// DrawRatio returns the share of drawn games, NaN without games.
func (r WDL) DrawRatio() float64 {
	n := r.Games()
	if n == 0 {
		return math.NaN()
	}
	return float64(r.Draws) / float64(n)
}

// Elo returns the Elo difference with its 95% interval under the trinomial
// model, where games are independent: the per-game variance of the score is
// estimated from the observed frequencies, the interval is mean ± 1.96
// standard errors on the score scale, mapped to Elo by [EloFromScore].
func (r WDL) Elo() Estimate {
	n := float64(r.Games())
	if n == 0 {
		return Estimate{math.NaN(), math.NaN(), math.NaN()}
	}
	mu, v := meanVar([]float64{0, 0.5, 1}, []float64{float64(r.Losses), float64(r.Draws), float64(r.Wins)})
	return scoreInterval(mu, math.Sqrt(v/n))
}

// LOS returns the likelihood of superiority from wins and losses alone, the
// classic formula 1/2 * (1 + erf((W-L) / sqrt(2(W+L)))); 1/2 without
// decisive games.
func (r WDL) LOS() float64 {
	d := r.Wins + r.Losses
	if d == 0 {
		return 0.5
	}
	return 0.5 * (1 + math.Erf(float64(r.Wins-r.Losses)/math.Sqrt(2*float64(d))))
}

// Penta counts game pairs by the first player's pair score: index 0 holds
// pairs scoring 0 points (LL), 1 holds 1/2 (LD, DL), 2 holds 1 (WL, LW, DD),
// 3 holds 3/2 (WD, DW) and 4 holds 2 (WW). This is the order fishtest and
// OpenBench store pentanomial results in.
type Penta [5]int

// PairClass returns the Penta index of a game pair from the first player's
// two scores (each 0, 0.5 or 1), or -1 if a score is not one of those.
func PairClass(a, b float64) int {
	ok := func(x float64) bool { return x == 0 || x == 0.5 || x == 1 }
	if !ok(a) || !ok(b) {
		return -1
	}
	return int(math.Round((a + b) * 2))
}

// Pairs returns the number of game pairs counted.
func (p Penta) Pairs() int { return p[0] + p[1] + p[2] + p[3] + p[4] }

// Score returns the mean score per game (half the mean pair score), NaN
// without pairs.
func (p Penta) Score() float64 {
	if p.Pairs() == 0 {
		return math.NaN()
	}
	mu, _ := meanVar(pairValues, p.floats())
	return mu
}

// Elo returns the Elo difference with its 95% interval under the
// pentanomial model: the pair scores (scaled to 0..1) are the independent
// samples, so the standard error is sqrt(var/pairs), which accounts for the
// correlation between the two games of an opening.
func (p Penta) Elo() Estimate {
	n := float64(p.Pairs())
	if n == 0 {
		return Estimate{math.NaN(), math.NaN(), math.NaN()}
	}
	mu, v := meanVar(pairValues, p.floats())
	return scoreInterval(mu, math.Sqrt(v/n))
}

// LOS returns the likelihood of superiority under the pentanomial model,
// Phi((mu - 1/2) / se) with mu and se the mean pair score and its standard
// error. It is 1/2 without pairs or when every pair scored the same 1/2
// per game, and 0 or 1 for other constant samples.
func (p Penta) LOS() float64 {
	n := float64(p.Pairs())
	if n == 0 {
		return 0.5
	}
	mu, v := meanVar(pairValues, p.floats())
	if v == 0 {
		switch {
		case mu > 0.5:
			return 1
		case mu < 0.5:
			return 0
		}
		return 0.5
	}
	return phi((mu - 0.5) / math.Sqrt(v/n))
}

// NormalizedElo returns Van den Bergh's normalized Elo with its 95%
// interval: the t-value (mu - 1/2)/sigma, with sigma the per-game standard
// deviation (sqrt(2) times the pair standard deviation), times 800/ln(10).
// Unlike logistic Elo it does not depend on the draw ratio, so it measures
// how fast a test can resolve. The interval is mu ± 1.96 standard errors
// divided by the same sigma. NaN when there are no pairs or no variance.
func (p Penta) NormalizedElo() Estimate {
	n := float64(p.Pairs())
	mu, v := meanVar(pairValues, p.floats())
	if n == 0 || v == 0 {
		return Estimate{math.NaN(), math.NaN(), math.NaN()}
	}
	sigma := math.Sqrt(2 * v)
	se := math.Sqrt(v / n)
	k := neloPerT / sigma
	return Estimate{(mu - 0.5) * k, (mu - float64(z95*se) - 0.5) * k, (mu + float64(z95*se) - 0.5) * k}
}

// pairValues are the pair scores of the five classes on a 0..1 scale.
var pairValues = []float64{0, 0.25, 0.5, 0.75, 1}

func (p Penta) floats() []float64 {
	f := make([]float64, 5)
	for i, c := range p {
		f[i] = float64(c)
	}
	return f
}

// meanVar returns the mean and variance of values weighted by counts.
func meanVar(values, counts []float64) (mu, v float64) {
	var n float64
	for i, c := range counts {
		n += c
		mu += float64(c * values[i])
	}
	if n == 0 {
		return math.NaN(), math.NaN()
	}
	mu /= n
	for i, c := range counts {
		d := values[i] - mu
		v += float64(c * d * d)
	}
	return mu, v / n
}

// scoreInterval maps mu ± 1.96 se to Elo, clamping the score to [0, 1].
func scoreInterval(mu, se float64) Estimate {
	lo := math.Max(0, mu-float64(z95*se))
	hi := math.Min(1, mu+float64(z95*se))
	return Estimate{EloFromScore(mu), EloFromScore(lo), EloFromScore(hi)}
}

// phi is the standard normal cumulative distribution function.
func phi(x float64) float64 { return 0.5 * math.Erfc(-x/math.Sqrt2) }
