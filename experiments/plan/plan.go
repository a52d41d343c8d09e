package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"
	"github.com/samber/lo"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/experiments/data"
	"github.com/nnuelab/nnuelab/experiments/manifest"
	"github.com/nnuelab/nnuelab/experiments/metrics"
	"github.com/nnuelab/nnuelab/internal/fsutil"
	"github.com/nnuelab/nnuelab/nets"
	"github.com/nnuelab/nnuelab/nets/sfnet"
	"github.com/nnuelab/nnuelab/nets/train"
)

// KeyVersion is hashed into every task's key: it changes when the meaning
// of a task's result changes, so that results of an older runner are
// recomputed rather than reused. (It was PlanVersion, 2, until the plan
// file's version went its own way: the committed results' keys hold 2.)
const KeyVersion = 2

// FileVersion is the version of OUT/plan.json, which the task processes
// read: 3 since a variant's trained nets are keyed by its net identity
// (NetSHA256: runtime settings out) beside its arch hash, so that a plan
// an older runner wrote is refused rather than read without it.
const FileVersion = 3

// Task kinds.
const (
	KindTrain = "train"
	// The kinds that measure metrics (metrics.Def Task).
	KindMeasure     = metrics.TaskMeasure
	KindActivations = metrics.TaskActivations // sparsity and saturation
	KindSpeed       = metrics.TaskSpeed
	KindElo         = metrics.TaskElo
	KindDatagen     = "datagen" // a self-play shard (makedata.go)
	KindLabel       = "label"   // a labelling shard
)

// Plan is an expanded manifest: every variant with its architecture and
// nets, and the tasks that measure them. It is written to OUT/plan.json;
// the task processes (local or on Slurm nodes) read it from there.
type Plan struct {
	Version  int                `json:"version"`
	Manifest *manifest.Manifest `json:"manifest"`
	// ManifestSHA256 is the hash of the manifest file's bytes.
	ManifestSHA256 string `json:"manifest_sha256"`
	// Command regenerates the results ("nnuelab experiment run FILE").
	Command string `json:"command"`
	// Binary is the nnuelab executable tasks run for bench and match.
	Binary string `json:"binary"`
	// Out is the results folder, Cache the trained-net cache (absolute).
	Out   string `json:"out"`
	Cache string `json:"cache"`

	// Positions is the position set (a path or builtin:...), Validation
	// the val_loss files, Openings the Elo book; each with its hash.
	Positions        string   `json:"positions"`
	PositionsSHA256  string   `json:"positions_sha256"`
	Validation       []string `json:"validation,omitempty"`
	ValidationSHA256 string   `json:"validation_sha256,omitempty"`
	Openings         string   `json:"openings,omitempty"`
	OpeningsSHA256   string   `json:"openings_sha256,omitempty"`
	// DataSHA256 identifies the training data (all files, in order).
	DataSHA256 string `json:"data_sha256,omitempty"`

	// Skipped are metrics of the manifest left out of this run (--skip);
	// the report lists them as pending.
	Skipped []string `json:"skipped,omitempty"`
	// DiffSHA256 is the sha256 of `git diff HEAD` of a run by a binary
	// built from a dirty tree (RunOptions.AllowDirty), which every task
	// result of the run records.
	DiffSHA256 string `json:"diff_sha256,omitempty"`

	// KeepNets copies every net the plan trains into OUT/nets/TASK/
	// (net.nnue.zst and done.json), beside the results, so that they are
	// committed with them; a train task whose net is lost from the cache
	// takes that copy instead of training again (NetCopyDir). The
	// generations loop keeps its nets: each generation's self-play is
	// played by the previous one's, and a retraining by a later trainer
	// build need not give the same bytes.
	KeepNets bool `json:"keep_nets,omitempty"`

	// Made are the datasets the plan makes (datagen and label shards).
	Made     []*MadeData `json:"made,omitempty"`
	Variants []*Variant  `json:"variants"`
	Tasks    []*Task     `json:"tasks"`

	// Adoptable holds the Elo chunks another experiment has played (set for
	// a dry run, which shows them as adopted rather than to run).
	Adoptable EloIndex `json:"-" toml:"-"`
}

