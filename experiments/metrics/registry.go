package metrics

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/nnue"
	"github.com/nnuelab/nnuelab/experiments/data"
	"github.com/nnuelab/nnuelab/nets/train"
)

// The tasks a metric is measured in (the plan's task kinds of the same
// names).
const (
	// TaskMeasure is one task per variant and seed: the metrics of a net
	// on the manifest's positions (every registered metric is one).
	TaskMeasure = "measure"
	// TaskActivations is one task per variant and seed that traces the
	// net's layers (sparsity, saturation).
	TaskActivations = "activations"
	// TaskSpeed is one task timing every variant in interleaved rounds.
	TaskSpeed = "speed"
	// TaskElo is the games of each variant, in chunks.
	TaskElo = "elo"
)

// Def defines a metric in one place: the task it is measured in, what it
// stores and the records it gives, what it needs of the manifest, its
// columns in the report's table, its line in the report's setup and its
// cost in the dry run's estimate. A new metric is measured in the measure
// task (one per variant and seed): its Def goes in a file of this package,
// registered from that file's init, and the manifest, the plan, the
// runner, the merge and the report read it from the registry
// (docs/experiments.md). The built-in metrics have a Def each too
// (builtin.go); their task bodies are the runner's, and their task results
// keep their values in fixed fields, which their Records read.
type Def struct {
	// Name is the metric's name in a manifest's metrics list.
	Name string
	// Task is the task kind that measures it (TaskMeasure when empty).
	Task string
	// Key holds what, beside the net and the positions, decides the
	// metric's value (its fixed settings, a version): it joins the key of
	// the measure tasks of manifests that list the metric, so that a change
	// runs them again. Manifests that do not list it keep their keys. The
	// built-in metrics have none: their settings are in their task's key.
	Key any
	// Measure measures one net; the value it returns is stored (as JSON)
	// in the measure task's result under Name (Stored.Raw). Nil for the
	// built-in metrics, which the runner's task bodies measure.
	Measure func(ctx context.Context, s *Subject, log io.Writer) (any, error)
	// Records turns what the task stored into the metric's records, in
	// the order results.jsonl keeps them. Nil for elo, whose records the
	// merge makes from its chunks (records.EloRecord).
	Records func(s Stored) ([]Value, error)
	// Columns are the metric's columns in the report's results table. A
	// column shows when some variant has its record, whether or not the
	// manifest lists the metric.
	Columns []Column
	// Bars are the report's bar plots of the metric's records.
	Bars []Bar
	// Setup is the metric's line in the report's setup section (how it
	// was measured); nil for none. Two metrics with the same line (one
	// search, one tracing pass) print it once.
	Setup func(s Setting) string
	// SetupOrder places the line among the others: lower first, ties in
	// registry order. 0 (a new metric's) follows the line of the searches.
	SetupOrder int
	// Seconds estimates the metric's CPU seconds for one net of its task
	// (Setting.Width scales by the net's width) for the dry run; nil for
	// a negligible cost, or for a cost its task's estimate counts once
	// (activations, elo).
	Seconds func(s Setting) float64
	// Compares says the metric compares each variant with the base: the
	// manifest needs a variant beside the base.
	Compares bool
	// Section names the manifest section the metric needs ("elo" for
	// [elo]): the metric needs it, and it needs the metric.
	Section string
	// Validation says the metric reads the validation files ([data]
	// validation, else the built-in set): the plan resolves and hashes
	// them only for a manifest that lists such a metric.
	Validation bool
}

// TaskKind returns the kind of the tasks that measure the metric (Task,
// TaskMeasure when empty).
func (d *Def) TaskKind() string {
	if d.Task == "" {
		return TaskMeasure
	}
	return d.Task
}

// Subject is what a metric measures: one variant's net with the
// manifest's positions and search settings.
type Subject struct {
	// Variant names the variant (for the log).
	Variant string
	Spec    *archs.Spec
	Net     *nnue.Network
	// NetPath is the net's file ("" for a shipped net): quant_error reads
	// the float tensors it keeps.
	NetPath string
	// Positions are the manifest's positions (its limit applied), read
	// from PositionsFile (a path or builtin: name).
	Positions     []data.Position
	PositionsFile string
	Search        Search
	// Loss, Validation and ValLimit are val_loss's: the loss, the
	// validation files and the positions read from them (0: all).
	Loss       train.Loss
	Validation []string
	ValLimit   int
}

// Search are a manifest's search settings ([speed]): how many of the
// positions are searched, spread over the set, and the node budget of
// each search.
type Search struct {
	Positions, Nodes int
}

