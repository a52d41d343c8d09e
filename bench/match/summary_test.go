package match

import (
	"strings"
	"testing"
)

// TestSummaryOutOfRange: a match that one side won every game of (often
// because the other forfeited them all, as Stockfish does on time on a
// loaded machine) has no finite Elo; the summary says so and why, with the
// score and the forfeits counted and named, and never prints "Inf".
func TestSummaryOutOfRange(t *testing.T) {
	tests := []struct {
		name                string
		wins, losses, draws int
		penta               [5]int
		faults              map[string]FaultCounts
		want, wantNot       []string
	}{
		{
			name: "every game forfeited on time", wins: 20, penta: [5]int{0, 0, 0, 0, 10},
			faults: map[string]FaultCounts{"sf": {TimeForfeits: 20}},
			want: []string{"Points: 20.0 (100.00 %)", "Elo: out of range (95%, pentanomial)",
				"(a score of 100.00 % has no finite Elo: nnuelab scored every point of 20 games, 20 of them forfeited by sf (20 time forfeits))"},
		},
		{
			name: "the first engine lost every game, some by faults", losses: 4, penta: [5]int{2, 0, 0, 0, 0},
			faults: map[string]FaultCounts{"nnuelab": {Crashes: 1, TimeForfeits: 2}},
			want: []string{"(0.00 %)", "Elo: out of range",
				"sf scored every point of 4 games, 3 of them forfeited by nnuelab (1 crashes, 2 time forfeits)"},
		},
		{
			name: "every game won over the board", wins: 4, penta: [5]int{0, 0, 0, 0, 2},
			want:    []string{"Elo: out of range", "nnuelab scored every point of 4 games)"},
			wantNot: []string{"forfeited"},
		},
		{
			name: "a one-sided game before any pair", wins: 1,
			faults:  map[string]FaultCounts{"sf": {IllegalMoves: 1}},
			want:    []string{"Elo: out of range (95%, trinomial)", "1 of them forfeited by sf (1 illegal moves)"},
			wantNot: []string{"Ptnml(0-2): [0, 0, 0, 0, 1]"},
		},
		{
			name: "an ordinary match", wins: 5, losses: 3, draws: 2, penta: [5]int{1, 0, 2, 1, 1},
			want:    []string{"Elo: +", " +/- "},
			wantNot: []string{"out of range", "no finite Elo"},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			engs := []EngineConfig{{Name: "nnuelab", Limits: Limits{Nodes: 5000}}, {Name: "sf", Limits: Limits{Nodes: 5000}}}
			s := newSummary([2]string{"nnuelab", "sf"}, tc.wins+tc.losses+tc.draws, nil, engs)
			s.Wins, s.Losses, s.Draws = tc.wins, tc.losses, tc.draws
			s.Penta = tc.penta
			for n, f := range tc.faults {
				*s.Faults[n] = f
			}
			text := s.String() + s.statusLine()
			for _, w := range tc.want {
				if !strings.Contains(text, w) {
					t.Errorf("summary lacks %q:\n%s", w, text)
				}
			}
			for _, w := range append(tc.wantNot, "Inf", "NaN") {
				if strings.Contains(text, w) {
					t.Errorf("summary has %q:\n%s", w, text)
				}
			}
		})
	}
}
