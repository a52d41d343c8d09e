package metrics

import (
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/nnue"
	"github.com/nnuelab/nnuelab/experiments/data"
)

// Def defines a metric measured in the measure task (one per variant and
// seed) in one place: how it is measured, what it stores, the records it
// gives, its columns in the report's table and its line in the report's
// setup. A metric is added by writing its Def in a file of this package and
// registering it from that file's init; the manifest, the plan, the runner,
// the merge and the report read the registry (docs/experiments.md).
type Def struct {
	// Name is the metric's name in a manifest's metrics list.
	Name string
	// Key holds what, beside the net and the positions, decides the
	// metric's value (its fixed settings, a version): it joins the key of
	// the measure tasks of manifests that list the metric, so that a change
	// runs them again. Manifests that do not list it keep their keys.
	Key any
	// Measure measures one net; the value it returns is stored (as JSON)
	// in the task's result under Name.
	Measure func(ctx context.Context, s *Subject, log io.Writer) (any, error)
	// Records turns the stored value into the metric's records.
	Records func(raw json.RawMessage) ([]Value, error)
	// Columns are the metric's columns in the report's results table.
	Columns []Column
	// Setup is the metric's line in the report's setup section (how it
	// was measured), given the manifest's search settings; empty for none.
	Setup func(s Search) string
	// Seconds estimates one measure for the dry run's cost (a net that
	// evaluates at the cost model's speed); nil for a negligible cost.
	Seconds func(s Search) float64
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
	Loss       LossSpec
	Validation []string
	ValLimit   int
}

// Search are a manifest's search settings ([speed]): how many of the
// positions are searched, spread over the set, and the node budget of
// each search.
type Search struct {
	Positions, Nodes int
}

// Value is one record of a metric: its name (the metric's name or
// NAME.PART), value, unit, count and details.
type Value struct {
	Metric string
	Value  float64
	Unit   string
	N      int
	Detail map[string]any
}

// Column is a column of the report's results table: its heading, the
// record it shows (by metric name) and the printf format of the value.
type Column struct {
	Head, Metric, Format string
}

var registry []*Def

// Register adds a metric to the registry (from its file's init); a name
// registered twice, or one without Measure or Records, panics.
func Register(d *Def) {
	if d.Name == "" || d.Measure == nil || d.Records == nil {
		panic(fmt.Sprintf("metrics: incomplete definition of %q", d.Name))
	}
	if _, ok := Lookup(d.Name); ok {
		panic(fmt.Sprintf("metrics: %q registered twice", d.Name))
	}
	registry = append(registry, d)
}

// Lookup returns the registered metric named name.
func Lookup(name string) (*Def, bool) {
	for _, d := range registry {
		if d.Name == name {
			return d, true
		}
	}
	return nil, false
}

// Registered returns the registered metrics in registration order (the
// order of their records and columns).
func Registered() []*Def { return registry }
