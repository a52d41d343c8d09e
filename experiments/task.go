package experiment

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
	"github.com/nnuelab/nnuelab/internal/cputime"
	"github.com/nnuelab/nnuelab/internal/fsutil"
	"github.com/nnuelab/nnuelab/internal/version"
	"github.com/nnuelab/nnuelab/nets"
	"github.com/nnuelab/nnuelab/nets/train"
)

// TaskResult is what a finished task leaves in OUT/tasks/ID.json.
type TaskResult struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"`
	Key     string `json:"key"`
	Variant string `json:"variant,omitempty"`
	Seed    uint64 `json:"seed,omitempty"`
	// Host, Seconds and Finished describe the run (not part of the
	// merged results, which must not depend on where tasks ran).
	Host     string  `json:"host"`
	Seconds  float64 `json:"seconds"`
	Finished string  `json:"finished"`
	// Revision is the nnuelab build that ran the task (VCS revision,
	// "+dirty" when modified): results are reused across builds, so this
	// tells which engine produced them.
	Revision string `json:"revision,omitempty"`
	// DiffSHA256 is the sha256 of `git diff HEAD` when the build was
	// dirty (a run with --allow-dirty): which uncommitted changes ran it.
	DiffSHA256 string `json:"diff_sha256,omitempty"`
	// AdoptedFrom names the task file (relative to this results folder)
	// whose games this chunk is: another experiment played the same games
	// under the same key (adoptElo).
	AdoptedFrom string `json:"adopted_from,omitempty"`

	Measure     *MeasureResult     `json:"measure,omitempty"`
	Activations *ActivationsResult `json:"activations,omitempty"`
	Speed       *SpeedResult       `json:"speed,omitempty"`
	Elo         *EloResult         `json:"elo,omitempty"`
	Train       *TrainResult       `json:"train,omitempty"`
	Data        *DataResult        `json:"data,omitempty"`
}

// MeasureResult holds a variant's per-net metrics.
type MeasureResult struct {
	Agreement *Agreement  `json:"agreement,omitempty"`
	Reference string      `json:"reference,omitempty"`
	Quant     *QuantError `json:"quant,omitempty"`
	// QuantNote says why there is no quantization error.
	QuantNote string   `json:"quant_note,omitempty"`
	ValLoss   *ValLoss `json:"val_loss,omitempty"`
	Shares    *Shares  `json:"shares,omitempty"`
	// SharesQuiet counts only the searches whose root is not in check.
	SharesQuiet *Shares `json:"shares_quiet,omitempty"`
}

// SpeedResult holds the timing of every variant, round by round.
type SpeedResult struct {
	Clock string `json:"clock"`
	// ClockResolutionNS is the smallest step of Clock observed (its
	// resolution, or the cost of a reading for a nanosecond clock); Reps
	// the passes of the trace in one variant's round, as many as make a
	// round last speedRoundTarget. Both are 0 in results made before
	// rounds were sized to the clock (one pass a round).
	ClockResolutionNS int64 `json:"clock_resolution_ns,omitempty"`
	Reps              int   `json:"reps,omitempty"`
	Evals             int   `json:"evals"`
	// BenchClock times bench_nps (the bench process's CPU time), with
	// its resolution as observed; BenchRuns is the bench runs a round
	// sums (as many as make the base's round last speedRoundTarget).
	// Empty in results made before they were recorded (one run a round).
	BenchClock             string         `json:"bench_clock,omitempty"`
	BenchClockResolutionNS int64          `json:"bench_clock_resolution_ns,omitempty"`
	BenchRuns              int            `json:"bench_runs,omitempty"`
	Variants               []VariantSpeed `json:"variants"`
}

// VariantSpeed is one variant's timings; index r is round r.
type VariantSpeed struct {
	Name        string    `json:"name"`
	EvalsPerSec []float64 `json:"evals_per_sec,omitempty"`
	BenchNodes  uint64    `json:"bench_nodes,omitempty"`
	// BenchNPS is nodes per CPU second of the bench process,
	// BenchNPSWall the Nodes/second bench printed.
	BenchNPS     []float64 `json:"bench_nps,omitempty"`
	BenchNPSWall []float64 `json:"bench_nps_wall,omitempty"`
}

