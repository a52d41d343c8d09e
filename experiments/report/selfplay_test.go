package report

import (
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/experiments/records"
)

// TestSelfplaySection: each variant with a recorded self-play cost gets its
// CPU-hours and Elo per CPU-hour; a base trained on a file is named as
// unrecorded; without any cost record there is no section.
func TestSelfplaySection(t *testing.T) {
	cost := func(v string, hours float64, n int) records.Record {
		return records.Record{Variant: v, Label: v, Metric: records.MetricSelfplayCPUHours, Value: hours, N: n, Seed: 1,
			Detail: map[string]any{"nodes_per_position": 1250.0, "nodes_per_cpu_second": 1.2e6, "note": "x"}}
	}
	recs := []records.Record{
		{Variant: "base", Label: "base", Base: true, Metric: "val_loss", Value: 1, N: 1},
		cost("fast", 2, 4_000_000),
		{Variant: "fast", Label: "fast", Metric: "elo", Value: 80, N: 400},
	}
	got := selfplaySection(summarize(recs), "base")
	for _, want := range []string{
		"## Self-play cost",
		"| base | not recorded (data from a file) | | | | 0 (base) | |",
		"| fast | 4,000,000 | 1250 | 1.20M | 2.00 | +80.0 | +40.0 |",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("section lacks %q:\n%s", want, got)
		}
	}
	if s := selfplaySection(summarize(recs[:1]), "base"); s != "" {
		t.Errorf("section without cost records: %q", s)
	}
}
