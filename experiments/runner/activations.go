package runner

import (
	"fmt"
	"io"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/experiments/data"
	"github.com/nnuelab/nnuelab/experiments/metrics"
	"github.com/nnuelab/nnuelab/experiments/plan"
	"github.com/nnuelab/nnuelab/nets/inspect"
)

// runActivations evaluates the manifest's positions with the variant's
// net, traced, and counts its activations (nets/inspect.CollectPositions,
// one thread: the task has one core).
func runActivations(p *plan.Plan, t *plan.Task, log io.Writer) (*metrics.ActivationsResult, error) {
	v := p.Variant(t.Variant)
	if v == nil {
		return nil, fmt.Errorf("no variant %q", t.Variant)
	}
	spec, net, _, err := loadVariant(p, v, seedIndex(p, t.Seed))
	if err != nil {
		return nil, err
	}
	ps, err := data.ReadPositions(p.Positions, p.Manifest.Positions.Limit)
	if err != nil {
		return nil, err
	}
	view, err := inspect.New(v.Name, spec, net, nil)
	if err != nil {
		return nil, err
	}
	pos := make([]*board.Position, len(ps))
	for i := range ps {
		pos[i] = ps[i].Pos
	}
	a, err := inspect.CollectPositions(view, pos, p.Positions, inspect.Options{Threads: 1})
	if err != nil {
		return nil, fmt.Errorf("variant %s: activations: %w", v.Name, err)
	}
	r := metrics.ActivationCounts(view, a)
	first := r.Layers[0]
	fmt.Fprintf(log, "%s: %s over %d positions: %.2f%% zero, %.2f%% saturated, %d dead; %.2f%% of the 4-byte groups non-zero\n",
		v.Name, first.Name, r.Positions, 100*metrics.Ratio(first.Zero, first.Outputs), 100*metrics.Ratio(first.Saturated, first.Outputs), first.Dead,
		100*metrics.Ratio(r.NonZeroGroups, r.Groups))
	return r, nil
}
