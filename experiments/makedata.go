package experiment

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/engine/eval"
	"github.com/nnuelab/nnuelab/nets"
)

// This file holds the datasets an experiment makes itself: self-play games
// ([[datagen]]) and positions rescored by a UCI engine ([[label]]). Each is
// split into shards that run as tasks (Slurm array elements on a cluster);
// training data lists name them "datagen:NAME" or "label:NAME", which
// stands for the shards' files in order. Their outputs live in the cache
// beside the trained nets, under a key of everything they depend on, so
// that experiments sharing a dataset make it once.

// DatagenSpec is a self-play dataset (nnuelab datagen) made by the runner.
type DatagenSpec struct {
	// Name is how data lists refer to it ("datagen:NAME").
	Name string `toml:"name" json:"name"`
	// Positions (at least; shards stop at chunk boundaries) or Games of
	// the whole set, over all shards.
	Positions int64 `toml:"positions" json:"positions,omitempty"`
	Games     int64 `toml:"games" json:"games,omitempty"`
	// Shards are separate tasks, one core each (default 1).
	Shards int `toml:"shards" json:"shards"`
	// Seed selects the games (default 1).
	Seed    uint64 `toml:"-" json:"seed"`
	RawSeed int64  `toml:"seed" json:"-"`
	// Arch is the evaluator that plays (default classical); Nodes per move
	// (default 5000) and Depth limit its searches; RandomPlies open each
	// game (default 10). The other settings are datagen's defaults (the
	// recording rules of Koivisto's data).
	Arch        string `toml:"arch" json:"arch"`
	Nodes       uint64 `toml:"nodes" json:"nodes"`
	Depth       int    `toml:"depth" json:"depth,omitempty"`
	RandomPlies int    `toml:"random_plies" json:"random_plies"`
	// Net is the network file the evaluator plays with (datagen's
	// EvalFile; default: the arch's shipped net). The key holds its
	// content hash, not its path, and a file equal to the arch's shipped
	// net counts as the shipped net (EvalFile "").
	Net string `toml:"net" json:"net,omitempty"`
	// Keep is which positions are recorded: "quiet" (the default: from
	// ply 16, not in check, quiet best move, no mate score) or "all"
	// (every searched position with its move; the shards are then
	// Stockfish .binpack files, and training filters, [train] filter).
	Keep string `toml:"keep" json:"keep,omitempty"`

	// Not manifest keys: the generations driver sets them. NetID keys Net
	// when another plan makes it (a trained generation's net, by its
	// training's cache key); ArchID keys Arch when it is an architecture
	// file the runner writes (by the architecture's hash); External marks
	// a dataset an earlier plan makes: its files and key are planned as
	// usual, but it adds no tasks (the driver sees that the files exist).
	NetID    string `toml:"-" json:"net_id,omitempty"`
	ArchID   string `toml:"-" json:"arch_id,omitempty"`
	External bool   `toml:"-" json:"external,omitempty"`
}

// LabelSpec is a dataset rescored by a UCI engine (nnuelab label).
type LabelSpec struct {
	// Name is how data lists refer to it ("label:NAME").
	Name string `toml:"name" json:"name"`
	// Inputs are data files or "datagen:NAME" / "label:NAME" of datasets
	// defined before this one.
	Inputs []string `toml:"inputs" json:"inputs"`
	// Engine is the UCI engine (default /usr/games/stockfish), run with
	// one thread and Hash MB (default 16).
	Engine string `toml:"engine" json:"engine"`
	Hash   int    `toml:"hash" json:"hash"`
	// Nodes or Depth limit each search.
	Nodes uint64 `toml:"nodes" json:"nodes,omitempty"`
	Depth int    `toml:"depth" json:"depth,omitempty"`
	// Shards are separate tasks, one core each (default 1); shard k
	// labels the input chunks k-1 mod Shards.
	Shards int `toml:"shards" json:"shards"`
	// External is not a manifest key: as DatagenSpec.External.
	External bool `toml:"-" json:"external,omitempty"`
}

// Data reference prefixes.
const (
	refDatagen = "datagen:"
	refLabel   = "label:"
)

// isDataRef reports whether a data entry names a dataset the runner makes.
func isDataRef(s string) bool {
	return strings.HasPrefix(s, refDatagen) || strings.HasPrefix(s, refLabel)
}

