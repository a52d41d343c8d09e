package report

import (
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/experiments/manifest"
	"github.com/nnuelab/nnuelab/experiments/metrics"
	"github.com/nnuelab/nnuelab/experiments/records"
)

// TestColumnCell: each kind of column shows its record as the report's
// table always did.
func TestColumnCell(t *testing.T) {
	sums := summarize([]records.Record{
		{Variant: "v", Metric: "q.mean", Value: 1.234, N: 3},
		{Variant: "v", Metric: "q.max", Value: 5.67, N: 3},
		{Variant: "v", Metric: "share", Value: 0.4567, N: 3},
		{Variant: "v", Metric: "r", Value: 1.02, Lower: fp(0.98), Upper: fp(1.1), N: 5},
		{Variant: "v", Metric: "sat", Detail: map[string]any{"note": "ReLU has no ceiling"}},
		{Variant: "v", Metric: "elo", Value: 12.34, Lower: fp(-3), Upper: fp(27.5), N: 100, Unit: "Elo"},
		{Variant: "w", Metric: "q.mean", Detail: map[string]any{"note": "int16 net"}},
	})
	m := &manifest.Manifest{Elo: &manifest.EloSpec{}}
	then := &metrics.Column{Metric: "q.max", Format: "%.1f"}
	for _, tc := range []struct {
		name string
		s    *summary
		c    metrics.Column
		want string
	}{
		{"value", sums[0], metrics.Column{Metric: "q.mean", Format: "%.2f"}, "1.23"},
		{"two records", sums[0], metrics.Column{Metric: "q.mean", Format: "%.2f", Then: then}, "1.23 / 5.7"},
		{"two records, a note", sums[1], metrics.Column{Metric: "q.mean", Format: "%.2f", Then: then}, "n/a"},
		{"missing", sums[1], metrics.Column{Metric: "share", Kind: metrics.ColumnPercent}, "–"},
		{"percent", sums[0], metrics.Column{Metric: "share", Kind: metrics.ColumnPercent}, "45.7%"},
		{"percent, a note", sums[0], metrics.Column{Metric: "sat", Kind: metrics.ColumnPercent}, "n/a"},
		{"range", sums[0], metrics.Column{Metric: "r", Format: "%.3f", Kind: metrics.ColumnRange}, "1.020 [0.980, 1.100]"},
		{"elo", sums[0], metrics.Column{Metric: "elo", Kind: metrics.ColumnElo}, "+12.3 [-3.0, +27.5], 100 games"},
	} {
		if got := columnCell(m, tc.s, tc.c); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestSetupLines: the listed metrics' lines in their setup order, a line
// two metrics share once, none for a metric without one.
func TestSetupLines(t *testing.T) {
	st := metrics.Setting{Search: metrics.Search{Positions: 10, Nodes: 1000}, Rounds: 3, BenchDepth: 6}
	for _, tc := range []struct {
		metrics []string
		want    []string // how the lines start
	}{
		{[]string{"agreement"}, nil},
		{[]string{"val_loss", "bench_nps", "elo"}, []string{"Bench:", "Validation loss:", "Elo:"}},
		{[]string{"eval_speed", "history_shares", "saturation", "sparsity"}, []string{"Searches:", "Activations"}},
		{[]string{"nodes_to_depth", "eval_speed", "sparsity"}, []string{"Searches:", "Nodes to depth:", "Activations"}},
	} {
		lines := setupLines(&manifest.Manifest{Metrics: tc.metrics}, st)
		ok := len(lines) == len(tc.want)
		for i := 0; ok && i < len(lines); i++ {
			ok = strings.HasPrefix(lines[i], tc.want[i])
		}
		if !ok {
			t.Errorf("%v: lines %q, want them to start %q", tc.metrics, lines, tc.want)
		}
	}
}
