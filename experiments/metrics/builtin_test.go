package metrics

import (
	"github.com/nnuelab/nnuelab/nets/train"
	"slices"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/internal/cputime"
)

// TestAll: every metric in report order, each with what the merge and the
// report read of it.
func TestAll(t *testing.T) {
	var names []string
	files := map[string]bool{}
	for _, d := range All() {
		names = append(names, d.Name)
		if d.Records == nil && d.TaskKind() != TaskElo {
			t.Errorf("%s: no Records", d.Name)
		}
		if len(d.Columns) == 0 {
			t.Errorf("%s: no column in the report", d.Name)
		}
		for _, c := range d.Columns {
			if c.Head == "" || c.Metric == "" || (c.Format == "" && c.Kind != ColumnPercent && c.Kind != ColumnElo) {
				t.Errorf("%s: incomplete column %+v", d.Name, c)
			}
		}
		for _, b := range d.Bars {
			if b.Metric == "" || b.Label == "" || !strings.HasSuffix(b.File, ".svg") || files[b.File] {
				t.Errorf("%s: bar plot %+v incomplete or its file taken", d.Name, b)
			}
			files[b.File] = true
		}
		if d.TaskKind() != TaskMeasure && d.Measure != nil {
			t.Errorf("%s: a Measure outside the measure task", d.Name)
		}
	}
	want := []string{MetricAgreement, MetricQuantError, MetricValLoss, MetricHistoryShares, MetricNodesToDepth,
		MetricSparsity, MetricSaturation, MetricEvalSpeed, MetricBenchNPS, MetricElo}
	if !slices.Equal(names, want) {
		t.Errorf("All: %v, want %v", names, want)
	}
	for _, x := range want {
		if d, ok := Lookup(x); !ok || d.Name != x {
			t.Errorf("Lookup(%q) = %v, %v", x, d, ok)
		}
	}
	if got := Registered(); len(got) != 1 || got[0].Name != MetricNodesToDepth {
		t.Errorf("Registered: %d metrics, want nodes_to_depth alone", len(got))
	}
}

