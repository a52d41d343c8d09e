// Package boardtest holds test positions that the engine packages share:
// board, eval, search and nnue all check themselves on the same 3,000
// positions sampled from Stockfish 15.1 self-play (one FEN per line), so
// the set lives here once rather than being read by a helper in each.
package boardtest

import (
	_ "embed"
	"strings"
)

//go:embed positions.epd
var positions string

// Positions returns the 3,000 reference positions as FENs, in file order.
func Positions() []string {
	var out []string
	for _, l := range strings.Split(positions, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			out = append(out, l)
		}
	}
	return out
}
