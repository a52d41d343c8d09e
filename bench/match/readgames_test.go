package match

import (
	"strings"
	"testing"
)

func TestReadGames(t *testing.T) {
	two := "[Event \"e\"]\n[FEN \"8/8/8/8/8/8/8/K1k5 w - - 0 1\"]\n\n1. Kb1 {+0.00/1} Kc2 1/2-1/2\n\n" +
		"[Event \"e\"]\n\n1. e4 e5 (1... c5) 2. Nf3 $1 1-0\n"
	for _, tc := range []struct {
		name, text string
		moves      []int
		results    []string
		err        string // part of the error, "" for none
	}{
		{"two games", two, []int{2, 3}, []string{"1/2-1/2", "1-0"}, ""},
		{"empty", "", nil, nil, ""},
		{"no result", "[Event \"e\"]\n\n1. e4\n", nil, nil, "g.pgn:1: game 1 has no result token"},
		{"open comment", "[Event \"e\"]\n\n1. e4 {oops\n", nil, nil, "g.pgn:3: comment never closed"},
		{"bad tag", "[Event e]\n", nil, nil, "g.pgn:1: bad tag pair"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			games, err := ReadGames(strings.NewReader(tc.text), "g.pgn")
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want one with %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(games) != len(tc.moves) {
				t.Fatalf("%d games, want %d", len(games), len(tc.moves))
			}
			for i, g := range games {
				if len(g.Moves) != tc.moves[i] || g.Result != tc.results[i] || g.Tags["Event"] != "e" {
					t.Errorf("game %d: %d moves, result %q, tags %v; want %d, %q", i+1, len(g.Moves), g.Result, g.Tags, tc.moves[i], tc.results[i])
				}
			}
		})
	}
}
