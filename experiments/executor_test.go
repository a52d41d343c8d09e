package experiments

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/experiments/plan"
	"github.com/nnuelab/nnuelab/experiments/runner"
)

// fakeTask is a stand-in for `nnuelab experiment task --out OUT ID`: task
// "quick" finishes once "slow" has started; any other marks that it started
// and then waits ten minutes, so a test only ends in time if the executor
// stops it.
const fakeTask = `#!/bin/sh
out=$4 id=$5
touch "$out/$id.started"
if [ "$id" = quick ]; then
  while [ ! -e "$out/slow.started" ]; do sleep 0.05; done
  echo '{"id":"quick","kind":"elo","key":"k-quick"}' > "$out/tasks/quick.json"
  exit 0
fi
exec sleep 600
`

// An executor does not start a task Env.Drop no longer needs, and stops
// one in play when an ending task settles it: here "quick" finishing makes
// "slow" (running beside it) and "queued" (waiting) unnecessary.
func TestExecutorDrop(t *testing.T) {
	executors := []struct {
		name string
		ex   func(t *testing.T) runner.Executor
	}{
		{"local", func(*testing.T) runner.Executor { return &runner.Local{Jobs: 2} }},
		{"slurm", func(t *testing.T) runner.Executor {
			slurmUp(t)
			return &runner.Slurm{Poll: 200 * time.Millisecond}
		}},
	}
	for _, tc := range executors {
		t.Run(tc.name, func(t *testing.T) {
			ex := tc.ex(t)
			// Slurm's daemons run the task from a folder they can read.
			out := t.TempDir()
			bin := filepath.Join(out, "fake-nnuelab")
			if err := os.WriteFile(bin, []byte(fakeTask), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.MkdirAll(filepath.Join(out, "tasks"), 0o755); err != nil {
				t.Fatal(err)
			}
			var tasks []*plan.Task
			for _, id := range []string{"quick", "slow", "queued"} {
				tasks = append(tasks, &plan.Task{ID: id, Kind: plan.KindElo, Key: "k-" + id, CPUs: 1})
			}
			drop := func(id string) bool {
				_, done := plan.ReadResult(out, tasks[0])
				return id != "quick" && done
			}
			// The queued task cannot start while the other two hold the
			// cores, so the executor must decide on it when "quick" ends.
			tasks[2].CPUs = 2
			var mu sync.Mutex
			states := map[string][]string{}
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			err := ex.Run(ctx, runner.Env{Binary: bin, Out: out, Log: os.Stderr, Drop: drop}, tasks, func(e runner.Event) {
				mu.Lock()
				defer mu.Unlock()
				states[e.Task] = append(states[e.Task], e.State)
			})
			if err != nil {
				t.Fatalf("Run: %v (states %v)", err, states)
			}
			last := func(id string) string { return states[id][len(states[id])-1] }
			if last("quick") != "done" || last("slow") != "dropped" || last("queued") != "dropped" {
				t.Errorf("final states: quick %v, slow %v, queued %v", states["quick"], states["slow"], states["queued"])
			}
			if slices.Contains(states["queued"], "started") {
				t.Errorf("the unneeded queued task was started: %v", states["queued"])
			}
			if _, err := os.Stat(filepath.Join(out, "queued.started")); err == nil {
				t.Error("the unneeded queued task ran")
			}
			if _, err := os.Stat(filepath.Join(out, "slow.started")); err != nil {
				t.Error("the slow task never started, so stopping it was not tested")
			}
		})
	}
}
