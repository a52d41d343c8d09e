package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/bench/stats"
	"github.com/nnuelab/nnuelab/engine/nnue"
	"github.com/nnuelab/nnuelab/experiments/data"
	"github.com/nnuelab/nnuelab/experiments/manifest"
	"github.com/nnuelab/nnuelab/experiments/metrics"
	"github.com/nnuelab/nnuelab/experiments/plan"
	"github.com/nnuelab/nnuelab/internal/fsutil"
	"github.com/nnuelab/nnuelab/internal/version"
	"github.com/nnuelab/nnuelab/internal/zstdfile"
	"github.com/nnuelab/nnuelab/nets"
	"github.com/nnuelab/nnuelab/nets/train"
)

// RunTask runs one task of the plan in OUT and stores its result
// atomically. It is what `nnuelab experiment task` runs, locally or as a
// Slurm array element. A task whose result is already there under the same
// key returns at once.
func RunTask(ctx context.Context, out, id string, log io.Writer) error {
	p, err := plan.Read(out)
	if err != nil {
		return err
	}
	t := p.Task(id)
	if t == nil {
		return fmt.Errorf("plan %s/plan.json has no task %q", out, id)
	}
	if r, err := plan.LoadResult(out, t); err != nil {
		return err
	} else if r != nil {
		fmt.Fprintf(log, "task %s: already done\n", id)
		return nil
	}
	for _, n := range t.Needs {
		if nt := p.Task(n); nt == nil {
			return fmt.Errorf("task %s needs unknown task %s", id, n)
		} else if r, err := plan.LoadResult(out, nt); err != nil {
			return err
		} else if r == nil {
			return fmt.Errorf("task %s needs %s, which has not finished", id, n)
		}
	}
	if err := injectedFailure(out, id); err != nil {
		return err
	}
	start := time.Now()
	res := &plan.TaskResult{ID: t.ID, Kind: t.Kind, Key: t.Key, Variant: t.Variant, Seed: t.Seed}
	switch t.Kind {
	case plan.KindTrain:
		res.Train, err = runTrain(ctx, p, t, log)
	case plan.KindMeasure:
		res.Measure, err = runMeasure(ctx, p, t, log)
	case plan.KindActivations:
		res.Activations, err = runActivations(p, t, log)
	case plan.KindSpeed:
		res.Speed, err = runSpeed(ctx, p, t, log)
	case plan.KindElo:
		res.Elo, err = runElo(ctx, p, t, log)
	case plan.KindDatagen, plan.KindLabel:
		res.Data, err = runMakeData(ctx, p, t, log)
	default:
		err = fmt.Errorf("unknown task kind %q", t.Kind)
	}
	if err != nil {
		return fmt.Errorf("task %s: %w", id, err)
	}
	res.Host, _ = os.Hostname()
	res.Revision = version.Revision()
	res.DiffSHA256 = p.DiffSHA256
	res.Seconds = time.Since(start).Seconds()
	res.Finished = time.Now().UTC().Format(time.RFC3339)
	return plan.WriteResult(out, res)
}

func seedIndex(p *plan.Plan, seed uint64) int {
	for i, s := range p.Manifest.Seeds {
		if s == seed {
			return i
		}
	}
	return 0
}

// loadVariant parses a variant's architecture and loads its net for a seed.
func loadVariant(p *plan.Plan, v *plan.Variant, seedIdx int) (*archs.Spec, *nnue.Network, plan.NetRef, error) {
	spec, err := archs.Parse(filepath.Join(p.Out, v.SpecFile), []byte(v.Spec))
	if err != nil {
		return nil, nil, plan.NetRef{}, err
	}
	ref := v.Nets[seedIdx]
	net, err := nets.Load(spec, ref.Path)
	if err != nil {
		return nil, nil, ref, fmt.Errorf("variant %s: %w", v.Name, err)
	}
	return spec, net, ref, nil
}

// runMeasure loads a variant's net for the task's seed and the manifest's
// positions and measures what the manifest lists (metrics.Measure).
func runMeasure(ctx context.Context, p *plan.Plan, t *plan.Task, log io.Writer) (*metrics.MeasureResult, error) {
	m := p.Manifest
	v := p.Variant(t.Variant)
	if v == nil {
		return nil, fmt.Errorf("no variant %q", t.Variant)
	}
	spec, net, ref, err := loadVariant(p, v, seedIndex(p, t.Seed))
	if err != nil {
		return nil, err
	}
	ps, err := data.ReadPositions(p.Positions, m.Positions.Limit)
	if err != nil {
		return nil, err
	}
	s := &metrics.Subject{Variant: v.Name, Spec: spec, Net: net, NetPath: ref.Path, Positions: ps, PositionsFile: p.Positions,
		Search: metrics.Search{Positions: m.Speed.Positions, Nodes: m.Speed.Nodes}, Loss: m.Loss, Validation: p.Validation, ValLimit: p.ValLimit()}
	return metrics.Measure(ctx, s, m.MeasureMetrics(), log)
}

