package runner

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/nnuelab/nnuelab/experiments/plan"
	"github.com/nnuelab/nnuelab/experiments/records"
	"github.com/nnuelab/nnuelab/experiments/report"
	"github.com/nnuelab/nnuelab/internal/fsutil"
	"github.com/nnuelab/nnuelab/internal/version"
	"github.com/samber/lo"
)

// RunOptions configure Run.
type RunOptions struct {
	plan.Options
	// Executor runs the tasks (default: Local on every core).
	Executor Executor
	// DryRun prints the plan and its cost estimate to Stdout and runs
	// nothing.
	DryRun bool
	// ReportDir receives NAME.md and NAME/*.svg (default docs/reports);
	// NoReport skips the report.
	ReportDir string
	NoReport  bool
	// Stdout receives the dry run's plan; Log the progress.
	Stdout io.Writer
	Log    io.Writer
	// Terminal redraws the progress line in place.
	Terminal bool
	// Jobs is the core count the dry run's wall-time estimate assumes
	// (default: the local executor's).
	Jobs int
	// Fresh runs every task again, ignoring stored results (after a change
	// of the engine that stored results cannot see). Trained nets stay in
	// the cache.
	Fresh bool
	// Outputs are tasks whose outputs in the cache (a trained net, a data
	// shard) must be there when the run ends although no task of the plan
	// needs them: a finished one whose output is lost is run again. The
	// generations driver uses it for what a later generation's plan needs
	// of an earlier one's (a fresh clone has the results, not the cache).
	Outputs []string
	// AllowDirty lets a binary built from a tree with uncommitted changes
	// write results under the repository's results/ (refused
	// otherwise: checkBuild); the run then records the sha256 of `git diff
	// HEAD`.
	AllowDirty bool
	// Shared is the results root searched for Elo chunks that another
	// experiment played with the same key (adoptElo); empty adopts none.
	Shared string

	// DiffSHA256 is checkBuild's hash, passed on to every part's plan.
	DiffSHA256 string `json:"-" toml:"-"`
}

// RunInfo is OUT/run.json: how the last run went (not part of the results).
type RunInfo struct {
	Executor string   `json:"executor"`
	Host     string   `json:"host"`
	Started  string   `json:"started"`
	Finished string   `json:"finished"`
	Seconds  float64  `json:"seconds"`
	Ran      []string `json:"ran"`
	// Reused are the tasks already done, here or (Elo chunks) adopted from
	// another experiment's folder with the same key.
	Reused   []string `json:"reused"`
	Command  string   `json:"command"`
	Revision string   `json:"revision"`
	// DiffSHA256 is the sha256 of `git diff HEAD` when the binary was
	// built from a dirty tree (--allow-dirty): which uncommitted changes
	// made the results.
	DiffSHA256 string   `json:"diff_sha256,omitempty"`
	Skipped    []string `json:"skipped,omitempty"`
	// Dropped are Elo chunks stopped in play, or not started, because their
	// SPRT was decided while they were under way; their games are discarded.
	Dropped []string `json:"dropped,omitempty"`
}

// DryRunJobs is the core count a dry run's wall-time estimate assumes.
func (opt *RunOptions) DryRunJobs() int {
	if opt.Jobs > 0 {
		return opt.Jobs
	}
	if l, ok := opt.Executor.(*Local); ok {
		return l.jobs()
	}
	return 1
}

