package wdl

import (
	"errors"
	"fmt"
	"math"
)

// Sample is one position of a game: the search's score (centipawns, side
// to move), the position's material count (Material) and the game's
// outcome from the side to move's point of view: 1 won, 0.5 drawn, 0 lost.
type Sample struct {
	Score    float64
	Material int
	Outcome  float64
}

// Bin is the fit at one material count: the a and b that make the games'
// outcomes most likely, from N positions.
type Bin struct {
	Material int
	N        int
	A, B     float64
}

// MinBin is the fewest positions a material count needs to be fitted.
const MinBin = 200

// maxWeight caps a material count's weight in the cubic fit: counts with
// more positions are fitted more precisely, but beyond this one a single
// count (the clamped endgames of 17 and less hold a quarter of a game's
// positions) would bend the curve away from all the others.
const maxWeight = 5000

// Fit fits the model to samples as Stockfish's WDL fit does: at each
// material count with at least MinBin positions, the a and b of maximum
// likelihood; then a(m) and b(m) as cubics through them by least squares,
// weighted by the positions of each count up to a cap. It returns the model and the
// per-count fits it drew the cubics through.
func Fit(samples []Sample) (Model, []Bin, error) {
	byMat := map[int][]Sample{}
	for _, s := range samples {
		if s.Outcome != 0 && s.Outcome != 0.5 && s.Outcome != 1 {
			return Model{}, nil, fmt.Errorf("wdl: outcome %v is not 0, 0.5 or 1", s.Outcome)
		}
		if math.IsNaN(s.Score) || math.IsInf(s.Score, 0) {
			return Model{}, nil, errors.New("wdl: a score is not finite")
		}
		m := min(max(s.Material, 17), 78)
		byMat[m] = append(byMat[m], s)
	}
	var bins []Bin
	for m := 17; m <= 78; m++ {
		ss := byMat[m]
		if len(ss) < MinBin {
			continue
		}
		a, b := fitBin(ss)
		bins = append(bins, Bin{Material: m, N: len(ss), A: a, B: b})
	}
	if len(bins) < 4 {
		return Model{}, bins, fmt.Errorf("wdl: only %d material counts have %d positions or more; a cubic needs 4", len(bins), MinBin)
	}
	xs, as, bs, ws := make([]float64, len(bins)), make([]float64, len(bins)), make([]float64, len(bins)), make([]float64, len(bins))
	for i, b := range bins {
		xs[i], as[i], bs[i], ws[i] = float64(b.Material)/58, b.A, b.B, float64(min(b.N, maxWeight))
	}
	var md Model
	var err error
	if md.A, err = cubic(xs, as, ws); err != nil {
		return Model{}, bins, err
	}
	if md.B, err = cubic(xs, bs, ws); err != nil {
		return Model{}, bins, err
	}
	return md, bins, nil
}

// nll is the mean negative log-likelihood of the outcomes under (a, b).
func nll(ss []Sample, a, b float64) float64 {
	const eps = 1e-12
	sum := 0.0
	for _, s := range ss {
		w := 1 / (1 + math.Exp((a-s.Score)/b))
		l := 1 / (1 + math.Exp((a+s.Score)/b))
		var p float64
		switch s.Outcome {
		case 1:
			p = w
		case 0:
			p = l
		default:
			p = 1 - w - l
		}
		sum -= math.Log(max(p, eps))
	}
	return sum / float64(len(ss))
}

// fitBin minimises nll over a and b > 0 by Nelder-Mead from a start that
// suits centipawn scales, with restarts until it no longer moves.
func fitBin(ss []Sample) (a, b float64) {
	f := func(x [2]float64) float64 {
		if x[1] <= 1 {
			return math.Inf(1)
		}
		return nll(ss, x[0], x[1])
	}
	x := [2]float64{150, 80}
	for range 4 {
		x = nelderMead(f, x, [2]float64{40, 20}, 400)
	}
	return x[0], x[1]
}

// nelderMead minimises f from x0 with initial steps step, for at most iter
// iterations; the standard reflection, expansion, contraction and shrink.
func nelderMead(f func([2]float64) float64, x0, step [2]float64, iter int) [2]float64 {
	p := [3][2]float64{x0, {x0[0] + step[0], x0[1]}, {x0[0], x0[1] + step[1]}}
	v := [3]float64{f(p[0]), f(p[1]), f(p[2])}
	for range iter {
		// Order best, middle, worst.
		for i := 0; i < 3; i++ {
			for j := i + 1; j < 3; j++ {
				if v[j] < v[i] {
					p[i], p[j], v[i], v[j] = p[j], p[i], v[j], v[i]
				}
			}
		}
		if math.Abs(v[2]-v[0]) < 1e-12 {
			break
		}
		c := [2]float64{(p[0][0] + p[1][0]) / 2, (p[0][1] + p[1][1]) / 2}
		at := func(t float64) [2]float64 {
			// float64(x*y) here and below: no FMA fusion at GOAMD64=v3 (make fma-check).
			return [2]float64{c[0] + float64(t*(p[2][0]-c[0])), c[1] + float64(t*(p[2][1]-c[1]))}
		}
		r := at(-1)
		fr := f(r)
		switch {
		case fr < v[0]:
			if e := at(-2); f(e) < fr {
				p[2], v[2] = e, f(e)
			} else {
				p[2], v[2] = r, fr
			}
		case fr < v[1]:
			p[2], v[2] = r, fr
		default:
			if k := at(0.5); f(k) < v[2] {
				p[2], v[2] = k, f(k)
				continue
			}
			for i := 1; i < 3; i++ {
				p[i] = [2]float64{(p[0][0] + p[i][0]) / 2, (p[0][1] + p[i][1]) / 2}
				v[i] = f(p[i])
			}
		}
	}
	best := 0
	for i := 1; i < 3; i++ {
		if v[i] < v[best] {
			best = i
		}
	}
	return p[best]
}

// cubic fits y = c0 x³ + c1 x² + c2 x + c3 by weighted least squares (the
// normal equations, solved by Gaussian elimination with pivoting).
func cubic(x, y, w []float64) ([4]float64, error) {
	var m [4][5]float64
	for i := range x {
		pw := [4]float64{x[i] * x[i] * x[i], x[i] * x[i], x[i], 1}
		for r := 0; r < 4; r++ {
			for c := 0; c < 4; c++ {
				m[r][c] += float64(w[i] * pw[r] * pw[c])
			}
			m[r][4] += float64(w[i] * pw[r] * y[i])
		}
	}
	for col := 0; col < 4; col++ {
		piv := col
		for r := col + 1; r < 4; r++ {
			if math.Abs(m[r][col]) > math.Abs(m[piv][col]) {
				piv = r
			}
		}
		if math.Abs(m[piv][col]) < 1e-12 {
			return [4]float64{}, errors.New("wdl: the material counts do not determine a cubic")
		}
		m[col], m[piv] = m[piv], m[col]
		for r := 0; r < 4; r++ {
			if r == col {
				continue
			}
			k := m[r][col] / m[col][col]
			for c := col; c < 5; c++ {
				m[r][c] -= float64(k * m[col][c])
			}
		}
	}
	var c [4]float64
	for r := 0; r < 4; r++ {
		c[r] = m[r][4] / m[r][r]
	}
	return c, nil
}
