package plan

import (
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/bench/match"
	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/datasets/datagen"
	"github.com/nnuelab/nnuelab/experiments/manifest"
	"github.com/nnuelab/nnuelab/experiments/metrics"
)

// Cost model of the dry run. The constants are rough measurements of
// nnuelab on one core of a 2020s x86 machine (AVX2); the estimate is meant
// to tell minutes from days, not to schedule a cluster to the second.
const (
	// The costs of the measure and speed tasks are their metrics'
	// (metrics.Def Seconds, whose cost model repeats these constants).
	estNPS = 500_000 // search nodes per CPU second (512-wide nets)
	// estDatagenNPS is self-play's node rate per CPU second: its short
	// searches from a cleared table run faster than bench's (measured with
	// chess768 at 5000 nodes a move: 363-401 positions per core-second on an
	// idle machine, 338 at load 13-15; docs/datagen.md).
	estDatagenNPS   = 1_900_000
	estBenchNodesD8 = 220_000 // `nnuelab bench 8` nodes; about x2 per ply
	estEvalSec      = 2e-6    // one evaluation from scratch, 512 wide
	estFloatEvalSec = 60e-6   // one float-model evaluation (allocates)
	estStartSec     = 0.3     // process start and net load
	estTrainSecPerW = 9e-9    // trainer CPU seconds per position and accumulator column
	estTrainSF12    = 3       // sf12 heads' dense layers: times the transformer's cost
	// Games at 10+0.1 (first-nets: 900 games against the classical
	// engine, 50 a chunk at concurrency 2) last 130 plies on average and
	// take 30 CPU seconds each: the sides use about 90% of their clocks.
	estGamePlies   = 130  // plies of an average test game
	estBytesPerPos = 10.0 // zstd text; 62 for plain text, 12.2 for packs
	estHeadShare   = 0.9  // share of a clock a side uses in a game
	estWidthRef    = 512.0
	// Self-play records about one position in 1.6 plies (classical-2m:
	// 2.0M positions of 3.2M plies, 81 per game).
	estPliesPerPos = 1.6
	estPosPerGame  = 81
	// Labelling with Stockfish 15.1, one process: 0.4 ms a position of
	// overhead (UCI round trips, ucinewgame per chunk) plus 1 us a node.
	// Measured at 500 nodes: 1,100 positions/s a process on an idle
	// 2-core machine (classical-2m in two shards, 15 minutes), 700/s
	// beside other work; the split between the two terms is a guess.
	estLabelSec     = 0.4e-3
	estLabelNodeSec = 1e-6
)

// widthFactor scales costs by the accumulator width of a variant.
func widthFactor(p *Plan, name string) float64 {
	v := p.Variant(name)
	if v == nil {
		return 1
	}
	spec, err := archs.Parse("variant", []byte(v.Spec))
	if err != nil {
		return 1
	}
	return math.Max(0.25, float64(spec.Accumulator.Width)/estWidthRef)
}

// EstimateTask returns the rough CPU seconds a task takes.
func EstimateTask(p *Plan, t *Task) float64 {
	m := p.Manifest
	switch t.Kind {
	case KindMeasure:
		st := p.Setting()
		st.Width = widthFactor(p, t.Variant)
		s := estStartSec
		for _, d := range m.Listed() {
			if d.TaskKind() == metrics.TaskMeasure && d.Seconds != nil {
				s += d.Seconds(st)
			}
		}
		return s
	case KindActivations:
		// A traced evaluation from scratch per position, counting every
		// output: about twice an evaluation.
		n := float64(m.Positions.Limit)
		if n == 0 {
			n = 3000
		}
		// float64(x*y) here and below: no FMA fusion at GOAMD64=v3 (make fma-check).
		return estStartSec + float64(n*2*estEvalSec*widthFactor(p, t.Variant))
	case KindSpeed:
		// Each speed metric's cost for each variant's net.
		var s float64
		st := p.Setting()
		for _, v := range p.Variants {
			st.Width, st.Base = widthFactor(p, v.Name), v.Base
			for _, d := range m.Listed() {
				if d.TaskKind() == metrics.TaskSpeed && d.Seconds != nil {
					s += d.Seconds(st)
				}
			}
		}
		return s
	case KindElo:
		// A clock fixes a game's length whatever the net's speed; fixed
		// nodes or depth take longer with a wider net.
		f := 1.0
		if m.Elo.TC == "" {
			f = widthFactor(p, t.Variant)
		}
		return float64(t.Games) * gameSeconds(m.Elo) * f
	case KindTrain:
		return trainSeconds(p, t.Train)
	case KindDatagen:
		g := t.Data.Gen
		plies := estPliesPerPos
		if g.Keep == datagen.KeepAll {
			plies = 1 // every searched position is recorded
		}
		return filePositions(p, t.Data.Out) * plies * float64(max(g.Nodes, 1000)) / estDatagenNPS
	case KindLabel:
		var n float64
		for _, f := range t.Data.Inputs {
			n += filePositions(p, f)
		}
		return n / float64(t.Data.Shards) * (estLabelSec + float64(float64(t.Data.Nodes)*estLabelNodeSec))
	}
	return 0
}

