package generations

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/datasets/datagen"
	"github.com/nnuelab/nnuelab/experiments/data"
	"github.com/nnuelab/nnuelab/experiments/manifest"
	"github.com/nnuelab/nnuelab/experiments/plan"
	"github.com/nnuelab/nnuelab/experiments/records"
	"github.com/nnuelab/nnuelab/experiments/runner"
	"github.com/nnuelab/nnuelab/internal/fsutil"
	"github.com/nnuelab/nnuelab/nets"
)

// genNet is a net of the loop: gen 0's or a trained generation's.
type genNet struct {
	Gen   int
	Name  string // variant name: "gen0", "gen3"
	Label string
	// Path is the file (a trained net's may not exist yet); ID its
	// identity in keys: a file's SHA-256, a trained net's cache key.
	Path string
	ID   string
	// Arch is the architecture the net computes.
	Arch *loopArch
	// Shipped: gen 0 is the arch's shipped net (self-play plays it as
	// datagen without --evalfile). Float: a float net of its arch, which
	// can warm-start the training of a generation of the same arch.
	Shipped bool
	Float   bool
	// extract holds the shipped net's bytes when gen 0 is the shipped net
	// without a file: the driver writes them to Path when a task needs it.
	extract []byte
}

// generation is one planned generation: its nets, data and sub-plans.
type generation struct {
	K      int
	Player *genNet // the best net so far: plays the self-play, the gate's base
	Init   *genNet // warm start (nil: random weights)
	Net    *genNet // this generation's net
	Window []int   // generations whose self-play it trains on
	// Datagen and Label are this generation's self-play set (and its
	// rescoring), as later generations' plans name them (External).
	Datagen manifest.DatagenSpec
	Label   *manifest.LabelSpec
	// Data is the training data this generation adds ("datagen:genK" or
	// "label:genK" in its train plan).
	Data *plan.MadeData
	// The sub-plans; VsGen0 and VsRef are nil without an Elo test (VsRef
	// also without a reference).
	Train, VsGen0, VsRef *plan.Plan
	// Decided says the gate has decided (or there is none); Promoted that
	// this generation's net is the best so far from now on; Decision the
	// SPRT's verdict.
	Decided, Promoted bool
	Decision          string
}

// parts returns the generation's sub-plans in run order.
func (g *generation) parts() []*plan.Plan {
	var out []*plan.Plan
	for _, p := range []*plan.Plan{g.Train, g.VsGen0, g.VsRef} {
		if p != nil {
			out = append(out, p)
		}
	}
	return out
}

// partName is a sub-plan's folder name ("train", "vs-gen0", ...).
func partName(p *plan.Plan) string { return filepath.Base(p.Out) }

// producer is the task (of a generation's train plan) that makes a file
// in the cache.
type producer struct {
	gen  int
	task string
}

// genRunner plans and runs a generations manifest.
type genRunner struct {
	m   *manifest.Manifest
	g   *manifest.GenerationsSpec
	opt runner.RunOptions
	// out is the top-level results folder, cache the shared cache.
	out, cache string
	// arch0 is [generations]' architecture (gen 0's); archByID every
	// architecture the loop trains, keyed by the name and overrides that
	// give it.
	arch0     *loopArch
	archByID  map[string]*loopArch
	gen0      *genNet
	refName   string
	gens      []*generation
	producers map[string]producer
	// shared indexes the Elo chunks under opt.Shared, read once per dry run.
	shared plan.EloIndex
}

// loopArch is an architecture the loop trains: [generations] arch, or a
// [[generations.gen]] arch from its generation on.
type loopArch struct {
	name      string   // as the manifest gives it: a name from archs/ or a .toml path
	overrides []string // applied to it
	// spec is the architecture, engine the same as engines load its
	// trained nets; netSHA identifies the net it computes (warm starts
	// need the same).
	spec, engine *archs.Spec
	netSHA       string
	// playArch is what self-play plays with: the arch's name, or a file in
	// the cache (archFile, written when needed) keyed by playArchID.
	playArch, playArchID string
	archFile             string
}

// text is the architecture as the plan and report name it.
func (a *loopArch) text() string { return a.name + overrideText(a.overrides) }

