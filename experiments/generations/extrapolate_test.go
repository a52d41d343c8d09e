package generations

import (
	"fmt"
	"math"
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

// TestGenExtrapolationEquiv: when a generation searched other nodes a move
// than generation 1, the fit runs on the self-play in generation 1's
// positions (cumulative_equiv), and the sentence says so.
func TestGenExtrapolationEquiv(t *testing.T) {
	row := func(k int, cum, equiv, elo float64) *genRow {
		lo, hi := elo-50, elo+50
		return &genRow{k: k, name: "gen", recs: map[string]records.Record{
			genMetricSelfplay: {Detail: map[string]any{"cumulative": cum, genCumulativeEquiv: equiv, "equiv_nodes": 5000.0}},
			genMetricVsRef:    {Value: elo, Lower: &lo, Upper: &hi},
		}}
	}
	g := &manifest.GenerationsSpec{Reference: "leorik-3.1"}
	// Generation 2 made 16M positions at a quarter of the nodes: 4M in
	// generation 1's positions, so the fit is the one of 4M and 8M.
	rows := []*genRow{{k: 0, recs: map[string]records.Record{}}, row(1, 4e6, 4e6, -600), row(2, 20e6, 8e6, -550)}
	want := "Self-play counted in positions at generation 1's 5000 nodes a move (a position searched with other nodes counts by its nodes). Against leorik-3.1 the generations gain +50 ± 71 Elo per doubling of the self-play positions (log-linear fit over 2 generations, weighted by their intervals); at that rate the own net comes within 200 Elo of it at about 1.02B positions, 128× the 8.00M made so far."
	if s := genExtrapolation(rows, g); s != want {
		t.Errorf("got  %q\nwant %q", s, want)
	}
	if n := equivNodes(rows); n != 5000 {
		t.Errorf("equivNodes %d, want 5000", n)
	}
	if n := equivNodes(rows[:1]); n != 0 {
		t.Errorf("equivNodes without self-play %d, want 0", n)
	}
}

// TestGenExtrapolationMixedStarts: a fit over warm-started nets and nets
// from random weights says so and names both; a fit over one kind does not.
func TestGenExtrapolationMixedStarts(t *testing.T) {
	row := func(k int, cum, elo float64, init string) *genRow {
		lo, hi := elo-50, elo+50
		return &genRow{k: k, name: fmt.Sprintf("gen%d", k), recs: map[string]records.Record{
			genMetricGeneration: {Detail: map[string]any{"init": init}},
			genMetricSelfplay:   {Detail: map[string]any{"cumulative": cum}},
			genMetricVsRef:      {Value: elo, Lower: &lo, Upper: &hi},
		}}
	}
	const mixed = " The fit mixes nets warm-started from the generation before (gen2, gen3) with nets trained from random weights (gen1, gen4): where the two starts differ in strength, the slope holds that difference too."
	for _, tc := range []struct {
		name string
		rows []*genRow
		rate float64
		want bool
	}{
		{"warm and random", []*genRow{row(1, 4e6, -600, ""), row(2, 8e6, -550, "gen1"), row(3, 12e6, -520, "gen2"), row(4, 16e6, -450, "")}, 0, true},
		{"warm and random, with a rate", []*genRow{row(1, 4e6, -600, ""), row(2, 8e6, -550, "gen1"), row(3, 12e6, -520, "gen2"), row(4, 16e6, -450, "")}, 400, true},
		{"every start random", []*genRow{row(1, 4e6, -600, ""), row(4, 16e6, -450, "")}, 0, false},
		{"every start warm", []*genRow{row(2, 8e6, -550, "gen1"), row(3, 12e6, -520, "gen2")}, 0, false},
	} {
		g := &manifest.GenerationsSpec{Reference: "leorik-3.1", PositionsPerCPUSecond: tc.rate, Rate: "a test"}
		s := genExtrapolation(append([]*genRow{{k: 0, recs: map[string]records.Record{}}}, tc.rows...), g)
		if s == "" {
			t.Fatalf("%s: no sentence", tc.name)
		}
		if got := strings.HasSuffix(s, mixed); got != tc.want {
			t.Errorf("%s: ends with the mixed-starts sentence %v, want %v:\n%s", tc.name, got, tc.want, s)
		}
		if !tc.want && strings.Contains(s, "mixes") {
			t.Errorf("%s: %s", tc.name, s)
		}
	}
}

func ptr[T any](v T) *T { return &v }

// TestGenPlotsFit: the report draws the fit it reads off once two
// generations have an Elo against the reference, with the slope and the
// goal in its legend; a generation with an infinite Elo (every game lost)
// or an interval open at one end, stays out of the fit rather than spoiling
// it.
func TestGenPlotsFit(t *testing.T) {
	row := func(k int, cum, elo float64) *genRow {
		lo, hi := elo-50, elo+50
		return &genRow{k: k, name: fmt.Sprintf("gen%d", k), label: fmt.Sprintf("gen %d", k), recs: map[string]records.Record{
			genMetricSelfplay: {Detail: map[string]any{"cumulative": cum}},
			genMetricVsRef:    {Value: elo, Lower: &lo, Upper: &hi},
		}}
	}
	gen0 := &genRow{k: 0, recs: map[string]records.Record{}}
	lost := row(1, 2e6, -600)
	lost.recs[genMetricVsRef] = records.Record{Value: math.Inf(-1), Lower: ptr(math.Inf(-1)), Upper: ptr(-700.0)}
	open := row(1, 2e6, -600) // a finite Elo whose interval is open below
	open.recs[genMetricVsRef] = records.Record{Value: -900, Lower: ptr(math.Inf(-1)), Upper: ptr(-700.0)}
	for _, tc := range []struct {
		name string
		rows []*genRow
		want string // a legend entry of the fit plot; "" for no plot
	}{
		{"one generation", []*genRow{gen0, row(1, 4e6, -600)}, ""},
		{"two generations", []*genRow{gen0, row(1, 4e6, -600), row(2, 8e6, -550)}, "fit: +50 Elo per doubling"},
		{"a lost generation left out", []*genRow{gen0, lost, row(2, 4e6, -600), row(3, 8e6, -550)}, "fit: +50 Elo per doubling"},
		{"an open interval left out of the fit", []*genRow{gen0, open, row(2, 4e6, -600), row(3, 8e6, -550)}, "fit: +50 Elo per doubling"},
	} {
		plots, err := genPlots(tc.rows, "leorik-3.1")
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		svg, ok := plots["elo-fit.svg"]
		if ok != (tc.want != "") {
			t.Fatalf("%s: fit plot drawn %v, want %v", tc.name, ok, tc.want != "")
		}
		if !ok {
			continue
		}
		for _, want := range []string{tc.want, "goal: -200", "Elo against leorik-3.1"} {
			if !strings.Contains(string(svg), want) {
				t.Errorf("%s: the fit plot lacks %q", tc.name, want)
			}
		}
	}
}