// filePositions estimates the positions of a data file: from its size, or
// for a shard of a made dataset not made yet, from its settings.
func filePositions(p *Plan, f string) float64 {
	if st, err := os.Stat(f); err == nil && !p.isMadeFile(f) {
		per := estBytesPerPos
		switch {
		case strings.HasSuffix(f, ".bin"):
			per = 12.2
		case strings.HasSuffix(f, ".binpack"):
			per = 2.5
		case !strings.HasSuffix(f, ".zst"):
			per = 62
		}
		return float64(st.Size()) / per
	}
	for _, t := range p.Tasks {
		if t.Data == nil || t.Data.Out != f {
			continue
		}
		if g := t.Data.Gen; g != nil {
			n := float64(g.Positions)
			if n == 0 {
				n = float64(g.Games) * estPosPerGame
			}
			return n / float64(g.Shards)
		}
		var n float64
		for _, in := range t.Data.Inputs {
			n += filePositions(p, in)
		}
		return n / float64(t.Data.Shards)
	}
	return 0
}

// isMadeFile reports whether f is a shard of a dataset the plan makes
// (whose size on disk, if any, may be of a run still going).
func (p *Plan) isMadeFile(f string) bool {
	for _, t := range p.Tasks {
		if t.Data != nil && t.Data.Out == f {
			_, err := os.Stat(datasets.ManifestPath(f))
			return err != nil
		}
	}
	return false
}

// gameSeconds estimates one game's CPU seconds (one engine thinks at a
// time, so CPU and wall time are alike).
func gameSeconds(e *manifest.EloSpec) float64 {
	per := math.Inf(1)
	if e.TC != "" {
		if tc, err := match.ParseTimeControl(e.TC); err == nil {
			clock := tc.Base.Seconds() + float64(tc.Increment.Seconds()*float64(estGamePlies/2))
			if tc.Moves > 0 {
				// Repeating periods: the base comes back every tc.Moves moves.
				clock += float64(tc.Base.Seconds() * math.Floor(float64(estGamePlies/2)/float64(tc.Moves)))
			}
			if tc.Enabled() {
				per = 2 * clock * estHeadShare / float64(estGamePlies)
			}
		}
	}
	if e.Nodes > 0 {
		per = math.Min(per, float64(e.Nodes)/estNPS)
	}
	if e.Depth > 0 {
		per = math.Min(per, estBenchNodesD8*math.Pow(2, float64(e.Depth-8))/50/estNPS)
	}
	if math.IsInf(per, 1) {
		per = 1
	}
	return float64(estGamePlies*per) + 2*estStartSec
}

