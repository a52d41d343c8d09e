package runner

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
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
	"github.com/nnuelab/nnuelab/internal/cputime"
	"github.com/nnuelab/nnuelab/internal/fsutil"
	"github.com/nnuelab/nnuelab/internal/version"
	"github.com/nnuelab/nnuelab/nets"
	"github.com/nnuelab/nnuelab/nets/train"
)

// RunTask runs one task of the plan in OUT and stores its result
// atomically. It is what `nnuelab experiment task` runs, locally or as a
// Slurm array element. A task whose result is already there under the same
// key returns at once.
func RunTask(ctx context.Context, out, id string, log io.Writer) error {
	p, err := plan.ReadPlan(out)
	if err != nil {
		return err
	}
	t := p.Task(id)
	if t == nil {
		return fmt.Errorf("plan %s/plan.json has no task %q", out, id)
	}
	if _, ok := plan.ReadResult(out, t); ok {
		fmt.Fprintf(log, "task %s: already done\n", id)
		return nil
	}
	for _, n := range t.Needs {
		if nt := p.Task(n); nt == nil {
			return fmt.Errorf("task %s needs unknown task %s", id, n)
		} else if _, ok := plan.ReadResult(out, nt); !ok {
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
	data, err := json.MarshalIndent(res, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFileAll(plan.ResultPath(out, id), append(data, '\n'), 0o644)
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

func runMeasure(ctx context.Context, p *plan.Plan, t *plan.Task, log io.Writer) (*plan.MeasureResult, error) {
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
	r := &plan.MeasureResult{}
	if m.Has(manifest.MetricAgreement) {
		sf, src, err := metrics.StockfishReference(p.Positions, ps)
		if err != nil {
			return nil, err
		}
		cp := make([]float64, len(ps))
		for i, pos := range ps {
			cp[i] = metrics.NetCP(net, pos.Pos)
		}
		a := metrics.AgreementOf(cp, sf)
		r.Agreement, r.Reference = &a, src
		fmt.Fprintf(log, "%s: agreement with Stockfish 15.1 on %d positions: MAE %.1f cp (scale %.3f), sign %.1f%%\n", v.Name, a.N, a.MAE, a.Scale, 100*a.Sign)
	}
	if m.Has(manifest.MetricQuantError) {
		fn, why, err := metrics.FloatTensors(spec, ref.Path)
		switch {
		case err != nil:
			return nil, err
		case fn == nil:
			r.QuantNote = why
		default:
			if r.Quant, err = metrics.QuantErrorOf(spec, net, fn, ps); err != nil {
				return nil, fmt.Errorf("quantization error: %w", err)
			}
			fmt.Fprintf(log, "%s: quantization error on %d positions: mean %.2f cp, max %.1f cp\n", v.Name, r.Quant.N, r.Quant.Mean, r.Quant.Max)
		}
	}
	if m.Has(manifest.MetricValLoss) {
		if r.ValLoss, err = metrics.ValLossOf(m.Loss, net, p.Validation, p.ValLimit()); err != nil {
			return nil, fmt.Errorf("validation loss: %w", err)
		}
		fmt.Fprintf(log, "%s: validation loss %.6f on %d positions\n", v.Name, r.ValLoss.Loss, r.ValLoss.N)
	}
	if m.Has(manifest.MetricHistoryShares) {
		if r.Shares, r.SharesQuiet, err = metrics.HistoryShares(ctx, spec, net, metrics.SearchPositions(ps, m.Speed.Positions), m.Speed.Nodes); err != nil {
			return nil, err
		}
		fmt.Fprintf(log, "%s: %d accumulator updates in %d nodes\n", v.Name, r.Shares.Updates, r.Shares.Nodes)
	}
	for _, x := range m.MeasureMetrics() {
		d, ok := metrics.Lookup(x)
		if !ok {
			continue
		}
		s := &metrics.Subject{Variant: v.Name, Spec: spec, Net: net, Positions: ps,
			Search: metrics.Search{Positions: m.Speed.Positions, Nodes: m.Speed.Nodes}}
		val, err := d.Measure(ctx, s, log)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", x, err)
		}
		raw, err := json.Marshal(val)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", x, err)
		}
		if r.Metrics == nil {
			r.Metrics = map[string]json.RawMessage{}
		}
		r.Metrics[x] = raw
	}
	return r, nil
}

func runSpeed(ctx context.Context, p *plan.Plan, t *plan.Task, log io.Writer) (*plan.SpeedResult, error) {
	m := p.Manifest
	type loaded struct {
		v    *plan.Variant
		spec *archs.Spec
		net  *nnue.Network
		ref  plan.NetRef
	}
	var vs []loaded
	for _, v := range p.Variants {
		spec, net, ref, err := loadVariant(p, v, 0)
		if err != nil {
			return nil, err
		}
		vs = append(vs, loaded{v, spec, net, ref})
	}
	res := &plan.SpeedResult{Clock: cputime.ThreadClock}
	for _, l := range vs {
		res.Variants = append(res.Variants, plan.VariantSpeed{Name: l.v.Name})
	}
	// fresh returns n new evaluators of a variant: every pass of the trace
	// starts from scratch, as the search it replays did.
	fresh := func(l loaded, n int) []*nnue.Evaluator {
		evs := make([]*nnue.Evaluator, n)
		for i := range evs {
			evs[i] = nnue.NewEvaluatorWith(l.net, l.spec.History, l.spec.RefreshCache)
		}
		return evs
	}
	var tr *metrics.Trace
	if m.Has(manifest.MetricEvalSpeed) {
		ps, err := data.ReadPositions(p.Positions, m.Positions.Limit)
		if err != nil {
			return nil, err
		}
		base := vs[0]
		if tr, err = metrics.RecordTrace(ctx, base.spec, base.net, metrics.SearchPositions(ps, m.Speed.Positions), m.Speed.Nodes); err != nil {
			return nil, err
		}
		res.Evals = tr.Evals
		fmt.Fprintf(log, "speed: recorded %d evaluations of the base's searches\n", tr.Evals)
		// Warm up (page in the nets, grow the stacks), checking that the
		// base reproduces its own search.
		fastest, best := 0, time.Duration(math.MaxInt64)
		for i, l := range vs {
			_, el, err := metrics.Replay(fresh(l, 1), tr, i == 0)
			if err != nil {
				return nil, err
			}
			if el < best {
				fastest, best = i, el
			}
		}
		// Size the rounds to the clock: the fastest variant's round lasts
		// speedRoundTarget, every variant replays the trace as often.
		resolution := metrics.ClockResolution(cputime.Thread)
		res.ClockResolutionNS = int64(resolution)
		target := metrics.SpeedRoundTarget(resolution)
		res.Reps = metrics.CalibrateReps(func(n int) time.Duration {
			_, el, _ := metrics.Replay(fresh(vs[fastest], n), tr, false)
			return el
		}, target, resolution)
		fmt.Fprintf(log, "speed: %d passes of the trace a round (%s of CPU time at least; %s, resolution %s)\n",
			res.Reps, target, cputime.ThreadClock, resolution)
	}
	benchRuns := 1
	if m.Has(manifest.MetricBenchNPS) {
		// The base's bench once, to warm up and to size the rounds to the
		// resolution of the process's CPU time: a round sums enough runs
		// to last roundSteps steps of it (one run at the default depth,
		// unless the clock ticks coarsely).
		resolution := metrics.ClockResolution(cputime.RusageThread)
		res.BenchClock, res.BenchClockResolutionNS = metrics.ProcessClock, int64(resolution)
		b, err := runBench(ctx, p, vs[0].v, vs[0].ref)
		if err != nil {
			return nil, err
		}
		target := metrics.RoundSteps * resolution
		if b.cpu > 0 && b.cpu < target {
			benchRuns = min(int(math.Ceil(float64(target)/float64(b.cpu))), metrics.MaxBenchRuns)
		}
		res.BenchRuns = benchRuns
		fmt.Fprintf(log, "speed: %d bench run(s) a round (the base's took %s of CPU time; %s, resolution %s)\n",
			benchRuns, b.cpu.Round(time.Millisecond), metrics.ProcessClock, resolution)
	}
	n := len(vs)
	for round := 0; round < m.Speed.Rounds; round++ {
		// Rotate the order so that no variant always runs first.
		for k := 0; k < n; k++ {
			i := (k + round) % n
			l := vs[i]
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			if tr != nil {
				eps, _, err := metrics.Replay(fresh(l, res.Reps), tr, false)
				if err != nil {
					return nil, err
				}
				res.Variants[i].EvalsPerSec = append(res.Variants[i].EvalsPerSec, eps)
			}
			if m.Has(manifest.MetricBenchNPS) {
				var sum benchRun
				for range benchRuns {
					b, err := runBench(ctx, p, l.v, l.ref)
					if err != nil {
						return nil, err
					}
					sum.nodes += b.nodes
					sum.cpu += b.cpu
					sum.wall += b.wall
				}
				vsp := &res.Variants[i]
				vsp.BenchNodes = sum.nodes / uint64(benchRuns)
				vsp.BenchNPS = append(vsp.BenchNPS, sum.cpuNPS())
				vsp.BenchNPSWall = append(vsp.BenchNPSWall, sum.wallNPS())
			}
		}
		fmt.Fprintf(log, "speed: round %d/%d done\n", round+1, m.Speed.Rounds)
	}
	return res, nil
}

var (
	nodesRE = regexp.MustCompile(`(?m)^Nodes searched: (\d+)`)
	npsRE   = regexp.MustCompile(`(?m)^Nodes/second: (\d+)`)
)

// benchRun is what `nnuelab bench` did: its node count, the CPU time of
// the process and the wall time its Nodes/second line implies.
type benchRun struct {
	nodes     uint64
	cpu, wall time.Duration
}

// cpuNPS is nodes per CPU second (the printed, wall-time figure where the
// OS reports no CPU time).
func (b benchRun) cpuNPS() float64 {
	if b.cpu <= 0 {
		return b.wallNPS()
	}
	return float64(b.nodes) / b.cpu.Seconds()
}

func (b benchRun) wallNPS() float64 {
	if b.wall <= 0 {
		return 0
	}
	return math.Round(float64(b.nodes) / b.wall.Seconds())
}

// runBench runs `nnuelab bench` on a variant: its node count, the CPU
// time of the process and the wall time it printed (as Nodes/second).
func runBench(ctx context.Context, p *plan.Plan, v *plan.Variant, ref plan.NetRef) (benchRun, error) {
	args := []string{"bench", "--arch", filepath.Join(p.Out, v.SpecFile)}
	if ref.Path != "" {
		args = append(args, "--evalfile", ref.Path)
	}
	args = append(args, strconv.Itoa(p.Manifest.Speed.BenchDepth))
	cmd := command(ctx, p.Binary, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		return benchRun{}, fmt.Errorf("%s %s: %v: %s", p.Binary, strings.Join(args, " "), err, strings.TrimSpace(stderr.String()))
	}
	nm := nodesRE.FindSubmatch(stdout.Bytes())
	sm := npsRE.FindSubmatch(stdout.Bytes())
	if nm == nil || sm == nil {
		return benchRun{}, fmt.Errorf("bench printed no Nodes searched / Nodes/second lines: %q", tail(stdout.String(), 300))
	}
	var b benchRun
	b.nodes, _ = strconv.ParseUint(string(nm[1]), 10, 64)
	if nps, _ := strconv.ParseFloat(string(sm[1]), 64); nps > 0 {
		b.wall = time.Duration(float64(b.nodes) / nps * float64(time.Second))
	}
	b.cpu = cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
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
		"-pgnout", plan.GamesPath(p.Out, t.ID))
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
	pgn := plan.GamesPath(p.Out, t.ID)
	if err := os.MkdirAll(filepath.Dir(pgn), 0o755); err != nil {
		return nil, err
	}
	// A chunk is all or nothing: a killed chunk's games are played again.
	os.Remove(pgn)
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
				return &r, nil
			}
		}
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
	return r, nil
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