// EloResult is one chunk of games of a variant against the base.
type EloResult struct {
	Wins   int         `json:"wins"`
	Draws  int         `json:"draws"`
	Losses int         `json:"losses"`
	Penta  stats.Penta `json:"pentanomial"`
	LLR    *float64    `json:"llr,omitempty"`
	// Decision is the SPRT's ("H0 accepted", "H1 accepted", "continue").
	Decision string `json:"decision,omitempty"`
	// Args are the match's arguments, paths relative to the results
	// folder.
	Args   []string        `json:"args"`
	Faults json.RawMessage `json:"faults,omitempty"`
}

// TrainResult is a trained net in the cache.
type TrainResult struct {
	Key       string             `json:"key"`
	NetSHA256 string             `json:"net_sha256"`
	History   []train.EpochStats `json:"history"`
}

// ResultPath is where task id's result lives.
func ResultPath(out, id string) string { return filepath.Join(out, "tasks", id+".json") }

// ReadResult reads a task's result; ok is false when there is none or it
// was made under another key (the manifest changed since).
func ReadResult(out string, t *Task) (*TaskResult, bool) {
	data, err := os.ReadFile(ResultPath(out, t.ID))
	if err != nil {
		return nil, false
	}
	var r TaskResult
	if err := json.Unmarshal(data, &r); err != nil || r.Key != t.Key || r.ID != t.ID {
		return nil, false
	}
	return &r, true
}

