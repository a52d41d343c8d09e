package report

import (
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/experiments/metrics"
	"github.com/nnuelab/nnuelab/experiments/records"
	"github.com/nnuelab/nnuelab/internal/cputime"
)

// TestSpeedClockNote: the report prints the clock's resolution and the
// rounds' length with the speed figures; records without them (older
// results) print nothing, so their pages do not change.
func TestSpeedClockNote(t *testing.T) {
	evalRec := func(detail map[string]any) records.Record {
		return records.Record{Metric: "eval_speed.evals_per_sec", Detail: detail}
	}
	benchRec := func(detail map[string]any) records.Record {
		return records.Record{Metric: "bench_nps.nps", Detail: detail}
	}
	for _, tc := range []struct {
		name string
		recs []records.Record
		want []string // substrings; none: no note
	}{
		{"older results", []records.Record{
			evalRec(map[string]any{"clock": "thread CPU time", "evals": 194125.0, "per_round": []any{6.9e6, 8.1e6}}),
			benchRec(map[string]any{"nodes": 504504.0, "per_round": []any{6.5e5}}),
		}, nil},
		{"eval speed", []records.Record{
			evalRec(map[string]any{"clock": cputime.ThreadClock, "evals": 100000.0, "reps": 10.0, "clock_resolution_ns": 1352.0, "per_round": []any{4e6, 2e6}}),
			evalRec(map[string]any{"clock": cputime.ThreadClock, "evals": 100000.0, "reps": 10.0, "clock_resolution_ns": 1352.0, "per_round": []any{1e6}}),
		}, []string{"rounds of 10 passes of the trace of 0.25–1 CPU-s", "resolution 1.352µs (the smallest step observed)", ", 0.00054% of the shortest round"}},
		{"bench, 4 ms clock", []records.Record{
			benchRec(map[string]any{"clock": metrics.ProcessClock, "nodes": 500000.0, "runs": 2.0, "clock_resolution_ns": 4e6, "per_round": []any{1e6, 8e5}}),
		}, []string{"bench nps: rounds of 2 bench runs of 1–1.25 CPU-s", "resolution 4ms", "0.4% of the shortest round"}},
		{"clock never moved", []records.Record{
			benchRec(map[string]any{"clock": metrics.ProcessClock, "nodes": 500000.0, "runs": 1.0, "clock_resolution_ns": 0.0, "per_round": []any{1e6}}),
		}, []string{"1 bench run of 0.5–0.5 CPU-s", "not observed"}},
	} {
		got := SpeedClockNote(tc.recs)
		if len(tc.want) == 0 {
			if got != "" {
				t.Errorf("%s: note %q, want none", tc.name, got)
			}
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: note %q lacks %q", tc.name, got, w)
			}
		}
	}
}
