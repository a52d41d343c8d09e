package main

// The weights are whole numbers held in float32, so that incremental and
// from-scratch sums agree exactly. They are built from a few rules rather
// than tuned: material, centralisation of pieces, pawn advancement, rooks
// on the seventh, a sheltered king in the middlegame and an active one in
// the endgame.

// material[type] is {middlegame, endgame} for pawn..king.
var material = [6][2]float32{{100, 120}, {320, 300}, {330, 310}, {480, 520}, {950, 940}, {0, 0}}

// phaseWeight[type] counts towards the game phase (24 at the start).
var phaseWeight = [6]float32{0, 1, 1, 2, 4, 0}

func buildWeights() (w [12][64]acc) {
	for t := 0; t < 6; t++ {
		for s := 0; s < 64; s++ {
			mg, eg := positional(t, s%8, s/8)
			mg += material[t][0]
			eg += material[t][1]
			w[t][s] = acc{mg, eg, phaseWeight[t]}
			// Black's piece on the mirrored square counts the other way.
			w[6+t][s^56] = acc{-mg, -eg, phaseWeight[t]}
		}
	}
	return w
}

// positional returns the middlegame and endgame bonus of a white piece of
// type t on file f, rank r.
func positional(t, f, r int) (mg, eg float32) {
	df, dr := max(3-f, f-4), max(3-r, r-4) // 0 in the centre .. 3 on the edge
	centre := float32(6 - df - dr)         // 0 .. 6
	switch t {
	case 0: // pawn
		mg = float32(4 * (r - 1))
		if (f == 3 || f == 4) && (r == 3 || r == 4) {
			mg += 12
		}
		eg = float32(10 * (r - 1))
	case 1: // knight
		mg, eg = float32(5*centre)-15, float32(4*centre)-12
	case 2: // bishop
		mg, eg = float32(3*centre)-9, float32(3*centre)-9
	case 3: // rook
		if r == 6 {
			mg, eg = 20, 10
		}
		if f == 3 || f == 4 {
			mg += 5
		}
	case 4: // queen
		mg, eg = float32(2*centre)-6, float32(3*centre)-9
	case 5: // king
		switch {
		case r == 0 && (f <= 2 || f >= 6):
			mg = 15
		case r >= 2:
			mg = float32(-25 * (r - 1))
		}
		eg = float32(8*centre) - 24
	}
	return mg, eg
}
