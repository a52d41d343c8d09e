package experiment

import (
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/internal/cputime"
)

// fakeClock advances perCall at every reading and shows multiples of
// step only, as a clock counting ticks does.
func fakeClock(step, perCall time.Duration) func() time.Duration {
	var t time.Duration
	return func() time.Duration {
		t += perCall
		return t / step * step
	}
}

// TestClockResolution: the smallest step observed is the tick of a
// ticking clock, a reading's cost for a nanosecond clock, 0 for a clock
// that does not move; the thread clock speed rounds are timed by resolves
// far below a millisecond (getrusage, read before, advanced in 4 ms ticks
// on some kernels).
func TestClockResolution(t *testing.T) {
	for _, tc := range []struct {
		name string
		read func() time.Duration
		want time.Duration
	}{
		{"4 ms ticks", fakeClock(4*time.Millisecond, 37*time.Microsecond), 4 * time.Millisecond},
		{"10 ms ticks", fakeClock(10*time.Millisecond, 900*time.Microsecond), 10 * time.Millisecond},
		{"nanoseconds, 37 ns a reading", fakeClock(time.Nanosecond, 37*time.Nanosecond), 37 * time.Nanosecond},
		{"frozen", func() time.Duration { return 5 * time.Second }, 0},
	} {
		if got := clockResolution(tc.read); got != tc.want {
			t.Errorf("%s: resolution %v, want %v", tc.name, got, tc.want)
		}
	}
	if runtime.GOOS == "linux" {
		if got := clockResolution(cputime.Thread); got <= 0 || got > 100*time.Microsecond {
			t.Errorf("cputime.Thread's resolution %v, want a nanosecond clock (at most 100µs a step)", got)
		}
	}
}

// TestSpeedRoundTarget: a round lasts at least minSpeedRound and at least
// roundSteps steps of its clock.
func TestSpeedRoundTarget(t *testing.T) {
	for _, tc := range []struct {
		resolution, want time.Duration
	}{
		{0, minSpeedRound},
		{time.Microsecond, minSpeedRound},
		{4 * time.Millisecond, 800 * time.Millisecond},
		{10 * time.Millisecond, 2 * time.Second},
	} {
		if got := speedRoundTarget(tc.resolution); got != tc.want {
			t.Errorf("resolution %v: target %v, want %v", tc.resolution, got, tc.want)
		}
	}
}

// TestCalibrateReps: the passes a round needs, on the clocks above. The
// committed quantization results were rounds of one 28 ms pass on a 4 ms
// clock, so a round's ratio could only be 6/7, 1 or 7/6; calibrated, the
// round lasts its target and a tick is at most 1/roundSteps of it.
func TestCalibrateReps(t *testing.T) {
	// pass times n passes of perPass on a clock of the given step.
	pass := func(perPass, step time.Duration) func(int) time.Duration {
		return func(n int) time.Duration { return time.Duration(n) * perPass / step * step }
	}
	for _, tc := range []struct {
		name              string
		perPass, step     time.Duration
		wantMin, wantMax  int
		wantShortOfTarget bool // capped at maxSpeedReps
	}{
		{"28 ms passes, 4 ms ticks", 28 * time.Millisecond, 4 * time.Millisecond, 29, 40, false},
		{"25 ms passes, nanosecond clock", 25 * time.Millisecond, time.Nanosecond, 10, 12, false},
		{"a pass longer than the target", 400 * time.Millisecond, time.Nanosecond, 1, 1, false},
		{"1 ms passes, 10 ms ticks", time.Millisecond, 10 * time.Millisecond, 2000 / 1, maxSpeedReps, true},
		{"1 µs passes: capped", time.Microsecond, time.Nanosecond, maxSpeedReps, maxSpeedReps, true},
		{"frozen clock: capped", time.Millisecond, time.Hour, maxSpeedReps, maxSpeedReps, true},
	} {
		res := tc.step
		if tc.step == time.Hour {
			res = 0
		}
		target := speedRoundTarget(res)
		p := pass(tc.perPass, tc.step)
		reps := calibrateReps(p, target, res)
		if tc.wantShortOfTarget {
			if reps != maxSpeedReps {
				t.Errorf("%s: %d passes, want the cap %d", tc.name, reps, maxSpeedReps)
			}
			continue
		}
		if reps < tc.wantMin || reps > tc.wantMax {
			t.Errorf("%s: %d passes, want %d..%d", tc.name, reps, tc.wantMin, tc.wantMax)
		}
		if el := p(reps); el < target {
			t.Errorf("%s: a round of %d passes lasts %v, short of %v", tc.name, reps, el, target)
		}
		// The clock's step is at most 1/roundSteps of the round: two
		// variants 1% apart cannot show the same round time.
		if res > 0 && float64(res)/float64(p(reps)) > 1.0/roundSteps {
			t.Errorf("%s: step %v is more than 1/%d of the round %v", tc.name, res, roundSteps, p(reps))
		}
	}
}

