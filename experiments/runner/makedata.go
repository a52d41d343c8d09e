package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/datasets/datagen"
	"github.com/nnuelab/nnuelab/datasets/label"
	"github.com/nnuelab/nnuelab/experiments/plan"
	"github.com/nnuelab/nnuelab/internal/cputime"
)

// runMakeData runs a datagen or label shard into the cache.
func runMakeData(ctx context.Context, p *plan.Plan, t *plan.Task, log io.Writer) (*plan.DataResult, error) {
	j := t.Data
	if j == nil {
		return nil, fmt.Errorf("task %s has no data job", t.ID)
	}
	if err := os.MkdirAll(filepath.Dir(j.Out), 0o755); err != nil {
		return nil, err
	}
	lastLog := time.Now()
	var positions int64
	var sum string
	var made datagen.Progress
	cpu0 := cputime.Process()
	switch t.Kind {
	case plan.KindDatagen:
		cfg := *j.Gen
		cfg.Threads = 1
		if err := adoptCommitted(p, t, cfg, log); err != nil {
			return nil, err
		}
		gm, err := datagen.Generate(ctx, cfg, j.Out, datagen.Options{
			Command: "nnuelab experiment task " + t.ID,
			Progress: func(g datagen.Progress) {
				made = g
				if time.Since(lastLog) > 30*time.Second {
					lastLog = time.Now()
					fmt.Fprintf(log, "%s: %d positions, %.0f/s\n", t.ID, g.Positions, g.Rate())
				}
			},
		})
		if err != nil {
			return nil, err
		}
		positions, sum = gm.Summary.Positions, gm.SHA256
	case plan.KindLabel:
		lm, err := label.Run(ctx, j.Inputs, j.Out, label.Config{
			Engine: j.Engine, Options: j.Options, Nodes: j.Nodes, Depth: j.Depth,
			ChunkRecords: plan.LabelChunk, Shard: j.Shard, Shards: j.Shards,
			Processes: 1, Timeout: time.Minute,
			Command: "nnuelab experiment task " + t.ID,
			Progress: func(done int64, rate float64) {
				if time.Since(lastLog) > 30*time.Second {
					lastLog = time.Now()
					fmt.Fprintf(log, "%s: %d positions, %.0f/s\n", t.ID, done, rate)
				}
			},
		})
		if err != nil {
			return nil, err
		}
		positions, sum = lm.Summary.Labelled, lm.SHA256
	default:
		return nil, fmt.Errorf("task %s: kind %q makes no data", t.ID, t.Kind)
	}
	fmt.Fprintf(log, "%s: %d positions in %s\n", t.ID, positions, j.Out)
	r := &plan.DataResult{Out: j.Out, SHA256: sum, Positions: positions}
	if made.NewPositions > 0 {
		// A task runs in a process of its own, so the process's CPU time
		// is the shard's.
		r.NewPositions, r.Nodes, r.CPUSeconds = made.NewPositions, made.NewNodes, (cputime.Process() - cpu0).Seconds()
	}
	return r, nil
}

// adoptCommitted copies into the cache a committed shard with the task's
// exact settings (datagen.FindCommitted), when the shard is neither made
// nor begun there: a fresh clone then goes on from the committed self-play
// instead of playing it again. A damaged committed copy stops the task.
func adoptCommitted(p *plan.Plan, t *plan.Task, cfg datagen.Config, log io.Writer) error {
	out := t.Data.Out
	for _, f := range []string{out, datasets.PartsDir(out)} {
		if _, err := os.Stat(f); !os.IsNotExist(err) {
			return nil
		}
	}
	src, err := datagen.FindCommitted(cfg, []string{p.CommittedData()})
	if err != nil || src == "" {
		return err
	}
	if err := datagen.AdoptCommitted(src, out); err != nil {
		return err
	}
	fmt.Fprintf(log, "%s: adopted %s (same settings, sha256 checked) instead of playing it\n", t.ID, src)
	return nil
}