// archOf resolves an architecture by name and overrides, once.
func (r *genRunner) archOf(name string, overrides []string) (*loopArch, error) {
	id := name + "\x00" + strings.Join(overrides, "\x00")
	if a := r.archByID[id]; a != nil {
		return a, nil
	}
	a := &loopArch{name: name, overrides: overrides}
	var err error
	if a.spec, err = r.m.Spec(&manifest.VariantSpec{Arch: name, Overrides: overrides}); err != nil {
		return nil, err
	}
	a.netSHA = a.spec.NetSHA256()
	a.engine = a.spec
	if a.spec.Net.Format != "float" {
		if a.engine, err = a.spec.Override(`net.format="nnuelab"`); err != nil {
			return nil, err
		}
	}
	// Self-play loads the arch by name when it is a built-in one as
	// given (a trained float net loads under any format: nets.Load
	// recognises it); otherwise from a file the runner writes, keyed by
	// the architecture's hash rather than the file's path.
	if slices.Contains(archs.Builtin(), name) && len(overrides) == 0 {
		a.playArch = name
	} else {
		a.playArchID = a.engine.SHA256()
		a.archFile = filepath.Join(r.cache, "archs", a.playArchID[:16]+".toml")
		a.playArch = a.archFile
	}
	r.archByID[id] = a
	return a, nil
}

// archAt is the architecture generation k trains.
func (r *genRunner) archAt(k int) (*loopArch, error) {
	name, overrides := r.g.ArchOf(k)
	a, err := r.archOf(name, overrides)
	if err != nil {
		return nil, &manifest.Error{File: r.m.File, Key: "generations.gen", Reason: fmt.Sprintf("generation %d: %v", k, err)}
	}
	return a, nil
}

// adoptable is the index of Elo chunks a dry run shows as adopted.
func (r *genRunner) adoptable() plan.EloIndex {
	if r.shared == nil {
		r.shared = plan.IndexElo(r.opt.Shared)
	}
	return r.shared
}

var genNameRE = regexp.MustCompile(`^gen[0-9]+$`)

// genName is generation k's variant name.
func genName(k int) string { return fmt.Sprintf("gen%d", k) }

// newGenRunner resolves the loop's nets and places.
func newGenRunner(m *manifest.Manifest, opt runner.RunOptions) (*genRunner, error) {
	g := m.Generations
	if opt.Log == nil {
		opt.Log = io.Discard
	}
	if opt.Stdout == nil {
		opt.Stdout = io.Discard
	}
	if opt.Executor == nil {
		opt.Executor = &runner.Local{}
	}
	r := &genRunner{m: m, g: g, opt: opt, producers: map[string]producer{}}
	var err error
	if opt.Out == "" {
		if opt.Out, err = plan.DefaultOut(m.Name); err != nil {
			return nil, err
		}
	}
	if opt.Cache == "" {
		opt.Cache = filepath.Join("experiments", "cache")
	}
	if r.out, err = filepath.Abs(opt.Out); err != nil {
		return nil, err
	}
	if r.cache, err = filepath.Abs(opt.Cache); err != nil {
		return nil, err
	}
	r.opt.Out, r.opt.Cache = r.out, r.cache
	merr := func(key string, err error) error { return &manifest.Error{File: m.File, Key: key, Reason: err.Error()} }
	r.archByID = map[string]*loopArch{}
	if r.arch0, err = r.archOf(g.Arch, g.Overrides); err != nil {
		return nil, merr("generations.arch", err)
	}
	if r.gen0, err = r.resolveGen0(); err != nil {
		return nil, merr("generations.gen0_net", err)
	}
	if g.Reference != "" {
		// The reference's variant name must not be a generation's.
		r.refName = manifest.SanitizeName(filepath.Base(strings.TrimSuffix(g.Reference, ".toml")))
		if genNameRE.MatchString(r.refName) {
			r.refName = "ref-" + r.refName
		}
	}
	return r, nil
}

// resolveGen0 finds gen 0's net: the file given, or the arch's shipped net.
func (r *genRunner) resolveGen0() (*genNet, error) {
	g := r.g
	a := r.arch0
	n := &genNet{Gen: 0, Name: "gen0", Arch: a}
	shipped, err := nets.Default(a.spec.Name)
	if err != nil {
		return nil, err
	}
	builtin := slices.Contains(archs.Builtin(), g.Arch) && len(g.Overrides) == 0
	var header []byte
	if g.Gen0Net != "" {
		n.Path = r.m.Path(g.Gen0Net)
		if n.ID, err = data.FileSHA256(n.Path); err != nil {
			return nil, err
		}
		if _, err := nets.Load(a.spec, n.Path); err != nil {
			return nil, fmt.Errorf("%s does not load as %s: %w", g.Gen0Net, a.spec.Name, err)
		}
		n.Shipped = builtin && shipped != nil && shipped.SHA256 == n.ID
		n.Label = "gen 0 (" + filepath.Base(n.Path) + ")"
		if isFloatFile(n.Path) {
			f, err := os.Open(n.Path)
			if err != nil {
				return nil, err
			}
			defer f.Close()
			header, err = io.ReadAll(f)
			if err != nil {
				return nil, err
			}
		}
	} else {
		if shipped == nil || !builtin {
			return nil, fmt.Errorf("missing: %s has no shipped net that fits it; give gen 0's net as a file", a.spec.Name)
		}
		data, err := shipped.Bytes()
		if err != nil {
			return nil, err
		}
		n.Path = filepath.Join(r.cache, "shipped", shipped.File)
		n.ID, n.Shipped, n.extract = shipped.SHA256, true, data
		n.Label = "gen 0 (shipped " + shipped.File + ")"
		if bytes.HasPrefix(data, []byte(nets.Magic)) {
			header = data
		}
	}
	if header != nil {
		if h, _, err := nets.ReadFloat(bytes.NewReader(header)); err == nil && (h.ArchSHA256 == "" || h.ArchSHA256 == a.netSHA) {
			n.Float = true
		}
	}
	return n, nil
}