// trainSeconds estimates a training run from the data size and schedule.
func trainSeconds(p *Plan, j *TrainJob) float64 {
	cfg := j.Config
	var positions float64
	for _, f := range cfg.Data {
		positions += filePositions(p, f)
	}
	if cfg.MaxPositions > 0 {
		positions = math.Min(positions, float64(cfg.MaxPositions))
	}
	total := positions * float64(cfg.Epochs)
	if cfg.EpochSize > 0 {
		total = float64(cfg.EpochSize) * float64(cfg.Epochs)
	}
	if cfg.Positions > 0 {
		total = float64(cfg.Positions)
	}
	// Measured per CPU second with two threads (docs/training.md,
	// "Throughput", 2026-11-27): 4-13 ns per position and accumulator
	// column for the linear heads, chess768 at 256 wide 8.4 (465k
	// positions per CPU second), Koivisto 16 at 512 13 (149k); about three
	// times that with Stockfish 12's dense head (halfkp at 256: 155k).
	spec, err := archs.Load(cfg.Arch)
	width, head := estWidthRef, 1.0
	if err == nil {
		if s2, err := spec.Override(cfg.Overrides...); err == nil {
			width = float64(s2.Accumulator.Width)
			if s2.Head.Type == "sf12" {
				head = estTrainSF12
			}
		}
	}
	// Narrow designs do not get cheaper without end: every design costs
	// at least 256 columns (Rengar's 24k parameters train at 753k
	// positions per CPU second, so its estimate is about 1.7x high).
	return total * math.Max(width, 256) * estTrainSecPerW * head
}

