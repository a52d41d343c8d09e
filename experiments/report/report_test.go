package report

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/nnuelab/nnuelab/experiments/internal/plantest"
	"github.com/nnuelab/nnuelab/experiments/records"
)

func fp(x float64) *float64 { return &x }

// TestSummarize: records group by variant in first-seen order; a metric's
// value is the mean over seeds, its interval the widest bounds; a note
// record (no value) is kept for its note only.
func TestSummarize(t *testing.T) {
	recs := []records.Record{
		{Variant: "H1", Label: "H1", Metric: "m", Value: 1, N: 10, Seed: 1, Lower: fp(0.5), Upper: fp(1.5)},
		{Variant: "base", Label: "base", Base: true, Metric: "m", Value: 4, N: 10},
		{Variant: "H1", Label: "H1", Metric: "m", Value: 3, N: 10, Seed: 2, Lower: fp(2), Upper: fp(4)},
		{Variant: "H1", Label: "H1", Metric: "s", N: 0, Detail: map[string]any{"note": "ReLU has no ceiling"}},
	}
	sums := summarize(recs)
	if len(sums) != 2 || sums[0].name != "H1" || sums[1].name != "base" || !sums[1].base {
		t.Fatalf("summaries %+v", sums)
	}
	h := sums[0]
	for _, tc := range []struct{ got, want string }{
		{h.cell("m", "%.2f"), "2.00"},
		{h.rangeCell("m", "%.1f"), "2.0 [0.5, 4.0]"},
		{sums[1].rangeCell("m", "%.1f"), "4.0"},
		{h.cell("s", "%.2f"), "n/a"},
		{h.cell("absent", "%.2f"), "–"},
		{h.rangeCell("absent", "%.1f"), "–"},
		{pctOrNote(h, "s"), "n/a"},
	} {
		if tc.got != tc.want {
			t.Errorf("cell %q, want %q", tc.got, tc.want)
		}
	}
	if a, _ := h.get("m"); a.seeds != 2 || a.n != 20 {
		t.Errorf("agg %+v", a)
	}
}

func TestPctText(t *testing.T) {
	for _, tc := range []struct {
		x    float64
		want string
	}{
		{0, "0%"},
		{0.0000123, "0.001%"},
		{0.25, "25.0%"},
		{0.99995, "99.995%"},
		{1, "100.0%"},
	} {
		if got := pctText(tc.x); got != tc.want {
			t.Errorf("pctText(%v) = %q, want %q", tc.x, got, tc.want)
		}
	}
}

func TestOwnOverrides(t *testing.T) {
	base := []string{"quant.qa=64"}
	for _, tc := range []struct {
		s    summary
		want string
	}{
		{summary{overrides: []string{"quant.qa=64", "history=1"}}, "history=1"},
		{summary{overrides: []string{"history=1"}}, "history=1"},
		{summary{overrides: []string{"quant.qa=64"}, base: true}, "quant.qa=64"},
		{summary{overrides: []string{"quant.qa=127", "history=1"}}, "quant.qa=127 history=1"},
	} {
		if got := strings.Join(ownOverrides(&tc.s, base), " "); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.s.overrides, got, tc.want)
		}
	}
}

// TestWriteReport: the table has a column for each metric present and a
// row per variant, the base first and marked; the registered metric's
// column and setup line appear only with its records; a report of nothing
// is an error.
func TestWriteReport(t *testing.T) {
	p := plantest.PlanOf(t, `name = "rep"
title = "A report"
metrics = ["val_loss", "nodes_to_depth"]
[base]
arch = "koivisto-7.4"
[[variant]]
name = "H1"
overrides = ["history=1"]
`)
	rec := func(variant, metric string, v float64) records.Record {
		return records.Record{Experiment: "rep", Variant: variant, Label: variant, Base: variant == "base", Metric: metric, Value: v, N: 100,
			Overrides: p.Variant(variant).Overrides}
	}
	dir := t.TempDir()
	if _, err := Write(p, nil, dir); err == nil {
		t.Error("a report without records")
	}
	path, err := Write(p, []records.Record{rec("base", "val_loss", 0.123456), rec("H1", "val_loss", 0.2), rec("base", "nodes_to_depth", 1234), rec("H1", "nodes_to_depth", 1000)}, dir)
	if err != nil {
		t.Fatal(err)
	}
	if path != filepath.Join(dir, "rep.md") {
		t.Errorf("path %s", path)
	}
	md, _ := os.ReadFile(path)
	page := string(md)
	for _, want := range []string{
		"# A report\n",
		"| variant | overrides | validation loss | nodes to depth 7 (median) |",
		"| **base** (base) | – | 0.12346 | 1234 |",
		"| H1 | `history=1` | 0.20000 | 1000 |",
		"- Nodes to depth: the search completes depth 7 on 8 positions",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q:\n%s", want, page)
		}
	}
	if strings.Index(page, "| **base**") > strings.Index(page, "| H1 |") {
		t.Error("the base is not the first row")
	}
	// Without the registered metric's records, no column for it.
	path, err = Write(p, []records.Record{rec("base", "val_loss", 0.1), rec("H1", "val_loss", 0.2)}, dir)
	if err != nil {
		t.Fatal(err)
	}
	md, _ = os.ReadFile(path)
	if strings.Contains(string(md), "nodes to depth 7 (median) |") {
		t.Errorf("a column without records:\n%s", md)
	}
}

// TestWrapLabel: long variant labels break at spaces into lines as long
// as fits allows (here 26 characters), so that names under bars stay in
// their slots; a word longer than a line stays whole.
func TestWrapLabel(t *testing.T) {
	fits := func(s string) bool { return len(s) <= 26 }
	for _, tc := range []struct {
		in   string
		want string
	}{
		{"short", "short"},
		{"", ""},
		{"1M positions at 5000 nodes a move (generation 1's first shard)", "1M positions at 5000 nodes\na move (generation 1's\nfirst shard)"},
		{"averyveryverylongwordwithoutspaces here", "averyveryverylongwordwithoutspaces\nhere"},
	} {
		if got := wrapLabel(tc.in, fits); got != tc.want {
			t.Errorf("wrapLabel(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestNominalLabelsInSlots: every line of every name under a bar chart is
// narrower than the distance between two bars in the drawn plot, so
// neighbouring names cannot overlap, and the plot deepens for long names.
func TestNominalLabelsInSlots(t *testing.T) {
	names := []string{
		"5000 nodes, 10 random plies, standard start (1M positions, generation 1's first shard)",
		"soft limit 2500 nodes, hard 10000 (940k positions)",
		"Chess960 starts, 8 random plies (1M positions)",
		"x",
	}
	p := plot.New()
	w, h := nominal(p, names, 12*vg.Centimeter)
	short := plot.New()
	_, h1 := nominal(short, []string{"a", "b"}, 12*vg.Centimeter)
	if h <= h1 {
		t.Errorf("height %v for four-line names, %v for one-line names: want more room", h, h1)
	}
	c := draw.New(vgsvg.New(w, h))
	area := p.DataCanvas(c)
	slot := area.X(p.X.Norm(1)) - area.X(p.X.Norm(0))
	if slot < barSlot {
		t.Errorf("bars %v apart, want at least the slot %v", slot, barSlot)
	}
	for _, tk := range p.X.Tick.Marker.Ticks(p.X.Min, p.X.Max) {
		for _, line := range strings.Split(tk.Label, "\n") {
			if lw := p.X.Tick.Label.Width(line); lw >= slot {
				t.Errorf("label line %q is %v wide, bars are %v apart", line, lw, slot)
			}
		}
	}
}