func runSpeed(ctx context.Context, p *plan.Plan, t *plan.Task, log io.Writer) (*metrics.SpeedResult, error) {
	m := p.Manifest
	var subjects []*metrics.Subject
	var refs []plan.NetRef
	for _, v := range p.Variants {
		spec, net, ref, err := loadVariant(p, v, 0)
		if err != nil {
			return nil, err
		}
		subjects = append(subjects, &metrics.Subject{Variant: v.Name, Spec: spec, Net: net, NetPath: ref.Path})
		refs = append(refs, ref)
	}
	opt := metrics.SpeedOptions{Rounds: m.Speed.Rounds, BenchNPS: m.Has(manifest.MetricBenchNPS),
		Search: metrics.Search{Positions: m.Speed.Positions, Nodes: m.Speed.Nodes},
		Bench: func(ctx context.Context, i int) (metrics.BenchRun, error) {
			return runBench(ctx, p, p.Variants[i], refs[i])
		}}
	if m.Has(manifest.MetricEvalSpeed) {
		ps, err := data.ReadPositions(p.Positions, m.Positions.Limit)
		if err != nil {
			return nil, err
		}
		opt.EvalSpeed, opt.Trace = true, ps
	}
	return metrics.Speed(ctx, subjects, opt, log)
}

var (
	nodesRE = regexp.MustCompile(`(?m)^Nodes searched: (\d+)`)
	npsRE   = regexp.MustCompile(`(?m)^Nodes/second: (\d+)`)
)

