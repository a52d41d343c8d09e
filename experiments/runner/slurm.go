package runner

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nnuelab/nnuelab/experiments/plan"
	"github.com/nnuelab/nnuelab/internal/fsutil"
	"github.com/samber/lo"
)

// Slurm runs tasks as elements of `sbatch --array` jobs: one array per
// group of tasks with the same resources, polled with squeue until they
// leave the queue; the final states come from sacct (or scontrol when the
// cluster keeps no accounting). Failed elements are resubmitted as a new
// array, up to Retries times. The nodes must see the results folder and
// the nnuelab binary at the same paths (a shared file system).
type Slurm struct {
	// Args are extra sbatch arguments (--partition=..., --time=...).
	Args []string
	// Poll is the squeue interval (default 5 s).
	Poll time.Duration
	// Retries is how many times failed tasks are resubmitted (NewSlurm:
	// 2).
	Retries int
	// Log receives the job IDs and cancellations.
	Log io.Writer

	arrays int // numbering of the array files of this run
	// client runs Slurm's client commands (sbatch, squeue, sacct,
	// scontrol, scancel); nil runs the real ones. Tests replace it.
	client func(ctx context.Context, name string, args ...string) ([]byte, error)
}

// NewSlurm returns a Slurm executor with the defaults: 5 s polls, 2
// resubmissions.
func NewSlurm(args []string) *Slurm {
	return &Slurm{Args: args, Poll: 5 * time.Second, Retries: 2}
}

// Name returns "slurm".
func (s *Slurm) Name() string { return "slurm" }

// slurmJob is one submitted array.
type slurmJob struct {
	id    string
	tasks []*plan.Task // index = array task ID
}

// Run submits the tasks, waits for them and resubmits the failed ones.
func (s *Slurm) Run(ctx context.Context, env Env, tasks []*plan.Task, ev func(Event)) error {
	if _, err := exec.LookPath("sbatch"); err != nil {
		return fmt.Errorf("slurm executor: sbatch not found (install Slurm's client tools, or use --executor local): %w", err)
	}
	if err := os.MkdirAll(filepath.Join(env.Out, "slurm"), 0o755); err != nil {
		return err
	}
	pending := tasks
	for attempt := 0; len(pending) > 0; attempt++ {
		pending = slices.DeleteFunc(pending, func(t *plan.Task) bool {
			if env.dropped(t.ID) {
				ev(Event{Task: t.ID, State: "dropped"})
				return true
			}
			return false
		})
		if len(pending) == 0 {
			break
		}
		jobs, err := s.submit(ctx, env, pending)
		if err != nil {
			return err
		}
		for _, t := range pending {
			ev(Event{Task: t.ID, State: "submitted"})
		}
		if err := s.wait(ctx, env, jobs, ev); err != nil {
			s.cancel(jobs)
			return err
		}
		var failed []*plan.Task
		for _, j := range jobs {
			states := s.finalStates(j.id)
			for i, t := range j.tasks {
				if _, ok := plan.ReadResult(env.Out, t); ok {
					ev(Event{Task: t.ID, State: "done"})
					continue
				}
				if env.dropped(t.ID) {
					ev(Event{Task: t.ID, State: "dropped"})
					continue
				}
				st := states[i]
				if st == "" {
					st = "unknown state"
				}
				out := filepath.Join(env.Out, "slurm", fmt.Sprintf("%s_%d.out", j.id, i))
				detail := fmt.Sprintf("job %s_%d: %s; output %s: %s", j.id, i, st, out, logTail(out, 400))
				if attempt < s.Retries {
					ev(Event{Task: t.ID, State: "retry", Detail: detail})
				} else {
					ev(Event{Task: t.ID, State: "failed", Detail: detail})
				}
				failed = append(failed, t)
			}
		}
		if attempt >= s.Retries {
			break
		}
		pending = failed
	}
	return nil
}