// Describe prints the plan of a dry run: variants, nets, tasks with their
// state, and the cost estimate for an executor with jobs cores.
func Describe(w io.Writer, p *Plan, executor string, jobs int) {
	m := p.Manifest
	fmt.Fprintf(w, "experiment %s", m.Name)
	if m.Title != "" {
		fmt.Fprintf(w, ": %s", m.Title)
	}
	fmt.Fprintln(w)
	if m.Claim != "" {
		fmt.Fprintf(w, "claim      %s\n", m.Claim)
	}
	fmt.Fprintf(w, "manifest   %s (sha256 %s)\n", m.File, p.ManifestSHA256[:12])
	fmt.Fprintf(w, "results    %s\n", p.Out)
	fmt.Fprintf(w, "metrics    %s\n", strings.Join(m.Metrics, ", "))
	fmt.Fprintf(w, "positions  %s (sha256 %s)\n", p.Positions, p.PositionsSHA256[:12])
	if len(m.Seeds) > 1 || m.Train != nil {
		fmt.Fprintf(w, "seeds      %v\n", m.Seeds)
	}
	if m.Train != nil {
		fmt.Fprintf(w, "training   %s; data sha256 %s; cache %s\n", strings.Join(m.Data.Train, ", "), p.DataSHA256[:12], p.Cache)
	}
	if e := m.Elo; e != nil {
		limit := []string{}
		if e.TC != "" {
			limit = append(limit, "tc="+e.TC)
		}
		if e.Nodes > 0 {
			limit = append(limit, fmt.Sprintf("nodes=%d", e.Nodes))
		}
		if e.Depth > 0 {
			limit = append(limit, fmt.Sprintf("depth=%d", e.Depth))
		}
		test := fmt.Sprintf("%d games", e.Games)
		if e.SPRT != nil {
			test = fmt.Sprintf("SPRT [%g, %g] (%s), at most %d games", e.SPRT.Elo0, e.SPRT.Elo1, e.SPRT.Model, e.MaxGames)
		}
		opponent := p.BaseVariant().Name
		if e.Opponent == manifest.OpponentClassical {
			opponent = "the classical engine (every variant, the base too)"
		}
		who := "per variant"
		if len(e.Variants) > 0 {
			who = "for " + strings.Join(e.Variants, ", ")
		}
		fmt.Fprintf(w, "elo        %s %s vs %s, %s, openings %s\n", test, who, opponent, strings.Join(limit, " "), filepath.Base(p.Openings))
	}
	fmt.Fprintln(w, "\nvariants:")
	tw := tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  name\tarch\toverrides\tnet")
	for _, v := range p.Variants {
		ref := v.Nets[0]
		net := ref.Kind
		switch ref.Kind {
		case "file":
			net = "file " + ref.Path
		case "trained":
			net = fmt.Sprintf("trained (%d seed(s)), cache key %s", len(v.Nets), ref.SHA256[:12])
		case "shipped", "stockfish":
			net = ref.Kind + " " + ref.SHA256[:12]
		}
		name := v.Name
		if v.Base {
			name += " (base)"
		}
		ov := strings.Join(v.Overrides, " ")
		if t := p.Manifest.TrainOverride(v.Name); t != "" {
			ov = strings.TrimSpace(ov + " " + t)
		}
		if ov == "" {
			ov = "-"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\n", name, v.Arch, ov, net)
	}
	tw.Flush()

	type sum struct {
		n, todo int
		cpu     float64
	}
	kinds := []string{KindDatagen, KindLabel, KindTrain, KindMeasure, KindActivations, KindSpeed, KindElo}
	sums := map[string]*sum{}
	for _, k := range kinds {
		sums[k] = &sum{}
	}
	fmt.Fprintf(w, "\ntasks (%d):\n", len(p.Tasks))
	tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  id\tkind\tcpus\test. CPU\tstate")
	var todoCPU, total float64
	results := map[string]*TaskResult{}
	for _, t := range p.Tasks {
		if r, ok := ReadResult(p.Out, t); ok {
			results[t.ID] = r
		}
	}
	skip := NotNeeded(p, results)
	for _, t := range p.Tasks {
		est := EstimateTask(p, t)
		state := "to run"
		if results[t.ID] != nil {
			state = "done"
		} else if skip[t.ID] {
			state = "not needed (SPRT decided)"
		} else if Cached(t) {
			state = "in cache"
		} else if src := p.adoptableFrom(t); src != "" {
			state = "adopt from " + src
		} else if src := p.committedFrom(t); src != "" {
			state = "adopt from " + src
		}
		s := sums[t.Kind]
		s.n++
		s.cpu += est
		total += est
		if state == "to run" {
			s.todo++
			todoCPU += est
		}
		cpus := fmt.Sprint(t.CPUs)
		if t.Exclusive || t.CPUs == 0 {
			cpus = "all"
		}
		fmt.Fprintf(tw, "  %s\t%s\t%s\t%s\t%s\n", t.ID, t.Kind, cpus, DurationText(est), state)
	}
	tw.Flush()
	fmt.Fprintln(w, "\ncost estimate (rough):")
	tw = tabwriter.NewWriter(w, 2, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "  kind\ttasks\tto run\tCPU time")
	for _, k := range kinds {
		if s := sums[k]; s.n > 0 {
			fmt.Fprintf(tw, "  %s\t%d\t%d\t%s\n", k, s.n, s.todo, DurationText(s.cpu))
		}
	}
	tw.Flush()
	fmt.Fprintf(w, "  total %s of CPU time, %s still to run", DurationText(total), DurationText(todoCPU))
	if executor == "local" {
		fmt.Fprintf(w, "; about %s of wall time on %d core(s)", DurationText(WallEstimate(p, jobs)), jobs)
	} else {
		fmt.Fprintf(w, "; on Slurm, one array element per task")
	}
	fmt.Fprintln(w)
	if _, ok := SPRTTest(p.Manifest); ok {
		fmt.Fprintln(w, "  (Elo at max_games: an upper bound, the SPRT stops a variant's chunks once it crosses a bound)")
	}
}

// WallEstimate is the remaining work spread over jobs cores, with
// exclusive tasks on the whole machine.
func WallEstimate(p *Plan, jobs int) float64 {
	var shared, alone float64
	for _, t := range p.Tasks {
		if _, ok := ReadResult(p.Out, t); ok {
			continue
		}
		if Cached(t) {
			continue
		}
		est := EstimateTask(p, t)
		switch {
		case t.Exclusive:
			alone += est
		case t.CPUs <= 0:
			alone += est / float64(jobs)
		default:
			shared += est
		}
	}
	return shared/float64(jobs) + alone
}

// Cached reports whether a task's output is in the cache already (from
// another experiment or an earlier run), so that it costs nothing.
func Cached(t *Task) bool {
	var err error
	switch {
	case t.Train != nil:
		_, err = os.Stat(filepath.Join(t.Train.Dir, "done.json"))
	case t.Data != nil:
		_, err = os.Stat(datasets.ManifestPath(t.Data.Out))
	default:
		return false
	}
	return err == nil
}

// DurationText formats a cost estimate in seconds as the dry run prints it.
func DurationText(sec float64) string {
	d := time.Duration(sec * float64(time.Second))
	switch {
	case d < time.Minute:
		return d.Round(100 * time.Millisecond).String()
	case d < 10*time.Hour:
		return d.Round(time.Second).String()
	}
	return fmt.Sprintf("%.1fh", d.Hours())
}