// defaultsMade fills the defaults of the made datasets.
func (m *Manifest) defaultsMade() *Error {
	for i := range m.Datagen {
		g := &m.Datagen[i]
		key := fmt.Sprintf("datagen[%d]", i)
		if g.RawSeed < 0 {
			return &Error{Key: key + ".seed", Reason: fmt.Sprintf("seed %d is negative", g.RawSeed)}
		}
		// A zero value stands for "not given" (MetaData.IsDefined does not
		// index arrays of tables); seed 0 is seed 1.
		g.Seed = max(uint64(g.RawSeed), 1)
		if g.Shards == 0 {
			g.Shards = 1
		}
		if g.Arch == "" {
			g.Arch = "classical"
		}
		if g.Nodes == 0 && g.Depth == 0 {
			g.Nodes = 5000
		}
		if g.RandomPlies == 0 {
			g.RandomPlies = datasets.DefaultGenConfig().RandomPlies
		}
	}
	for i := range m.Label {
		l := &m.Label[i]
		if l.Engine == "" {
			l.Engine = "/usr/games/stockfish"
		}
		if l.Hash == 0 {
			l.Hash = 16
		}
		if l.Shards == 0 {
			l.Shards = 1
		}
	}
	return nil
}

// checkMade validates the made datasets and every data reference.
func (m *Manifest) checkMade() *Error {
	defined := map[string]bool{}
	// define checks a dataset's name and records it.
	define := func(key, ref, name string) *Error {
		switch {
		case !nameRE.MatchString(name):
			return &Error{Key: key + ".name", Reason: fmt.Sprintf("%q: use letters, digits and ._=+-", name)}
		case defined[ref+name]:
			return &Error{Key: key + ".name", Reason: fmt.Sprintf("%s%s defined twice", ref, name)}
		}
		defined[ref+name] = true
		return nil
	}
	for i, g := range m.Datagen {
		key := fmt.Sprintf("datagen[%d]", i)
		if err := define(key, refDatagen, g.Name); err != nil {
			return err
		}
		switch {
		case g.Positions < 0 || g.Games < 0 || (g.Positions == 0 && g.Games == 0):
			return &Error{Key: key + ".positions", Reason: "give positions or games (> 0)"}
		case g.Shards < 1 || g.Shards > 10000:
			return &Error{Key: key + ".shards", Reason: fmt.Sprintf("must be 1..10000, got %d", g.Shards)}
		case g.Depth < 0 || g.RandomPlies < 0:
			return &Error{Key: key, Reason: "depth and random_plies must be >= 0"}
		case g.Keep != "" && g.Keep != datasets.KeepQuiet && g.Keep != datasets.KeepAll:
			return &Error{Key: key + ".keep", Reason: fmt.Sprintf("%q is not one of %s, %s", g.Keep, datasets.KeepQuiet, datasets.KeepAll)}
		case g.Net != "" && strings.TrimSpace(g.Net) == "":
			return &Error{Key: key + ".net", Reason: "an empty path"}
		}
	}
	for i, l := range m.Label {
		key := fmt.Sprintf("label[%d]", i)
		switch {
		case len(l.Inputs) == 0:
			return &Error{Key: key + ".inputs", Reason: "lists no input"}
		case l.Nodes == 0 && l.Depth <= 0:
			return &Error{Key: key + ".nodes", Reason: "give nodes or depth per position"}
		case l.Depth < 0 || l.Hash < 1:
			return &Error{Key: key, Reason: "depth must be >= 0 and hash >= 1"}
		case l.Shards < 1 || l.Shards > 10000:
			return &Error{Key: key + ".shards", Reason: fmt.Sprintf("must be 1..10000, got %d", l.Shards)}
		}
		for _, in := range l.Inputs {
			if strings.TrimSpace(in) == "" {
				return &Error{Key: key + ".inputs", Reason: "an empty path"}
			}
			if isDataRef(in) && !defined[in] {
				return &Error{Key: key + ".inputs", Reason: fmt.Sprintf("%q is not a dataset defined above it", in)}
			}
		}
		if err := define(key, refLabel, l.Name); err != nil {
			return err
		}
	}
	var lists [][2]any
	if m.Data != nil {
		for _, f := range m.Data.Validation {
			if isDataRef(f) {
				return &Error{Key: "data.validation", Reason: fmt.Sprintf("%q: validation is a file (a made dataset can only be trained on)", f)}
			}
		}
		lists = append(lists, [2]any{"data.train", m.Data.Train})
	}
	for i, v := range m.All() {
		key := "base.data"
		if i > 0 {
			key = fmt.Sprintf("variant[%d].data", i-1)
		}
		lists = append(lists, [2]any{key, v.Data})
	}
	for _, l := range lists {
		for _, f := range l[1].([]string) {
			if isDataRef(f) && !defined[f] {
				return &Error{Key: l[0].(string), Reason: fmt.Sprintf("%q: no such [[datagen]] or [[label]] dataset", f)}
			}
		}
	}
	return nil
}