// RunPlan runs a plan as Run does (opt's defaults filled in).
func RunPlan(ctx context.Context, p *plan.Plan, opt RunOptions) (*plan.Plan, error) {
	m := p.Manifest
	if opt.DryRun {
		if opt.Shared != "" {
			p.Adoptable = plan.IndexElo(opt.Shared)
		}
		plan.Describe(opt.Stdout, p, opt.Executor.Name(), opt.DryRunJobs())
		return p, nil
	}
	if err := os.MkdirAll(p.Out, 0o755); err != nil {
		return nil, err
	}
	unlock, err := LockDir(p.Out)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if opt.Fresh {
		for _, t := range p.Tasks {
			if err := os.Remove(plan.ResultPath(p.Out, t.ID)); err != nil && !os.IsNotExist(err) {
				return nil, err
			}
		}
	}
	// A task file edited or damaged since its task wrote it stops the run
	// here, naming it, before anything counts it.
	if err := plan.CheckResults(p); err != nil {
		return nil, err
	}
	p.DiffSHA256 = opt.DiffSHA256
	if err := p.Write(); err != nil {
		return nil, err
	}

	info := RunInfo{Executor: opt.Executor.Name(), Started: time.Now().UTC().Format(time.RFC3339), Command: p.Command,
		Revision: version.Revision(), DiffSHA256: p.DiffSHA256, Skipped: p.Skipped, Ran: []string{}, Reused: []string{}}
	info.Host, _ = os.Hostname()
	start := time.Now()
	done := map[string]bool{}
	for _, t := range p.Tasks {
		if _, ok := plan.ReadResult(p.Out, t); ok {
			done[t.ID] = true
			info.Reused = append(info.Reused, t.ID)
		}
	}
	if opt.Shared != "" {
		adopted, err := plan.AdoptElo(p, done, plan.IndexElo(opt.Shared), opt.Log)
		if err != nil {
			return nil, err
		}
		info.Reused = append(info.Reused, adopted...)
	}
	_, sprt := plan.SPRTTest(m)
	var skipped map[string]bool // chunks of a decided SPRT
	if sprt {
		skipped = plan.NotNeeded(p, finishedResults(p, done))
	}
	for _, id := range lostOutputs(p, done, skipped, opt.Outputs) {
		if err := os.Remove(plan.ResultPath(p.Out, id)); err != nil && !os.IsNotExist(err) {
			return nil, err
		}
		info.Reused = slices.DeleteFunc(info.Reused, func(r string) bool { return r == id })
		fmt.Fprintf(opt.Log, "task %s: finished, but its output is not in the cache (%s): redoing it for the tasks that need it\n", id, p.Task(id).CacheOutput())
	}
	pr := newProgress(opt.Log, opt.Terminal, len(p.Tasks), len(done))
	fmt.Fprintf(opt.Log, "experiment %s: %d tasks, %d already done; results in %s\n", m.Name, len(p.Tasks), len(done), p.Out)
	env := Env{Binary: p.Binary, Out: p.Out, Log: opt.Log}
	if sprt {
		env.Drop = decidedChunks(p)
	}
	failed := map[string]string{}
	for {
		if sprt {
			skipped = plan.NotNeeded(p, finishedResults(p, done))
		}
		ready := nextWave(p, done, failed, skipped)
		if len(ready) == 0 || ctx.Err() != nil {
			break
		}
		err := opt.Executor.Run(ctx, env, ready, func(e Event) {
			pr.event(e)
			if e.State == "failed" {
				failed[e.Task] = e.Detail
			}
		})
		for _, t := range ready {
			if _, ok := plan.ReadResult(p.Out, t); ok {
				done[t.ID] = true
				info.Ran = append(info.Ran, t.ID)
			} else if env.dropped(t.ID) {
				// A stopped chunk's games are not counted; neither are they kept.
				plan.RemoveGames(p.Out, t.ID)
				info.Dropped = append(info.Dropped, t.ID)
			} else if failed[t.ID] == "" {
				failed[t.ID] = "did not finish"
			}
		}
		if err != nil {
			pr.stop()
			return p, err
		}
	}
	pr.stop()
	if err := ctx.Err(); err != nil {
		return p, fmt.Errorf("interrupted; %d of %d tasks done, rerun the same command to continue", len(done), len(p.Tasks))
	}
	if len(done)+len(skipped) < len(p.Tasks) {
		var lines []string
		for _, t := range p.Tasks {
			if d := failed[t.ID]; d != "" {
				lines = append(lines, fmt.Sprintf("  %s: %s", t.ID, d))
			} else if !done[t.ID] && !skipped[t.ID] {
				lines = append(lines, fmt.Sprintf("  %s: not run (needs %s)", t.ID, strings.Join(t.Needs, ", ")))
			}
		}
		return p, fmt.Errorf("%d of %d tasks did not finish (finished ones are kept; rerun to retry):\n%s",
			len(p.Tasks)-len(done)-len(skipped), len(p.Tasks), strings.Join(lines, "\n"))
	}
	if len(skipped) > 0 {
		fmt.Fprintf(opt.Log, "experiment %s: %d Elo chunks not played: their SPRT was decided\n", m.Name, len(skipped))
	}
	recs, err := records.Merge(p)
	if err != nil {
		return p, err
	}
	if err := records.WriteResults(records.ResultsPath(p.Out), recs); err != nil {
		return p, err
	}
	// Report from the file, exactly as `nnuelab experiment report` does.
	if recs, err = records.ReadResults(records.ResultsPath(p.Out)); err != nil {
		return p, err
	}
	info.Finished = time.Now().UTC().Format(time.RFC3339)
	info.Seconds = time.Since(start).Seconds()
	data, _ := json.MarshalIndent(info, "", "  ")
	if err := fsutil.WriteFileAll(filepath.Join(p.Out, "run.json"), append(data, '\n'), 0o644); err != nil {
		return p, err
	}
	fmt.Fprintf(opt.Log, "experiment %s: %d records in %s (%s)\n", m.Name, len(recs), records.ResultsPath(p.Out), time.Since(start).Round(time.Second))
	if !opt.NoReport {
		path, err := report.Write(p, recs, opt.ReportDir)
		if err != nil {
			return p, err
		}
		fmt.Fprintf(opt.Log, "experiment %s: report %s\n", m.Name, path)
	}
	return p, nil
}

