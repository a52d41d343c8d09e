package metrics

import (
	"runtime"
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
		{0, MinSpeedRound},
		{time.Microsecond, MinSpeedRound},
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

func TestBenchRunNPS(t *testing.T) {
	for _, tc := range []struct {
		name      string
		b         BenchRun
		cpu, wall float64
	}{
		{"both clocks", BenchRun{Nodes: 1_000_000, CPU: 2 * time.Second, Wall: 4 * time.Second}, 500_000, 250_000},
		{"no CPU time: the wall rate", BenchRun{Nodes: 1_000_000, Wall: 3 * time.Second}, 333_333, 333_333},
		{"wall rounded", BenchRun{Nodes: 10, CPU: time.Second, Wall: 3 * time.Second}, 10, 3},
		{"nothing measured", BenchRun{Nodes: 5}, 0, 0},
	} {
		if cpu, wall := tc.b.cpuNPS(), tc.b.wallNPS(); cpu != tc.cpu || wall != tc.wall {
			t.Errorf("%s: cpu %v wall %v, want %v %v", tc.name, cpu, wall, tc.cpu, tc.wall)
		}
	}
}
