package manifest

import (
	"errors"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/bench/match"
	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/experiments/metrics"
	"github.com/nnuelab/nnuelab/internal/configerr"
	"github.com/nnuelab/nnuelab/nets/inspect"
	"github.com/nnuelab/nnuelab/nets/train"
)

// Metric names a manifest may list: the built-in ones (package metrics
// defines every metric, metrics.All).
const (
	MetricValLoss       = metrics.MetricValLoss       // loss of the engine's net on validation positions
	MetricQuantError    = metrics.MetricQuantError    // float vs quantized output, cp
	MetricAgreement     = metrics.MetricAgreement     // against Stockfish 15.1's NNUE evaluation
	MetricEvalSpeed     = metrics.MetricEvalSpeed     // incremental evaluations per second, ratio to base
	MetricBenchNPS      = metrics.MetricBenchNPS      // `nnuelab bench` nodes per second, ratio to base
	MetricHistoryShares = metrics.MetricHistoryShares // accumulator updates by distance, refreshes
	MetricSparsity      = metrics.MetricSparsity      // zero first-layer outputs, non-zero 4-byte groups, dead neurons (nets/inspect)
	MetricSaturation    = metrics.MetricSaturation    // outputs at the activation's ceiling, quantized weights at the clip (nets/inspect)
	MetricElo           = metrics.MetricElo           // `nnuelab match` against the base (or the classical engine)
)

// Metrics returns every metric name, in report order (metrics.All): the
// built-in ones and, after the measure task's, those registered in
// package metrics (metrics.Register).
func Metrics() []string {
	var names []string
	for _, d := range metrics.All() {
		names = append(names, d.Name)
	}
	return names
}

// Listed returns the metrics the manifest lists, in report order.
func (m *Manifest) Listed() []*metrics.Def {
	var out []*metrics.Def
	for _, d := range metrics.All() {
		if m.Has(d.Name) {
			out = append(out, d)
		}
	}
	return out
}

// ListsTask reports whether the manifest lists a metric measured in tasks
// of kind (metrics.TaskMeasure, ...).
func (m *Manifest) ListsTask(kind string) bool {
	for _, d := range m.Listed() {
		if d.TaskKind() == kind {
			return true
		}
	}
	return false
}

// MeasureMetrics returns the metrics of the measure task a manifest lists,
// in report order (the task's key names them).
func (m *Manifest) MeasureMetrics() []string {
	var out []string
	for _, d := range m.Listed() {
		if d.TaskKind() == metrics.TaskMeasure {
			out = append(out, d.Name)
		}
	}
	return out
}

// sections are the manifest sections a metric may need (metrics.Def
// Section): whether the manifest has it, and what it should say.
var sections = map[string]struct {
	given func(m *Manifest) bool
	hint  string
}{
	"elo": {func(m *Manifest) bool { return m.Elo != nil }, "games or sprt, tc or nodes"},
}

// Manifest is a parsed and validated experiment file. Paths in it are
// resolved against the manifest's folder.
type Manifest struct {
	// Name identifies the experiment (results folder, report file); it
	// defaults to the file name without .toml.
	Name string `toml:"name" json:"name"`
	// Title, Description, Claim and Source are the report's heading, its
	// introduction, the published claim under test and where it was
	// published.
	Title       string `toml:"title" json:"title,omitempty"`
	Description string `toml:"description" json:"description,omitempty"`
	Claim       string `toml:"claim" json:"claim,omitempty"`
	Source      string `toml:"source" json:"source,omitempty"`
	// Seeds are the training seeds (one net per variant and seed); the
	// first also seeds the opening order. Default [1].
	Seeds    []uint64 `toml:"-" json:"seeds"`
	RawSeeds []int64  `toml:"seeds" json:"-"` // as decoded: TOML integers are signed
	// Metrics lists what to measure (see Metrics()).
	Metrics []string `toml:"metrics" json:"metrics"`

	// Base is the reference every ratio and Elo is measured against.
	Base VariantSpec `toml:"base" json:"base"`
	// Variants are the alternatives, explicit ones first, then the grid's.
	Variants []VariantSpec `toml:"variant" json:"variants"`
	// Grid maps arch keys to lists of values; their cartesian product
	// adds one variant per combination (overrides of the base).
	Grid map[string]any `toml:"grid" json:"-"`

	Positions PositionsSpec `toml:"positions" json:"positions"`
	Speed     SpeedSpec     `toml:"speed" json:"speed"`
	Loss      train.Loss    `toml:"loss" json:"loss"`
	Data      *DataSpec     `toml:"data" json:"data,omitempty"`
	Train     *TrainSpec    `toml:"train" json:"train,omitempty"`
	Elo       *EloSpec      `toml:"elo" json:"elo,omitempty"`
	// Datagen and Label are datasets the runner makes (makedata.go);
	// data lists refer to them as "datagen:NAME" and "label:NAME".
	Datagen []DatagenSpec `toml:"datagen" json:"datagen,omitempty"`
	Label   []LabelSpec   `toml:"label" json:"label,omitempty"`
	// Generations, when given, makes this a generations manifest
	// (generations.go): the runner plays self-play with the best net so
	// far, trains the next net, gates it, and repeats, each generation
	// expanded into ordinary sub-experiments. [base], [[variant]], [grid],
	// [[datagen]] and [[label]] are not allowed beside it.
	Generations *GenerationsSpec `toml:"generations" json:"generations,omitempty"`
	// Scaling, when given, adds the Elo-versus-positions curve of variants
	// that differ only in their data to the report (scaling.go).
	Scaling *ScalingSpec `toml:"scaling" json:"scaling,omitempty"`

	// File is the manifest's path as given, Dir its folder (absolute).
	File string `toml:"-" json:"file"`
	Dir  string `toml:"-" json:"dir"`
}