// TestSpeedRecordsDetail: results made with rounds sized to the clock
// record the passes and the clock's resolution; older task results (no
// Reps, no BenchRuns) give the records they always gave, so committed
// results regenerate byte-identically.
func TestSpeedRecordsDetail(t *testing.T) {
	rec := func(metric string, value float64, unit string, n int) Record {
		return Record{Metric: metric, Value: value, Unit: unit, N: n}
	}
	old := &SpeedResult{Clock: "thread CPU time", Evals: 1000, Variants: []VariantSpeed{
		{Name: "base", EvalsPerSec: []float64{4e7, 4e7}, BenchNodes: 500, BenchNPS: []float64{1e6, 1e6}, BenchNPSWall: []float64{9e5, 9e5}},
	}}
	now := *old
	now.Clock, now.ClockResolutionNS, now.Reps = cputime.ThreadClock, 1352, 12
	now.BenchClock, now.BenchClockResolutionNS, now.BenchRuns = processClock, 22000, 2
	for _, tc := range []struct {
		name   string
		sr     *SpeedResult
		metric string
		keys   []string
	}{
		{"old eval speed", old, MetricEvalSpeed, []string{"clock", "evals", "interval", "per_round"}},
		{"old bench", old, MetricBenchNPS, []string{"interval", "nodes", "per_round", "wall_nps"}},
		{"eval speed", &now, MetricEvalSpeed, []string{"clock", "clock_resolution_ns", "evals", "interval", "per_round", "reps"}},
		{"bench", &now, MetricBenchNPS, []string{"clock", "clock_resolution_ns", "interval", "nodes", "per_round", "runs", "wall_nps"}},
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

// TestSpeedClockNote: the report prints the clock's resolution and the
// rounds' length with the speed figures; records without them (older
// results) print nothing, so their pages do not change.
func TestSpeedClockNote(t *testing.T) {
	evalRec := func(detail map[string]any) Record {
		return Record{Metric: "eval_speed.evals_per_sec", Detail: detail}
	}
	benchRec := func(detail map[string]any) Record {
		return Record{Metric: "bench_nps.nps", Detail: detail}
	}
	for _, tc := range []struct {
		name string
		recs []Record
		want []string // substrings; none: no note
	}{
		{"older results", []Record{
			evalRec(map[string]any{"clock": "thread CPU time", "evals": 194125.0, "per_round": []any{6.9e6, 8.1e6}}),
			benchRec(map[string]any{"nodes": 504504.0, "per_round": []any{6.5e5}}),
		}, nil},
		{"eval speed", []Record{
			evalRec(map[string]any{"clock": cputime.ThreadClock, "evals": 100000.0, "reps": 10.0, "clock_resolution_ns": 1352.0, "per_round": []any{4e6, 2e6}}),
			evalRec(map[string]any{"clock": cputime.ThreadClock, "evals": 100000.0, "reps": 10.0, "clock_resolution_ns": 1352.0, "per_round": []any{1e6}}),
		}, []string{"rounds of 10 passes of the trace of 0.25–1 CPU-s", "resolution 1.352µs (the smallest step observed)", ", 0.00054% of the shortest round"}},
		{"bench, 4 ms clock", []Record{
			benchRec(map[string]any{"clock": processClock, "nodes": 500000.0, "runs": 2.0, "clock_resolution_ns": 4e6, "per_round": []any{1e6, 8e5}}),
		}, []string{"bench nps: rounds of 2 bench runs of 1–1.25 CPU-s", "resolution 4ms", "0.4% of the shortest round"}},
		{"clock never moved", []Record{
			benchRec(map[string]any{"clock": processClock, "nodes": 500000.0, "runs": 1.0, "clock_resolution_ns": 0.0, "per_round": []any{1e6}}),
		}, []string{"1 bench run of 0.5–0.5 CPU-s", "not observed"}},
	} {
		got := speedClockNote(tc.recs)
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