// runBench runs `nnuelab bench` on a variant: its node count, the CPU
// time of the process and the wall time it printed (as Nodes/second).
func runBench(ctx context.Context, p *plan.Plan, v *plan.Variant, ref plan.NetRef) (metrics.BenchRun, error) {
	args := []string{"bench", "--arch", filepath.Join(p.Out, v.SpecFile)}
	if ref.Path != "" {
		args = append(args, "--evalfile", ref.Path)
	}
	args = append(args, strconv.Itoa(p.Manifest.Speed.BenchDepth))
	cmd := command(ctx, p.Binary, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return metrics.BenchRun{}, fmt.Errorf("%s %s: %v: %s", p.Binary, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	nm := nodesRE.FindSubmatch(stdout.Bytes())
	sm := npsRE.FindSubmatch(stdout.Bytes())
	if nm == nil || sm == nil {
		return metrics.BenchRun{}, fmt.Errorf("bench printed no Nodes searched / Nodes/second lines: %q", tail(stdout.String(), 300))
	}
	var b metrics.BenchRun
	b.Nodes, _ = strconv.ParseUint(string(nm[1]), 10, 64)
	if nps, _ := strconv.ParseFloat(string(sm[1]), 64); nps > 0 {
		b.Wall = time.Duration(float64(b.Nodes) / nps * float64(time.Second))
	}
	b.CPU = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	return b, nil
}

func tail(s string, n int) string {
	if len(s) > n {
		return "..." + s[len(s)-n:]
	}
	return s
}

// engineArgs are the match -engine settings that run a variant as a UCI
// engine: this nnuelab started as `experiment engine`.
func engineArgs(p *plan.Plan, v *plan.Variant) []string {
	a := []string{"cmd=" + p.Binary, "name=" + v.Name, "arg=experiment", "arg=engine", "arg=--arch", "arg=" + filepath.Join(p.Out, v.SpecFile)}
	if ref := v.Nets[0]; ref.Path != "" {
		a = append(a, "arg=--net", "arg="+ref.Path)
	}
	return a
}

// matchArgs are the arguments of a task's `nnuelab match`.
func matchArgs(p *plan.Plan, t *plan.Task) []string {
	e := p.Manifest.Elo
	v := p.Variant(t.Variant)
	args := []string{"match", "-engine"}
	args = append(args, engineArgs(p, v)...)
	args = append(args, "-engine")
	if e.Opponent == manifest.OpponentClassical {
		// nnuelab without arguments is the UCI engine with its default,
		// classical evaluation.
		args = append(args, "cmd="+p.Binary, "name="+manifest.OpponentClassical)
	} else {
		args = append(args, engineArgs(p, p.BaseVariant())...)
	}
	args = append(args, "-each", "option.Hash="+strconv.Itoa(e.Hash))
	if e.TC != "" {
		args = append(args, "tc="+e.TC)
	}
	if e.Nodes > 0 {
		args = append(args, "nodes="+strconv.Itoa(e.Nodes))
	}
	if e.Depth > 0 {
		args = append(args, "depth="+strconv.Itoa(e.Depth))
	}
	args = append(args, "-games", "2", "-rounds", strconv.Itoa(t.Games/2), "-concurrency", strconv.Itoa(e.Concurrency))
	op := []string{"-openings", "file=" + p.Openings, "order=" + e.Order}
	if e.Order == "sequential" {
		op = append(op, "start="+strconv.Itoa(t.Start))
	}
	args = append(args, op...)
	if e.Order == "random" {
		args = append(args, "-seed", strconv.FormatUint(t.Seed*1000+uint64(t.Chunk), 10))
	}
	// An SPRT is decided on the pooled chunks (sprt.go), not per chunk.
	if e.Adjudicate {
		args = append(args, "-draw", "movenumber=40", "movecount=8", "score=10", "-resign", "movecount=3", "score=600")
	}
	if e.MaxMoves > 0 {
		args = append(args, "-maxmoves", strconv.Itoa(e.MaxMoves))
	}
	args = append(args, "-event", "nnuelab experiment "+p.Manifest.Name, "-json", "-quiet",
		"-pgnout", plan.MatchPGNPath(p.Out, t.ID))
	return args
}

// relArgs rewrites the binary and absolute paths (relative to the results
// folder when inside it, else to the manifest's folder) so that recorded
// commands do not depend on where the run happened.
func relArgs(p *plan.Plan, args []string) []string {
	rel := func(path string) string {
		if !filepath.IsAbs(path) {
			return path
		}
		if path == p.Binary {
			return "nnuelab"
		}
		if r, err := filepath.Rel(p.Out, path); err == nil && !strings.HasPrefix(r, "..") {
			return filepath.ToSlash(r)
		}
		if p.Manifest.Dir != "" {
			if r, err := filepath.Rel(p.Manifest.Dir, path); err == nil {
				return filepath.ToSlash(r)
			}
		}
		return path
	}
	out := make([]string, len(args))
	for i, a := range args {
		if k, v, ok := strings.Cut(a, "="); ok && filepath.IsAbs(v) {
			out[i] = k + "=" + rel(v)
		} else {
			out[i] = rel(a)
		}
	}
	return out
}

func runElo(ctx context.Context, p *plan.Plan, t *plan.Task, log io.Writer) (*plan.EloResult, error) {
	args := matchArgs(p, t)
	pgn := plan.MatchPGNPath(p.Out, t.ID)
	if err := os.MkdirAll(filepath.Dir(pgn), 0o755); err != nil {
		return nil, err
	}
	// A chunk is all or nothing: a killed chunk's games are played again.
	plan.RemoveGames(p.Out, t.ID)
	cmd := command(ctx, p.Binary, args...)
	var stdout bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, log
	fmt.Fprintf(log, "%s: nnuelab %s\n", t.ID, strings.Join(relArgs(p, args[0:]), " "))
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("match: %w", err)
	}
	var sum struct {
		Games       int             `json:"games"`
		Wins        int             `json:"wins"`
		Draws       int             `json:"draws"`
		Losses      int             `json:"losses"`
		Penta       stats.Penta     `json:"pentanomial"`
		Interrupted bool            `json:"interrupted"`
		Faults      json.RawMessage `json:"faults"`
		SPRT        *struct {
			LLR      *float64 `json:"llr"`
			Decision string   `json:"decision"`
		} `json:"sprt"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
		return nil, fmt.Errorf("match summary: %w (%q)", err, tail(stdout.String(), 300))
	}
	if sum.Interrupted {
		return nil, errors.New("match interrupted")
	}
	// The match appended its games to a plain PGN, game by game; the chunk
	// keeps them compressed, written whole under a temporary name and
	// checked against the PGN before the PGN goes.
	if _, err := os.Stat(pgn); err == nil {
		if err := zstdfile.CompressFile(pgn, plan.GamesPath(p.Out, t.ID)); err != nil {
			return nil, fmt.Errorf("games: %w", err)
		}
		if err := os.Remove(pgn); err != nil {
			return nil, fmt.Errorf("games: %w", err)
		}
	}
	r := &plan.EloResult{Wins: sum.Wins, Draws: sum.Draws, Losses: sum.Losses, Penta: sum.Penta, Args: relArgs(p, args), Faults: sum.Faults}
	if sum.SPRT != nil {
		r.LLR, r.Decision = sum.SPRT.LLR, sum.SPRT.Decision
	}
	fmt.Fprintf(log, "%s: +%d =%d -%d\n", t.ID, r.Wins, r.Draws, r.Losses)
	return r, nil
}

func runTrain(ctx context.Context, p *plan.Plan, t *plan.Task, log io.Writer) (*plan.TrainResult, error) {
	j := t.Train
	done := filepath.Join(j.Dir, "done.json")
	// Another experiment (or an earlier run) may have trained this net.
	if buf, err := os.ReadFile(done); err == nil {
		var r plan.TrainResult
		if json.Unmarshal(buf, &r) == nil && r.Key == t.Key {
			if sum, err := data.FileSHA256(j.Config.Out); err == nil && sum == r.NetSHA256 {
				fmt.Fprintf(log, "%s: net in the cache\n", t.ID)
				return &r, keepNet(p, t)
			}
		}
	}
	if r, err := adoptKeptNet(p, t, log); r != nil || err != nil {
		return r, err
	}
	if err := os.MkdirAll(j.Dir, 0o755); err != nil {
		return nil, err
	}
	cfg := j.Config
	cfg.Threads, cfg.Export, cfg.Command = j.Threads, "none", p.Command
	_, statErr := os.Stat(train.PathsFor(cfg.Out).Checkpoint)
	res, err := train.Run(ctx, cfg, train.Options{Log: log, LogEvery: 30 * time.Second, Resume: statErr == nil})
	if err != nil {
		return nil, err
	}
	sum, err := data.FileSHA256(cfg.Out)
	if err != nil {
		return nil, err
	}
	r := &plan.TrainResult{Key: t.Key, NetSHA256: sum, History: res.History}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := fsutil.WriteFileAll(done, append(data, '\n'), 0o644); err != nil {
		return nil, err
	}
	return r, keepNet(p, t)
}

// keepNet copies a train task's net and done.json from the cache to
// plan.NetCopyDir when the plan keeps its nets and the copy is not there.
func keepNet(p *plan.Plan, t *plan.Task) error {
	if !p.KeepNets {
		return nil
	}
	dst := plan.NetCopyDir(p.Out, t.ID)
	if _, err := os.Stat(filepath.Join(dst, "done.json")); err == nil {
		return nil
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	// The net first, done.json last: a copy without done.json is not one.
	for _, name := range []string{filepath.Base(t.Train.Config.Out), "done.json"} {
		buf, err := os.ReadFile(filepath.Join(t.Train.Dir, name))
		if err != nil {
			return fmt.Errorf("keeping %s's net: %w", t.ID, err)
		}
		if err := fsutil.WriteFileAtomic(filepath.Join(dst, name), buf, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// adoptKeptNet restores a train task's net into the cache from the copy a
// plan that keeps its nets made (keepNet), instead of training it again:
// a later trainer build may not give the same bytes, and the data made by
// a net (a generation's self-play) names it by content. A copy that does
// not match its done.json (another key, another hash) stops the task naming
// it. It returns nil and no error when there is no copy.
func adoptKeptNet(p *plan.Plan, t *plan.Task, log io.Writer) (*plan.TrainResult, error) {
	src := plan.NetCopyDir(p.Out, t.ID)
	buf, err := os.ReadFile(filepath.Join(src, "done.json"))
	if os.IsNotExist(err) {
		return nil, nil
	} else if err != nil {
		return nil, err
	}
	var r plan.TrainResult
	net := filepath.Join(src, filepath.Base(t.Train.Config.Out))
	if err := json.Unmarshal(buf, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Join(src, "done.json"), err)
	}
	if r.Key != t.Key {
		return nil, fmt.Errorf("%s: the kept net of %s has key %.16s, the task's is %.16s: remove the copy or restore the manifest that made it", src, t.ID, r.Key, t.Key)
	}
	if sum, err := data.FileSHA256(net); err != nil || sum != r.NetSHA256 {
		return nil, fmt.Errorf("%s: sha256 %s (%v), its done.json says %s: a damaged copy, not adopted", net, sum, err, r.NetSHA256)
	}
	j := t.Train
	if err := os.MkdirAll(j.Dir, 0o755); err != nil {
		return nil, err
	}
	// The net first and done.json last, as a training run writes them.
	netBytes, err := os.ReadFile(net)
	if err != nil {
		return nil, err
	}
	if err := fsutil.WriteFileAtomic(j.Config.Out, netBytes, 0o644); err != nil {
		return nil, err
	}
	if err := fsutil.WriteFileAtomic(filepath.Join(j.Dir, "done.json"), buf, 0o644); err != nil {
		return nil, err
	}
	fmt.Fprintf(log, "%s: adopted the kept net %s (sha256 checked) instead of training it again\n", t.ID, net)
	return &r, nil
}

func injectedFailure(out, id string) error {
	if os.Getenv(plan.FailOnceEnv) != id {
		return nil
	}
	marker := filepath.Join(out, "tasks", "."+id+".failed-once")
	if _, err := os.Stat(marker); err == nil {
		return nil
	}
	if err := fsutil.WriteFileAll(marker, nil, 0o644); err != nil {
		return err
	}
	return fmt.Errorf("task %s: failing once on purpose (%s)", id, plan.FailOnceEnv)
}