// isFloatFile reports whether a file starts with the float net magic.
func isFloatFile(path string) bool {
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	b := make([]byte, len(nets.Magic))
	n, _ := io.ReadFull(f, b)
	return n == len(b) && string(b) == nets.Magic
}

// gated reports whether generations are gated (an Elo test is measured);
// without one every generation becomes the best net.
func (r *genRunner) gated() bool { return r.m.Has(manifest.MetricElo) }

// best returns the best net before generation k (1-based), and the net
// generation k-1 made.
func (r *genRunner) best(k int) (best, last *genNet) {
	best, last = r.gen0, r.gen0
	for _, g := range r.gens[:k-1] {
		if g.Promoted {
			best = g.Net
		}
		last = g.Net
	}
	return best, last
}

// subManifest starts a sub-experiment's manifest: the generations
// manifest's shared sections, its file and folder (so that relative paths
// resolve alike and errors name it).
func (r *genRunner) subManifest(k int, part string, metrics []string) *manifest.Manifest {
	m := r.m
	title := m.Title
	if title == "" {
		title = m.Name
	}
	return &manifest.Manifest{
		Name:      fmt.Sprintf("%s.gen-%d.%s", m.Name, k, part),
		Title:     fmt.Sprintf("%s: generation %d, %s", title, k, part),
		Seeds:     m.Seeds,
		Metrics:   metrics,
		Positions: m.Positions,
		Speed:     m.Speed,
		Loss:      m.Loss,
		File:      m.File,
		Dir:       m.Dir,
	}
}

// variantOf is a net of the loop as a variant with its net file.
func (r *genRunner) variantOf(n *genNet) manifest.VariantSpec {
	return manifest.VariantSpec{Name: n.Name, Label: n.Label, Arch: n.Arch.name, Overrides: n.Arch.overrides, Net: n.Path, NetID: n.ID}
}

// finish validates a sub-manifest as Parse would and plans it into
// OUT/gen-K/part.
func (r *genRunner) finish(sm *manifest.Manifest, k int, part string) (*plan.Plan, error) {
	if err := sm.DefaultsMade(); err != nil {
		err.File = r.m.File
		return nil, err
	}
	if err := sm.Validate(); err != nil {
		return nil, fmt.Errorf("%s: generation %d, %s: %s: %s", r.m.File, k, part, err.Key, err.Reason)
	}
	p, err := plan.New(sm, plan.Options{Out: filepath.Join(r.out, fmt.Sprintf("gen-%d", k), part), Cache: r.cache,
		Binary: r.opt.Binary, Command: r.opt.Command})
	if err != nil {
		return nil, fmt.Errorf("generation %d, %s: %w", k, part, err)
	}
	p.KeepNets = true
	return p, nil
}