// VariantSpec is one architecture variant: an arch (the base's unless
// given) with overrides of its keys, and optionally its own net file.
type VariantSpec struct {
	// Name is the variant's identifier in file names and results
	// (letters, digits and ._=+- ); Label its name in the report.
	Name  string `toml:"name" json:"name"`
	Label string `toml:"label" json:"label,omitempty"`
	// Arch is an architecture name from archs/ or a .toml path.
	Arch string `toml:"arch" json:"arch,omitempty"`
	// Overrides are "key=value" assignments of arch keys (TOML values),
	// e.g. "features.mirror=\"none\"", "history=2", "quant.qa=64".
	Overrides []string `toml:"overrides" json:"overrides,omitempty"`
	// Net is a network file; empty: the variant's trained net with a
	// [train] section, else the architecture's shipped net. A variant that
	// names no arch is the base plus its overrides and uses the base's net.
	Net string `toml:"net" json:"net,omitempty"`
	// NetID is not a manifest key: the generations driver sets it when Net
	// is a net another plan makes (a trained generation's file in the
	// cache, identified by its training's cache key) or whose hash it
	// knows. The plan then keys the net by NetID and neither hashes nor
	// loads the file, which need not exist yet.
	NetID string `toml:"-" json:"net_id,omitempty"`
	// Data, if given, are this variant's training files instead of [data]
	// train (a data-source ablation); validation stays [data]'s, so that
	// the losses compare.
	Data []string `toml:"data" json:"data,omitempty"`
	// Train, if given, overrides keys of [train] for this variant (a
	// schedule or regularisation ablation); the other keys stay [train]'s.
	Train *TrainOverride `toml:"train" json:"train,omitempty"`
	// spec is the variant's architecture, made once when the manifest is
	// validated (checkVariant): the arch with the overrides parsed and
	// applied as typed values (Manifest.Spec returns it).
	spec *archs.Spec
}

// TrainOverride holds the [train] keys a variant may set for itself; nil
// fields keep the manifest's value.
type TrainOverride struct {
	Epochs      *int     `toml:"epochs" json:"epochs,omitempty"`
	LR          *float64 `toml:"lr" json:"lr,omitempty"`
	MinLR       *float64 `toml:"min_lr" json:"min_lr,omitempty"`
	WeightDecay *float64 `toml:"weight_decay" json:"weight_decay,omitempty"`
	Factorize   *string  `toml:"factorize" json:"factorize,omitempty"`
	DecayScope  *string  `toml:"decay_scope" json:"decay_scope,omitempty"`
	// The training recipe's other knobs, for recipe ablations: the
	// score/result blend of the training target (lambda, default [loss]'s;
	// the val_loss metric keeps [loss]'s), its schedule's end, the
	// learning-rate schedule and the batch size.
	Lambda    *float64 `toml:"lambda" json:"lambda,omitempty"`
	LambdaEnd *float64 `toml:"lambda_end" json:"lambda_end,omitempty"`
	Schedule  *string  `toml:"schedule" json:"schedule,omitempty"`
	Batch     *int     `toml:"batch" json:"batch,omitempty"`
	// Filter replaces [train] filter for this variant, e.g. a one-in-N
	// subsample of the same data ("default,one-in=4").
	Filter *string `toml:"filter" json:"filter,omitempty"`
	// ShuffleBuffer replaces [train] shuffle_buffer for this variant (the
	// streamed and the in-memory shuffle of the same data, compared).
	ShuffleBuffer *int `toml:"shuffle_buffer" json:"shuffle_buffer,omitempty"`
}

// PositionsSpec is the position set of the agreement and quantization
// metrics.
type PositionsSpec struct {
	// File is an EPD/FEN file; empty means the built-in 3,000 positions
	// (experiments/data/positions.epd, sampled from Stockfish 15.1
	// self-play), whose Stockfish 15.1 evaluations are built in too.
	File string `toml:"file" json:"file,omitempty"`
	// Limit uses only the first Limit positions (0 = all).
	Limit int `toml:"limit" json:"limit,omitempty"`
}

// SpeedSpec shapes the search-driven metrics (history shares, evaluations/s,
// bench nps).
type SpeedSpec struct {
	// Positions is how many positions of the position set are searched
	// (spread evenly over it), Nodes the node budget of each search.
	Positions int `toml:"positions" json:"positions"`
	Nodes     int `toml:"nodes" json:"nodes"`
	// Rounds of interleaved timing; the ratio reported is the median of
	// the per-round ratios, with their range.
	Rounds int `toml:"rounds" json:"rounds"`
	// BenchDepth is the depth of `nnuelab bench` for bench_nps.
	BenchDepth int `toml:"bench_depth" json:"bench_depth"`
}

// DataSpec names the training and validation data.
type DataSpec struct {
	Train      []string `toml:"train" json:"train,omitempty"`
	Validation []string `toml:"validation" json:"validation,omitempty"`
	// ValFraction is held out of Train (by board hash) when no Validation
	// is given, for the trainer's validation loss.
	ValFraction float64 `toml:"val_fraction" json:"val_fraction"`
	// MaxPositions limits the training positions read (0 = all).
	MaxPositions int `toml:"max_positions" json:"max_positions,omitempty"`
	// ValLimit limits the positions val_loss reads (0 = all).
	ValLimit int `toml:"val_limit" json:"val_limit,omitempty"`
}

