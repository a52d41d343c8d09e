package generations

import (
	"testing"

	"github.com/nnuelab/nnuelab/experiments/records"
)

// TestGenExtrapolation: the generations report's sentence from two
// measured generations, and nothing from one.
func TestGenExtrapolation(t *testing.T) {
	row := func(k int, cum, elo float64) *genRow {
		lo, hi := elo-50, elo+50
		return &genRow{k: k, name: "gen", recs: map[string]records.Record{
			genMetricSelfplay: {Detail: map[string]any{"cumulative": cum}},
			genMetricVsRef:    {Value: elo, Lower: &lo, Upper: &hi},
		}}
	}
	rows := []*genRow{{k: 0, recs: map[string]records.Record{}}, row(1, 4e6, -600)}
	if s := genExtrapolation(rows, "leorik-3.1"); s != "" {
		t.Errorf("one generation: %q", s)
	}
	rows = append(rows, row(2, 8e6, -550))
	want := "Against leorik-3.1 the generations gain +50 ± 71 Elo per doubling of the self-play positions (log-linear fit over 2 generations, weighted by their intervals); at that rate the own net comes within 200 Elo of it at about 1.02B positions, 128× the 8.00M made so far."
	if s := genExtrapolation(rows, "leorik-3.1"); s != want {
		t.Errorf("got  %q\nwant %q", s, want)
	}
}
