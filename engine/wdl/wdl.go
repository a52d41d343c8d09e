// Package wdl converts a search score into win, draw and loss chances, as
// UCI's UCI_ShowWDL reports them, and fits the model to games.
//
// The model is the one Stockfish uses since version 16: for a position
// with material count M (pawns 1, knights and bishops 3, rooks 5, queens 9,
// both sides, clamped to [17, 78]) and m = M/58, a score v in centipawns
// from the side to move's point of view wins with probability
//
//	W = 1 / (1 + exp((a(m) - v) / b(m)))
//
// and loses with L = 1 / (1 + exp((a(m) + v) / b(m))), where a and b are
// cubic polynomials in m; the draw chance is the rest. a is the score at
// which a win is as likely as not, b how fast the chance rises around it.
// The coefficients depend on the evaluation's scale, so they are fitted to
// nnuelab's own games (Fit, `nnuelab wdl fit`, docs/wdl.md).
package wdl

import (
	"math"
)

// Model holds the coefficients of a(m) and b(m), highest power first.
type Model struct {
	A, B [4]float64
}

// Default is the model fitted to nnuelab's own games with its default
// evaluation (docs/wdl.md has the data, the command and the fit).
var Default = defaultModel

// Material returns the model's material count of a position from its piece
// counts (pawns, knights, bishops, rooks, queens of both colours).
func Material(pawns, knights, bishops, rooks, queens int) int {
	return pawns + 3*knights + 3*bishops + 5*rooks + 9*queens
}

func poly(c [4]float64, m float64) float64 {
	// Each product rounded: no fused multiply-add (make fma-check).
	t := float64(c[0]*m) + c[1]
	t = float64(t*m) + c[2]
	return float64(t*m) + c[3]
}

// Params returns a and b at a material count.
func (md Model) Params(material int) (a, b float64) {
	m := float64(min(max(material, 17), 78)) / 58
	return poly(md.A, m), poly(md.B, m)
}

// Probabilities returns the win, draw and loss chances of score v
// (centipawns, side to move) at a material count.
func (md Model) Probabilities(v float64, material int) (w, d, l float64) {
	a, b := md.Params(material)
	w = 1 / (1 + math.Exp((a-v)/b))
	l = 1 / (1 + math.Exp((a+v)/b))
	return w, max(1-w-l, 0), l
}

// PerMille returns the chances as UCI prints them: integers in per mille
// that add up to 1000. Mate scores are given as v at or beyond ±mateBound
// and count as a certain win or loss.
func (md Model) PerMille(v, mateBound, material int) (w, d, l int) {
	switch {
	case v >= mateBound:
		return 1000, 0, 0
	case v <= -mateBound:
		return 0, 0, 1000
	}
	fw, _, fl := md.Probabilities(float64(v), material)
	w, l = int(math.Round(1000*fw)), int(math.Round(1000*fl))
	return w, max(1000-w-l, 0), l
}
