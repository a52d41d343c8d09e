package runner

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"

	"github.com/nnuelab/nnuelab/experiments/plan"
)

// Executor runs tasks, each as the process `nnuelab experiment task --out
// OUT ID`, so that a local run and a cluster run execute the same code. A
// task has succeeded when its result file is there (ReadResult); the
// executor's own view (exit codes, scheduler states) only explains
// failures.
type Executor interface {
	// Name is "local" or "slurm".
	Name() string
	// Run runs a batch of tasks whose needs are met and returns when each
	// has ended, reporting starts and ends through ev.
	Run(ctx context.Context, env Env, tasks []*plan.Task, ev func(Event)) error
}

// Env is what an executor needs to start a task.
type Env struct {
	// Binary is the nnuelab executable, Out the results folder (absolute).
	Binary string
	Out    string
	// Log receives the executor's own messages.
	Log io.Writer
	// Drop, when set, reports a task of the batch that is no longer needed
	// (a chunk of an SPRT decided since the batch was handed over). The
	// executor does not start it and stops it if it is running, reporting
	// it as "dropped". It is asked again each time a task of the batch ends.
	Drop func(id string) bool
}

// dropped reports whether env.Drop asks for task id to be left out.
func (env Env) dropped(id string) bool { return env.Drop != nil && env.Drop(id) }

// Event is a change in a task's state.
type Event struct {
	Task  string
	State string // "submitted", "started", "done", "failed", "retry", "dropped"
	// Detail explains a failure (exit status, scheduler state, log tail).
	Detail string
}

// taskArgs are the arguments that run one task.
func taskArgs(env Env, id string) []string {
	return []string{"experiment", "task", "--out", env.Out, id}
}

// LogPath is where the local executor keeps a task's output.
func LogPath(out, id string) string { return filepath.Join(out, "logs", id+".log") }

// Local runs tasks as processes on this machine, as many at once as their
// CPUs allow.
type Local struct {
	// Jobs is the number of cores to fill (default: all).
	Jobs int
	// Retries is how many times a failed task is run again (default 0:
	// local failures are rarely transient).
	Retries int
}

// Name returns "local".
func (l *Local) Name() string { return "local" }

func (l *Local) jobs() int {
	if l.Jobs > 0 {
		return l.Jobs
	}
	return runtime.NumCPU()
}

// Run starts tasks in order while their CPUs fit in the free cores; an
// exclusive task (timing) runs alone.
func (l *Local) Run(ctx context.Context, env Env, tasks []*plan.Task, ev func(Event)) error {
	capacity := l.jobs()
	cpus := func(t *plan.Task) int {
		if t.Exclusive || t.CPUs <= 0 || t.CPUs > capacity {
			return capacity
		}
		return t.CPUs
	}
	type done struct {
		t   *plan.Task
		err error
	}
	ch := make(chan done)
	queue := append([]*plan.Task(nil), tasks...)
	attempts := map[string]int{}
	stop := map[string]context.CancelFunc{} // running tasks
	free, running := capacity, 0
	exclusive := false
	var mu sync.Mutex // serializes ev
	emit := func(e Event) {
		mu.Lock()
		defer mu.Unlock()
		ev(e)
	}
	for len(queue) > 0 || running > 0 {
		// Start what fits, in order; an exclusive task waits for an idle
		// machine and blocks the queue behind it.
		for len(queue) > 0 && !exclusive && ctx.Err() == nil {
			t := queue[0]
			need := cpus(t)
			if t.Exclusive && running > 0 {
				break
			}
			if need > free && running > 0 {
				break
			}
			queue = queue[1:]
			if env.dropped(t.ID) {
				emit(Event{Task: t.ID, State: "dropped"})
				continue
			}
			free -= need
			running++
			exclusive = t.Exclusive
			attempts[t.ID]++
			emit(Event{Task: t.ID, State: "started"})
			tctx, cancel := context.WithCancel(ctx)
			stop[t.ID] = cancel
			go func(t *plan.Task) {
				ch <- done{t, l.runOne(tctx, env, t)}
			}(t)
		}
		if running == 0 {
			break // cancelled with nothing running
		}
		d := <-ch
		running--
		free += cpus(d.t)
		if d.t.Exclusive {
			exclusive = false
		}
		stop[d.t.ID]()
		delete(stop, d.t.ID)
		_, ok := plan.ReadResult(env.Out, d.t)
		// A task's end may settle whether the others are needed.
		for id, cancel := range stop {
			if env.dropped(id) {
				cancel()
			}
		}
		if ok {
			emit(Event{Task: d.t.ID, State: "done"})
			continue
		}
		if env.dropped(d.t.ID) {
			emit(Event{Task: d.t.ID, State: "dropped"})
			continue
		}
		detail := "no result"
		if d.err != nil {
			detail = d.err.Error()
		}
		detail += "; log " + LogPath(env.Out, d.t.ID) + ": " + logTail(LogPath(env.Out, d.t.ID), 400)
		if attempts[d.t.ID] <= l.Retries && ctx.Err() == nil {
			emit(Event{Task: d.t.ID, State: "retry", Detail: detail})
			queue = append(queue, d.t)
			continue
		}
		emit(Event{Task: d.t.ID, State: "failed", Detail: detail})
	}
	return ctx.Err()
}

func (l *Local) runOne(ctx context.Context, env Env, t *plan.Task) error {
	path := LogPath(env.Out, t.ID)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return err
	}
	defer f.Close()
	cmd := command(ctx, env.Binary, taskArgs(env, t.ID)...)
	cmd.Stdout, cmd.Stderr = f, f
	if err := cmd.Run(); err != nil {
		return fmt.Errorf("%s %s: %w", env.Binary, strings.Join(taskArgs(env, t.ID), " "), err)
	}
	return nil
}

// logTail returns the last n bytes of a log file, on one line.
func logTail(path string, n int) string {
	data, err := os.ReadFile(path)
	if err != nil {
		return "(no log)"
	}
	s := strings.TrimSpace(string(data))
	if len(s) > n {
		s = "..." + s[len(s)-n:]
	}
	return strings.ReplaceAll(s, "\n", " | ")
}
