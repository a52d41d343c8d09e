package metrics

import (
	"fmt"
	"math"
	"strings"

	"github.com/nnuelab/nnuelab/bench/stats"
)

// The built-in metrics: measured by the runner's task bodies, their values
// kept in fixed fields of the task results (MeasureResult's Agreement,
// Quant, ValLoss and Shares, ActivationsResult, SpeedResult, the Elo
// chunks), which committed results hold; their records are read from
// there. Their settings are in their tasks' keys, which stay as they are.

// Names of the built-in metrics of the activations, speed and elo tasks.
const (
	MetricSparsity   = "sparsity"   // zero first-layer outputs, non-zero 4-byte groups, dead neurons (nets/inspect)
	MetricSaturation = "saturation" // outputs at the activation's ceiling, quantized weights at the clip (nets/inspect)
	MetricEvalSpeed  = "eval_speed" // incremental evaluations per second, ratio to base
	MetricBenchNPS   = "bench_nps"  // `nnuelab bench` nodes per second, ratio to base
	MetricElo        = "elo"        // `nnuelab match` against the base (or the classical engine)
)

// Cost model of the built-in metrics (plan/estimate.go's, whose
// constants these repeat): one core of a 2020s x86 machine (AVX2), a
// 512-wide net.
const (
	estNPS          = 500_000 // search nodes per CPU second
	estEvalSec      = 2e-6    // one evaluation from scratch
	estFloatEvalSec = 60e-6   // one float-model evaluation (allocates)
	estStartSec     = 0.3     // process start and net load
	estBenchNodesD8 = 220_000 // `nnuelab bench 8` nodes; about x2 per ply
)

// Setup orders of the built-in lines: the searches first, a new metric's
// (0) next, then activations, bench, validation loss and Elo.
const (
	setupSearches = iota - 1
	_
	setupActivations
	setupBench
	setupValLoss
	setupElo
)

// searchesLine is the setup line of the metrics that search (history
// shares) or replay the base's search (evaluations/s).
func searchesLine(s Setting) string {
	return fmt.Sprintf("Searches: %d positions spread over the set, %d nodes each, 16 MB hash, deterministic. Evaluations/s: the base's search trace (every Reset/Push/Pop/Evaluate) replayed on each variant, timed in thread CPU time; %d interleaved rounds, ratio = median of same-round ratios, range in brackets.",
		s.Positions, s.Nodes, s.Rounds)
}

// activationsLine is the setup line of sparsity and saturation (one
// tracing pass gives both).
func activationsLine(Setting) string {
	return "Activations (sparsity, saturation): every position evaluated from scratch with the variant's net and traced (nets/inspect, as `nnuelab nets show --data`). The first layer's outputs after their activation (both perspectives where the head reads both): the share that is zero, the share of its 4-byte groups holding a non-zero value (what a sparse affine layer multiplies), the neurons never non-zero (dead); the share at the activation's ceiling (n/a for ReLU, which has none), the most saturated later layer, and the share of quantized parameters at their storage type's limit at the variant's multipliers."
}

