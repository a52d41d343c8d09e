package generations

import (
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/experiments/manifest"
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
	g := &manifest.GenerationsSpec{Reference: "leorik-3.1"}
	rows := []*genRow{{k: 0, recs: map[string]records.Record{}}, row(1, 4e6, -600)}
	if s := genExtrapolation(rows, g); s != "" {
		t.Errorf("one generation: %q", s)
	}
	rows = append(rows, row(2, 8e6, -550))
	want := "Against leorik-3.1 the generations gain +50 ± 71 Elo per doubling of the self-play positions (log-linear fit over 2 generations, weighted by their intervals); at that rate the own net comes within 200 Elo of it at about 1.02B positions, 128× the 8.00M made so far."
	if s := genExtrapolation(rows, g); s != want {
		t.Errorf("got  %q\nwant %q", s, want)
	}
	// With self-play's rate: the slope's range (here its interval reaches
	// zero) and the CPU time.
	g.PositionsPerCPUSecond, g.Rate = 400, "a test"
	want += " The slope's interval reaches zero, so the data cannot bound the size from above. Cost: self-play makes 400 positions per CPU-second with the player net (a test), so 1.02B positions take about 711 CPU-hours: 14.8 days of this 2-core machine, or 118.5 sessions of 3 hours on 2 cores (training is minutes beside it). One such session makes about 8.64M positions."
	if s := genExtrapolation(rows, g); s != want {
		t.Errorf("with a rate:\ngot  %q\nwant %q", s, want)
	}
	// Tighter points: the range is bounded.
	rows[1], rows[2] = row(1, 4e6, -600), row(2, 8e6, -500)
	rows[1].recs[genMetricVsRef] = records.Record{Value: -600, Lower: ptr(-610.0), Upper: ptr(-590.0)}
	rows[2].recs[genMetricVsRef] = records.Record{Value: -500, Lower: ptr(-510.0), Upper: ptr(-490.0)}
	if s := genExtrapolation(rows, g); !strings.Contains(s, "With the slope at either end of its interval: ") {
		t.Errorf("bounded slope: %q", s)
	}
}

func ptr[T any](v T) *T { return &v }
