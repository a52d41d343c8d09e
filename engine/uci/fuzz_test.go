package uci

import (
	"io"
	"strings"
	"testing"
)

// FuzzExecute feeds arbitrary command lines to an engine and requires
// that it neither panics nor stops answering isready. Searches are kept
// short: every go gets a node limit appended, and the engine is stopped
// after each line.
func FuzzExecute(f *testing.F) {
	for _, seed := range []string{
		"uci", "isready", "ucinewgame", "position startpos moves e2e4 e7e5",
		"position fen 8/8/8/8/8/8/8/8 w - - 0 1", "position fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1 moves e1g1",
		"setoption name Hash value 1", "setoption name UCI_Chess960 value true", "setoption name Move Overhead value 0",
		"go depth 2", "go wtime -5 btime 0 movestogo 1", "go searchmoves e2e4 d2d4 depth 2", "go mate 1",
		"d", "legal", "eval", "debug on", "stop", "position startpos moves e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5c6",
		"position fen 4k3/8/8/8/8/8/8/4K2R w K - 0 1 moves e1h1", "setoption name", "go movetime", "position fen",
	} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, line string) {
		if strings.Contains(line, "perft") || strings.Contains(line, "bench") || strings.ContainsAny(line, "\n\r") {
			t.Skip("slow debug commands and multi-line input are not fuzzed")
		}
		e, err := New(io.Discard)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(strings.TrimSpace(line), "go") {
			line += " nodes 2000"
		}
		e.Execute(line)
		e.Execute("stop")
		e.stopSearch()
		e.waitSearch()
		if e.Execute("isready") {
			t.Fatal("isready quit")
		}
	})
}
