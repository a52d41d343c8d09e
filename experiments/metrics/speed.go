package metrics

import (
	"context"
	"fmt"
	"io"
	"math"
	"time"

	"github.com/nnuelab/nnuelab/engine/nnue"
	"github.com/nnuelab/nnuelab/experiments/data"
	"github.com/nnuelab/nnuelab/internal/cputime"
)

// SpeedResult holds the timing of every variant, round by round.
type SpeedResult struct {
	Clock string `json:"clock"`
	// ClockResolutionNS is the smallest step of Clock observed (its
	// resolution, or the cost of a reading for a nanosecond clock); Reps
	// the passes of the trace in one variant's round, as many as make a
	// round last speedRoundTarget. Both are 0 in results made before
	// rounds were sized to the clock (one pass a round).
	ClockResolutionNS int64 `json:"clock_resolution_ns,omitempty"`
	Reps              int   `json:"reps,omitempty"`
	Evals             int   `json:"evals"`
	// BenchClock times bench_nps (the bench process's CPU time), with
	// its resolution as observed; BenchRuns is the bench runs a round
	// sums (as many as make the base's round last speedRoundTarget).
	// Empty in results made before they were recorded (one run a round).
	BenchClock             string         `json:"bench_clock,omitempty"`
	BenchClockResolutionNS int64          `json:"bench_clock_resolution_ns,omitempty"`
	BenchRuns              int            `json:"bench_runs,omitempty"`
	Variants               []VariantSpeed `json:"variants"`
}

// VariantSpeed is one variant's timings; index r is round r.
type VariantSpeed struct {
	Name        string    `json:"name"`
	EvalsPerSec []float64 `json:"evals_per_sec,omitempty"`
	BenchNodes  uint64    `json:"bench_nodes,omitempty"`
	// BenchNPS is nodes per CPU second of the bench process,
	// BenchNPSWall the Nodes/second bench printed.
	BenchNPS     []float64 `json:"bench_nps,omitempty"`
	BenchNPSWall []float64 `json:"bench_nps_wall,omitempty"`
}

// BenchRun is what `nnuelab bench` did: its node count, the CPU time of
// the process and the wall time its Nodes/second line implies.
type BenchRun struct {
	Nodes     uint64
	CPU, Wall time.Duration
}

// cpuNPS is nodes per CPU second (the printed, wall-time figure where the
// OS reports no CPU time).
func (b BenchRun) cpuNPS() float64 {
	if b.CPU <= 0 {
		return b.wallNPS()
	}
	return float64(b.Nodes) / b.CPU.Seconds()
}

func (b BenchRun) wallNPS() float64 {
	if b.Wall <= 0 {
		return 0
	}
	return math.Round(float64(b.Nodes) / b.Wall.Seconds())
}

// SpeedOptions shape the speed task: its rounds, eval_speed and the
// positions whose searches it replays, bench_nps and its bench runs.
type SpeedOptions struct {
	Rounds int
	// EvalSpeed times the base's trace, recorded from searches of Trace
	// (Search.Positions of them, spread over the set, Search.Nodes each).
	EvalSpeed bool
	Trace     []data.Position
	Search    Search
	// BenchNPS times Bench, which runs `nnuelab bench` on subject i (a
	// process, started by the runner) and returns what it did.
	BenchNPS bool
	Bench    func(ctx context.Context, i int) (BenchRun, error)
}