// MadeData is a dataset the plan makes: its shards' files and tasks.
type MadeData struct {
	Ref   string   `json:"ref"`
	Key   string   `json:"key"`
	Files []string `json:"files"`
	Tasks []string `json:"tasks"`
}

// DataJob is one shard of a made dataset.
type DataJob struct {
	// Gen is a self-play shard's configuration (datagen).
	Gen *datasets.GenConfig `json:"gen,omitempty"`
	// Label shard: the engine, its options and limits, the shard, and the
	// input files.
	Engine  string      `json:"engine,omitempty"`
	Options [][2]string `json:"options,omitempty"`
	Nodes   uint64      `json:"nodes,omitempty"`
	Depth   int         `json:"depth,omitempty"`
	Shard   int         `json:"shard,omitempty"`
	Shards  int         `json:"shards,omitempty"`
	Inputs  []string    `json:"inputs,omitempty"`
	// Out is the shard's file in the cache.
	Out string `json:"out"`
}

// DataResult is a finished shard.
type DataResult struct {
	Out       string `json:"out"`
	SHA256    string `json:"sha256"`
	Positions int64  `json:"positions"`
}

// madeData returns the plan's dataset called ref, or nil.
func (p *Plan) madeData(ref string) *MadeData {
	for _, d := range p.Made {
		if d.Ref == ref {
			return d
		}
	}
	return nil
}

// resolveData expands a data list: files stay, references become their
// shards' files. It returns the files, the hash of the list (a file by
// its content, a made dataset by its key) and the tasks that make them.
func (p *Plan) resolveData(list []string) (files []string, hash string, needs []string, err error) {
	h := sha256.New()
	for _, f := range list {
		if d := p.madeData(f); d != nil {
			files = append(files, d.Files...)
			needs = append(needs, d.Tasks...)
			fmt.Fprintln(h, d.Key)
			continue
		}
		path := f
		if !strings.HasPrefix(f, "builtin:") {
			path = p.Manifest.Path(f)
		}
		s, err := fileSHA256(path)
		if err != nil {
			return nil, "", nil, err
		}
		files = append(files, path)
		fmt.Fprintln(h, s)
	}
	return files, hex.EncodeToString(h.Sum(nil)), needs, nil
}