// TestBuiltinRecords: each built-in metric's records from the fixed fields
// of its task's result, with the data they were computed from.
func TestBuiltinRecords(t *testing.T) {
	ceil := ActLayerCounts{Name: "ft", Units: 4, Buckets: 1, Ceiling: true, Outputs: 100, Zero: 40, Saturated: 10, Dead: 1, AlwaysSaturated: 2}
	relu := ceil
	relu.Ceiling = false
	later := ActLayerCounts{Name: "l1", Units: 2, Buckets: 2, Ceiling: true, Outputs: 50, Saturated: 5}
	acts := &ActivationsResult{Positions: 10, GroupValues: 4, Groups: 50, NonZeroGroups: 20,
		Layers: []ActLayerCounts{ceil, later}, Tensors: []TensorClip{{Name: "w", Bits: 16, Values: 1000, AtClip: 3}}}
	reluActs := &ActivationsResult{Positions: 10, Layers: []ActLayerCounts{relu}}
	shares := &Shares{Nodes: 100, Updates: 10, Served: []uint64{5, 2, 1}, Deeper: 1, Refreshes: 1}
	speed := &SpeedResult{Variants: []VariantSpeed{
		{Name: "base", EvalsPerSec: []float64{10, 20}, BenchNPS: []float64{100, 100}},
		{Name: "v", EvalsPerSec: []float64{5, 30}, BenchNPS: []float64{50, 200}},
	}}
	for _, tc := range []struct {
		name, metric string
		st           Stored
		want         []string // record names
		data         []DataSource
		err          string
	}{
		{"agreement", MetricAgreement, Stored{Measure: &MeasureResult{Agreement: &Agreement{N: 3, MAE: 1}}},
			[]string{"agreement.mae_cp", "agreement.sign", "agreement.corr"}, []DataSource{DataPositions, DataPositions, DataPositions}, ""},
		{"agreement missing", MetricAgreement, Stored{Measure: &MeasureResult{}}, nil, nil, "agreement: not in"},
		{"quant", MetricQuantError, Stored{Measure: &MeasureResult{Quant: &QuantError{N: 3, Mean: 1, Max: 2}}},
			[]string{"quant_error.mean_cp", "quant_error.max_cp"}, []DataSource{DataPositions, DataPositions}, ""},
		{"quant note", MetricQuantError, Stored{Measure: &MeasureResult{QuantNote: "int16 net"}}, []string{"quant_error.mean_cp"}, []DataSource{DataPositions}, ""},
		{"val loss", MetricValLoss, Stored{Measure: &MeasureResult{ValLoss: &ValLoss{N: 5, Loss: 0.1}}}, []string{"val_loss"}, []DataSource{DataValidation}, ""},
		{"shares", MetricHistoryShares, Stored{Measure: &MeasureResult{Shares: shares, SharesQuiet: shares}},
			[]string{"history_shares.d1", "history_shares.d2", "history_shares.d3", "history_shares.deeper", "history_shares.refresh", "history_shares.last2",
				"history_shares.quiet_roots.refresh", "history_shares.quiet_roots.last2"}, nil, ""},
		{"sparsity", MetricSparsity, Stored{Activations: acts}, []string{"sparsity.zero", "sparsity.nonzero_groups", "sparsity.dead"}, nil, ""},
		{"saturation", MetricSaturation, Stored{Activations: acts},
			[]string{"saturation.outputs", "saturation.always", "saturation.later", "saturation.weights_at_clip"},
			[]DataSource{DataPositions, DataPositions, DataPositions, DataNone}, ""},
		{"saturation relu", MetricSaturation, Stored{Activations: reluActs}, []string{"saturation.outputs"}, nil, ""},
		{"eval speed", MetricEvalSpeed, Stored{Speed: speed, Variant: 1}, []string{"eval_speed.evals_per_sec", "eval_speed.ratio"}, nil, ""},
		{"bench", MetricBenchNPS, Stored{Speed: speed, Variant: 1}, []string{"bench_nps.nps", "bench_nps.ratio"}, nil, ""},
		{"speed no such variant", MetricBenchNPS, Stored{Speed: speed, Variant: 2}, nil, nil, "bench_nps: not in"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, _ := Lookup(tc.metric)
			vals, err := d.Records(tc.st)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var names []string
			for i, v := range vals {
				names = append(names, v.Metric)
				if tc.data != nil && v.Data != tc.data[i] {
					t.Errorf("%s: data %v, want %v", v.Metric, v.Data, tc.data[i])
				}
			}
			if !slices.Equal(names, tc.want) {
				t.Errorf("records %v, want %v", names, tc.want)
			}
		})
	}
}

