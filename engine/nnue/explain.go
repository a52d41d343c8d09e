package nnue

import (
	"fmt"
	"strings"

	"github.com/nnuelab/nnuelab/engine/board"
)

// Explain evaluates p from scratch and describes the network's internals,
// like Stockfish's `eval`: architecture, output bucket, PSQT and positional
// parts, the raw output and its centipawn value; for an sf17 design,
// exactly what Stockfish 17.1's eval prints (StockfishTrace).
func Explain(n *Network, p *board.Position) string {
	if n.HasStockfishTrace() {
		// Stockfish 17.1's own eval output, as the engine prints it.
		if t, err := StockfishTrace(n, p); err == nil {
			return t.Text(p)
		}
	}
	var tr Trace
	raw := n.Evaluate(p, &tr)
	var b strings.Builder
	fmt.Fprintf(&b, "NNUE architecture %s (%s)\n", n.Spec.Name, n.Spec.Description)
	fmt.Fprintf(&b, "output bucket %d of %d\n", tr.Bucket, n.Spec.Head.OutputBuckets)
	if n.PSQTBuckets > 0 {
		fmt.Fprintf(&b, "psqt %d\n", tr.PSQT)
	}
	fmt.Fprintf(&b, "positional %d\n", tr.Positional)
	for i, l := range tr.Layers {
		if n.Spec.Head.Type == "rengar" {
			// Float activations, carried in fixed point: print them as floats.
			f := make([]float64, len(l))
			for j, v := range l {
				f[j] = float64(v) / RengarTraceScale
			}
			fmt.Fprintf(&b, "layer %d (l2 fs, clamped): %v\n", i, f)
			continue
		}
		fmt.Fprintf(&b, "layer %d: %v\n", i, l)
	}
	fmt.Fprintf(&b, "raw %d (%s units, side to move)\n", raw, n.Spec.Name)
	fmt.Fprintf(&b, "NNUE evaluation %d cp (side to move)\n", n.Centipawns(raw))
	return b.String()
}