// plan plans generation k; generations 1..k-1 are planned and decided.
func (r *genRunner) plan(k int) (*generation, error) {
	m, g := r.m, r.g
	player, last := r.best(k)
	arch, err := r.archAt(k)
	if err != nil {
		return nil, err
	}
	gen := &generation{K: k, Player: player}
	// Trained nets are float, gen 0 may not be; a net of another
	// architecture (a [[generations.gen]] arch) cannot start this one.
	if g.WarmStarts(k) && last.Float && last.Arch.netSHA == arch.netSHA {
		gen.Init = last
	}
	from := 1
	if g.Window > 0 {
		from = max(1, k-g.Window+1)
	}
	for j := from; j <= k; j++ {
		gen.Window = append(gen.Window, j)
	}

	// This generation's self-play, played by the best net so far.
	sp := g.SelfplayOf(k)
	shards := sp.Shards
	gen.Datagen = manifest.DatagenSpec{
		Name: genName(k), Positions: sp.Positions, Games: sp.Games, Shards: shards, RawSeed: int64(g.Seed) + int64(k) - 1,
		Arch: player.Arch.playArch, ArchID: player.Arch.playArchID, Nodes: sp.Nodes, SoftNodes: sp.SoftNodes, Start: sp.Start, Depth: g.Depth,
		RandomPlies: &sp.RandomPlies, Keep: g.Keep, MaxOpeningScore: g.OpeningBoundOf(k),
		WinScore: sp.WinScore, WinPlies: sp.WinPlies,
	}
	if !player.Shipped {
		gen.Datagen.Net, gen.Datagen.NetID = player.Path, player.ID
	}
	if n := g.LabelNodesOf(k); n > 0 {
		gen.Label = &manifest.LabelSpec{Name: genName(k), Inputs: []string{manifest.RefDatagen + genName(k)}, Engine: g.LabelEngine,
			Hash: 16, Nodes: n, Shards: shards}
	}

	// The train part: the window's data (earlier generations' as made by
	// their plans), the trained variant, the gate against the best net.
	var metrics []string
	for _, x := range m.Metrics {
		if slices.Contains(manifest.GenerationMetrics, x) {
			metrics = append(metrics, x)
		}
	}
	tm := r.subManifest(k, "train", metrics)
	tm.Base = r.variantOf(player)
	tm.Variants = []manifest.VariantSpec{{Name: genName(k), Label: fmt.Sprintf("gen %d", k), Arch: arch.name, Overrides: arch.overrides}}
	d := manifest.DataSpec{ValFraction: 0.02}
	if m.Data != nil {
		d = *m.Data
	}
	d.Train = nil
	for _, j := range gen.Window {
		src := gen
		if j < k {
			src = r.gens[j-1]
		}
		ds := src.Datagen
		ds.External = j < k
		tm.Datagen = append(tm.Datagen, ds)
		ref := manifest.RefDatagen + genName(j)
		if src.Label != nil {
			ls := *src.Label
			ls.External = j < k
			tm.Label = append(tm.Label, ls)
			ref = manifest.RefLabel + genName(j)
		}
		d.Train = append(d.Train, ref)
	}
	d.Train = append(d.Train, g.ExtraData...)
	tm.Data = &d
	t := *m.Train
	t.Filter = g.Filter
	if gen.Init != nil {
		t.Init, t.InitID = gen.Init.Path, gen.Init.ID
	}
	tm.Train = &t
	if m.Elo != nil {
		e := m.GateElo()
		tm.Elo = &e
	}
	if gen.Train, err = r.finish(tm, k, "train"); err != nil {
		return nil, err
	}
	v := gen.Train.Variant(genName(k))
	gen.Net = &genNet{Gen: k, Name: v.Name, Label: v.Label, Path: v.Nets[0].Path, ID: v.Nets[0].SHA256, Arch: arch, Float: true}
	ref := manifest.RefDatagen + genName(k)
	if gen.Label != nil {
		ref = manifest.RefLabel + genName(k)
	}
	gen.Data = gen.Train.MadeData(ref)
	for _, tk := range gen.Train.Tasks {
		if out := tk.CacheOutput(); out != "" {
			r.producers[out] = producer{gen: k, task: tk.ID}
		}
	}

	// The fixed-games tests against gen 0 and the reference (generation 1
	// also plays gen 0 against the reference: the start of the curve).
	if m.Elo != nil {
		e := m.FixedElo()
		vm := r.subManifest(k, "vs-gen0", []string{manifest.MetricElo})
		vm.Base, vm.Variants, vm.Elo = r.variantOf(r.gen0), []manifest.VariantSpec{r.variantOf(gen.Net)}, &e
		if gen.VsGen0, err = r.finish(vm, k, "vs-gen0"); err != nil {
			return nil, err
		}
		if g.Reference != "" {
			e := m.FixedElo()
			rm := r.subManifest(k, "vs-reference", []string{manifest.MetricElo})
			rm.Base = manifest.VariantSpec{Name: r.refName, Label: g.Reference + " (shipped net)", Arch: g.Reference}
			rm.Variants, rm.Elo = []manifest.VariantSpec{r.variantOf(gen.Net)}, &e
			if k == 1 {
				rm.Variants = append(rm.Variants, r.variantOf(r.gen0))
			}
			if gen.VsRef, err = r.finish(rm, k, "vs-reference"); err != nil {
				return nil, err
			}
		}
	}
	gen.Decided, gen.Promoted, gen.Decision = r.decision(gen)
	return gen, nil
}

// allDone reports whether every task of a plan has its result (or is a
// chunk of an SPRT decided without it).
func allDone(p *plan.Plan) bool {
	results := map[string]*plan.TaskResult{}
	var missing []*plan.Task
	for _, t := range p.Tasks {
		if res, ok := plan.ReadResult(p.Out, t); ok {
			results[t.ID] = res
		} else {
			missing = append(missing, t)
		}
	}
	if len(missing) == 0 {
		return true
	}
	skip := plan.NotNeeded(p, results)
	for _, t := range missing {
		if !skip[t.ID] {
			return false
		}
	}
	return true
}