// builtinMeasure are the built-in metrics of the measure task, first in
// report order.
var builtinMeasure = []*Def{
	{
		Name:    MetricAgreement,
		Records: agreementRecords,
		Columns: []Column{
			{Head: "SF15.1 agreement: MAE after scale (cp)", Metric: "agreement.mae_cp", Format: "%.1f"},
			{Head: "sign agreement", Metric: "agreement.sign", Kind: ColumnPercent},
			{Head: "correlation", Metric: "agreement.corr", Format: "%.4f"},
		},
		Bars: []Bar{{Metric: "agreement.mae_cp", Label: "MAE vs Stockfish 15.1 after scale (cp)", File: "agreement.svg"}},
		// The report's positions line says how agreement is measured.
		Seconds: func(s Setting) float64 { return float64(s.Measured) * estEvalSec * s.Width },
	},
	{
		Name:    MetricQuantError,
		Records: quantRecords,
		Columns: []Column{{Head: "quantization error mean / max (cp)", Metric: "quant_error.mean_cp", Format: "%.2f",
			Then: &Column{Metric: "quant_error.max_cp", Format: "%.1f"}}},
		Bars:    []Bar{{Metric: "quant_error.mean_cp", Label: "mean |quantized − float| (cp)", File: "quantization-error.svg"}},
		Seconds: func(s Setting) float64 { return float64(s.Measured) * estFloatEvalSec * s.Width },
	},
	{
		Name:    MetricValLoss,
		Records: valLossRecords,
		// The trainer's own validation loss (train records of trained
		// variants) stands beside the engine's.
		Columns: []Column{
			{Head: "validation loss", Metric: "val_loss", Format: "%.5f"},
			{Head: "trainer val loss", Metric: "train.val_loss", Format: "%.5f"},
		},
		Setup: func(s Setting) string {
			return fmt.Sprintf("Validation loss: %s loss (power %g, scale %g/cp, lambda %g) of the engine's quantized evaluation on %s.",
				s.Loss.Kind, s.Loss.Power, s.Loss.Scale, s.Loss.Lambda, strings.Join(s.Validation, ", "))
		},
		SetupOrder: setupValLoss,
		Seconds: func(s Setting) float64 {
			vn := float64(s.ValPositions)
			if vn == 0 {
				vn = 10000
			}
			return 2 * float64(vn*estEvalSec*s.Width)
		},
		Validation: true,
	},
	{
		Name:    MetricHistoryShares,
		Records: sharesRecords,
		Columns: []Column{
			{Head: "updates from last 2 acc.", Metric: "history_shares.last2", Kind: ColumnPercent},
			{Head: "refreshes", Metric: "history_shares.refresh", Kind: ColumnPercent},
		},
		Setup:      searchesLine,
		SetupOrder: setupSearches,
		Seconds:    func(s Setting) float64 { return float64(s.Positions*s.Nodes) / estNPS * s.Width },
	},
}

// builtinOther are the built-in metrics of the other tasks, last in report
// order.
var builtinOther = []*Def{
	{
		Name: MetricSparsity, Task: TaskActivations,
		Records: sparsityRecords,
		Columns: []Column{
			{Head: "zero outputs, first layer", Metric: "sparsity.zero", Kind: ColumnPercent},
			{Head: "non-zero 4-byte groups", Metric: "sparsity.nonzero_groups", Kind: ColumnPercent},
			{Head: "dead neurons, first layer", Metric: "sparsity.dead", Format: "%.0f"},
		},
		Setup: activationsLine, SetupOrder: setupActivations,
	},
	{
		Name: MetricSaturation, Task: TaskActivations,
		Records: saturationRecords,
		Columns: []Column{
			{Head: "saturated outputs, first layer", Metric: "saturation.outputs", Kind: ColumnPercent},
			{Head: "saturated, most of later layers", Metric: "saturation.later", Kind: ColumnPercent},
			{Head: "quantized weights at clip", Metric: "saturation.weights_at_clip", Kind: ColumnPercent},
		},
		Setup: activationsLine, SetupOrder: setupActivations,
	},
	{
		Name: MetricEvalSpeed, Task: TaskSpeed, Compares: true,
		Records: evalSpeedRecords,
		Columns: []Column{{Head: "evals/s ratio [range]", Metric: "eval_speed.ratio", Format: "%.3f", Kind: ColumnRange}},
		Bars:    []Bar{{Metric: "eval_speed.ratio", Label: "evaluations/s, ratio to base", File: "eval-speed.svg"}},
		Setup:   searchesLine, SetupOrder: setupSearches,
		Seconds: func(s Setting) float64 {
			// The base's search is traced once; each round replays the
			// trace for MinSpeedRound at least, the rounds plus a warm-up.
			trace := float64(s.Positions * s.Nodes)
			sec := float64(math.Max(trace*estEvalSec/4*s.Width, MinSpeedRound.Seconds()) * float64(s.Rounds+1))
			if s.Base {
				sec += float64(trace / estNPS * s.Width)
			}
			return sec
		},
	},
	{
		Name: MetricBenchNPS, Task: TaskSpeed, Compares: true,
		Records: benchRecords,
		Columns: []Column{{Head: "bench nps ratio [range]", Metric: "bench_nps.ratio", Format: "%.3f", Kind: ColumnRange}},
		Bars:    []Bar{{Metric: "bench_nps.ratio", Label: "bench nps, ratio to base", File: "bench-nps.svg"}},
		Setup: func(s Setting) string {
			return fmt.Sprintf("Bench: `nnuelab bench %d` per variant and round, nodes per CPU second of the process (robust to other load on the machine).", s.BenchDepth)
		},
		SetupOrder: setupBench,
		Seconds: func(s Setting) float64 {
			return (estStartSec + float64(estBenchNodesD8*math.Pow(2, float64(s.BenchDepth-8))/estNPS*s.Width)) * float64(s.Rounds+1)
		},
	},
	{
		// The merge makes Elo's records from its chunks (records.EloRecord)
		// and the plan estimates its games.
		Name: MetricElo, Task: TaskElo, Compares: true, Section: "elo",
		Columns: []Column{{Head: "Elo vs {opponent} [95%]", Metric: "elo", Kind: ColumnElo}},
		Bars:    []Bar{{Metric: "elo", Label: "Elo vs {opponent} (95%)", File: "elo.svg"}},
		Setup: func(s Setting) string {
			e := s.Elo
			against := "each variant (first engine) against the base"
			if e.Classical {
				against = "each variant, the base included (first engine), against nnuelab's classical evaluation (PeSTO, same search)"
			}
			if len(e.Variants) > 0 {
				against += " (only " + strings.Join(e.Variants, ", ") + "; the others are not tested)"
			}
			return fmt.Sprintf("Elo: `nnuelab match`, %s, game pairs with colours reversed, openings `%s`, hash %d MB, adjudication %v; intervals are 95%% (pentanomial).",
				against, e.Openings, e.Hash, e.Adjudicate)
		},
		SetupOrder: setupElo,
	},
}

