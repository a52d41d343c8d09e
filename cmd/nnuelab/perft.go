package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"time"

	"github.com/nnuelab/nnuelab/engine/board"
)

func init() {
	register(command{"perft", "count the leaf nodes of the legal move tree (move generator check)", runPerft})
}

func runPerft(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("perft", "perft [--fen FEN] [--divide] [--chess960] [--json] DEPTH", stderr)
	fen := fs.String("fen", board.StartFEN, "position in FEN (Shredder-FEN or X-FEN castling for Chess960)")
	divide := fs.Bool("divide", false, "print the count below each root move, as Stockfish's 'go perft' does")
	chess960 := fs.Bool("chess960", false, "write castling moves king-takes-rook (UCI_Chess960); implied by a Shredder-FEN castling field")
	asJSON := fs.Bool("json", false, "print one JSON object {fen, depth, nodes, seconds, nps} instead of text")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() != 1 {
		return usageErrorf(fs, "expected one DEPTH argument, got %d", fs.NArg())
	}
	depth, err := strconv.Atoi(fs.Arg(0))
	if err != nil || depth < 0 || depth > 15 {
		return fmt.Errorf("DEPTH must be an integer from 0 to 15, got %q", fs.Arg(0))
	}
	pos, err := board.ParseFEN(*fen)
	if err != nil {
		return err
	}
	if *chess960 {
		pos.SetChess960(true)
	}

	start := time.Now()
	var nodes uint64
	var divided []board.DivideEntry
	if *divide && depth > 0 {
		divided = pos.Divide(depth)
		for _, e := range divided {
			nodes += e.Nodes
		}
	} else {
		nodes = pos.Perft(depth)
	}
	secs := time.Since(start).Seconds()
	nps := 0.0
	if secs > 0 {
		nps = float64(nodes) / secs
	}

	if *asJSON {
		out := map[string]any{"fen": pos.FEN(), "depth": depth, "nodes": nodes, "seconds": secs, "nps": nps}
		if divided != nil {
			moves := map[string]uint64{}
			for _, e := range divided {
				moves[pos.UCI(e.Move)] = e.Nodes
			}
			out["divide"] = moves
		}
		return json.NewEncoder(stdout).Encode(out)
	}
	for _, e := range divided {
		fmt.Fprintf(stdout, "%s: %d\n", pos.UCI(e.Move), e.Nodes)
	}
	if divided != nil {
		fmt.Fprintln(stdout)
	}
	fmt.Fprintf(stdout, "Nodes searched: %d\n", nodes)
	fmt.Fprintf(stderr, "time %.3f s, %.1f Mnps\n", secs, nps/1e6)
	return nil
}