// decision reads the gate of a generation from its train plan's results:
// whether it has decided and whether the generation's net is the new best.
// Without an Elo test every generation is promoted once trained.
func (r *genRunner) decision(g *generation) (decided, promoted bool, verdict string) {
	if !r.gated() {
		return true, true, ""
	}
	if !allDone(g.Train) {
		return false, false, ""
	}
	recs, err := records.Merge(g.Train)
	if err != nil {
		return false, false, ""
	}
	for _, rec := range recs {
		if rec.Variant == g.Net.Name && rec.Metric == manifest.MetricElo {
			verdict, _ = rec.Detail["sprt"].(string)
			return true, verdict == "H1 accepted", verdict
		}
	}
	return false, false, ""
}

// Run runs a generations manifest: generation after generation
// up to [generations] count, each one's sub-experiments through the
// runner (finished ones are read back, not run), then the results and the
// report. With DryRun it prints every generation that can be planned so
// far, with the cost estimate.
func Run(ctx context.Context, m *manifest.Manifest, opt runner.RunOptions) error {
	if m.Generations == nil {
		return fmt.Errorf("%s has no [generations] section", m.File)
	}
	if len(opt.Skip) > 0 {
		return fmt.Errorf("%s: --skip is not supported for a generations manifest (the gate decides the next generation)", m.File)
	}
	r, err := newGenRunner(m, opt)
	if err != nil {
		return err
	}
	if opt.DryRun {
		return r.dryRun()
	}
	if err := os.MkdirAll(r.out, 0o755); err != nil {
		return err
	}
	unlock, err := runner.LockDir(r.out)
	if err != nil {
		return err
	}
	defer unlock()
	for k := 1; k <= r.g.Count; k++ {
		g, err := r.plan(k)
		if err != nil {
			return err
		}
		r.gens = append(r.gens, g)
		if err := r.runGeneration(ctx, g); err != nil {
			if serr := r.writeSummary(); serr != nil {
				fmt.Fprintf(r.opt.Log, "generations %s: %v\n", m.Name, serr)
			}
			return fmt.Errorf("generation %d: %w", k, err)
		}
		g.Decided, g.Promoted, g.Decision = r.decision(g)
		if !g.Decided {
			why := "no Elo record of the new net"
			if _, err := records.Merge(g.Train); err != nil {
				why = err.Error()
			}
			return fmt.Errorf("generation %d: its gate has no decision although every task finished: %s", k, why)
		}
		best, _ := r.best(k + 1)
		fmt.Fprintf(r.opt.Log, "generations %s: generation %d done (%s); best net: %s\n", m.Name, k, r.verdictText(g), best.Name)
	}
	return r.writeSummary()
}

// verdictText says how a generation's gate went.
func (r *genRunner) verdictText(g *generation) string {
	switch {
	case !r.gated():
		return "no gate: promoted"
	case g.Promoted:
		return "gate " + g.Decision + ": promoted"
	case g.Decision != "":
		return "gate " + g.Decision + ": not promoted"
	}
	return "gate undecided"
}

// subOptions are the run options of a sub-plan.
func (r *genRunner) subOptions(outputs []string) runner.RunOptions {
	o := r.opt
	o.Out, o.DryRun, o.NoReport, o.Outputs = "", false, true, outputs
	return o
}

// runGeneration runs the parts of a generation that are not done, after
// making sure that what they need of earlier generations is in the cache.
func (r *genRunner) runGeneration(ctx context.Context, g *generation) error {
	for _, p := range g.parts() {
		if !r.opt.Fresh && allDone(p) && plan.FileExists(records.ResultsPath(p.Out)) {
			fmt.Fprintf(r.opt.Log, "generations %s: generation %d, %s: done\n", r.m.Name, g.K, partName(p))
			continue
		}
		if err := r.ensure(ctx, externalInputs(p), 0); err != nil {
			return err
		}
		fmt.Fprintf(r.opt.Log, "generations %s: generation %d, %s (%s)\n", r.m.Name, g.K, partName(p), plan.RelPath(p.Out))
		if _, err := runner.RunPlan(ctx, p, r.subOptions(nil)); err != nil {
			return fmt.Errorf("%s: %w", partName(p), err)
		}
		if err := r.writeSummary(); err != nil {
			return err
		}
	}
	return nil
}

// externalInputs lists the files a plan uses that none of its tasks make:
// the nets of its file variants, the init nets of its trainings, the
// players and architecture files of its self-play, and the files of
// datasets an earlier plan made.
func externalInputs(p *plan.Plan) []string {
	own := map[string]bool{}
	for _, t := range p.Tasks {
		if out := t.CacheOutput(); out != "" {
			own[out] = true
		}
	}
	var files []string
	add := func(f string) {
		if f != "" && filepath.IsAbs(f) && !own[f] && !slices.Contains(files, f) {
			files = append(files, f)
		}
	}
	for _, v := range p.Variants {
		for _, n := range v.Nets {
			if n.Kind == "file" {
				add(n.Path)
			}
		}
	}
	for _, d := range p.Made {
		if len(d.Tasks) == 0 {
			for _, f := range d.Files {
				add(f)
			}
		}
	}
	for _, t := range p.Tasks {
		switch {
		case t.Train != nil:
			add(t.Train.Config.Init)
		case t.Data != nil && t.Data.Gen != nil:
			add(t.Data.Gen.EvalFile)
			if strings.HasSuffix(t.Data.Gen.Arch, ".toml") {
				add(t.Data.Gen.Arch)
			}
		}
	}
	return files
}