// TestSpeedRecords: the ratio is the median of same-round ratios with
// their range; results made with rounds sized to the clock record the
// passes and the clock's resolution, older task results (no Reps, no
// BenchRuns) the details they always gave, so that committed results
// merge as they did.
func TestSpeedRecords(t *testing.T) {
	old := &SpeedResult{Clock: "thread CPU time", Evals: 1000, Variants: []VariantSpeed{
		{Name: "base", EvalsPerSec: []float64{4e7, 4e7}, BenchNodes: 500, BenchNPS: []float64{1e6, 1e6}, BenchNPSWall: []float64{9e5, 9e5}},
		{Name: "v", EvalsPerSec: []float64{2e7, 6e7}, BenchNodes: 500, BenchNPS: []float64{5e5, 1e6}, BenchNPSWall: []float64{9e5, 9e5}},
	}}
	now := *old
	now.Clock, now.ClockResolutionNS, now.Reps = cputime.ThreadClock, 1352, 12
	now.BenchClock, now.BenchClockResolutionNS, now.BenchRuns = ProcessClock, 22000, 2
	for _, tc := range []struct {
		name, metric string
		sr           *SpeedResult
		keys         []string
		ratio        [3]float64 // median, lower, upper
	}{
		{"old eval speed", MetricEvalSpeed, old, []string{"clock", "evals", "interval", "per_round"}, [3]float64{1, 0.5, 1.5}},
		{"old bench", MetricBenchNPS, old, []string{"interval", "nodes", "per_round", "wall_nps"}, [3]float64{0.75, 0.5, 1}},
		{"eval speed", MetricEvalSpeed, &now, []string{"clock", "clock_resolution_ns", "evals", "interval", "per_round", "reps"}, [3]float64{1, 0.5, 1.5}},
		{"bench", MetricBenchNPS, &now, []string{"clock", "clock_resolution_ns", "interval", "nodes", "per_round", "runs", "wall_nps"}, [3]float64{0.75, 0.5, 1}},
	} {
		d, _ := Lookup(tc.metric)
		vals, err := d.Records(Stored{Speed: tc.sr, Variant: 1})
		if err != nil || len(vals) != 2 {
			t.Fatalf("%s: %d records, %v", tc.name, len(vals), err)
		}
		var keys []string
		for k := range vals[0].Detail {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		if !slices.Equal(keys, tc.keys) {
			t.Errorf("%s: detail keys %v, want %v", tc.name, keys, tc.keys)
		}
		r := vals[1]
		if r.Lower == nil || r.Upper == nil || [3]float64{r.Value, *r.Lower, *r.Upper} != tc.ratio {
			t.Errorf("%s: ratio %v [%v, %v], want %v", tc.name, r.Value, r.Lower, r.Upper, tc.ratio)
		}
	}
}

// TestBuiltinSetup: the setup lines of the built-in metrics say the
// manifest's settings, and metrics that share a pass share their line.
func TestBuiltinSetup(t *testing.T) {
	st := Setting{Search: Search{Positions: 40, Nodes: 5000}, Rounds: 7, BenchDepth: 9,
		Loss: train.Loss{Kind: "mpe", Power: 2.5, Scale: 0.00625, Lambda: 0.5}, Validation: []string{"`v.txt`"},
		Elo: EloSetting{Classical: true, Variants: []string{"a"}, Openings: "book.epd", Hash: 16}}
	for _, tc := range []struct {
		metric string
		want   []string
	}{
		{MetricHistoryShares, []string{"Searches: 40 positions", "5000 nodes each", "7 interleaved rounds"}},
		{MetricValLoss, []string{"mpe loss (power 2.5, scale 0.00625/cp, lambda 0.5)", "on `v.txt`."}},
		{MetricBenchNPS, []string{"`nnuelab bench 9`"}},
		{MetricElo, []string{"against nnuelab's classical evaluation", "(only a; the others are not tested)", "openings `book.epd`, hash 16 MB, adjudication false"}},
		{MetricSparsity, []string{"Activations (sparsity, saturation)"}},
	} {
		d, _ := Lookup(tc.metric)
		line := d.Setup(st)
		for _, w := range tc.want {
			if !strings.Contains(line, w) {
				t.Errorf("%s: setup %q lacks %q", tc.metric, line, w)
			}
		}
	}
	for _, pair := range [][2]string{{MetricHistoryShares, MetricEvalSpeed}, {MetricSparsity, MetricSaturation}} {
		a, _ := Lookup(pair[0])
		b, _ := Lookup(pair[1])
		if a.Setup(st) != b.Setup(st) || a.SetupOrder != b.SetupOrder {
			t.Errorf("%s and %s print different setup lines", pair[0], pair[1])
		}
	}
}

// TestBuiltinSeconds: the costs scale with the net's width; the base's
// eval_speed adds the search it traces.
func TestBuiltinSeconds(t *testing.T) {
	st := Setting{Search: Search{Positions: 100, Nodes: 10000}, Rounds: 3, BenchDepth: 8, Measured: 3000, Width: 1}
	for _, x := range []string{MetricAgreement, MetricQuantError, MetricValLoss, MetricHistoryShares, MetricNodesToDepth, MetricBenchNPS} {
		d, _ := Lookup(x)
		one := d.Seconds(st)
		wide := st
		wide.Width = 2
		if one <= 0 || d.Seconds(wide) <= one {
			t.Errorf("%s: %v s at width 1, %v at 2", x, one, d.Seconds(wide))
		}
	}
	d, _ := Lookup(MetricEvalSpeed)
	base := st
	base.Base = true
	if v, b := d.Seconds(st), d.Seconds(base); !(b > v && v >= MinSpeedRound.Seconds()*4) {
		t.Errorf("eval_speed: %v s, the base %v", v, b)
	}
}
