package report

import (
	"errors"
	"fmt"
	"math"

	"github.com/nnuelab/nnuelab/experiments/records"
)

// ScalePoint is one measured net: the positions it was trained on and its
// Elo against a fixed opponent with the standard error of that Elo. Lower
// and Upper are the Elo's 95% interval, which ScalingPlot draws (the fit
// weighs by SE alone).
type ScalePoint struct {
	Positions    float64
	Elo, SE      float64
	Lower, Upper float64
}

// EloScalePoint is the scale point of an Elo record with an interval
// measured on positions; ok is false when the record has no interval, or
// an infinite Elo or bound (a match won or lost outright, or nearly), which
// neither the fit nor a plot can use.
func EloScalePoint(positions float64, r records.Record) (ScalePoint, bool) {
	if r.Lower == nil || r.Upper == nil || math.IsInf(r.Value, 0) || math.IsInf(*r.Lower, 0) || math.IsInf(*r.Upper, 0) {
		return ScalePoint{}, false
	}
	return ScalePoint{Positions: positions, Elo: r.Value, SE: SeFromInterval(*r.Lower, *r.Upper), Lower: *r.Lower, Upper: *r.Upper}, true
}

// ScalingFit is the line Elo = A + B·log2(positions) through scale points:
// B is the Elo one doubling of the data buys. SEB is B's standard error;
// XMean is the points' mean log2(positions), weighted as the fit, about
// which the line pivots when B moves within its interval.
type ScalingFit struct {
	A, B, SEB, XMean float64
	Points           int
}

// FitScaling fits Elo against log2(positions) by least squares weighted by
// 1/SE² (a point measured over more games counts more). It needs two
// points at different sizes, each with a positive standard error.
func FitScaling(pts []ScalePoint) (ScalingFit, error) {
	var sw, sx, sy, sxx, sxy float64
	sizes := map[float64]bool{}
	for _, p := range pts {
		if !(p.Positions > 0) || !(p.SE > 0) || math.IsInf(p.Elo, 0) || math.IsNaN(p.Elo) {
			return ScalingFit{}, fmt.Errorf("scale point %+v: positions and SE must be positive, Elo finite", p)
		}
		w := 1 / (p.SE * p.SE)
		x := math.Log2(p.Positions)
		sw += w
		// float64(x*y) here and below: no FMA fusion at GOAMD64=v3 (make fma-check).
		sx += float64(w * x)
		sy += float64(w * p.Elo)
		sxx += float64(w * x * x)
		sxy += float64(w * x * p.Elo)
		sizes[p.Positions] = true
	}
	if len(sizes) < 2 {
		return ScalingFit{}, errors.New("a scaling fit needs points at two data sizes or more")
	}
	d := float64(sw*sxx) - float64(sx*sx)
	b := (float64(sw*sxy) - float64(sx*sy)) / d
	return ScalingFit{A: (sy - float64(b*sx)) / sw, B: b, SEB: math.Sqrt(sw / d), XMean: sx / sw, Points: len(pts)}, nil
}

// PositionsFor returns the positions at which the fitted line reaches elo;
// ok is false when the line does not rise (B <= 0).
func (f ScalingFit) PositionsFor(elo float64) (float64, bool) {
	if !(f.B > 0) {
		return 0, false
	}
	return math.Exp2((elo - f.A) / f.B), true
}

// PositionsRange returns the positions at which the line reaches elo with
// its slope at the upper (fast) and lower (slow) end of its 95% interval,
// the line pivoting about the points' weighted centre; ok is false when
// the lower end does not rise, so the data bound nothing from above.
func (f ScalingFit) PositionsRange(elo float64) (fast, slow float64, ok bool) {
	lo, hi := f.B-float64(1.96*f.SEB), f.B+float64(1.96*f.SEB)
	if !(lo > 0) {
		return 0, 0, false
	}
	slow, _ = ScalingFit{A: f.A + float64((f.B-lo)*f.XMean), B: lo}.PositionsFor(elo)
	fast, _ = ScalingFit{A: f.A + float64((f.B-hi)*f.XMean), B: hi}.PositionsFor(elo)
	return fast, slow, true
}

// SeFromInterval returns the standard error a 95% interval implies.
func SeFromInterval(lo, hi float64) float64 { return (hi - lo) / (2 * 1.959964) }