// ensure makes the missing files among files: the shipped gen 0 net and
// the architecture file it writes itself, the outputs of earlier
// generations by running those generations' train plans again for them
// (what they need in turn first). A fresh clone has the results but not
// the cache; every output is deterministic or keyed by its inputs, so the
// remade files serve the plans that name them.
func (r *genRunner) ensure(ctx context.Context, files []string, depth int) error {
	if depth > len(r.gens)+1 {
		return fmt.Errorf("remaking lost outputs does not end (a cycle?)")
	}
	need := map[int][]string{} // generation -> tasks to redo
	for _, f := range files {
		if plan.FileExists(f) {
			continue
		}
		a := r.archFileOf(f)
		switch {
		case f == r.gen0.Path && r.gen0.extract != nil:
			if err := fsutil.WriteFileAll(f, r.gen0.extract, 0o644); err != nil {
				return err
			}
			continue
		case a != nil:
			text, err := plan.SpecTOML(a.engine)
			if err != nil {
				return err
			}
			if err := fsutil.WriteFileAll(f, []byte(text), 0o644); err != nil {
				return err
			}
			continue
		}
		pr, ok := r.producers[f]
		if !ok {
			return fmt.Errorf("%s is missing and no generation makes it", f)
		}
		need[pr.gen] = append(need[pr.gen], pr.task)
	}
	ks := make([]int, 0, len(need))
	for k := range need {
		ks = append(ks, k)
	}
	sort.Ints(ks)
	for _, k := range ks {
		p := r.gens[k-1].Train
		fmt.Fprintf(r.opt.Log, "generations %s: generation %d's %s not in the cache: making it again\n", r.m.Name, k, strings.Join(need[k], ", "))
		if err := r.ensure(ctx, externalInputs(p), depth+1); err != nil {
			return err
		}
		o := r.subOptions(need[k])
		o.Fresh = false
		if _, err := runner.RunPlan(ctx, p, o); err != nil {
			return fmt.Errorf("generation %d, remaking %s: %w", k, strings.Join(need[k], ", "), err)
		}
	}
	return nil
}

// archFileOf is the architecture whose file in the cache is f, if any.
func (r *genRunner) archFileOf(f string) *loopArch {
	for _, a := range r.archByID {
		if a.archFile != "" && a.archFile == f {
			return a
		}
	}
	return nil
}

// dryRun prints every generation that can be planned so far: generation
// k+1 needs generation k's gate decision (which net plays its self-play).
func (r *genRunner) dryRun() error {
	w, m, g := r.opt.Stdout, r.m, r.g
	jobs := r.opt.DryRunJobs()
	exec := r.opt.Executor.Name()
	sum, err := data.FileSHA256(m.File)
	if err != nil {
		return err
	}
	fmt.Fprintf(w, "generations %s", m.Name)
	if m.Title != "" {
		fmt.Fprintf(w, ": %s", m.Title)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "manifest   %s (sha256 %s)\n", m.File, sum[:12])
	fmt.Fprintf(w, "results    %s (gen-K/train, gen-K/vs-gen0, gen-K/vs-reference)\n", r.out)
	gen0 := filepath.Base(r.gen0.Path)
	if r.gen0.Shipped {
		gen0 += ", the arch's shipped net"
	}
	fmt.Fprintf(w, "loop       %d generation(s) of %s%s%s; gen 0 = %s (sha256 %s); reference %s\n", g.Count, g.Arch, overrideText(g.Overrides),
		archChangesText(g), gen0, r.gen0.ID[:12], orNone(g.Reference))
	fmt.Fprintf(w, "self-play  %s\n", r.selfplayText())
	fmt.Fprintf(w, "training   %s\n", r.trainingText())
	if m.Elo != nil {
		fmt.Fprintf(w, "elo        %s\n", r.eloText())
	}
	var cpu, todo, wall float64
	for k := 1; k <= g.Count; k++ {
		gen, err := r.plan(k)
		if err != nil {
			return err
		}
		r.gens = append(r.gens, gen)
		fmt.Fprintf(w, "\n==== generation %d: %s\n", k, r.genText(gen))
		for _, p := range gen.parts() {
			fmt.Fprintf(w, "\n---- generation %d, %s (%s)\n", k, partName(p), p.Out)
			if r.opt.Shared != "" {
				p.Adoptable = r.adoptable()
			}
			plan.Describe(w, p, exec, jobs)
			c, t, wl := planCost(p, jobs)
			cpu, todo, wall = cpu+c, todo+t, wall+wl
		}
		if !gen.Decided && k < g.Count {
			if k+1 < g.Count {
				fmt.Fprintf(w, "\n==== generations %d-%d", k+1, g.Count)
			} else {
				fmt.Fprintf(w, "\n==== generation %d", k+1)
			}
			fmt.Fprintf(w, ": planned once generation %d's gate has decided (its self-play uses the best net so far)\n", k)
			break
		}
	}
	fmt.Fprintf(w, "\ngenerations planned so far: %d of %d; %s of CPU time, %s still to run", len(r.gens), g.Count, plan.DurationText(cpu), plan.DurationText(todo))
	if exec == "local" {
		fmt.Fprintf(w, "; about %s of wall time on %d core(s)", plan.DurationText(wall), jobs)
	}
	fmt.Fprintln(w)
	return nil
}