// Variant is one architecture of the experiment, resolved.
type Variant struct {
	Name      string   `json:"name"`
	Label     string   `json:"label"`
	Base      bool     `json:"base,omitempty"`
	Arch      string   `json:"arch"`
	Overrides []string `json:"overrides,omitempty"`
	// Spec is the architecture as TOML, as engines load it (for trained
	// nets with the float net format); SpecFile is where it is written,
	// relative to the results folder.
	Spec     string `json:"spec"`
	SpecFile string `json:"spec_file"`
	// ArchSHA256 is the architecture as the engine runs it (runtime
	// settings included: archs.Spec.SHA256), which its measurements
	// depend on; records and reports name it. NetSHA256 is the net's
	// identity (archs.Spec.NetSHA256: history and refresh_cache as the
	// arch file gives them), which keys its trained nets and which a warm
	// start must match.
	ArchSHA256 string `json:"arch_sha256"`
	NetSHA256  string `json:"net_arch_sha256"`
	Trained    bool   `json:"trained,omitempty"`
	// Nets holds the variant's net for each seed, in Manifest.Seeds order.
	Nets []NetRef `json:"nets"`
}

// NetRef says where a variant's net comes from.
type NetRef struct {
	Seed uint64 `json:"seed"`
	// Kind is "shipped" (the arch's net in nets/), "stockfish" (Stockfish
	// 15.1's own net, exported from the installed binary), "file" or
	// "trained" (in the cache, made by task Train).
	Kind string `json:"kind"`
	// Path is the net file ("" for shipped and stockfish nets).
	Path string `json:"path,omitempty"`
	// SHA256 is the file's hash, or for trained nets the content key
	// (arch + data + training config + seed).
	SHA256 string `json:"sha256"`
	Train  string `json:"train,omitempty"`
}

// Task is one unit of work: one process of `nnuelab experiment task`, one
// element of a Slurm array.
type Task struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"`
	Variant string `json:"variant,omitempty"`
	Seed    uint64 `json:"seed,omitempty"`
	// Elo chunks: the chunk number, its games and first opening.
	Chunk int `json:"chunk,omitempty"`
	Games int `json:"games,omitempty"`
	Start int `json:"start,omitempty"`
	// Needs are the tasks that must finish first.
	Needs []string `json:"needs,omitempty"`
	// CPUs is what the task keeps busy (0 = every core); Exclusive tasks
	// run alone (timing).
	CPUs      int  `json:"cpus"`
	Exclusive bool `json:"exclusive,omitempty"`
	// Key hashes everything the result depends on: a stored result is
	// reused only under the same key.
	Key string `json:"key"`
	// Train is the training run of a train task.
	Train *TrainJob `json:"train,omitempty"`
	// Data is the shard of a datagen or label task.
	Data *DataJob `json:"data,omitempty"`
}

// CacheOutput is the file a task leaves in the cache for the tasks that
// need it (a trained net, a data shard), or "" when its result file holds
// everything.
func (t *Task) CacheOutput() string {
	switch {
	case t.Train != nil:
		return t.Train.Config.Out
	case t.Data != nil:
		return t.Data.Out
	}
	return ""
}

// TrainJob is a training run into the net cache.
type TrainJob struct {
	Config train.Config `json:"config"`
	// Threads is Config.Threads, which the config does not serialize (it
	// does not change the net).
	Threads int `json:"threads"`
	// Dir is the cache entry's folder; the net is Config.Out.
	Dir string `json:"dir"`
}

// Options are the places a plan uses.
type Options struct {
	// Out is the results folder (default DefaultOut: results/NAME).
	Out string
	// Cache is the trained-net cache (default experiments/cache).
	Cache string
	// Binary is the nnuelab executable.
	Binary string
	// Command is the command line recorded with the results.
	Command string
	// Skip leaves metrics of the manifest out of this run (say, the Elo
	// test of an experiment whose other metrics are cheap). Tasks of the
	// other metrics keep their keys, so a later full run reuses them.
	Skip []string
}