// TrainSpec is the [train] section: the keys of nets/train's Config
// (and its Optim), decoded straight into it (their toml tags name the
// keys), plus what only a manifest says. The plan fills in the rest of a
// run's Config (TrainConfig: the architecture, the data, [loss], the seed)
// and the trainer's own Validate checks it.
type TrainSpec struct {
	// Config holds epochs, epoch_size, positions, batch, threads,
	// shuffle_buffer, init, qat, factorize and the optimizer's optimizer,
	// lr, min_lr, weight_decay, decay_scope, schedule, step_epochs, gamma
	// and warmup. QAT and Factorize stay "auto" (the default) here; the
	// plan resolves them per architecture (train.QATFor, FactorizeFor) so
	// that a net's cache key says what was done.
	train.Config
	// InitID is not a manifest key: the generations driver sets it when
	// Init is a net another plan makes, to key the warm start by that
	// net's identity (its training's cache key) without the file.
	InitID string `toml:"-" json:"init_id,omitempty"`
	// Filter drops positions as the trainer reads them: "none" (the
	// default), "default" (datasets.DefaultFilter: from ply 16, not in
	// check, quiet move, |score| <= 30000) or a list as
	// datasets.ParseFilter reads it ("min-ply=16,skip-check").
	Filter string `toml:"filter" json:"filter,omitempty"`
	// Lambda, if set, is the training target's weight of the score
	// (against the game's result) instead of [loss] lambda, which stays the
	// validation loss's so that losses compare across recipes; a variant
	// may override it. LambdaEnd, if set, moves it linearly to LambdaEnd
	// over the run (nets/train's Loss.LambdaEnd).
	LambdaEnd *float64 `toml:"lambda_end" json:"lambda_end,omitempty"`
	Lambda    *float64 `toml:"lambda" json:"lambda,omitempty"`
	// minLRDefault says min_lr was not given: it follows lr (1%), also
	// when a variant overrides lr.
	minLRDefault bool
}

// Elo opponents: who the variants play.
const (
	// OpponentBase: every variant but the base plays the base.
	OpponentBase = "base"
	// OpponentClassical: every variant, the base included, plays nnuelab
	// with its classical (PeSTO) evaluation, the baseline a net must beat.
	OpponentClassical = "classical"
)

// EloSpec is the Elo test of every variant against the base (or, with
// Opponent "classical", of every variant against the classical engine).
type EloSpec struct {
	// Opponent is OpponentBase (the default, stored empty) or
	// OpponentClassical.
	Opponent string `toml:"opponent" json:"opponent,omitempty"`
	// Games is a fixed number of games (even), played in chunks of Chunk
	// games, one task each. With SPRT, MaxGames bounds the test instead.
	Games    int       `toml:"games" json:"games,omitempty"`
	SPRT     *SPRTSpec `toml:"sprt" json:"sprt,omitempty"`
	MaxGames int       `toml:"max_games" json:"max_games,omitempty"`
	Chunk    int       `toml:"chunk" json:"chunk"`
	// TC is a clock ("10+0.1"); Nodes or Depth fix the search instead (or
	// as well).
	TC    string `toml:"tc" json:"tc,omitempty"`
	Nodes int    `toml:"nodes" json:"nodes,omitempty"`
	Depth int    `toml:"depth" json:"depth,omitempty"`
	// Openings is an EPD or PGN book; empty means the built-in
	// unbalanced-8ply book. Order is "sequential" (each chunk starts where
	// the previous ends) or "random".
	Openings string `toml:"openings" json:"openings,omitempty"`
	Order    string `toml:"order" json:"order"`
	// Concurrency is the games one task plays at once; Hash the engines'
	// hash in MB.
	Concurrency int `toml:"concurrency" json:"concurrency"`
	Hash        int `toml:"hash" json:"hash"`
	MaxMoves    int `toml:"maxmoves" json:"maxmoves,omitempty"`
	// Adjudicate applies fishtest-style adjudication (draw after move 40
	// when both scores stay within 10 cp for 8 moves; resign at 600 cp for
	// 3 moves). Default true.
	Adjudicate bool `toml:"adjudicate" json:"adjudicate"`
	// Variants limits the test to the named variants (default: all). Elo
	// is the dearest metric by far; a manifest that measures many variants
	// cheaply can play only those whose speed or loss makes a difference
	// likely. Not part of a chunk's key: a chunk of a listed variant stays
	// valid when the list changes.
	Variants []string `toml:"variants" json:"variants,omitempty"`
}

// Tests reports whether the Elo test plays variant name.
func (e *EloSpec) Tests(name string) bool {
	return len(e.Variants) == 0 || slices.Contains(e.Variants, name)
}

// SPRTSpec are the bounds of a sequential test.
type SPRTSpec struct {
	Elo0  float64 `toml:"elo0" json:"elo0"`
	Elo1  float64 `toml:"elo1" json:"elo1"`
	Alpha float64 `toml:"alpha" json:"alpha"`
	Beta  float64 `toml:"beta" json:"beta"`
	Model string  `toml:"model" json:"model"`
}

// Error is a problem in a manifest: the file, the key and the reason (the
// one configerr.Error of every strict config reader).
type Error = configerr.Error

// Load reads and validates the manifest at path.
func Load(path string) (*Manifest, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("experiment manifest: %w", err)
	}
	dir, err := filepath.Abs(filepath.Dir(path))
	if err != nil {
		return nil, err
	}
	return Parse(path, dir, data)
}

// maxVariants bounds a manifest's variants (explicit and grid).
const maxVariants = 1000