// RunTask runs one task of the plan in OUT and stores its result
// atomically. It is what `nnuelab experiment task` runs, locally or as a
// Slurm array element. A task whose result is already there under the same
// key returns at once.
func RunTask(ctx context.Context, out, id string, log io.Writer) error {
	p, err := ReadPlan(out)
	if err != nil {
		return err
	}
	t := p.Task(id)
	if t == nil {
		return fmt.Errorf("plan %s/plan.json has no task %q", out, id)
	}
	if _, ok := ReadResult(out, t); ok {
		fmt.Fprintf(log, "task %s: already done\n", id)
		return nil
	}
	for _, n := range t.Needs {
		if nt := p.Task(n); nt == nil {
			return fmt.Errorf("task %s needs unknown task %s", id, n)
		} else if _, ok := ReadResult(out, nt); !ok {
			return fmt.Errorf("task %s needs %s, which has not finished", id, n)
		}
	}
	if err := injectedFailure(out, id); err != nil {
		return err
	}
	start := time.Now()
	res := &TaskResult{ID: t.ID, Kind: t.Kind, Key: t.Key, Variant: t.Variant, Seed: t.Seed}
	switch t.Kind {
	case KindTrain:
		res.Train, err = runTrain(ctx, p, t, log)
	case KindMeasure:
		res.Measure, err = runMeasure(ctx, p, t, log)
	case KindActivations:
		res.Activations, err = runActivations(p, t, log)
	case KindSpeed:
		res.Speed, err = runSpeed(ctx, p, t, log)
	case KindElo:
		res.Elo, err = runElo(ctx, p, t, log)
	case KindDatagen, KindLabel:
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
	return fsutil.WriteFileAll(ResultPath(out, id), append(data, '\n'), 0o644)
}

func seedIndex(p *Plan, seed uint64) int {
	for i, s := range p.Manifest.Seeds {
		if s == seed {
			return i
		}
	}
	return 0
}

// loadVariant parses a variant's architecture and loads its net for a seed.
func loadVariant(p *Plan, v *Variant, seedIdx int) (*archs.Spec, *nnue.Network, NetRef, error) {
	spec, err := archs.Parse(filepath.Join(p.Out, v.SpecFile), []byte(v.Spec))
	if err != nil {
		return nil, nil, NetRef{}, err
	}
	ref := v.Nets[seedIdx]
	net, err := nets.Load(spec, ref.Path)
	if err != nil {
		return nil, nil, ref, fmt.Errorf("variant %s: %w", v.Name, err)
	}
	return spec, net, ref, nil
}

func runMeasure(ctx context.Context, p *Plan, t *Task, log io.Writer) (*MeasureResult, error) {
	m := p.Manifest
	v := p.Variant(t.Variant)
	if v == nil {
		return nil, fmt.Errorf("no variant %q", t.Variant)
	}
	spec, net, ref, err := loadVariant(p, v, seedIndex(p, t.Seed))
	if err != nil {
		return nil, err
	}
	ps, err := readPositions(p.Positions, m.Positions.Limit)
	if err != nil {
		return nil, err
	}
	r := &MeasureResult{}
	if m.Has(MetricAgreement) {
		sf, src, err := stockfishReference(p.Positions, ps)
		if err != nil {
			return nil, err
		}
		cp := make([]float64, len(ps))
		for i, pos := range ps {
			cp[i] = netCP(net, pos.Pos)
		}
		a := agreement(cp, sf)
		r.Agreement, r.Reference = &a, src
		fmt.Fprintf(log, "%s: agreement with Stockfish 15.1 on %d positions: MAE %.1f cp (scale %.3f), sign %.1f%%\n", v.Name, a.N, a.MAE, a.Scale, 100*a.Sign)
	}
	if m.Has(MetricQuantError) {
		fn, why, err := floatTensors(spec, ref.Path)
		switch {
		case err != nil:
			return nil, err
		case fn == nil:
			r.QuantNote = why
		default:
			if r.Quant, err = quantError(spec, net, fn, ps); err != nil {
				return nil, fmt.Errorf("quantization error: %w", err)
			}
			fmt.Fprintf(log, "%s: quantization error on %d positions: mean %.2f cp, max %.1f cp\n", v.Name, r.Quant.N, r.Quant.Mean, r.Quant.Max)
		}
	}
	if m.Has(MetricValLoss) {
		if r.ValLoss, err = valLoss(m.Loss, net, p.Validation, p.valLimit()); err != nil {
			return nil, fmt.Errorf("validation loss: %w", err)
		}
		fmt.Fprintf(log, "%s: validation loss %.6f on %d positions\n", v.Name, r.ValLoss.Loss, r.ValLoss.N)
	}
	if m.Has(MetricHistoryShares) {
		if r.Shares, r.SharesQuiet, err = historyShares(ctx, spec, net, searchPositions(ps, m.Speed.Positions), m.Speed.Nodes); err != nil {
			return nil, err
		}
		fmt.Fprintf(log, "%s: %d accumulator updates in %d nodes\n", v.Name, r.Shares.Updates, r.Shares.Nodes)
	}
	return r, nil
}

func runSpeed(ctx context.Context, p *Plan, t *Task, log io.Writer) (*SpeedResult, error) {
	m := p.Manifest
	type loaded struct {
		v    *Variant
		spec *archs.Spec
		net  *nnue.Network
		ref  NetRef
	}
	var vs []loaded
	for _, v := range p.Variants {
		spec, net, ref, err := loadVariant(p, v, 0)
		if err != nil {
			return nil, err
		}
		vs = append(vs, loaded{v, spec, net, ref})
	}
	res := &SpeedResult{Clock: cputime.ThreadClock}
	for _, l := range vs {
		res.Variants = append(res.Variants, VariantSpeed{Name: l.v.Name})
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
	var tr *trace
	if m.Has(MetricEvalSpeed) {
		ps, err := readPositions(p.Positions, m.Positions.Limit)
		if err != nil {
			return nil, err
		}
		base := vs[0]
		if tr, err = recordTrace(ctx, base.spec, base.net, searchPositions(ps, m.Speed.Positions), m.Speed.Nodes); err != nil {
			return nil, err
		}
		res.Evals = tr.evals
		fmt.Fprintf(log, "speed: recorded %d evaluations of the base's searches\n", tr.evals)
		// Warm up (page in the nets, grow the stacks), checking that the
		// base reproduces its own search.
		fastest, best := 0, time.Duration(math.MaxInt64)
		for i, l := range vs {
			_, el, err := replay(fresh(l, 1), tr, i == 0)
			if err != nil {
				return nil, err
			}
			if el < best {
				fastest, best = i, el
			}
		}
		// Size the rounds to the clock: the fastest variant's round lasts
		// speedRoundTarget, every variant replays the trace as often.
		resolution := clockResolution(cputime.Thread)
		res.ClockResolutionNS = int64(resolution)
		target := speedRoundTarget(resolution)
		res.Reps = calibrateReps(func(n int) time.Duration {
			_, el, _ := replay(fresh(vs[fastest], n), tr, false)
			return el
		}, target, resolution)
		fmt.Fprintf(log, "speed: %d passes of the trace a round (%s of CPU time at least; %s, resolution %s)\n",
			res.Reps, target, cputime.ThreadClock, resolution)
	}
	benchRuns := 1
	if m.Has(MetricBenchNPS) {
		// The base's bench once, to warm up and to size the rounds to the
		// resolution of the process's CPU time: a round sums enough runs
		// to last roundSteps steps of it (one run at the default depth,
		// unless the clock ticks coarsely).
		resolution := clockResolution(cputime.RusageThread)
		res.BenchClock, res.BenchClockResolutionNS = processClock, int64(resolution)
		b, err := runBench(ctx, p, vs[0].v, vs[0].ref)
		if err != nil {
			return nil, err
		}
		target := roundSteps * resolution
		if b.cpu > 0 && b.cpu < target {
			benchRuns = min(int(math.Ceil(float64(target)/float64(b.cpu))), maxBenchRuns)
		}
		res.BenchRuns = benchRuns
		fmt.Fprintf(log, "speed: %d bench run(s) a round (the base's took %s of CPU time; %s, resolution %s)\n",
			benchRuns, b.cpu.Round(time.Millisecond), processClock, resolution)
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
				eps, _, err := replay(fresh(l, res.Reps), tr, false)
				if err != nil {
					return nil, err
				}
				res.Variants[i].EvalsPerSec = append(res.Variants[i].EvalsPerSec, eps)
			}
			if m.Has(MetricBenchNPS) {
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
func runBench(ctx context.Context, p *Plan, v *Variant, ref NetRef) (benchRun, error) {
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
func engineArgs(p *Plan, v *Variant) []string {
	a := []string{"cmd=" + p.Binary, "name=" + v.Name, "arg=experiment", "arg=engine", "arg=--arch", "arg=" + filepath.Join(p.Out, v.SpecFile)}
	if ref := v.Nets[0]; ref.Path != "" {
		a = append(a, "arg=--net", "arg="+ref.Path)
	}
	return a
}

// matchArgs are the arguments of a task's `nnuelab match`.
func matchArgs(p *Plan, t *Task) []string {
	e := p.Manifest.Elo
	v := p.Variant(t.Variant)
	args := []string{"match", "-engine"}
	args = append(args, engineArgs(p, v)...)
	args = append(args, "-engine")
	if e.Opponent == OpponentClassical {
		// nnuelab without arguments is the UCI engine with its default,
		// classical evaluation.
		args = append(args, "cmd="+p.Binary, "name="+OpponentClassical)
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
		"-pgnout", gamesPath(p.Out, t.ID))
	return args
}

// relArgs rewrites the binary and absolute paths (relative to the results
// folder when inside it, else to the manifest's folder) so that recorded
// commands do not depend on where the run happened.
func relArgs(p *Plan, args []string) []string {
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

func runElo(ctx context.Context, p *Plan, t *Task, log io.Writer) (*EloResult, error) {
	args := matchArgs(p, t)
	pgn := gamesPath(p.Out, t.ID)
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
	r := &EloResult{Wins: sum.Wins, Draws: sum.Draws, Losses: sum.Losses, Penta: sum.Penta, Args: relArgs(p, args), Faults: sum.Faults}
	if sum.SPRT != nil {
		r.LLR, r.Decision = sum.SPRT.LLR, sum.SPRT.Decision
	}
	fmt.Fprintf(log, "%s: +%d =%d -%d\n", t.ID, r.Wins, r.Draws, r.Losses)
	return r, nil
}

func runTrain(ctx context.Context, p *Plan, t *Task, log io.Writer) (*TrainResult, error) {
	j := t.Train
	done := filepath.Join(j.Dir, "done.json")
	// Another experiment (or an earlier run) may have trained this net.
	if data, err := os.ReadFile(done); err == nil {
		var r TrainResult
		if json.Unmarshal(data, &r) == nil && r.Key == t.Key {
			if sum, err := fileSHA256(j.Config.Out); err == nil && sum == r.NetSHA256 {
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
	sum, err := fileSHA256(cfg.Out)
	if err != nil {
		return nil, err
	}
	r := &TrainResult{Key: t.Key, NetSHA256: sum, History: res.History}
	data, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := fsutil.WriteFileAll(done, append(data, '\n'), 0o644); err != nil {
		return nil, err
	}
	return r, nil
}

// gamesPath is where an Elo chunk keeps its games (PGN).
func gamesPath(out, id string) string { return filepath.Join(out, "games", id+".pgn") }

// FailOnceEnv names an environment variable for tests of the executors'
// retries: a task whose ID it holds fails on its first run (a marker file
// in the results folder remembers that it did).
const FailOnceEnv = "NNUELAB_EXPERIMENT_FAIL_ONCE"

func injectedFailure(out, id string) error {
	if os.Getenv(FailOnceEnv) != id {
		return nil
	}
	marker := filepath.Join(out, "tasks", "."+id+".failed-once")
	if _, err := os.Stat(marker); err == nil {
		return nil
	}
	if err := fsutil.WriteFileAll(marker, nil, 0o644); err != nil {
		return err
	}
	return fmt.Errorf("task %s: failing once on purpose (%s)", id, FailOnceEnv)
}