// errNotStored is the error of a built-in metric whose task result lacks
// its value.
func errNotStored(metric string) error {
	return fmt.Errorf("%s: not in the task's result", metric)
}

// agreementRecords: the scaled MAE (with the fit in its details), the
// sign agreement and the correlation.
func agreementRecords(s Stored) ([]Value, error) {
	if s.Measure == nil || s.Measure.Agreement == nil {
		return nil, errNotStored(MetricAgreement)
	}
	a := s.Measure.Agreement
	return []Value{
		{Metric: "agreement.mae_cp", Value: a.MAE, Unit: "cp", N: a.N,
			Detail: map[string]any{"scale": a.Scale, "mae_unscaled_cp": a.MAEUnscaled, "corr": a.Corr, "reference": s.Measure.Reference}},
		{Metric: "agreement.sign", Value: a.Sign, Unit: "share", N: a.N},
		{Metric: "agreement.corr", Value: a.Corr, N: a.N},
	}, nil
}

// quantRecords: the mean and largest quantization error, or a record that
// says why there is none.
func quantRecords(s Stored) ([]Value, error) {
	if s.Measure == nil {
		return nil, errNotStored(MetricQuantError)
	}
	q := s.Measure.Quant
	if q == nil {
		return []Value{{Metric: "quant_error.mean_cp", Unit: "cp", Detail: map[string]any{"note": s.Measure.QuantNote}}}, nil
	}
	return []Value{
		{Metric: "quant_error.mean_cp", Value: q.Mean, Unit: "cp", N: q.N, Detail: map[string]any{"bias_cp": q.Bias}},
		{Metric: "quant_error.max_cp", Value: q.Max, Unit: "cp", N: q.N},
	}, nil
}

// valLossRecords: the loss of the engine's evaluation on the validation
// files.
func valLossRecords(s Stored) ([]Value, error) {
	if s.Measure == nil || s.Measure.ValLoss == nil {
		return nil, errNotStored(MetricValLoss)
	}
	l := s.Measure.ValLoss
	return []Value{{Metric: "val_loss", Value: l.Loss, N: l.N, Data: DataValidation,
		Detail: map[string]any{"loss": LossJSONOf(s.Loss), "net": "quantized (the engine's evaluation)"}}}, nil
}