// New expands a manifest into variants and tasks. It checks that every
// net exists and fits its architecture, so that a bad manifest fails before
// any work starts.
func New(m *manifest.Manifest, opt Options) (*Plan, error) {
	if m.Generations != nil {
		return nil, fmt.Errorf("%s is a generations manifest: `nnuelab experiment run` plans it generation by generation", m.File)
	}
	p := &Plan{Version: FileVersion, Manifest: m, Command: opt.Command, Binary: opt.Binary}
	var err error
	if opt.Out == "" {
		if opt.Out, err = DefaultOut(m.Name); err != nil {
			return nil, err
		}
	}
	if opt.Cache == "" {
		opt.Cache = filepath.Join("experiments", "cache")
	}
	if p.Out, err = filepath.Abs(opt.Out); err != nil {
		return nil, err
	}
	if p.Cache, err = filepath.Abs(opt.Cache); err != nil {
		return nil, err
	}
	if p.ManifestSHA256, err = data.FileSHA256(m.File); err != nil {
		return nil, err
	}
	merr := func(key string, err error) error {
		var me *manifest.Error
		if errors.As(err, &me) && me.File == m.File {
			return me // it names its key in the manifest already
		}
		return &manifest.Error{File: m.File, Key: key, Reason: err.Error()}
	}
	for _, x := range opt.Skip {
		if !m.Has(x) {
			return nil, fmt.Errorf("cannot skip %q: the manifest's metrics are %s", x, strings.Join(m.Metrics, ", "))
		}
		var keep []string
		for _, y := range m.Metrics {
			if y != x {
				keep = append(keep, y)
			}
		}
		m.Metrics = keep
		p.Skipped = append(p.Skipped, x)
		if x == manifest.MetricElo {
			m.Elo = nil
		}
	}
	if len(m.Metrics) == 0 {
		return nil, fmt.Errorf("every metric of %s is skipped: nothing to run", m.File)
	}

	// Data.
	p.Positions = data.BuiltinPositions
	if m.Positions.File != "" {
		p.Positions = m.Path(m.Positions.File)
	}
	if p.PositionsSHA256, err = data.FileSHA256(p.Positions); err != nil {
		return nil, merr("positions.file", err)
	}
	if slices.ContainsFunc(m.Listed(), func(d *metrics.Def) bool { return d.Validation }) {
		p.Validation = []string{data.BuiltinValidation}
		if m.Data != nil && len(m.Data.Validation) > 0 {
			p.Validation = nil
			for _, f := range m.Data.Validation {
				p.Validation = append(p.Validation, m.Path(f))
			}
		}
		if p.ValidationSHA256, err = hashFiles(p.Validation); err != nil {
			return nil, merr("data.validation", err)
		}
	}
	if m.Elo != nil {
		p.Openings = filepath.Join(p.Out, "openings.epd")
		if m.Elo.Openings != "" {
			p.Openings = m.Path(m.Elo.Openings)
		}
		src := p.Openings
		if m.Elo.Openings == "" {
			src = data.BuiltinOpenings
		}
		if p.OpeningsSHA256, err = data.FileSHA256(src); err != nil {
			return nil, merr("elo.openings", err)
		}
	}
	if err := p.planMade(); err != nil {
		return nil, err
	}
	var dataFiles, valFiles, dataNeeds []string
	if m.Train != nil {
		for _, f := range m.Data.Validation {
			valFiles = append(valFiles, m.Path(f))
		}
		if len(valFiles) == 0 && p.Validation != nil {
			// val_loss is measured on the built-in set, which is cut from
			// the Stockfish data experiments train on: it is the trainer's
			// validation too, and so left out of training.
			valFiles = p.Validation
		}
		if dataFiles, p.DataSHA256, dataNeeds, err = p.resolveData(append(append([]string(nil), m.Data.Train...), valFiles...)); err != nil {
			return nil, merr("data.train", err)
		}
		dataFiles = dataFiles[:len(dataFiles)-len(valFiles)]
	}

	// Variants and their nets.
	trainTasks := map[string]*Task{}
	var trainOrder []*Task
	for i, vs := range m.All() {
		key := "base"
		if i > 0 {
			key = fmt.Sprintf("variant[%d]", i-1)
		}
		v, err := p.resolveVariant(vs, key, i == 0, dataFiles, valFiles, dataNeeds, trainTasks, &trainOrder)
		if err != nil {
			return nil, merr(key, err)
		}
		p.Variants = append(p.Variants, v)
	}
	p.Tasks = append(p.Tasks, trainOrder...)
	p.addTasks()
	return p, nil
}