var nameRE = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._=+-]*$`)

// Parse decodes and validates a manifest; file names it in errors and dir
// is the folder relative paths resolve against.
func Parse(file, dir string, data []byte) (*Manifest, error) {
	var m Manifest
	// The grid's keys are arch keys, checked when it is expanded.
	grid := func(k toml.Key) bool { return len(k) > 0 && k[0] == "grid" }
	md, err := configerr.DecodeTOML(file, data, &m, grid)
	if err != nil {
		return nil, err
	}
	m.File, m.Dir = file, dir
	if err := m.defaults(md); err != nil {
		err.File = file
		return nil, err
	}
	if m.Generations != nil {
		if err := m.checkGenerations(md); err != nil {
			err.File = file
			return nil, err
		}
		return &m, nil
	}
	if err := m.Validate(); err != nil {
		err.File = file
		return nil, err
	}
	return &m, nil
}

func (m *Manifest) defaults(md toml.MetaData) *Error {
	if m.Name == "" {
		base := filepath.Base(m.File)
		m.Name = strings.TrimSuffix(base, filepath.Ext(base))
	}
	for _, s := range m.RawSeeds {
		if s < 0 {
			return &Error{Key: "seeds", Reason: fmt.Sprintf("seed %d is negative", s)}
		}
		m.Seeds = append(m.Seeds, uint64(s))
	}
	if !md.IsDefined("seeds") {
		m.Seeds = []uint64{1}
	}
	if m.Base.Name == "" {
		m.Base.Name = "base"
	}
	sp := &m.Speed
	if !md.IsDefined("speed", "positions") {
		sp.Positions = 8
	}
	if !md.IsDefined("speed", "nodes") {
		sp.Nodes = 10000
	}
	if !md.IsDefined("speed", "rounds") {
		sp.Rounds = 5
	}
	if !md.IsDefined("speed", "bench_depth") {
		sp.BenchDepth = 9
	}
	l := &m.Loss
	if !md.IsDefined("loss", "kind") {
		l.Kind = "mpe"
	}
	if !md.IsDefined("loss", "power") {
		l.Power = 2.5
	}
	if !md.IsDefined("loss", "scale") {
		l.Scale = 2.5 / 400
	}
	if !md.IsDefined("loss", "lambda") {
		l.Lambda = 0.5
	}
	if d := m.Data; d != nil && !md.IsDefined("data", "val_fraction") {
		d.ValFraction = 0.02
	}
	if t := m.Train; t != nil {
		// The trainer's defaults for what a manifest cannot set (Adam's
		// betas and epsilon), the manifest's own for the rest: they are
		// older than the trainer's (lr 0.001, not 0.01) and every trained
		// net's cache key holds them. step_epochs and gamma stay 0 unless
		// given, as the keys hold them.
		d := train.DefaultConfig()
		t.Optim.Beta1, t.Optim.Beta2, t.Optim.Eps = d.Optim.Beta1, d.Optim.Beta2, d.Optim.Eps
		def := map[string]func(){
			"epochs":       func() { t.Epochs = 20 },
			"batch":        func() { t.Batch = 16384 },
			"optimizer":    func() { t.Optim.Kind = "adamw" },
			"lr":           func() { t.Optim.LR = 0.001 },
			"min_lr":       func() { t.Optim.MinLR = -1 }, // 1% of lr, filled in below
			"weight_decay": func() { t.Optim.WeightDecay = 0.01 },
			"schedule":     func() { t.Optim.Schedule = "cosine" },
			"qat":          func() { t.QAT = "auto" },
			"factorize":    func() { t.Factorize = "auto" },
			"decay_scope":  func() { t.Optim.DecayScope = "all" },
		}
		for k, f := range def {
			if !md.IsDefined("train", k) {
				f()
			}
		}
		if t.Optim.MinLR < 0 {
			t.Optim.MinLR, t.minLRDefault = t.Optim.LR/100, true
		}
	}
	if err := m.DefaultsMade(); err != nil {
		return err
	}
	if e := m.Elo; e != nil {
		if !md.IsDefined("elo", "chunk") {
			e.Chunk = 100
		}
		if !md.IsDefined("elo", "order") {
			e.Order = "sequential"
		}
		if !md.IsDefined("elo", "concurrency") {
			e.Concurrency = 1
		}
		if !md.IsDefined("elo", "hash") {
			e.Hash = 16
		}
		if !md.IsDefined("elo", "adjudicate") {
			e.Adjudicate = true
		}
		if s := e.SPRT; s != nil {
			if !md.IsDefined("elo", "sprt", "alpha") {
				s.Alpha = 0.05
			}
			if !md.IsDefined("elo", "sprt", "beta") {
				s.Beta = 0.05
			}
			if !md.IsDefined("elo", "sprt", "model") {
				s.Model = "normalized"
			}
		}
	}
	return nil
}

// Validate checks a manifest whose defaults are filled in: what Parse runs
// last, and what the generations driver runs on the manifests it builds.
func (m *Manifest) Validate() *Error {
	bad := func(key, format string, a ...any) *Error {
		return &Error{Key: key, Reason: fmt.Sprintf(format, a...)}
	}
	if !nameRE.MatchString(m.Name) {
		return bad("name", "%q: use letters, digits and ._=+- (it names files)", m.Name)
	}
	seen := map[uint64]bool{}
	for _, s := range m.Seeds {
		if seen[s] {
			return bad("seeds", "seed %d given twice", s)
		}
		seen[s] = true
	}
	if len(m.Seeds) == 0 {
		return bad("seeds", "needs at least one seed")
	}
	if m.Scaling != nil {
		if err := m.Scaling.check(m); err != nil {
			return bad("scaling", "%v", err)
		}
	}
	if len(m.Metrics) == 0 {
		return bad("metrics", "lists nothing to measure (choose from %s)", strings.Join(Metrics(), ", "))
	}
	have := map[string]bool{}
	for _, x := range m.Metrics {
		if !slices.Contains(Metrics(), x) {
			return bad("metrics", "unknown metric %q (choose from %s)", x, strings.Join(Metrics(), ", "))
		}
		if have[x] {
			return bad("metrics", "metric %q listed twice", x)
		}
		have[x] = true
	}

	// Variants: the base, the explicit ones, then the grid's.
	if m.Base.Arch == "" {
		return bad("base.arch", "missing: name an architecture from archs/ (%s) or a .toml path", strings.Join(archs.Builtin(), ", "))
	}
	if err := m.checkVariant("base", &m.Base, nil); err != nil {
		return err
	}
	grid, err := m.expandGrid()
	if err != nil {
		return err
	}
	m.Variants = append(m.Variants, grid...)
	if len(m.Variants) > maxVariants {
		return bad("variant", "%d variants; at most %d", len(m.Variants), maxVariants)
	}
	m.Grid = nil
	names := map[string]string{m.Base.Name: "base.name"}
	for i := range m.Variants {
		key := fmt.Sprintf("variant[%d]", i)
		v := &m.Variants[i]
		if err := m.checkVariant(key, v, &m.Base); err != nil {
			return err
		}
		if prev, dup := names[v.Name]; dup {
			return bad(key+".name", "%q is also the name of %s", v.Name, prev)
		}
		names[v.Name] = key + ".name"
	}
	if e := m.checkActivations(); e != nil {
		return e
	}
	for _, d := range m.Listed() {
		if d.Compares && len(m.Variants) == 0 {
			return bad("variant", "ratios and Elo compare variants with the base; give at least one [[variant]] or a [grid]")
		}
	}

	if m.Positions.Limit < 0 {
		return bad("positions.limit", "must be >= 0, got %d", m.Positions.Limit)
	}
	if e := m.checkSpeed(); e != nil {
		return e
	}
	if e := m.checkLoss(); e != nil {
		return e
	}
	if e := m.checkTraining(); e != nil {
		return e
	}
	if e := m.checkMade(); e != nil {
		return e
	}
	if e := m.checkSections(); e != nil {
		return e
	}
	if m.Elo != nil {
		if e := m.checkElo(); e != nil {
			return e
		}
	}
	// A variant's own training data and schedule need training, and a
	// variant with a net file is not trained.
	for i, v := range m.All() {
		key := "base"
		if i > 0 {
			key = fmt.Sprintf("variant[%d]", i-1)
		}
		for _, own := range []struct {
			key, what string
			given     bool
		}{{".train", "training overrides for a variant need", v.Train != nil}, {".data", "training data for a variant needs", len(v.Data) > 0}} {
			switch {
			case !own.given:
			case m.Train == nil:
				return bad(key+own.key, "%s a [train] section", own.what)
			case v.Net != "":
				return bad(key+own.key, "a variant with a net file is not trained; give net or %s, not both", own.key[1:])
			}
		}
		if v.Train != nil {
			if e := m.checkTrain(key+".train", v); e != nil {
				return e
			}
		}
		for j, f := range v.Data {
			if strings.TrimSpace(f) == "" {
				return bad(key+".data", "file %d is an empty path", j)
			}
		}
	}
	return nil
}

// checkSections checks that a listed metric's section is given and that
// a section a metric needs is given only with that metric.
func (m *Manifest) checkSections() *Error {
	names := make([]string, 0, len(sections))
	for name := range sections {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		sec := sections[name]
		var needs []string
		for _, d := range metrics.All() {
			if d.Section != name {
				continue
			}
			if m.Has(d.Name) && !sec.given(m) {
				return &Error{Key: name, Reason: fmt.Sprintf("metric %q needs an [%s] section (%s)", d.Name, name, sec.hint)}
			}
			needs = append(needs, d.Name)
		}
		if sec.given(m) && !slices.ContainsFunc(needs, m.Has) {
			return &Error{Key: name, Reason: fmt.Sprintf("an [%s] section without %s in metrics", name, quoteAll(needs))}
		}
	}
	return nil
}

// quoteAll quotes names, joined by " or ".
func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, x := range names {
		q[i] = strconv.Quote(x)
	}
	return strings.Join(q, " or ")
}

// checkActivations checks that nets/inspect has activation statistics for
// every variant's design when the manifest asks for a metric of the
// activations task (sparsity, saturation).
func (m *Manifest) checkActivations() *Error {
	var asked []string
	for _, d := range m.Listed() {
		if d.TaskKind() == metrics.TaskActivations {
			asked = append(asked, d.Name)
		}
	}
	if len(asked) == 0 {
		return nil
	}
	for i, v := range m.All() {
		key := "base"
		if i > 0 {
			key = fmt.Sprintf("variant[%d]", i-1)
		}
		spec, err := m.Spec(v)
		if err != nil {
			return &Error{Key: key, Reason: err.Error()}
		}
		if err := inspect.StatsFor(spec); err != nil {
			return &Error{Key: "metrics", Reason: fmt.Sprintf("%s needs activation statistics of every variant; %s (%s): %v", strings.Join(asked, " and "), key, v.Name, err)}
		}
	}
	return nil
}

// checkVariant fills a variant's defaults and checks that its arch and
// overrides make a valid architecture.
func (m *Manifest) checkVariant(key string, v *VariantSpec, base *VariantSpec) *Error {
	if v.Name == "" {
		switch {
		case len(v.Overrides) > 0:
			v.Name = SanitizeName(strings.Join(v.Overrides, ","))
		case v.Arch != "":
			v.Name = SanitizeName(v.Arch)
		default:
			return &Error{Key: key + ".name", Reason: "missing (a variant needs a name, overrides or an arch)"}
		}
	}
	if !nameRE.MatchString(v.Name) || len(v.Name) > 100 {
		return &Error{Key: key + ".name", Reason: fmt.Sprintf("%q: use up to 100 letters, digits and ._=+- (it names files)", v.Name)}
	}
	if v.Label == "" {
		v.Label = v.Name
	}
	if v.Arch == "" && base != nil {
		// No arch of its own: the base plus the variant's overrides, on the
		// base's net.
		v.Arch = base.Arch
		v.Overrides = append(append([]string(nil), base.Overrides...), v.Overrides...)
		if v.Net == "" {
			v.Net = base.Net
		}
	}
	v.spec = nil
	spec, err := m.Spec(v)
	if err != nil {
		// The variant by name, and the arch's key and rule (archs.Error).
		return &Error{Key: key, Reason: fmt.Sprintf("variant %q: %v", v.Name, err)}
	}
	v.spec = spec
	return nil
}

// Spec returns the architecture of a variant: its arch with the overrides
// applied (archs.Spec.Apply), each parsed once into a typed value. A
// variant of a validated manifest keeps the one it was checked with.
func (m *Manifest) Spec(v *VariantSpec) (*archs.Spec, error) {
	if v.spec != nil {
		return v.spec, nil
	}
	spec, err := archs.Load(m.ArchRef(v.Arch))
	if err != nil {
		return nil, err
	}
	if len(v.Overrides) == 0 {
		return spec, nil
	}
	ovs, err := archs.ParseOverrides(v.Overrides...)
	if err != nil {
		return nil, err
	}
	setOnly := false
	others := false
	for _, o := range ovs {
		switch {
		case o.Key == "features.set":
			setOnly = true
		case strings.HasPrefix(o.Key, "features."):
			others = true
		}
	}
	if setOnly && !others {
		// The arch's other feature keys (mirror, king buckets, plane order,
		// kings, orientation) stay as they are, so the result is rarely
		// the preset the name suggests.
		return nil, fmt.Errorf("an override of features.set keeps the arch's other feature keys (mirror, king_buckets, plane_order, ...): give the variant its own arch (e.g. arch = \"koivisto-16\") or override those keys too")
	}
	return spec.Apply(ovs...)
}

// ArchRef resolves an arch given as a path against the manifest's folder.
func (m *Manifest) ArchRef(a string) string {
	if strings.HasSuffix(a, ".toml") || strings.ContainsRune(a, '/') || strings.ContainsRune(a, filepath.Separator) {
		return m.Path(a)
	}
	return a
}

// Path resolves a path of the manifest against its folder.
func (m *Manifest) Path(p string) string {
	if p == "" || filepath.IsAbs(p) {
		return p
	}
	return filepath.Join(m.Dir, p)
}

// SanitizeName turns s into a name usable in file names (letters, digits
// and ._=+-), as variant names must be.
func SanitizeName(s string) string {
	s = strings.NewReplacer("\"", "", "'", "", " ", "").Replace(s)
	var b strings.Builder
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', strings.ContainsRune("._=+-", r):
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	out := strings.TrimLeft(b.String(), "._=+-")
	if len(out) > 100 {
		out = out[:100]
	}
	return out
}

// expandGrid turns [grid] into variants: one per combination of values,
// keys in sorted order.
func (m *Manifest) expandGrid() ([]VariantSpec, *Error) {
	if len(m.Grid) == 0 {
		return nil, nil
	}
	flat := map[string][]string{}
	var walk func(prefix string, v any) *Error
	walk = func(prefix string, v any) *Error {
		switch x := v.(type) {
		case map[string]any:
			for k, sub := range x {
				if err := walk(prefix+k+".", sub); err != nil {
					return err
				}
			}
			return nil
		case []any:
			key := strings.TrimSuffix(prefix, ".")
			if len(x) == 0 {
				return &Error{Key: "grid." + key, Reason: "needs at least one value"}
			}
			for _, e := range x {
				lit, err := tomlLiteral(e)
				if err != nil {
					return &Error{Key: "grid." + key, Reason: err.Error()}
				}
				flat[key] = append(flat[key], lit)
			}
			return nil
		default:
			return &Error{Key: "grid." + strings.TrimSuffix(prefix, "."), Reason: "must be a list of values, e.g. [1, 2, 4]"}
		}
	}
	if err := walk("", m.Grid); err != nil {
		return nil, err
	}
	keys := make([]string, 0, len(flat))
	n := 1
	for k, vals := range flat {
		keys = append(keys, k)
		n *= len(vals)
		if n > maxVariants {
			return nil, &Error{Key: "grid", Reason: fmt.Sprintf("more than %d combinations", maxVariants)}
		}
	}
	sort.Strings(keys)
	var out []VariantSpec
	idx := make([]int, len(keys))
	for {
		var ov, nm []string
		for i, k := range keys {
			val := flat[k][idx[i]]
			ov = append(ov, k+"="+val)
			short := k[strings.LastIndex(k, ".")+1:]
			nm = append(nm, short+"="+val)
		}
		out = append(out, VariantSpec{
			Name:      SanitizeName(strings.Join(nm, ",")),
			Label:     strings.Join(nm, ", "),
			Overrides: ov,
		})
		i := len(keys) - 1
		for ; i >= 0; i-- {
			idx[i]++
			if idx[i] < len(flat[keys[i]]) {
				break
			}
			idx[i] = 0
		}
		if i < 0 {
			break
		}
	}
	// The base's arch and net, its overrides under the grid's (as for
	// explicit variants without an arch).
	for i := range out {
		out[i].Arch = m.Base.Arch
		out[i].Overrides = append(append([]string(nil), m.Base.Overrides...), out[i].Overrides...)
		out[i].Net = m.Base.Net
	}
	return out, nil
}

// tomlLiteral writes a decoded TOML value back as TOML.
func tomlLiteral(v any) (string, error) {
	switch x := v.(type) {
	case string:
		return strconv.Quote(x), nil
	case int64:
		return strconv.FormatInt(x, 10), nil
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", fmt.Errorf("value %v is not a usable number", x)
		}
		s := strconv.FormatFloat(x, 'g', -1, 64)
		if !strings.ContainsAny(s, ".eE") {
			s += ".0"
		}
		return s, nil
	case bool:
		return strconv.FormatBool(x), nil
	case []any:
		parts := make([]string, len(x))
		for i, e := range x {
			s, err := tomlLiteral(e)
			if err != nil {
				return "", err
			}
			parts[i] = s
		}
		return "[" + strings.Join(parts, ", ") + "]", nil
	}
	return "", fmt.Errorf("unsupported value %v (%T): use numbers, strings, booleans or lists of them", v, v)
}

func (m *Manifest) checkSpeed() *Error {
	bad := func(key, format string, a ...any) *Error {
		return &Error{Key: key, Reason: fmt.Sprintf(format, a...)}
	}
	sp := m.Speed
	switch {
	case sp.Positions < 1 || sp.Positions > 3000:
		return bad("speed.positions", "must be 1..3000, got %d", sp.Positions)
	case sp.Nodes < 100 || sp.Nodes > 100_000_000:
		return bad("speed.nodes", "must be 100..100000000, got %d", sp.Nodes)
	case sp.Rounds < 1 || sp.Rounds > 1000:
		return bad("speed.rounds", "must be 1..1000, got %d", sp.Rounds)
	case sp.BenchDepth < 1 || sp.BenchDepth > 64:
		return bad("speed.bench_depth", "must be 1..64, got %d", sp.BenchDepth)
	}
	return nil
}

// checkLoss checks [loss] with the trainer's rules (train.Loss.Validate):
// the one loss of training and of val_loss.
func (m *Manifest) checkLoss() *Error {
	l := m.Loss
	l.LambdaEnd = nil // training's schedule, checked with [train]
	if err := l.Validate(); err != nil {
		var se *train.SettingError
		if errors.As(err, &se) {
			return &Error{Key: "loss." + se.Key, Reason: se.Reason}
		}
		return &Error{Key: "loss", Reason: err.Error()}
	}
	return nil
}

func (m *Manifest) checkTraining() *Error {
	d, t := m.Data, m.Train
	if err := m.checkData(); err != nil {
		return err
	}
	if t == nil {
		return nil
	}
	if d == nil || len(d.Train) == 0 {
		return &Error{Key: "train", Reason: "training needs [data] train = [files]"}
	}
	return m.checkTrain("train", &VariantSpec{})
}

// checkData checks the [data] section's values.
func (m *Manifest) checkData() *Error {
	if d := m.Data; d != nil {
		if !(d.ValFraction >= 0 && d.ValFraction < 1) {
			return &Error{Key: "data.val_fraction", Reason: fmt.Sprintf("must be in [0, 1), got %v", d.ValFraction)}
		}
		if d.MaxPositions < 0 {
			return &Error{Key: "data.max_positions", Reason: "must be >= 0"}
		}
		if d.ValLimit < 0 {
			return &Error{Key: "data.val_limit", Reason: "must be >= 0"}
		}
		for i, f := range append(append([]string(nil), d.Train...), d.Validation...) {
			if strings.TrimSpace(f) == "" {
				return &Error{Key: "data", Reason: fmt.Sprintf("file %d is an empty path", i)}
			}
		}
	}
	return nil
}

// String lists the overridden keys as TOML assignments, e.g.
// "weight_decay = 0.3, epochs = 4".
func (o *TrainOverride) String() string {
	if o == nil {
		return ""
	}
	var parts []string
	add := func(k string, v any) { parts = append(parts, fmt.Sprintf("%s = %v", k, v)) }
	if o.Epochs != nil {
		add("epochs", *o.Epochs)
	}
	if o.LR != nil {
		add("lr", *o.LR)
	}
	if o.MinLR != nil {
		add("min_lr", *o.MinLR)
	}
	if o.WeightDecay != nil {
		add("weight_decay", *o.WeightDecay)
	}
	if o.Factorize != nil {
		add("factorize", fmt.Sprintf("%q", *o.Factorize))
	}
	if o.DecayScope != nil {
		add("decay_scope", fmt.Sprintf("%q", *o.DecayScope))
	}
	if o.Lambda != nil {
		add("lambda", *o.Lambda)
	}
	if o.LambdaEnd != nil {
		add("lambda_end", *o.LambdaEnd)
	}
	if o.Schedule != nil {
		add("schedule", fmt.Sprintf("%q", *o.Schedule))
	}
	if o.Batch != nil {
		add("batch", *o.Batch)
	}
	if o.Filter != nil {
		add("filter", fmt.Sprintf("%q", *o.Filter))
	}
	if o.ShuffleBuffer != nil {
		add("shuffle_buffer", *o.ShuffleBuffer)
	}
	return strings.Join(parts, ", ")
}

// TrainOverride describes the [variant.train] of the variant called name,
// e.g. "train: weight_decay = 3", or "" when it has none.
func (m *Manifest) TrainOverride(name string) string {
	for _, v := range m.All() {
		if v.Name == name && v.Train != nil {
			return "train: " + v.Train.String()
		}
	}
	return ""
}

// TrainFor returns the training schedule of variant v: [train] with the
// variant's own overrides applied, or nil without a [train] section.
func (m *Manifest) TrainFor(v *VariantSpec) *TrainSpec {
	if m.Train == nil {
		return nil
	}
	t := *m.Train
	if o := v.Train; o != nil {
		if o.Epochs != nil {
			t.Epochs = *o.Epochs
		}
		if o.LR != nil {
			t.Optim.LR = *o.LR
			if t.minLRDefault {
				t.Optim.MinLR = t.Optim.LR / 100
			}
		}
		if o.MinLR != nil {
			t.Optim.MinLR = *o.MinLR
		}
		if o.WeightDecay != nil {
			t.Optim.WeightDecay = *o.WeightDecay
		}
		if o.Factorize != nil {
			t.Factorize = *o.Factorize
		}
		if o.DecayScope != nil {
			t.Optim.DecayScope = *o.DecayScope
		}
		if o.Lambda != nil {
			t.Lambda = o.Lambda
		}
		if o.LambdaEnd != nil {
			t.LambdaEnd = o.LambdaEnd
		}
		if o.Schedule != nil {
			t.Optim.Schedule = *o.Schedule
		}
		if o.Batch != nil {
			t.Batch = *o.Batch
		}
		if o.Filter != nil {
			t.Filter = *o.Filter
		}
		if o.ShuffleBuffer != nil {
			t.ShuffleBuffer = *o.ShuffleBuffer
		}
	}
	return &t
}

// check validates a variant's training schedule with the trainer's own
// rules (train.Config.ValidateSettings) on the config the plan would
// give it; key names its TOML table ("train" or "variant[2].train") in
// errors.
func (m *Manifest) checkTrain(key string, v *VariantSpec) *Error {
	t := m.TrainFor(v)
	if _, err := t.DataFilter(); err != nil {
		return &Error{Key: key + ".filter", Reason: err.Error()}
	}
	cfg := m.TrainConfig(v)
	return m.TrainError(key, v, cfg.ValidateSettings())
}

// TrainConfig is the trainer's config of variant v's training as far as
// the manifest says it: [train] with the variant's overrides, [loss] with
// [train]'s lambda and lambda_end, [data]'s val_fraction and
// max_positions. The plan adds the architecture, the files, the seed, the
// output and the filter, and resolves qat and factorize.
func (m *Manifest) TrainConfig(v *VariantSpec) train.Config {
	t := m.TrainFor(v)
	cfg := t.Config
	cfg.Loss = m.Loss
	cfg.Loss.LambdaEnd = t.LambdaEnd
	if t.Lambda != nil {
		cfg.Loss.Lambda = *t.Lambda
	}
	if m.Data != nil {
		cfg.ValFraction, cfg.MaxPositions = m.Data.ValFraction, m.Data.MaxPositions
	}
	return cfg
}

// TrainError maps an error of the trainer's Validate on variant v's
// config (TrainConfig) to the manifest's file and key: key is the
// variant's training table ("train" or "variant[2].train"); a loss key
// is [loss]'s unless the training sets it (lambda, lambda_end), [data]'s
// keys are [data]'s. Nil stays nil.
func (m *Manifest) TrainError(key string, v *VariantSpec, err error) *Error {
	if err == nil {
		return nil
	}
	var se *train.SettingError
	if !errors.As(err, &se) {
		return &Error{File: m.File, Key: key, Reason: err.Error()}
	}
	k := key + "." + se.Key
	switch se.Key {
	case "kind", "power", "scale":
		k = "loss." + se.Key
	case "lambda":
		if t := m.TrainFor(v); t == nil || t.Lambda == nil {
			k = "loss.lambda"
		}
	case "max_positions", "val_fraction":
		k = "data." + se.Key
	}
	return &Error{File: m.File, Key: k, Reason: se.Reason}
}

// DataFilter returns the training filter (nil: keep every position).
func (t *TrainSpec) DataFilter() (*datasets.Filter, error) {
	if t.Filter == "" {
		return nil, nil
	}
	f, err := datasets.ParseFilter(t.Filter)
	if err != nil {
		return nil, err
	}
	if f != nil {
		if err := f.Check(); err != nil {
			return nil, err
		}
	}
	return f, nil
}

func (m *Manifest) checkElo() *Error {
	e := m.Elo
	bad := func(key, format string, a ...any) *Error {
		return &Error{Key: "elo." + key, Reason: fmt.Sprintf(format, a...)}
	}
	if e.SPRT == nil {
		if e.Games < 2 || e.Games%2 != 0 {
			return bad("games", "must be an even number >= 2 (or give [elo.sprt]), got %d", e.Games)
		}
		if e.MaxGames != 0 {
			return bad("max_games", "bounds an SPRT; with a fixed number of games use games")
		}
	} else {
		if e.Games != 0 {
			return bad("games", "give games (fixed) or [elo.sprt] (sequential), not both")
		}
		if e.MaxGames < 2 || e.MaxGames%2 != 0 {
			return bad("max_games", "an SPRT needs an even max_games >= 2, got %d", e.MaxGames)
		}
		s := e.SPRT
		if !slices.Contains([]string{"normalized", "logistic"}, s.Model) {
			return bad("sprt.model", "%q is not one of normalized, logistic", s.Model)
		}
		if !(s.Elo1 > s.Elo0) {
			return bad("sprt.elo1", "must be above elo0 (%v), got %v", s.Elo0, s.Elo1)
		}
		if !(s.Alpha > 0 && s.Alpha < 0.5) || !(s.Beta > 0 && s.Beta < 0.5) {
			return bad("sprt.alpha", "alpha and beta must be in (0, 0.5)")
		}
	}
	switch e.Opponent {
	case "", OpponentBase:
		e.Opponent = "" // one spelling, so that plan keys do not depend on it
	case OpponentClassical:
	default:
		return bad("opponent", "%q is not one of %s, %s", e.Opponent, OpponentBase, OpponentClassical)
	}
	if e.Chunk < 2 || e.Chunk%2 != 0 {
		return bad("chunk", "must be an even number >= 2, got %d", e.Chunk)
	}
	if e.TC == "" && e.Nodes == 0 && e.Depth == 0 {
		return bad("tc", "give a time control (tc = \"10+0.1\"), nodes or depth")
	}
	if e.TC != "" {
		if _, err := match.ParseTimeControl(e.TC); err != nil {
			return bad("tc", "%v", err)
		}
	}
	if e.Nodes < 0 || e.Depth < 0 || e.Depth > 100 {
		return bad("nodes", "nodes must be >= 0 and depth 0..100")
	}
	if !slices.Contains([]string{"sequential", "random"}, e.Order) {
		return bad("order", "%q is not one of sequential, random", e.Order)
	}
	if e.Concurrency < 1 || e.Concurrency > 256 {
		return bad("concurrency", "must be 1..256, got %d", e.Concurrency)
	}
	if e.Hash < 1 || e.Hash > 32768 {
		return bad("hash", "must be 1..32768 MB, got %d", e.Hash)
	}
	if e.MaxMoves < 0 {
		return bad("maxmoves", "must be >= 0")
	}
	seen := map[string]bool{}
	for _, name := range e.Variants {
		switch {
		case seen[name]:
			return bad("variants", "%q is listed twice", name)
		case name == m.Base.Name && e.Opponent != OpponentClassical:
			return bad("variants", "%q is the base, which every variant plays against", name)
		case name != m.Base.Name && !slices.ContainsFunc(m.Variants, func(v VariantSpec) bool { return v.Name == name }):
			return bad("variants", "%q is not a variant of this manifest", name)
		}
		seen[name] = true
	}
	return nil
}

// Has reports whether the manifest lists metric x.
func (m *Manifest) Has(x string) bool { return slices.Contains(m.Metrics, x) }

// All returns the base followed by the variants.
func (m *Manifest) All() []*VariantSpec {
	out := []*VariantSpec{&m.Base}
	for i := range m.Variants {
		out = append(out, &m.Variants[i])
	}
	return out
}