// shellQuote quotes s for sh.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// submit writes one array script per resource group and submits it.
func (s *Slurm) submit(ctx context.Context, env Env, tasks []*plan.Task) ([]slurmJob, error) {
	type group struct {
		cpus      int
		exclusive bool
	}
	// One array per resource shape, in the order the tasks come.
	shape := func(t *plan.Task) group {
		if t.Exclusive || t.CPUs <= 0 {
			return group{0, true}
		}
		return group{t.CPUs, false}
	}
	var jobs []slurmJob
	for _, ts := range lo.PartitionBy(tasks, shape) {
		g := shape(ts[0])
		s.arrays++
		base := filepath.Join(env.Out, "slurm", fmt.Sprintf("array-%d-%d", os.Getpid(), s.arrays))
		var ids bytes.Buffer
		for _, t := range ts {
			fmt.Fprintln(&ids, t.ID)
		}
		if err := fsutil.WriteFileAll(base+".tasks", ids.Bytes(), 0o644); err != nil {
			return nil, err
		}
		script := fmt.Sprintf(`#!/bin/sh
# nnuelab experiment: one task of the plan in %[1]s per array element
# (written by nnuelab experiment run --executor slurm).
id=$(sed -n "$((SLURM_ARRAY_TASK_ID + 1))p" %[2]s)
[ -n "$id" ] || { echo "no task for array index $SLURM_ARRAY_TASK_ID" >&2; exit 2; }
exec %[3]s experiment task --out %[4]s "$id"
`, env.Out, shellQuote(base+".tasks"), shellQuote(env.Binary), shellQuote(env.Out))
		if err := fsutil.WriteFileAll(base+".sh", []byte(script), 0o644); err != nil {
			return nil, err
		}
		args := []string{"--parsable", "--job-name=nnuelab-experiment",
			fmt.Sprintf("--array=0-%d", len(ts)-1),
			"--output=" + filepath.Join(env.Out, "slurm", "%A_%a.out"),
			"--chdir=" + env.Out}
		if g.exclusive {
			args = append(args, "--exclusive")
		} else {
			args = append(args, fmt.Sprintf("--cpus-per-task=%d", g.cpus))
		}
		args = append(args, s.Args...)
		args = append(args, base+".sh")
		out, err := s.command(ctx, "sbatch", args...)
		if err != nil {
			return nil, fmt.Errorf("sbatch: %w", err)
		}
		id := strings.TrimSpace(string(out))
		id, _, _ = strings.Cut(id, ";") // "JOBID;CLUSTER"
		if _, err := strconv.Atoi(id); err != nil {
			return nil, fmt.Errorf("sbatch printed %q, not a job ID", strings.TrimSpace(string(out)))
		}
		s.logf("slurm: submitted array %s: %d task(s)%s\n", id, len(ts), map[bool]string{true: ", exclusive", false: ""}[g.exclusive])
		jobs = append(jobs, slurmJob{id: id, tasks: ts})
	}
	return jobs, nil
}

func (s *Slurm) logf(format string, a ...any) {
	if s.Log != nil {
		fmt.Fprintf(s.Log, format, a...)
	}
}

// command runs a Slurm client command and returns its standard output.
func (s *Slurm) command(ctx context.Context, name string, args ...string) ([]byte, error) {
	if s.client != nil {
		return s.client(ctx, name, args...)
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return stdout.Bytes(), fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	return stdout.Bytes(), nil
}

var squeueLine = regexp.MustCompile(`^(\d+)_(\d+) +(\S+)`)

// wait polls squeue until none of the jobs' elements is queued or running,
// reporting elements that start running and cancelling those env.Drop no
// longer needs.
func (s *Slurm) wait(ctx context.Context, env Env, jobs []slurmJob, ev func(Event)) error {
	poll := s.Poll
	if poll <= 0 {
		poll = 5 * time.Second
	}
	ids := make([]string, len(jobs))
	byID := map[string]slurmJob{}
	for i, j := range jobs {
		ids[i] = j.id
		byID[j.id] = j
	}
	started := map[string]bool{}
	dropped := map[string]bool{}
	prevLive := 0 // elements queued or running at the last poll
	for _, j := range jobs {
		prevLive += len(j.tasks)
	}
	for {
		out, err := s.command(ctx, "squeue", "-h", "-r", "-j", strings.Join(ids, ","), "-o", "%i %T")
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			// squeue refuses job IDs that have left the controller's memory
			// ("Invalid job id specified"): they are no longer queued.
			if !strings.Contains(err.Error(), "Invalid job id") {
				return err
			}
			out = nil
		}
		live := 0
		for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
			mm := squeueLine.FindStringSubmatch(strings.TrimSpace(line))
			if mm == nil {
				// A pending array not yet split shows as "ID_[0-3] PENDING".
				if strings.TrimSpace(line) != "" {
					live++
				}
				continue
			}
			live++
			j, ok := byID[mm[1]]
			idx, _ := strconv.Atoi(mm[2])
			if ok && idx < len(j.tasks) && mm[3] == "RUNNING" && !started[j.tasks[idx].ID] {
				started[j.tasks[idx].ID] = true
				ev(Event{Task: j.tasks[idx].ID, State: "started"})
			}
		}
		if live == 0 {
			return nil
		}
		if live < prevLive {
			// Elements ended: Env.Drop may now leave others unneeded.
			s.cancelDropped(ctx, env, jobs, dropped, started)
		}
		prevLive = live
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(poll):
		}
	}
}