// hashFiles hashes a list of files into one hex SHA-256 (of their hashes).
func hashFiles(files []string) (string, error) {
	h := sha256.New()
	for _, f := range files {
		s, err := data.FileSHA256(f)
		if err != nil {
			return "", err
		}
		fmt.Fprintln(h, s)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// keyOf hashes any JSON-encodable description into a task key.
func keyOf(v any) string {
	data, err := json.Marshal(v)
	if err != nil {
		panic(err) // plain data only
	}
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

func (p *Plan) resolveVariant(vs *manifest.VariantSpec, key string, base bool, dataFiles, valFiles, dataNeeds []string, trainTasks map[string]*Task, order *[]*Task) (*Variant, error) {
	m := p.Manifest
	spec, err := m.Spec(vs)
	if err != nil {
		return nil, err
	}
	dataSHA := p.DataSHA256
	if len(vs.Data) > 0 {
		if dataFiles, dataSHA, dataNeeds, err = p.resolveData(append(append([]string(nil), vs.Data...), valFiles...)); err != nil {
			return nil, fmt.Errorf("data: %w", err)
		}
		dataFiles = dataFiles[:len(dataFiles)-len(valFiles)]
	}
	v := &Variant{
		Name: vs.Name, Label: vs.Label, Base: base, Arch: vs.Arch, Overrides: vs.Overrides,
		SpecFile:   filepath.Join("variants", vs.Name+".toml"),
		ArchSHA256: spec.SHA256(),
		NetSHA256:  spec.NetSHA256(),
		Trained:    m.Train != nil && vs.Net == "",
	}
	engineSpec := spec
	if v.Trained && spec.Net.Format != "float" {
		if engineSpec, err = spec.Override(`net.format="nnuelab"`); err != nil {
			return nil, err
		}
	}
	text, err := SpecTOML(engineSpec)
	if err != nil {
		return nil, err
	}
	v.Spec = text

	for _, seed := range m.Seeds {
		switch {
		case v.Trained:
			trainKey := "train"
			if vs.Train != nil {
				trainKey = key + ".train"
			}
			cfg, err := p.trainConfig(vs, trainKey, spec, seed, dataFiles, valFiles)
			if err != nil {
				return nil, err
			}
			initID, err := p.initIdentity(vs, v)
			if err != nil {
				return nil, err
			}
			// The key holds the architecture, the data and the warm start
			// by their hashes, not by paths, so that clones and clusters
			// share a cache. (Init and Filter are omitted when unset: the
			// keys of nets trained before they existed still hold.)
			kc := cfg
			kc.Arch, kc.Overrides, kc.Data, kc.ValData = "", nil, nil, nil
			kc.Init, kc.InitSHA256 = "", initID
			ckey := keyOf(struct {
				Version    int
				ArchSHA256 string
				Data       string
				Config     train.Config
				// The stream's order, from its version 2 on (a streamed
				// net depends on it; see train.StreamVersion).
				Stream int `json:",omitempty"`
			}{KeyVersion, v.NetSHA256, dataSHA, kc, train.StreamKeyVersion(kc.ShuffleBuffer, train.StreamVersion)})
			dir := filepath.Join(p.Cache, ckey[:16])
			cfg.Out = filepath.Join(dir, "net.nnue.zst")
			id := "train-" + ckey[:12]
			if _, ok := trainTasks[id]; !ok {
				threads := cfg.Threads
				t := &Task{ID: id, Kind: KindTrain, Variant: v.Name, Seed: seed, CPUs: threads, Key: ckey, Needs: dataNeeds,
					Train: &TrainJob{Config: cfg, Threads: threads, Dir: dir}}
				trainTasks[id] = t
				*order = append(*order, t)
			}
			v.Nets = append(v.Nets, NetRef{Seed: seed, Kind: "trained", Path: cfg.Out, SHA256: ckey, Train: id})
		case vs.Net != "" && vs.NetID != "":
			// A net another plan makes (or whose hash the driver knows):
			// keyed by its identity; the file may not exist yet.
			v.Nets = append(v.Nets, NetRef{Seed: seed, Kind: "file", Path: m.Path(vs.Net), SHA256: vs.NetID})
		case vs.Net != "":
			path := m.Path(vs.Net)
			sum, err := data.FileSHA256(path)
			if err != nil {
				return nil, fmt.Errorf("net: %w", err)
			}
			if _, err := nets.Load(engineSpec, path); err != nil {
				return nil, fmt.Errorf("net %s does not load as %s: %w", vs.Net, spec.Name, err)
			}
			v.Nets = append(v.Nets, NetRef{Seed: seed, Kind: "file", Path: path, SHA256: sum})
		default:
			e, err := nets.Default(spec.Name)
			if err != nil {
				return nil, err
			}
			switch {
			case e != nil:
				if _, err := nets.Load(engineSpec, ""); err != nil {
					return nil, fmt.Errorf("shipped net of %s: %w", spec.Name, err)
				}
				v.Nets = append(v.Nets, NetRef{Seed: seed, Kind: "shipped", SHA256: e.SHA256})
			case spec.Net.Format == "sf15.1":
				v.Nets = append(v.Nets, NetRef{Seed: seed, Kind: "stockfish", SHA256: sfnet.SF151NetSHA256})
			default:
				return nil, fmt.Errorf("architecture %s ships no network: give net = FILE or a [train] section", spec.Name)
			}
		}
	}
	return v, nil
}

// SpecTOML encodes a spec as an architecture file.
func SpecTOML(s *archs.Spec) (string, error) {
	var b strings.Builder
	b.WriteString("# written by nnuelab experiment run: the variant's architecture\n")
	if err := toml.NewEncoder(&b).Encode(s); err != nil {
		return "", err
	}
	// Check that it reads back to the same architecture.
	back, err := archs.Parse("variant", []byte(b.String()))
	if err != nil {
		return "", fmt.Errorf("variant spec does not read back: %w", err)
	}
	if back.SHA256() != s.SHA256() {
		return "", fmt.Errorf("variant spec of %s does not read back to the same architecture", s.Name)
	}
	return b.String(), nil
}

// initIdentity returns what a trained variant's warm start is keyed by:
// the init net's content hash, or the identity the generations driver gave
// it; "" without a warm start. A net file is checked to be a float net of
// the variant's architecture.
func (p *Plan) initIdentity(vs *manifest.VariantSpec, v *Variant) (string, error) {
	m := p.Manifest
	t := m.TrainFor(vs)
	switch {
	case t.Init == "":
		return "", nil
	case t.InitID != "":
		return t.InitID, nil
	}
	path := m.Path(t.Init)
	sum, err := data.FileSHA256(path)
	if err != nil {
		return "", fmt.Errorf("train.init: %w", err)
	}
	archSHA, err := floatNetArch(path)
	if err != nil {
		return "", fmt.Errorf("train.init: %w", err)
	}
	if archSHA != "" && archSHA != v.NetSHA256 {
		return "", fmt.Errorf("train.init: %s was trained for another architecture (arch SHA-256 %.12s) than %s (%.12s): a warm start needs the same one", t.Init, archSHA, v.Name, v.NetSHA256)
	}
	return sum, nil
}

// floatNetArch reads the header of a float net (nnuelab's format) and
// returns the hash of the architecture it was trained for ("" when the
// header does not say). A file of another format is an error.
func floatNetArch(path string) (string, error) {
	f, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h, _, err := nets.ReadFloat(f)
	if err != nil {
		return "", fmt.Errorf("%s is not a float net (nnuelab's format): %w", path, err)
	}
	return h.ArchSHA256, nil
}

// trainConfig is the nets/train configuration of a variant and seed: the
// manifest's (TrainConfig) with the architecture, the files, the seed,
// the filter and the warm start, QAT and the factorizer resolved for the
// architecture, checked by the trainer's own Validate (a bad value fails
// the plan, a dry run included, naming the manifest's file and key).
func (p *Plan) trainConfig(vs *manifest.VariantSpec, key string, spec *archs.Spec, seed uint64, dataFiles, valFiles []string) (train.Config, error) {
	m := p.Manifest
	t := m.TrainFor(vs)
	cfg := m.TrainConfig(vs)
	cfg.Arch = m.ArchRef(vs.Arch)
	cfg.Overrides = vs.Overrides
	cfg.Data = dataFiles
	cfg.ValData = nil
	for _, f := range valFiles {
		cfg.ValData = append(cfg.ValData, p.localPath(f))
	}
	if len(valFiles) > 0 {
		cfg.ValFraction = 0
	}
	cfg.Seed = seed
	// "all" is stored empty, so that the keys of nets trained before the
	// scope existed still hold.
	if cfg.Optim.DecayScope == "all" {
		cfg.Optim.DecayScope = ""
	}
	cfg.QAT = "off"
	if train.QATFor(spec, t.QAT) {
		cfg.QAT = "on"
	}
	// Off is stored empty, so that the keys of nets trained before the
	// factorizer existed still hold.
	cfg.Factorize = ""
	if train.FactorizeFor(spec, t.Factorize) {
		cfg.Factorize = "on"
	}
	cfg.Export = "none"
	cfg.Init = ""
	if t.Init != "" {
		cfg.Init = m.Path(t.Init)
	}
	f, err := t.DataFilter()
	if err != nil {
		return cfg, &manifest.Error{File: m.File, Key: key + ".filter", Reason: err.Error()}
	}
	cfg.Filter = f
	// Out is the cache entry, known once the key is: a stand-in here.
	cfg.Out = "net.nnue.zst"
	if err := cfg.Validate(); err != nil {
		return cfg, m.TrainError(key, vs, err)
	}
	cfg.Out = ""
	return cfg, nil
}

// localPath is where a data file is read from: the path itself, or for a
// built-in file its copy in the results folder (Plan.Write puts it there).
func (p *Plan) localPath(name string) string {
	if b, ok := strings.CutPrefix(name, "builtin:"); ok {
		return filepath.Join(p.Out, b)
	}
	return name
}

// Variant returns the variant called name, or nil.
func (p *Plan) Variant(name string) *Variant {
	for _, v := range p.Variants {
		if v.Name == name {
			return v
		}
	}
	return nil
}

// Task returns the task with the given ID, or nil.
func (p *Plan) Task(id string) *Task {
	for _, t := range p.Tasks {
		if t.ID == id {
			return t
		}
	}
	return nil
}

// BaseVariant returns the base.
func (p *Plan) BaseVariant() *Variant { return p.Variants[0] }

// netIdentity is what a measurement depends on of a variant.
type netIdentity struct {
	Variant, Spec, Net string
}

func (p *Plan) identity(v *Variant, seedIdx int) netIdentity {
	return netIdentity{v.Name, keyOf(v.Spec), v.Nets[seedIdx].SHA256}
}

func (p *Plan) needsOf(v *Variant, seedIdx int) []string {
	if t := v.Nets[seedIdx].Train; t != "" {
		return []string{t}
	}
	return nil
}

// addTasks adds the measure, activations, speed and elo tasks after the
// train tasks.
func (p *Plan) addTasks() {
	m := p.Manifest
	measured := append([]string{}, m.MeasureMetrics()...)
	// The settings of registered metrics join the key only when listed, so
	// that other manifests keep their keys.
	var extra map[string]any
	for _, x := range measured {
		if d, ok := metrics.Lookup(x); ok && d.Measure != nil {
			if extra == nil {
				extra = map[string]any{}
			}
			extra[x] = d.Key
		}
	}
	if len(measured) > 0 {
		for _, v := range p.Variants {
			for si, seed := range m.Seeds {
				t := &Task{
					ID: fmt.Sprintf("measure-%s-s%d", v.Name, seed), Kind: KindMeasure, Variant: v.Name, Seed: seed,
					Needs: p.needsOf(v, si), CPUs: 1,
				}
				var key any = struct {
					Version                    int
					Kind                       string
					Net                        netIdentity
					Metrics                    []string
					Positions                  string
					Limit                      int
					Validation                 string
					ValLimit                   int
					Loss                       metrics.LossJSON
					SpeedPositions, SpeedNodes int
				}{KeyVersion, t.Kind, p.identity(v, si), measured, p.PositionsSHA256, m.Positions.Limit,
					p.ValidationSHA256, p.ValLimit(), metrics.LossJSONOf(m.Loss), m.Speed.Positions, m.Speed.Nodes}
				if extra != nil {
					key = struct {
						Measure any
						Metrics map[string]any
					}{key, extra}
				}
				t.Key = keyOf(key)
				p.Tasks = append(p.Tasks, t)
			}
		}
	}
	if m.ListsTask(metrics.TaskActivations) {
		// A task of its own, so that adding the metrics to a manifest
		// leaves the keys of its measure tasks as they were. One pass
		// gives both metrics: the key does not say which are reported.
		for _, v := range p.Variants {
			for si, seed := range m.Seeds {
				t := &Task{
					ID: fmt.Sprintf("activations-%s-s%d", v.Name, seed), Kind: KindActivations, Variant: v.Name, Seed: seed,
					Needs: p.needsOf(v, si), CPUs: 1,
				}
				t.Key = keyOf(struct {
					Version   int
					Kind      string
					Net       netIdentity
					Positions string
					Limit     int
				}{KeyVersion, t.Kind, p.identity(v, si), p.PositionsSHA256, m.Positions.Limit})
				p.Tasks = append(p.Tasks, t)
			}
		}
	}
	if m.ListsTask(metrics.TaskSpeed) {
		t := &Task{ID: "speed", Kind: KindSpeed, Exclusive: true}
		var ids []netIdentity
		for _, v := range p.Variants {
			t.Needs = append(t.Needs, p.needsOf(v, 0)...)
			ids = append(ids, p.identity(v, 0))
		}
		t.Key = keyOf(struct {
			Version   int
			Kind      string
			Nets      []netIdentity
			Eval, NPS bool
			Speed     manifest.SpeedSpec
			Positions string
		}{KeyVersion, t.Kind, ids, m.Has(manifest.MetricEvalSpeed), m.Has(manifest.MetricBenchNPS), m.Speed, p.PositionsSHA256})
		p.Tasks = append(p.Tasks, t)
	}
	if e := m.Elo; e != nil {
		base := p.BaseVariant()
		players, opponent := p.Variants[1:], p.identity(base, 0)
		if e.Opponent == manifest.OpponentClassical {
			players, opponent = p.Variants, netIdentity{Variant: manifest.OpponentClassical}
		}
		// Chunks are queued round-robin over the players (chunk 0 of every
		// variant, then chunk 1, ...), so that a run stopped part-way has
		// a first estimate for every variant rather than all of a few.
		// The key leaves out which variants play, so that a finished
		// chunk stays valid when the list changes.
		keyed := *e
		keyed.Variants = nil
		// The book is keyed by its content (OpeningsSHA256), not its path,
		// so that moving it (or a clone elsewhere) keeps the games.
		keyed.Openings = ""
		var perVariant [][]*Task
		for _, v := range players {
			if !e.Tests(v.Name) {
				continue
			}
			needs := p.needsOf(v, 0)
			if e.Opponent != manifest.OpponentClassical {
				needs = append(needs, p.needsOf(base, 0)...)
			}
			// An SPRT plays up to max_games in chunks, sprtInFlight at a time (see sprt.go).
			games := e.Games
			if e.SPRT != nil {
				games = e.MaxGames
			}
			var chunks []*Task
			n := (games + e.Chunk - 1) / e.Chunk
			for c := 0; c < n; c++ {
				g := min(e.Chunk, games-c*e.Chunk)
				chunks = append(chunks, &Task{ID: fmt.Sprintf("elo-%s-c%03d", v.Name, c), Chunk: c, Games: g, Start: 1 + c*e.Chunk/2})
			}
			for c, t := range chunks {
				t.Kind, t.Variant, t.Seed, t.Needs, t.CPUs = KindElo, v.Name, m.Seeds[0], needs, e.Concurrency
				if e.SPRT != nil && c >= sprtInFlight {
					t.Needs = append(append([]string(nil), needs...), chunks[c-sprtInFlight].ID)
				}
				t.Key = keyOf(struct {
					Version             int
					Kind                string
					Variant, Base       netIdentity
					Elo                 manifest.EloSpec
					Chunk, Games, Start int
					Seed                uint64
					Openings            string
				}{KeyVersion, t.Kind, p.identity(v, 0), opponent, keyed, t.Chunk, t.Games, t.Start, t.Seed, p.OpeningsSHA256})
			}
			perVariant = append(perVariant, chunks)
		}
		p.Tasks = append(p.Tasks, lo.Interleave(perVariant...)...)
	}
}

// Setting is what the metrics' setup lines and cost estimates read of the
// manifest and the plan (metrics.Def), for a net of the cost model's width.
func (p *Plan) Setting() metrics.Setting {
	m := p.Manifest
	n := m.Positions.Limit
	if n == 0 {
		n = 3000
	}
	st := metrics.Setting{
		Search: metrics.Search{Positions: m.Speed.Positions, Nodes: m.Speed.Nodes},
		Rounds: m.Speed.Rounds, BenchDepth: m.Speed.BenchDepth, Measured: n,
		Loss: m.Loss, Validation: RelAll(p.Validation), ValPositions: p.ValLimit(), Width: 1,
	}
	if e := m.Elo; e != nil {
		st.Elo = metrics.EloSetting{Classical: e.Opponent == manifest.OpponentClassical, Variants: e.Variants,
			Openings: filepath.Base(p.Openings), Hash: e.Hash, Adjudicate: e.Adjudicate}
	}
	return st
}

// ValLimit is the number of validation positions val_loss reads (0: all).
func (p *Plan) ValLimit() int {
	if p.Manifest.Data != nil {
		return p.Manifest.Data.ValLimit
	}
	return 0
}

// Write stores the plan, the variants' architecture files and the built-in
// opening book in the results folder, atomically.
func (p *Plan) Write() error {
	if err := os.MkdirAll(filepath.Join(p.Out, "variants"), 0o755); err != nil {
		return err
	}
	for _, v := range p.Variants {
		if err := fsutil.WriteFileAll(filepath.Join(p.Out, v.SpecFile), []byte(v.Spec), 0o644); err != nil {
			return err
		}
	}
	if p.Manifest.Elo != nil && p.Manifest.Elo.Openings == "" {
		if err := data.Copy(data.BuiltinOpenings, p.Openings); err != nil {
			return err
		}
	}
	// Built-in validation files that training tasks read.
	if lo.ContainsBy(p.Tasks, func(t *Task) bool { return t.Train != nil }) {
		builtin := lo.Filter(p.Validation, func(f string, _ int) bool { return strings.HasPrefix(f, "builtin:") })
		for _, f := range lo.Uniq(builtin) {
			if err := data.Copy(f, p.localPath(f)); err != nil {
				return err
			}
		}
	}
	data, err := json.MarshalIndent(p, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFileAll(filepath.Join(p.Out, "plan.json"), append(data, '\n'), 0o644)
}

// Read reads OUT/plan.json.
func Read(out string) (*Plan, error) {
	data, err := os.ReadFile(filepath.Join(out, "plan.json"))
	if err != nil {
		return nil, fmt.Errorf("no plan in %s (run `nnuelab experiment run` first): %w", out, err)
	}
	var p Plan
	if err := json.Unmarshal(data, &p); err != nil {
		return nil, fmt.Errorf("%s/plan.json: %w", out, err)
	}
	if p.Version != FileVersion {
		return nil, fmt.Errorf("%s/plan.json: version %d, this nnuelab writes %d (rerun `nnuelab experiment run`)", out, p.Version, FileVersion)
	}
	return &p, nil
}

// NetCopyDir is where a plan that keeps its nets (KeepNets) copies the net
// a train task made: OUT/nets/TASK.
func NetCopyDir(out, taskID string) string { return filepath.Join(out, "nets", taskID) }
