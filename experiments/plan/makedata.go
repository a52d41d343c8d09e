package plan

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nnuelab/nnuelab/datasets/datagen"
	"github.com/nnuelab/nnuelab/engine/eval"
	"github.com/nnuelab/nnuelab/experiments/data"
	"github.com/nnuelab/nnuelab/experiments/manifest"
	"github.com/nnuelab/nnuelab/nets"
)

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
	Gen *datagen.Config `json:"gen,omitempty"`
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
	// What the task's own process did (a task resumed after an
	// interruption counts only its last run): the datagen positions it
	// made, the nodes their searches took and the CPU seconds it used,
	// for a recipe's cost per position.
	NewPositions int64   `json:"new_positions,omitempty"`
	Nodes        uint64  `json:"nodes,omitempty"`
	CPUSeconds   float64 `json:"cpu_seconds,omitempty"`
}

// MadeData returns the plan's dataset called ref, or nil.
func (p *Plan) MadeData(ref string) *MadeData {
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
		if d := p.MadeData(f); d != nil {
			files = append(files, d.Files...)
			needs = append(needs, d.Tasks...)
			fmt.Fprintln(h, d.Key)
			continue
		}
		path := f
		if !strings.HasPrefix(f, "builtin:") {
			path = p.Manifest.Path(f)
		}
		s, err := data.FileSHA256(path)
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
			return &manifest.Error{File: m.File, Key: fmt.Sprintf("datagen[%d].net", i), Reason: err.Error()}
		}
		d := &MadeData{Ref: manifest.RefDatagen + g.Name, Key: key}
		dir := filepath.Join(p.Cache, "datagen-"+key[:16])
		ext := ".bin"
		if cfg.Keep == datagen.KeepAll {
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
			return &manifest.Error{File: m.File, Key: fmt.Sprintf("datagen[%d].arch", i), Reason: err.Error()}
		}
		p.Made = append(p.Made, d)
	}
	for i, l := range m.Label {
		files, hash, needs, err := p.resolveData(l.Inputs)
		if err != nil {
			return &manifest.Error{File: m.File, Key: fmt.Sprintf("label[%d].inputs", i), Reason: err.Error()}
		}
		engineSum, err := data.FileSHA256(l.Engine)
		if err != nil {
			return &manifest.Error{File: m.File, Key: fmt.Sprintf("label[%d].engine", i), Reason: err.Error()}
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
		}{KeyVersion, KindLabel, hash, engineSum, opts, l.Nodes, l.Depth, l.Shards, LabelChunk})
		d := &MadeData{Ref: manifest.RefLabel + l.Name, Key: key}
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
func (p *Plan) datagenConfig(g manifest.DatagenSpec) (string, datagen.Config, error) {
	m := p.Manifest
	cfg := datagen.DefaultConfig()
	cfg.Seed, cfg.Positions, cfg.Games = g.Seed, g.Positions, g.Games
	cfg.Arch, cfg.Nodes, cfg.Depth = g.Arch, g.Nodes, g.Depth
	if g.RandomPlies != nil { // (nil only before DefaultsMade: the default)
		cfg.RandomPlies = *g.RandomPlies
	}
	cfg.Shards, cfg.MaxOpeningScore = g.Shards, g.MaxOpeningScore
	cfg.SoftNodes, cfg.NoMoveLoopPruning = g.SoftNodes, g.NoMoveLoopPruning
	if g.Start != datagen.StartStandard {
		cfg.Start = g.Start // "standard" is stored empty: the same games, the same key
	}
	for _, o := range []struct {
		dst *int
		v   int
	}{{&cfg.WinScore, g.WinScore}, {&cfg.WinPlies, g.WinPlies}, {&cfg.DrawScore, g.DrawScore}, {&cfg.DrawPlies, g.DrawPlies}} {
		if o.v > 0 {
			*o.dst = o.v
		}
	}
	if g.Keep == datagen.KeepAll {
		cfg.Keep = datagen.KeepAll // "quiet" is stored empty: the same games, the same key
	}
	if g.ArchID == "" && (strings.HasSuffix(g.Arch, ".toml") || strings.ContainsRune(g.Arch, '/')) {
		cfg.Arch = m.Path(g.Arch)
	}
	if g.Syzygy != "" {
		var dirs []string
		for _, d := range strings.Split(g.Syzygy, ":") {
			dirs = append(dirs, m.Path(d))
		}
		cfg.Syzygy = strings.Join(dirs, ":")
	}
	keyed := cfg
	keyed.Arch = g.Arch // as written: a path relative to the manifest
	if cfg.Syzygy != "" {
		// The tables by content, wherever they are.
		sums, err := datagen.SyzygyTables(cfg.Syzygy)
		if err != nil {
			return "", cfg, fmt.Errorf("syzygy: %w", err)
		}
		keyed.Syzygy, keyed.SyzygyTables = "", sums
	}
	if g.ArchID != "" {
		keyed.Arch = "sha256:" + g.ArchID
	}
	if g.Net != "" {
		path := m.Path(g.Net)
		id := g.NetID
		if id == "" {
			sum, err := data.FileSHA256(path)
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
		Gen     datagen.Config
	}{KeyVersion, KindDatagen, keyed})
	return key, cfg, nil
}

// checkPlayer checks that a self-play set's evaluator loads, when its
// files exist (a net or architecture file the driver provides later is
// checked when the shards run).
func checkPlayer(cfg datagen.Config, g manifest.DatagenSpec) error {
	if cfg.EvalFile != "" && !FileExists(cfg.EvalFile) || g.ArchID != "" && !FileExists(cfg.Arch) {
		return nil
	}
	_, err := eval.New(cfg.Arch, cfg.EvalFile)
	return err
}

// FileExists reports whether path names an existing file (a cached output).
func FileExists(path string) bool {
	_, err := os.Stat(path)
	return err == nil
}

// LabelChunk is the records per chunk of label tasks: the unit of
// resumption and of sharding.
const LabelChunk = 1024

// MadeLines describes the plan's made datasets for a report: what made
// them and, from the finished shards, how many positions they hold.
func MadeLines(p *Plan) []string {
	m := p.Manifest
	var out []string
	for _, d := range p.Made {
		var what string
		if name, ok := strings.CutPrefix(d.Ref, manifest.RefDatagen); ok {
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
					if g.Keep == datagen.KeepAll {
						what += ", every searched position kept (binpack)"
					}
				}
			}
		} else {
			name := strings.TrimPrefix(d.Ref, manifest.RefLabel)
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