// Speed is the speed task's body: eval_speed (the base's search trace
// replayed on every subject's evaluator, timed in thread CPU time) and
// bench_nps, in rounds sized to their clocks and interleaved so that the
// ratios to the base (subjects[0]) come from the same conditions.
func Speed(ctx context.Context, vs []*Subject, opt SpeedOptions, log io.Writer) (*SpeedResult, error) {
	res := &SpeedResult{Clock: cputime.ThreadClock}
	for _, l := range vs {
		res.Variants = append(res.Variants, VariantSpeed{Name: l.Variant})
	}
	// fresh returns n new evaluators of a variant: every pass of the trace
	// starts from scratch, as the search it replays did.
	fresh := func(l *Subject, n int) []*nnue.Evaluator {
		evs := make([]*nnue.Evaluator, n)
		for i := range evs {
			evs[i] = nnue.NewEvaluator(l.Net)
		}
		return evs
	}
	var tr *trace
	if opt.EvalSpeed {
		base := vs[0]
		var err error
		if tr, err = recordTrace(ctx, base.Net, SearchPositions(opt.Trace, opt.Search.Positions), opt.Search.Nodes); err != nil {
			return nil, err
		}
		res.Evals = tr.Evals
		fmt.Fprintf(log, "speed: recorded %d evaluations of the base's searches\n", tr.Evals)
		// Warm up (page in the nets, grow the stacks), checking that the
		// base reproduces its own search.
		fastest, best := 0, time.Duration(math.MaxInt64)
		for i, l := range vs {
			_, el, err := replay(fresh(l, 1), tr, i == 0)
			if err != nil {
				return nil, err
			}
			if el < best {
				fastest, best = i, el
			}
		}
		// Size the rounds to the clock: the fastest variant's round lasts
		// speedRoundTarget, every variant replays the trace as often.
		resolution := clockResolution(cputime.Thread)
		res.ClockResolutionNS = int64(resolution)
		target := speedRoundTarget(resolution)
		res.Reps = calibrateReps(func(n int) time.Duration {
			_, el, _ := replay(fresh(vs[fastest], n), tr, false)
			return el
		}, target, resolution)
		fmt.Fprintf(log, "speed: %d passes of the trace a round (%s of CPU time at least; %s, resolution %s)\n",
			res.Reps, target, cputime.ThreadClock, resolution)
	}
	benchRuns := 1
	if opt.BenchNPS {
		// The base's bench once, to warm up and to size the rounds to the
		// resolution of the process's CPU time: a round sums enough runs
		// to last roundSteps steps of it (one run at the default depth,
		// unless the clock ticks coarsely).
		resolution := clockResolution(cputime.RusageThread)
		res.BenchClock, res.BenchClockResolutionNS = ProcessClock, int64(resolution)
		b, err := opt.Bench(ctx, 0)
		if err != nil {
			return nil, err
		}
		target := roundSteps * resolution
		if b.CPU > 0 && b.CPU < target {
			benchRuns = min(int(math.Ceil(float64(target)/float64(b.CPU))), maxBenchRuns)
		}
		res.BenchRuns = benchRuns
		fmt.Fprintf(log, "speed: %d bench run(s) a round (the base's took %s of CPU time; %s, resolution %s)\n",
			benchRuns, b.CPU.Round(time.Millisecond), ProcessClock, resolution)
	}
	n := len(vs)
	for round := 0; round < opt.Rounds; round++ {
		// Rotate the order so that no variant always runs first.
		for k := 0; k < n; k++ {
			i := (k + round) % n
			l := vs[i]
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if tr != nil {
				eps, _, err := replay(fresh(l, res.Reps), tr, false)
				if err != nil {
					return nil, err
				}
				res.Variants[i].EvalsPerSec = append(res.Variants[i].EvalsPerSec, eps)
			}
			if opt.BenchNPS {
				var sum BenchRun
				for range benchRuns {
					b, err := opt.Bench(ctx, i)
					if err != nil {
						return nil, err
					}
					sum.Nodes += b.Nodes
					sum.CPU += b.CPU
					sum.Wall += b.Wall
				}
				vsp := &res.Variants[i]
				vsp.BenchNodes = sum.Nodes / uint64(benchRuns)
				vsp.BenchNPS = append(vsp.BenchNPS, sum.cpuNPS())
				vsp.BenchNPSWall = append(vsp.BenchNPSWall, sum.wallNPS())
			}
		}
		fmt.Fprintf(log, "speed: round %d/%d done\n", round+1, opt.Rounds)
	}
	return res, nil
}