// planMade adds the tasks of the manifest's datagen and label datasets.
func (p *Plan) planMade() error {
	m := p.Manifest
	for i, g := range m.Datagen {
		key, cfg, err := p.datagenConfig(g)
		if err != nil {
			return &Error{File: m.File, Key: fmt.Sprintf("datagen[%d].net", i), Reason: err.Error()}
		}
		d := &MadeData{Ref: refDatagen + g.Name, Key: key}
		dir := filepath.Join(p.Cache, "datagen-"+key[:16])
		ext := ".bin"
		if cfg.Keep == datasets.KeepAll {
			// Every position with its move: a game's positions chain in
			// Stockfish's binpack at 2-3 bytes each.
			ext = ".binpack"
		}
		for k := 1; k <= g.Shards; k++ {
			c := cfg
			c.Shard = k
			out := filepath.Join(dir, fmt.Sprintf("shard-%04d%s", k, ext))
			d.Files = append(d.Files, out)
			if g.External {
				continue
			}
			t := &Task{ID: fmt.Sprintf("datagen-%s-%04d", g.Name, k), Kind: KindDatagen, CPUs: 1,
				Key:  keyOf(struct{ Set, Shard string }{key, fmt.Sprint(k)}),
				Data: &DataJob{Gen: &c, Out: out}}
			d.Tasks = append(d.Tasks, t.ID)
			p.Tasks = append(p.Tasks, t)
		}
		if err := checkPlayer(cfg, g); err != nil {
			return &Error{File: m.File, Key: fmt.Sprintf("datagen[%d].arch", i), Reason: err.Error()}
		}
		p.Made = append(p.Made, d)
	}
	for i, l := range m.Label {
		files, hash, needs, err := p.resolveData(l.Inputs)
		if err != nil {
			return &Error{File: m.File, Key: fmt.Sprintf("label[%d].inputs", i), Reason: err.Error()}
		}
		engineSum, err := fileSHA256(l.Engine)
		if err != nil {
			return &Error{File: m.File, Key: fmt.Sprintf("label[%d].engine", i), Reason: err.Error()}
		}
		opts := [][2]string{{"Threads", "1"}, {"Hash", fmt.Sprint(l.Hash)}}
		key := keyOf(struct {
			Version      int
			Kind         string
			Inputs       string
			Engine       string
			Options      [][2]string
			Nodes        uint64
			Depth        int
			Shards       int
			ChunkRecords int
		}{PlanVersion, KindLabel, hash, engineSum, opts, l.Nodes, l.Depth, l.Shards, labelChunk})
		d := &MadeData{Ref: refLabel + l.Name, Key: key}
		dir := filepath.Join(p.Cache, "label-"+key[:16])
		// Binpack inputs (self-play that kept every position with its
		// move) stay binpack, so that the trainer can still filter by move.
		ext := ".bin"
		if len(files) > 0 && !slices.ContainsFunc(files, func(f string) bool { return !strings.HasSuffix(f, ".binpack") }) {
			ext = ".binpack"
		}
		for k := 1; k <= l.Shards; k++ {
			out := filepath.Join(dir, fmt.Sprintf("shard-%04d%s", k, ext))
			if l.External {
				d.Files = append(d.Files, out)
				continue
			}
			t := &Task{ID: fmt.Sprintf("label-%s-%04d", l.Name, k), Kind: KindLabel, CPUs: 1, Needs: needs,
				Key: keyOf(struct{ Set, Shard string }{key, fmt.Sprint(k)}),
				Data: &DataJob{Engine: l.Engine, Options: opts, Nodes: l.Nodes, Depth: l.Depth,
					Shard: k, Shards: l.Shards, Inputs: files, Out: out}}
			d.Files = append(d.Files, out)
			d.Tasks = append(d.Tasks, t.ID)
			p.Tasks = append(p.Tasks, t)
		}
		p.Made = append(p.Made, d)
	}
	return nil
}

// datagenConfig returns a [[datagen]] set's key and its shards' common
// configuration (Shard 1). The key holds the net by its content hash (or
// the identity NetID gives) and an architecture file by its hash (ArchID),
// never by path; a net equal to the arch's shipped net is the shipped net
// (EvalFile "", as `nnuelab datagen --arch NAME` without --evalfile). Sets
// without net and keep have the keys they had before these keys existed.
func (p *Plan) datagenConfig(g DatagenSpec) (string, datasets.GenConfig, error) {
	m := p.Manifest
	cfg := datasets.DefaultGenConfig()
	cfg.Seed, cfg.Positions, cfg.Games = g.Seed, g.Positions, g.Games
	cfg.Arch, cfg.Nodes, cfg.Depth, cfg.RandomPlies = g.Arch, g.Nodes, g.Depth, g.RandomPlies
	cfg.Shards = g.Shards
	if g.Keep == datasets.KeepAll {
		cfg.Keep = datasets.KeepAll // "quiet" is stored empty: the same games, the same key
	}
	if g.ArchID == "" && (strings.HasSuffix(g.Arch, ".toml") || strings.ContainsRune(g.Arch, '/')) {
		cfg.Arch = m.Path(g.Arch)
	}
	keyed := cfg
	keyed.Arch = g.Arch // as written: a path relative to the manifest
	if g.ArchID != "" {
		keyed.Arch = "sha256:" + g.ArchID
	}
	if g.Net != "" {
		path := m.Path(g.Net)
		id := g.NetID
		if id == "" {
			sum, err := fileSHA256(path)
			if err != nil {
				return "", cfg, err
			}
			id = sum
		}
		shipped := ""
		if g.ArchID == "" {
			if e, err := nets.Default(g.Arch); err == nil && e != nil {
				shipped = e.SHA256
			}
		}
		if id != shipped {
			cfg.EvalFile = path
			keyed.EvalFileSHA256 = id
		}
	}
	key := keyOf(struct {
		Version int
		Kind    string
		Gen     datasets.GenConfig
	}{PlanVersion, KindDatagen, keyed})
	return key, cfg, nil
}

// checkPlayer checks that a self-play set's evaluator loads, when its
// files exist (a net or architecture file the driver provides later is
// checked when the shards run).
func checkPlayer(cfg datasets.GenConfig, g DatagenSpec) error {
	if cfg.EvalFile != "" && !fileExists(cfg.EvalFile) || g.ArchID != "" && !fileExists(cfg.Arch) {
		return nil
	}
	_, err := eval.New(cfg.Arch, cfg.EvalFile)
	return err
}

func fileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// labelChunk is the records per chunk of label tasks: the unit of
// resumption and of sharding.
const labelChunk = 1024

// runMakeData runs a datagen or label shard into the cache.
func runMakeData(ctx context.Context, p *Plan, t *Task, log io.Writer) (*DataResult, error) {
	j := t.Data
	if j == nil {
		return nil, fmt.Errorf("task %s has no data job", t.ID)
	}
	if err := os.MkdirAll(filepath.Dir(j.Out), 0o755); err != nil {
		return nil, err
	}
	lastLog := time.Now()
	var positions int64
	var sum string
	switch t.Kind {
	case KindDatagen:
		cfg := *j.Gen
		cfg.Threads = 1
		gm, err := datasets.Generate(ctx, cfg, j.Out, datasets.GenOptions{
			Command: "nnuelab experiment task " + t.ID,
			Progress: func(g datasets.GenProgress) {
				if time.Since(lastLog) > 30*time.Second {
					lastLog = time.Now()
					fmt.Fprintf(log, "%s: %d positions, %.0f/s\n", t.ID, g.Positions, g.Rate())
				}
			},
		})
		if err != nil {
			return nil, err
		}
		positions, sum = gm.Summary.Positions, gm.SHA256
	case KindLabel:
		lm, err := datasets.Label(ctx, j.Inputs, j.Out, datasets.LabelConfig{
			Engine: j.Engine, Options: j.Options, Nodes: j.Nodes, Depth: j.Depth,
			ChunkRecords: labelChunk, Shard: j.Shard, Shards: j.Shards,
			Processes: 1, Timeout: time.Minute,
			Command: "nnuelab experiment task " + t.ID,
			Progress: func(done int64, rate float64) {
				if time.Since(lastLog) > 30*time.Second {
					lastLog = time.Now()
					fmt.Fprintf(log, "%s: %d positions, %.0f/s\n", t.ID, done, rate)
				}
			},
		})
		if err != nil {
			return nil, err
		}
		positions, sum = lm.Summary.Labelled, lm.SHA256
	default:
		return nil, fmt.Errorf("task %s: kind %q makes no data", t.ID, t.Kind)
	}
	fmt.Fprintf(log, "%s: %d positions in %s\n", t.ID, positions, j.Out)
	return &DataResult{Out: j.Out, SHA256: sum, Positions: positions}, nil
}

// madeLines describes the plan's made datasets for a report: what made
// them and, from the finished shards, how many positions they hold.
func madeLines(p *Plan) []string {
	m := p.Manifest
	var out []string
	for _, d := range p.Made {
		var what string
		if name, ok := strings.CutPrefix(d.Ref, refDatagen); ok {
			for _, g := range m.Datagen {
				if g.Name == name {
					player := g.Arch
					if g.ArchID != "" {
						player = "the trained architecture"
					}
					if g.Net != "" {
						player += ", net " + filepath.Base(g.Net)
					}
					what = fmt.Sprintf("self-play of nnuelab (%s) at %d nodes per move, seed %d", player, g.Nodes, g.Seed)
					if g.Keep == datasets.KeepAll {
						what += ", every searched position kept (binpack)"
					}
				}
			}
		} else {
			name := strings.TrimPrefix(d.Ref, refLabel)
			for _, l := range m.Label {
				if l.Name == name {
					limit := fmt.Sprintf("%d nodes", l.Nodes)
					if l.Depth > 0 {
						limit = fmt.Sprintf("depth %d", l.Depth)
					}
					what = fmt.Sprintf("%s rescored by %s at %s per position (one thread, %d MB hash)", strings.Join(l.Inputs, " + "), filepath.Base(l.Engine), limit, l.Hash)
				}
			}
		}
		var positions int64
		done := 0
		for _, id := range d.Tasks {
			if t := p.Task(id); t != nil {
				if r, ok := ReadResult(p.Out, t); ok && r.Data != nil {
					positions += r.Data.Positions
					done++
				}
			}
		}
		count := fmt.Sprintf("%d positions", positions)
		if done < len(d.Tasks) {
			count = fmt.Sprintf("%d of %d shards made so far", done, len(d.Tasks))
		}
		out = append(out, fmt.Sprintf("Data `%s`: %s; %d shard(s), %s (key `%s`).", d.Ref, what, len(d.Tasks), count, d.Key[:16]))
	}
	return out
}
