package match

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/bench/stats"
	"github.com/nnuelab/nnuelab/internal/testtier"
)

// stockfishPath is where Debian's stockfish package installs the engine;
// CI installs it (apt-get install -y stockfish).
const stockfishPath = "/usr/games/stockfish"

// TestStockfishMatch plays 8 real games between two Stockfish 15.1
// processes at a small node count and checks the PGN against engine/board
// and the summary against the PGN.
func TestStockfishMatch(t *testing.T) {
	testtier.Needs(t, "Stockfish 15.1 (Debian's stockfish)")
	if _, err := os.Stat(stockfishPath); err != nil {
		t.Fatalf("Stockfish is required at %s for the integration test (apt-get install -y stockfish): %v", stockfishPath, err)
	}
	pgnPath := filepath.Join(t.TempDir(), "sf.pgn")
	args := []string{
		"-engine", "cmd=" + stockfishPath, "name=sf-a",
		"-engine", "cmd=" + stockfishPath, "name=sf-b",
		"-each", "nodes=3000", "option.Hash=8", "option.Threads=1",
		"-games", "8", "-concurrency", "2",
		"-openings", "file=testdata/openings.epd", "order=random", "seed=11",
		"-resign", "movecount=4", "score=1000", "-draw", "movenumber=60", "movecount=10", "score=5",
		"-maxmoves", "180",
		"-sprt", "elo0=-10", "elo1=10",
		"-pgnout", pgnPath,
	}
	cfg, _, err := ParseArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	var log syncBuffer
	sum, err := Run(context.Background(), cfg, Output{Log: &log, RatingInterval: 4})
	if err != nil {
		t.Fatalf("Run: %v\n%s", err, log.String())
	}
	if sum.Games() != 8 || sum.Penta.Pairs() != 4 || sum.Interrupted {
		t.Fatalf("summary: %d games, %d pairs, interrupted %v\n%s", sum.Games(), sum.Penta.Pairs(), sum.Interrupted, log.String())
	}
	for name, f := range sum.Faults {
		if *f != (FaultCounts{}) {
			t.Errorf("faults charged to %s: %+v\n%s", name, *f, log.String())
		}
	}

	games := replayPGN(t, pgnPath)
	if len(games) != 8 {
		t.Fatalf("PGN holds %d games, want 8", len(games))
	}
	data, _ := os.ReadFile(pgnPath)
	tokens := resultTokens(string(data))
	if len(tokens) != 8 {
		t.Fatalf("%d result tokens in the movetext, want 8", len(tokens))
	}
	var w, d, l int
	var penta stats.Penta
	pairScore := map[string]float64{}
	openingsSeen := map[string]int{}
	for i, g := range games {
		res := g.tags["Result"]
		if res != tokens[i] || res == "*" {
			t.Errorf("game %d: Result tag %q, movetext result %q", i+1, res, tokens[i])
		}
		if g.plies == 0 || g.tags["PlyCount"] != itoa(g.plies) {
			t.Errorf("game %d: %d plies, PlyCount %q", i+1, g.plies, g.tags["PlyCount"])
		}
		// A game the rules ended must end in the position the rules judge.
		if g.tags["Termination"] == termNormal {
			r, _, over := judge(g.final)
			if !over || r.String() != res {
				t.Errorf("game %d: ends %s by the rules, but the final position %s judges %v", i+1, res, g.final.FEN(), r)
			}
		}
		// Score from sf-a's side.
		var a float64
		switch {
		case res == "1/2-1/2":
			a = 0.5
			d++
		case (res == "1-0") == (g.tags["White"] == "sf-a"):
			a = 1
			w++
		default:
			l++
		}
		fen := g.tags["FEN"]
		openingsSeen[fen]++
		if first, ok := pairScore[fen]; ok {
			penta[stats.PairClass(first, a)]++
		} else {
			pairScore[fen] = a
		}
		if g.tags["White"] != "sf-a" && g.tags["White"] != "sf-b" {
			t.Errorf("game %d: White %q", i+1, g.tags["White"])
		}
	}
	// Each opening twice, colours reversed.
	for fen, n := range openingsSeen {
		if n != 2 {
			t.Errorf("opening %s played %d times, want 2", fen, n)
		}
	}
	if w != sum.Wins || d != sum.Draws || l != sum.Losses {
		t.Errorf("PGN W/D/L %d/%d/%d, summary %d/%d/%d", w, d, l, sum.Wins, sum.Draws, sum.Losses)
	}
	if penta != sum.Penta {
		t.Errorf("PGN pentanomial %v, summary %v", penta, sum.Penta)
	}
	total := 0
	for _, n := range sum.Terminations {
		total += n
	}
	if total != 8 {
		t.Errorf("terminations count %d games", total)
	}
	// The report and the JSON agree with the counts.
	text := sum.String()
	if !strings.Contains(text, "Games: 8 of 8") || !strings.Contains(text, "Ptnml(0-2): [") || !strings.Contains(text, "LLR") {
		t.Errorf("report:\n%s", text)
	}
	js, err := json.Marshal(sum)
	if err != nil {
		t.Fatal(err)
	}
	var back map[string]any
	if err := json.Unmarshal(js, &back); err != nil || back["games"] != 8.0 || back["wins"] != float64(w) {
		t.Errorf("JSON %s (%v)", js, err)
	}
	if n := strings.Count(log.String(), "Results of sf-a vs sf-b"); n != 1 {
		t.Errorf("the full summary was logged %d times, want once (after game 4)", n)
	}
	if n := strings.Count(log.String(), "Finished game"); n != 8 {
		t.Errorf("log shows %d finished games", n)
	}
	if !strings.Contains(log.String(), "[8/8] W ") {
		t.Errorf("no final status line in the log:\n%s", log.String())
	}
}