// Setting is what a metric's setup line and cost estimate read of the
// manifest and the plan.
type Setting struct {
	// Search is [speed]'s positions and nodes; Rounds and BenchDepth its
	// rounds of timing and the depth of bench_nps's bench.
	Search
	Rounds, BenchDepth int
	// Measured is how many of the positions the net evaluates ([positions]
	// limit, else all of them).
	Measured int
	// Loss, Validation and ValPositions are val_loss's: the loss, the
	// validation files as the report names them, and the positions read
	// from them (0: all).
	Loss         train.Loss
	Validation   []string
	ValPositions int
	// Elo is the [elo] section's, for the Elo line.
	Elo EloSetting
	// Width is the net's accumulator width over the cost model's 512 (at
	// least 0.25), Base whether it is the base's: for Seconds.
	Width float64
	Base  bool
}

// EloSetting is what the Elo setup line says of [elo]: the opponent (the
// classical engine, else the base), the variants tested (nil: all), the
// book's file name, the hash and whether games are adjudicated.
type EloSetting struct {
	Classical  bool
	Variants   []string
	Openings   string
	Hash       int
	Adjudicate bool
}

// Stored is what a task stored for one variant (and seed), as Records
// reads it: the task result's parts (one is set, by the metric's task)
// and the settings some records repeat.
type Stored struct {
	// Raw is a registered metric's value, as Measure returned it.
	Raw         json.RawMessage
	Measure     *MeasureResult
	Activations *ActivationsResult
	// Speed is the speed task's result, Variant the variant's index in
	// it (0: the base, which ratios divide by).
	Speed   *SpeedResult
	Variant int
	// Loss is the manifest's loss (val_loss's records name it).
	Loss train.Loss
}

// Value is one record of a metric: its name (the metric's name or
// NAME.PART), value, bounds (an interval or range; nil when none or not
// finite), unit, count, details and the data it was computed from.
type Value struct {
	Metric       string
	Value        float64
	Lower, Upper *float64
	Unit         string
	N            int
	Detail       map[string]any
	Data         DataSource
}

// DataSource names the data a record was computed from (the record's
// data_sha256).
type DataSource int

// The data a record is computed from.
const (
	DataPositions  DataSource = iota // the manifest's positions
	DataValidation                   // the validation files
	DataNone                         // none (the net's weights alone)
)

// bound is x as a Value's bound: nil when not finite.
func bound(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// Column is a column of the report's results table: its heading, the
// record it shows (by metric name), how and the printf format of the
// value. "{opponent}" in Head stands for what Elo is measured against.
type Column struct {
	Head, Metric, Format string
	Kind                 ColumnKind
	// Then, when given, is a second record shown after the first ("A /
	// B"; with the first's format kind), when the first has a value.
	Then *Column
}

// Bar is a bar plot of the report: a bar per variant of a record (by
// metric name) with its range or interval, the value axis's label, and the
// plot's file name. "{opponent}" in Label stands for what Elo is measured
// against.
type Bar struct {
	Metric, Label, File string
}

// ColumnKind is how a column shows its record.
type ColumnKind int

// How a column shows its record. A record that says why the metric does
// not apply (N 0 and a note) shows "n/a", a missing one "–".
const (
	ColumnValue   ColumnKind = iota // the value, in Format (a mean over seeds)
	ColumnPercent                   // a share, as a percentage
	ColumnRange                     // the value with its range or interval: "V [LO, HI]"
	ColumnElo                       // the report's Elo cell: value, interval, games, SPRT
)

var registry []*Def

// Register adds a metric measured in the measure task to the registry
// (from its file's init); a name registered twice, or a metric without
// Measure or Records or of another task, panics.
func Register(d *Def) {
	if d.Name == "" || d.Measure == nil || d.Records == nil || d.TaskKind() != TaskMeasure {
		panic(fmt.Sprintf("metrics: incomplete definition of %q", d.Name))
	}
	if _, ok := Lookup(d.Name); ok {
		panic(fmt.Sprintf("metrics: %q registered twice", d.Name))
	}
	registry = append(registry, d)
}

// Lookup returns the metric named name (built-in or registered).
func Lookup(name string) (*Def, bool) {
	for _, d := range All() {
		if d.Name == name {
			return d, true
		}
	}
	return nil, false
}

// Registered returns the metrics added with Register, in registration
// order.
func Registered() []*Def { return registry }

// All returns every metric in report order (the order of their records,
// columns and names): the built-in measure metrics, the registered ones,
// then the built-in metrics of the other tasks.
func All() []*Def {
	out := make([]*Def, 0, len(builtinMeasure)+len(registry)+len(builtinOther))
	out = append(out, builtinMeasure...)
	out = append(out, registry...)
	return append(out, builtinOther...)
}