// sharesRecords: every distance's share, then the summary of the searches
// whose root is not in check.
func sharesRecords(s Stored) ([]Value, error) {
	if s.Measure == nil || s.Measure.Shares == nil {
		return nil, errNotStored(MetricHistoryShares)
	}
	out := shareValues("history_shares", s.Measure.Shares, true)
	if q := s.Measure.SharesQuiet; q != nil {
		out = append(out, shareValues("history_shares.quiet_roots", q, false)...)
	}
	return out, nil
}

// shareValues turns Shares into records under prefix: every distance when
// full, else the summary (last two, refresh).
func shareValues(prefix string, s *Shares, full bool) []Value {
	var out []Value
	share := func(x uint64) float64 {
		if s.Updates == 0 {
			return 0
		}
		return float64(x) / float64(s.Updates)
	}
	n := int(s.Updates)
	if full {
		for d, c := range s.Served {
			out = append(out, Value{Metric: fmt.Sprintf("%s.d%d", prefix, d+1), Value: share(c), Unit: "share", N: n, Detail: map[string]any{"count": c}})
		}
		out = append(out, Value{Metric: prefix + ".deeper", Value: share(s.Deeper), Unit: "share", N: n, Detail: map[string]any{"count": s.Deeper}})
	}
	out = append(out, Value{Metric: prefix + ".refresh", Value: share(s.Refreshes), Unit: "share", N: n,
		Detail: map[string]any{"count": s.Refreshes, "cache_hits": s.CacheHits, "nodes": s.Nodes}})
	last2 := s.Served[0]
	if len(s.Served) > 1 {
		last2 += s.Served[1]
	}
	return append(out, Value{Metric: prefix + ".last2", Value: share(last2), Unit: "share", N: n})
}

// ratioValues are a speed metric's records: the variant's rate (median
// over rounds, with their range) under name, and its same-round ratio to
// the base's under metric.ratio; none when the rounds are missing.
func ratioValues(metric, name string, xs, bs []float64, unit string, detail map[string]any) []Value {
	if len(xs) == 0 || len(xs) != len(bs) {
		return nil
	}
	lo, hi := MinMax(xs)
	abs := Value{Metric: name, Value: stats.Median(xs), Lower: bound(lo), Upper: bound(hi), Unit: unit, N: len(xs), Detail: detail}
	ratios := make([]float64, len(xs))
	for i := range xs {
		ratios[i] = xs[i] / bs[i]
	}
	lo, hi = MinMax(ratios)
	rr := Value{Metric: metric + ".ratio", Value: stats.Median(ratios), Lower: bound(lo), Upper: bound(hi), Unit: "ratio to base", N: len(xs),
		Detail: map[string]any{"per_round": ratios, "interval": "min..max over rounds (same-round ratios)"}}
	return []Value{abs, rr}
}

func evalSpeedRecords(s Stored) ([]Value, error) {
	sr := s.Speed
	if sr == nil || s.Variant >= len(sr.Variants) {
		return nil, errNotStored(MetricEvalSpeed)
	}
	me := sr.Variants[s.Variant]
	detail := map[string]any{"clock": sr.Clock, "evals": sr.Evals, "per_round": me.EvalsPerSec, "interval": "min..max over rounds"}
	if sr.Reps > 0 { // rounds sized to the clock (results made since)
		detail["reps"], detail["clock_resolution_ns"] = sr.Reps, sr.ClockResolutionNS
	}
	return ratioValues(MetricEvalSpeed, "eval_speed.evals_per_sec", me.EvalsPerSec, sr.Variants[0].EvalsPerSec, "evals/s", detail), nil
}

func benchRecords(s Stored) ([]Value, error) {
	sr := s.Speed
	if sr == nil || s.Variant >= len(sr.Variants) {
		return nil, errNotStored(MetricBenchNPS)
	}
	me := sr.Variants[s.Variant]
	detail := map[string]any{"nodes": me.BenchNodes, "per_round": me.BenchNPS, "wall_nps": me.BenchNPSWall, "interval": "min..max over rounds"}
	if sr.BenchRuns > 0 {
		detail["clock"], detail["clock_resolution_ns"], detail["runs"] = sr.BenchClock, sr.BenchClockResolutionNS, sr.BenchRuns
	}
	return ratioValues(MetricBenchNPS, "bench_nps.nps", me.BenchNPS, sr.Variants[0].BenchNPS, "nodes/CPU-s", detail), nil
}