// progress shows how a run advances: a line redrawn in place on a
// terminal, else one line per finished task.
type progress struct {
	mu       sync.Mutex
	w        io.Writer
	tty      bool
	total    int
	done     int
	failed   int
	start    time.Time
	running  map[string]time.Time
	started  map[string]time.Time
	stopTick chan struct{}
	stopped  bool
}

func newProgress(w io.Writer, tty bool, total, done int) *progress {
	p := &progress{w: w, tty: tty, total: total, done: done, start: time.Now(),
		running: map[string]time.Time{}, started: map[string]time.Time{}, stopTick: make(chan struct{})}
	if tty {
		go func() {
			t := time.NewTicker(time.Second)
			defer t.Stop()
			for {
				select {
				case <-p.stopTick:
					return
				case <-t.C:
					p.mu.Lock()
					p.draw()
					p.mu.Unlock()
				}
			}
		}()
	}
	return p
}

func (p *progress) stop() {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.stopped {
		return
	}
	p.stopped = true
	close(p.stopTick)
	if p.tty {
		fmt.Fprint(p.w, "\r\033[K")
	}
}

func (p *progress) event(e Event) {
	p.mu.Lock()
	defer p.mu.Unlock()
	now := time.Now()
	line := ""
	switch e.State {
	case "submitted":
		if _, ok := p.started[e.Task]; !ok {
			p.started[e.Task] = now
		}
	case "started":
		p.running[e.Task] = now
		if _, ok := p.started[e.Task]; !ok {
			p.started[e.Task] = now
		}
	case "done":
		p.done++
		line = fmt.Sprintf("done   %s (%s)", e.Task, now.Sub(p.started[e.Task]).Round(100*time.Millisecond))
		delete(p.running, e.Task)
		delete(p.started, e.Task)
	case "retry":
		line = fmt.Sprintf("retry  %s: %s", e.Task, e.Detail)
		delete(p.running, e.Task)
	case "dropped":
		line = fmt.Sprintf("dropped %s: its SPRT was decided", e.Task)
		delete(p.running, e.Task)
		delete(p.started, e.Task)
	case "failed":
		p.failed++
		line = fmt.Sprintf("FAILED %s: %s", e.Task, e.Detail)
		delete(p.running, e.Task)
		delete(p.started, e.Task)
	}
	if line != "" {
		if p.tty {
			fmt.Fprint(p.w, "\r\033[K")
		}
		fmt.Fprintf(p.w, "[%*d/%d] %s\n", len(fmt.Sprint(p.total)), p.done, p.total, line)
	}
	if p.tty {
		p.draw()
	}
}