// cancelDropped scancels the elements env.Drop no longer needs (each once,
// remembered in dropped): the pending ones first, then, in a second call,
// those running (started), so that the cores a cancelled running element
// frees cannot go to a pending element that is about to be cancelled too.
func (s *Slurm) cancelDropped(ctx context.Context, env Env, jobs []slurmJob, dropped, started map[string]bool) {
	var pending, running []string
	for _, j := range jobs {
		for i, t := range j.tasks {
			if !dropped[t.ID] && env.dropped(t.ID) {
				dropped[t.ID] = true
				id := fmt.Sprintf("%s_%d", j.id, i)
				if started[t.ID] {
					running = append(running, id)
				} else {
					pending = append(pending, id)
				}
			}
		}
	}
	for _, drop := range [][]string{pending, running} {
		if len(drop) == 0 {
			continue
		}
		if _, err := s.command(ctx, "scancel", drop...); err != nil {
			s.logf("slurm: %v\n", err)
		} else {
			s.logf("slurm: cancelled %s (no longer needed)\n", strings.Join(drop, ","))
		}
	}
}

// finalStates returns the end state of each element of a job ("FAILED
// exit 1:0"), from sacct when the cluster keeps accounting, else from
// scontrol (which remembers jobs for MinJobAge).
func (s *Slurm) finalStates(id string) map[int]string {
	states := map[int]string{}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if out, err := s.command(ctx, "sacct", "-n", "-P", "-X", "-j", id, "-o", "JobID,State,ExitCode"); err == nil {
		for _, line := range strings.Split(string(out), "\n") {
			f := strings.Split(strings.TrimSpace(line), "|")
			if len(f) < 3 {
				continue
			}
			_, idx, ok := strings.Cut(f[0], "_")
			if n, err := strconv.Atoi(idx); ok && err == nil {
				states[n] = f[1] + " exit " + f[2]
			}
		}
		if len(states) > 0 {
			return states
		}
	}
	out, err := s.command(ctx, "scontrol", "show", "job", "-o", id)
	if err != nil {
		return states
	}
	field := func(line, key string) string {
		for _, f := range strings.Fields(line) {
			if v, ok := strings.CutPrefix(f, key+"="); ok {
				return v
			}
		}
		return ""
	}
	for _, line := range strings.Split(string(out), "\n") {
		if n, err := strconv.Atoi(field(line, "ArrayTaskId")); err == nil {
			states[n] = field(line, "JobState") + " exit " + field(line, "ExitCode")
		}
	}
	return states
}

// cancel stops the jobs (on interruption).
func (s *Slurm) cancel(jobs []slurmJob) {
	ctx, stop := context.WithTimeout(context.Background(), 30*time.Second)
	defer stop()
	var ids []string
	for _, j := range jobs {
		ids = append(ids, j.id)
	}
	sort.Strings(ids)
	if _, err := s.command(ctx, "scancel", ids...); err != nil {
		s.logf("slurm: %v\n", err)
	} else {
		s.logf("slurm: cancelled %s\n", strings.Join(ids, ","))
	}
}
