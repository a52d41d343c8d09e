package experiments

import (
	"context"
	"io"

	"github.com/nnuelab/nnuelab/experiments/generations"
	"github.com/nnuelab/nnuelab/experiments/manifest"
	"github.com/nnuelab/nnuelab/experiments/plan"
	"github.com/nnuelab/nnuelab/experiments/runner"
)

// Run runs an experiment: it plans the manifest, runs the tasks that have
// no result yet (a killed run resumes: finished tasks are not run again),
// merges the results into OUT/results.jsonl and writes the report
// (runner.RunPlan). A generations manifest (file is the manifest's path)
// runs as generations.Run does (the plan returned is then nil).
func Run(ctx context.Context, file string, opt runner.RunOptions) (*plan.Plan, error) {
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	if opt.Stdout == nil {
		opt.Stdout = io.Discard
	}
	if opt.Executor == nil {
		opt.Executor = &runner.Local{}
	}
	m, err := manifest.Load(file)
	if err != nil {
		return nil, err
	}
	if !opt.DryRun {
		out := opt.Out
		if out == "" {
			if out, err = plan.DefaultOut(m.Name); err != nil {
				return nil, err
			}
		}
		if opt.DiffSHA256, err = runner.CheckBuild(out, opt.AllowDirty); err != nil {
			return nil, err
		}
	}
	if m.Generations != nil {
		return nil, generations.Run(ctx, m, opt)
	}
	p, err := plan.New(m, opt.Options)
	if err != nil {
		return nil, err
	}
	return runner.RunPlan(ctx, p, opt)
}
