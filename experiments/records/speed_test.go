package records

import (
	"slices"
	"testing"

	"github.com/nnuelab/nnuelab/experiments/manifest"
	"github.com/nnuelab/nnuelab/experiments/metrics"
	"github.com/nnuelab/nnuelab/internal/cputime"
)

// TestSpeedRecordsDetail: results made with rounds sized to the clock
// record the passes and the clock's resolution; older task results (no
// Reps, no BenchRuns) give the records they always gave, so committed
// results regenerate byte-identically.
func TestSpeedRecordsDetail(t *testing.T) {
	rec := func(metric string, value float64, unit string, n int) Record {
		return Record{Metric: metric, Value: value, Unit: unit, N: n}
	}
	old := &metrics.SpeedResult{Clock: "thread CPU time", Evals: 1000, Variants: []metrics.VariantSpeed{
		{Name: "base", EvalsPerSec: []float64{4e7, 4e7}, BenchNodes: 500, BenchNPS: []float64{1e6, 1e6}, BenchNPSWall: []float64{9e5, 9e5}},
	}}
	now := *old
	now.Clock, now.ClockResolutionNS, now.Reps = cputime.ThreadClock, 1352, 12
	now.BenchClock, now.BenchClockResolutionNS, now.BenchRuns = metrics.ProcessClock, 22000, 2
	for _, tc := range []struct {
		name   string
		sr     *metrics.SpeedResult
		metric string
		keys   []string
	}{
		{"old eval speed", old, manifest.MetricEvalSpeed, []string{"clock", "evals", "interval", "per_round"}},
		{"old bench", old, manifest.MetricBenchNPS, []string{"interval", "nodes", "per_round", "wall_nps"}},
		{"eval speed", &now, manifest.MetricEvalSpeed, []string{"clock", "clock_resolution_ns", "evals", "interval", "per_round", "reps"}},
		{"bench", &now, manifest.MetricBenchNPS, []string{"clock", "clock_resolution_ns", "interval", "nodes", "per_round", "runs", "wall_nps"}},
	} {
		recs := speedRecords(tc.metric, tc.sr, 0, rec)
		if len(recs) != 2 {
			t.Fatalf("%s: %d records", tc.name, len(recs))
		}
		var keys []string
		for k := range recs[0].Detail {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, tc.keys) {
			t.Errorf("%s: detail keys %v, want %v", tc.name, keys, tc.keys)
		}
	}
}