// planCost sums a plan's estimate: all of it, what is still to run, and
// the wall time of that on jobs cores.
func planCost(p *plan.Plan, jobs int) (cpu, todo, wall float64) {
	results := map[string]*plan.TaskResult{}
	for _, t := range p.Tasks {
		if res, ok := plan.ReadResult(p.Out, t); ok {
			results[t.ID] = res
		}
	}
	skip := plan.NotNeeded(p, results)
	for _, t := range p.Tasks {
		est := plan.EstimateTask(p, t)
		cpu += est
		if results[t.ID] == nil && !skip[t.ID] && !plan.Cached(t) {
			todo += est
		}
	}
	return cpu, todo, plan.WallEstimate(p, jobs)
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

func overrideText(ov []string) string {
	if len(ov) == 0 {
		return ""
	}
	return " (" + strings.Join(ov, " ") + ")"
}

// archChangesText lists the [[generations.gen]] architecture changes:
// "" for none, else "; from generation K: ARCH (random start)".
func archChangesText(g *manifest.GenerationsSpec) string {
	var ks []int
	for _, o := range g.Gen {
		if o.Arch != "" || o.Overrides != nil {
			ks = append(ks, o.Gen)
		}
	}
	sort.Ints(ks)
	var b strings.Builder
	for _, k := range ks {
		name, ovr := g.ArchOf(k)
		fmt.Fprintf(&b, "; from generation %d: %s%s (trained from random weights when it differs from the generation before)", k, name, overrideText(ovr))
	}
	return b.String()
}

// genText describes a planned generation in one line.
func (r *genRunner) genText(g *generation) string {
	init := "random weights"
	if g.Init != nil {
		init = "warm start from " + g.Init.Name
	}
	var window []string
	for _, j := range g.Window {
		window = append(window, genName(j))
	}
	data := "?"
	if g.Data != nil {
		data = fmt.Sprintf("%s in %s", g.Data.Ref, filepath.Dir(g.Data.Files[0]))
	}
	gate := r.verdictText(g)
	if r.gated() && !g.Decided {
		gate = "gate to play"
	}
	arch := ""
	if g.Net.Arch != r.arch0 {
		arch = g.Net.Arch.text() + " "
	}
	return fmt.Sprintf("self-play by %s; trains %son %s%s (%s); %s; %s", g.Player.Name, arch, strings.Join(window, "+"),
		map[bool]string{true: " + extra data", false: ""}[len(r.g.ExtraData) > 0], init, data, gate)
}

// selfplayText describes the self-play settings.
func (r *genRunner) selfplayText() string {
	g := r.g
	keep := "quiet positions (.bin shards)"
	if g.Keep == datagen.KeepAll {
		keep = "every searched position (.binpack shards)"
	}
	limit := fmt.Sprintf("%d nodes", g.Nodes)
	if g.SoftNodes > 0 {
		limit = fmt.Sprintf("soft limit %d nodes (hard %d)", g.SoftNodes, g.Nodes)
	}
	if g.Depth > 0 {
		limit += fmt.Sprintf(", depth %d", g.Depth)
	}
	if g.Start != "" && g.Start != datagen.StartStandard {
		limit += ", " + g.Start + " starts"
	}
	s := fmt.Sprintf("%s per generation in %d shards, %s per move, %d random plies, %s, seed %d + k - 1",
		sizeText(g.Positions, g.Games), g.Shards, limit, g.RandomPlies, keep, g.Seed)
	for _, o := range g.Gen {
		var parts []string
		if o.Positions > 0 || o.Games > 0 {
			parts = append(parts, sizeText(o.Positions, o.Games))
		}
		if o.Shards > 0 {
			parts = append(parts, fmt.Sprintf("%d shards", o.Shards))
		}
		if o.Nodes > 0 {
			parts = append(parts, fmt.Sprintf("%d nodes", o.Nodes))
		}
		if o.SoftNodes > 0 {
			parts = append(parts, fmt.Sprintf("soft limit %d nodes", o.SoftNodes))
		}
		if o.Start != "" {
			parts = append(parts, o.Start+" starts")
		}
		if o.RandomPlies != nil {
			parts = append(parts, fmt.Sprintf("%d random plies", *o.RandomPlies))
		}
		if o.WinScore > 0 || o.WinPlies > 0 {
			parts = append(parts, "wins adjudicated "+winText(o.WinScore, o.WinPlies))
		}
		if o.MaxOpeningScore > 0 && o.MaxOpeningScore != g.MaxOpeningScore {
			parts = append(parts, fmt.Sprintf("openings within ±%d cp from then on", o.MaxOpeningScore))
		}
		if o.LabelNodes > 0 && o.LabelNodes != g.LabelNodes {
			parts = append(parts, fmt.Sprintf("rescored by %s at %d nodes", filepath.Base(g.LabelEngine), o.LabelNodes))
		}
		if len(parts) > 0 {
			s += fmt.Sprintf("; from generation %d: %s", o.Gen, strings.Join(parts, ", "))
		}
	}
	if g.LabelNodes > 0 {
		s += fmt.Sprintf("; rescored by %s at %d nodes", filepath.Base(g.LabelEngine), g.LabelNodes)
	}
	if g.MaxOpeningScore > 0 {
		s += fmt.Sprintf("; openings within ±%d cp", g.MaxOpeningScore)
	}
	if g.WinScore > 0 || g.WinPlies > 0 {
		s += "; wins adjudicated " + winText(g.WinScore, g.WinPlies)
	}
	return s
}

// winText says a win adjudication setting; 0 is datagen's default.
func winText(score, plies int) string {
	var parts []string
	if score > 0 {
		parts = append(parts, fmt.Sprintf("above %d cp", score))
	}
	if plies > 0 {
		parts = append(parts, fmt.Sprintf("for %d plies", plies))
	}
	return strings.Join(parts, " ")
}

// sizeText says how much self-play a generation makes.
func sizeText(positions, games int64) string {
	switch {
	case positions > 0 && games > 0:
		return fmt.Sprintf("%d positions or %d games", positions, games)
	case games > 0:
		return fmt.Sprintf("%d games", games)
	}
	return fmt.Sprintf("%d positions", positions)
}

// trainingText describes how each generation trains.
func (r *genRunner) trainingText() string {
	g, t := r.g, r.m.Train
	window := "every generation's self-play"
	if g.Window > 0 {
		window = fmt.Sprintf("the last %d generations' self-play", g.Window)
	}
	if len(g.ExtraData) > 0 {
		window += " + " + strings.Join(g.ExtraData, ", ")
	}
	warm := "random start"
	if g.WarmStart {
		warm = "warm start from the previous generation's net"
	}
	for _, o := range g.Gen {
		if o.WarmStart != nil && *o.WarmStart != g.WarmStart {
			if *o.WarmStart {
				warm += fmt.Sprintf(" (generation %d: warm start)", o.Gen)
			} else {
				warm += fmt.Sprintf(" (generation %d: random start)", o.Gen)
			}
		}
	}
	sched := fmt.Sprintf("%d epoch(s)", t.Epochs)
	if t.Positions > 0 {
		sched = fmt.Sprintf("%d positions", t.Positions)
	}
	return fmt.Sprintf("%s; %s; filter %s; %s, batch %d, %s lr %g -> %g (%s), seed %d", window, warm, g.Filter, sched, t.Batch,
		t.Optim.Kind, t.Optim.LR, t.Optim.MinLR, t.Optim.Schedule, r.m.Seeds[0])
}

// eloText describes the Elo tests.
func (r *genRunner) eloText() string {
	e := r.m.Elo
	var limit []string
	if e.TC != "" {
		limit = append(limit, "tc "+e.TC)
	}
	if e.Nodes > 0 {
		limit = append(limit, fmt.Sprintf("%d nodes", e.Nodes))
	}
	if e.Depth > 0 {
		limit = append(limit, fmt.Sprintf("depth %d", e.Depth))
	}
	s := e.SPRT
	out := fmt.Sprintf("%s; gate: SPRT [%g, %g] (%s, alpha %g, beta %g) against the best net so far, at most %d games",
		strings.Join(limit, ", "), s.Elo0, s.Elo1, s.Model, s.Alpha, s.Beta, e.MaxGames)
	out += fmt.Sprintf("; %d games against gen 0", e.Games)
	if r.g.Reference != "" {
		out += fmt.Sprintf(" and against %s", r.g.Reference)
	}
	return out + fmt.Sprintf("; chunks of %d", e.Chunk)
}