// draw redraws the status line (caller holds mu).
func (p *progress) draw() {
	if p.stopped {
		return
	}
	names := make([]string, 0, len(p.running))
	for n := range p.running {
		names = append(names, n)
	}
	sort.Strings(names)
	var parts []string
	for _, n := range names {
		parts = append(parts, fmt.Sprintf("%s %s", n, time.Since(p.running[n]).Round(time.Second)))
	}
	run := strings.Join(parts, ", ")
	if len(run) > 90 {
		run = run[:87] + "..."
	}
	queued := len(p.started) - len(p.running)
	s := fmt.Sprintf("[%d/%d done, %d running, %d queued, %d failed, %s] %s", p.done, p.total, len(p.running), max(queued, 0), p.failed,
		time.Since(p.start).Round(time.Second), run)
	fmt.Fprint(p.w, "\r\033[K"+s)
}

// finishedResults reads the results of the finished Elo tasks, which
// decide whether an SPRT needs more chunks.
func finishedResults(p *plan.Plan, done map[string]bool) map[string]*plan.TaskResult {
	out := map[string]*plan.TaskResult{}
	for _, t := range p.Tasks {
		if t.Kind == plan.KindElo && done[t.ID] {
			if r, ok := plan.ReadResult(p.Out, t); ok {
				out[t.ID] = r
			}
		}
	}
	return out
}

// decidedChunks returns the runner's Env.Drop: an Elo chunk without a
// result is not needed once its variant's SPRT has crossed a bound on the
// chunks finished, so a chunk still in play when the decision comes is
// stopped rather than played out for nothing.
func decidedChunks(p *plan.Plan) func(id string) bool {
	var mu sync.Mutex
	results := map[string]*plan.TaskResult{} // finished chunks, read once
	return func(id string) bool {
		mu.Lock()
		defer mu.Unlock()
		t := p.Task(id)
		if t == nil || t.Kind != plan.KindElo {
			return false
		}
		for _, c := range p.Tasks {
			if c.Kind == plan.KindElo && c.Variant == t.Variant && results[c.ID] == nil {
				if r, ok := plan.ReadResult(p.Out, c); ok {
					results[c.ID] = r
				}
			}
		}
		_, decided := plan.SPRTLooks(p, t.Variant, results)
		return decided && results[id] == nil
	}
}

// lostOutputs finds the finished tasks whose output file lives in the
// cache (a label or self-play shard, a trained net) when that file is gone
// and a task still to run needs it (or keep lists it: RunOptions.Outputs):
// a fresh clone has the committed results but not the cache. It marks them
// not done, and likewise what they need in turn, and returns their IDs in
// plan order.
func lostOutputs(p *plan.Plan, done, skipped map[string]bool, keep []string) []string {
	var queue []*plan.Task
	for _, t := range p.Tasks {
		if !done[t.ID] && !skipped[t.ID] {
			queue = append(queue, t)
		}
	}
	if len(keep) > 0 {
		queue = append(queue, &plan.Task{ID: "(outputs to keep)", Needs: keep})
	}
	lost := map[string]bool{}
	for len(queue) > 0 {
		t := queue[0]
		queue = queue[1:]
		for _, n := range t.Needs {
			nt := p.Task(n)
			if nt == nil || !done[n] || lost[n] {
				continue
			}
			if out := nt.CacheOutput(); out != "" {
				if _, err := os.Stat(out); os.IsNotExist(err) {
					lost[n] = true
					delete(done, n)
					queue = append(queue, nt)
				}
			}
		}
	}
	var ids []string
	for _, t := range p.Tasks {
		if lost[t.ID] {
			ids = append(ids, t.ID)
		}
	}
	return ids
}

// nextWave returns the tasks to run next: those not done, failed or
// skipped (chunks of a decided SPRT) whose needs are done, in plan order.
// Elo chunks, the long tail, wait while any other task can run: otherwise
// a wave would hold every chunk of the variants trained first, and the
// measurements and the other variants' chunks (queued round-robin) would
// wait behind all of them.
func nextWave(p *plan.Plan, done map[string]bool, failed map[string]string, skipped map[string]bool) []*plan.Task {
	canRun := func(t *plan.Task) bool {
		if done[t.ID] || failed[t.ID] != "" || skipped[t.ID] {
			return false
		}
		for _, n := range t.Needs {
			if !done[n] {
				return false
			}
		}
		return true
	}
	others := lo.ContainsBy(p.Tasks, func(t *plan.Task) bool { return t.Kind != plan.KindElo && canRun(t) })
	return lo.Filter(p.Tasks, func(t *plan.Task, _ int) bool { return canRun(t) && !(others && t.Kind == plan.KindElo) })
}
