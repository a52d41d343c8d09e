package match

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/bench/stats"
)

// TestCountPGN: the counts of a match's PGN are its summary's: W/D/L and
// the pentanomial pairs, here of a match whose engines fault (illegal
// moves) so that the games are decisive both ways.
func TestCountPGN(t *testing.T) {
	cfg := fakeConfig(t, 6, "nodes=100", "-mode=illegal", "-after=4")
	sum, err := Run(context.Background(), cfg, Output{Quiet: true})
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(cfg.PGNOut)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	c, err := CountPGN(f, cfg.PGNOut)
	if err != nil {
		t.Fatal(err)
	}
	if c.Games != sum.Games() || c.Wins != sum.Wins || c.Draws != sum.Draws || c.Losses != sum.Losses || c.Penta != sum.Penta {
		t.Errorf("CountPGN %+v; the summary: %d games %d/%d/%d %v", c, sum.Games(), sum.Wins, sum.Draws, sum.Losses, sum.Penta)
	}

	game := func(round, result string) string {
		return `[Event "x"]` + "\n" + `[Round "` + round + `"]` + "\n" + `[Result "` + result + `"]` + "\n\n1. e4 " + result + "\n\n"
	}
	for _, tc := range []struct {
		name, text string
		want       PGNCounts
		err        string
	}{
		// Game 1: the first engine White wins; game 2: it is Black and
		// loses; game 3 alone (its pair unfinished) a draw.
		{"a pair and a half", game("2", "1-0") + game("1", "1-0") + game("3", "1/2-1/2"),
			PGNCounts{Games: 3, Wins: 1, Draws: 1, Losses: 1, Penta: stats.Penta{0, 0, 1, 0, 0}}, ""},
		{"two wins as Black", game("2", "0-1") + game("4", "0-1"), PGNCounts{Games: 2, Wins: 2}, ""},
		{"no round", strings.Replace(game("1", "1-0"), `[Round "1"]`, "", 1), PGNCounts{}, "Round"},
		{"unfinished", game("1", "*"), PGNCounts{}, "no result"},
		{"twice", game("1", "1-0") + game("1", "1-0"), PGNCounts{}, "twice"},
	} {
		got, err := CountPGN(strings.NewReader(tc.text), "m.pgn")
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err) || !strings.Contains(err.Error(), "m.pgn")):
			t.Errorf("%s: error %v, want one naming m.pgn and saying %q", tc.name, err, tc.err)
		case tc.err == "" && (err != nil || got != tc.want):
			t.Errorf("%s: %+v, %v; want %+v", tc.name, got, err, tc.want)
		}
	}
}
