// Package label rescores a data set with a UCI engine at fixed nodes or
// depth (Stockfish, or nnuelab itself), keeping each record's game result or
// taking the Syzygy tables' where they hold the position; sharded and
// resumable like datagen (`nnuelab label`, an experiment's label task).
package label

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nnuelab/nnuelab/engine/syzygy"

	"github.com/BurntSushi/toml"
	"github.com/klauspost/compress/zstd"

	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/datasets/internal/runparts"
	"github.com/nnuelab/nnuelab/datasets/internal/tablebase"
	"github.com/nnuelab/nnuelab/internal/fsutil"
	"github.com/nnuelab/nnuelab/internal/version"
)

// Config says how Run rescores a dataset. All fields but Processes,
// Timeout and Progress decide the output.
type Config struct {
	// Engine is the UCI engine's path, Args its arguments, Options the
	// "setoption" pairs sent after uci (for example Threads=1, Hash=16).
	Engine  string      `toml:"engine"`
	Args    []string    `toml:"engine_args"`
	Options [][2]string `toml:"options"`
	// EngineName is the engine's "id name", filled in by Run.
	EngineName string `toml:"engine_name"`
	// Nodes or Depth (or both) limit each search.
	Nodes uint64 `toml:"nodes"`
	Depth int    `toml:"depth"`
	// ChunkRecords input records make one chunk: the unit of work, of
	// resumption, and of engine state (ucinewgame starts every chunk, so
	// the output does not depend on Processes).
	ChunkRecords int `toml:"chunk_records"`
	// Limit labels only the first Limit valid records (0: all).
	Limit int64 `toml:"limit"`
	// Shard (1-based) of Shards: the run labels only the chunks whose
	// index is Shard-1 modulo Shards, so that shards run as separate jobs
	// (an experiment's Slurm array) and together label every chunk once.
	// 0/0 is the whole input.
	Shard  int `toml:"shard,omitempty"`
	Shards int `toml:"shards,omitempty"`
	// SkipBad skips malformed input entries.
	SkipBad bool `toml:"skip_bad"`
	// Inputs are the datasets to label, in order (filled in by Run).
	Inputs []string `toml:"inputs"`
	// Syzygy, if set, names directories of Syzygy tables (':'-separated):
	// a record whose position they hold gets their result (under the
	// fifty-move rule from its clock) instead of its game's. The path is
	// not part of the run's identity; SyzygyTables, filled in by Run, is
	// (NAME:CHECKSUM of every table file, as datagen records them).
	Syzygy       string   `toml:"-"`
	SyzygyTables []string `toml:"syzygy_tables,omitempty"`

	// Processes is the number of engine processes run at once.
	Processes int `toml:"-"`
	// Timeout bounds one search (default 60 s); an engine over it is
	// killed and the run stops (rerun to continue).
	Timeout time.Duration `toml:"-"`
	// Command is recorded in the manifest.
	Command string `toml:"-"`
	// Progress, if not nil, receives positions done and positions per
	// second about once a second.
	Progress func(done int64, rate float64) `toml:"-"`
}

// Summary counts what Run did.
type Summary struct {
	Read     int64 `toml:"read"`      // valid input records considered
	Labelled int64 `toml:"labelled"`  // records written
	Mate     int64 `toml:"mate"`      // dropped: the engine reported a mate score
	NoMove   int64 `toml:"no_move"`   // dropped: no legal move
	BadInput int64 `toml:"bad_input"` // malformed entries skipped (SkipBad)
	// Tablebase counts the records written whose result the tables gave
	// (Config.Syzygy), Changed those of them whose result differed
	// from their game's.
	Tablebase int64 `toml:"tablebase,omitempty"`
	Changed   int64 `toml:"tablebase_changed,omitempty"`
}

// Manifest is written beside the output as OUT.manifest.toml.
type Manifest struct {
	Command        string  `toml:"command"`
	EngineRevision string  `toml:"nnuelab_revision"`
	Output         string  `toml:"output"`
	SHA256         string  `toml:"sha256"`
	Bytes          int64   `toml:"bytes"`
	Settings       Config  `toml:"settings"`
	Summary        Summary `toml:"summary"`
}

// Run rescores every position of the inputs with a UCI engine at fixed
// nodes or depth, keeping each record's game result, and writes the records
// (score from White's view) to out, with OUT.manifest.toml beside it.
// Positions the engine scores as mate, or where it has no move, are dropped
// and counted.
//
// Like datagen.Generate it is resumable: finished chunks are kept (atomically) in
// datasets.PartsDir(out), a rerun of the same command skips them, and the final
// output is the same whatever the interruptions and the process count.
func Run(ctx context.Context, inputs []string, out string, cfg Config) (*Manifest, error) {
	version.Revision() // looked up at the start, as in datagen.Generate
	if cfg.Engine == "" {
		return nil, errors.New("no engine given")
	}
	if cfg.Nodes == 0 && cfg.Depth <= 0 {
		return nil, errors.New("set nodes or depth per position")
	}
	if cfg.Depth < 0 {
		return nil, fmt.Errorf("depth %d", cfg.Depth)
	}
	if cfg.Shards < 0 || cfg.Shard < 0 || (cfg.Shards == 0) != (cfg.Shard == 0) || cfg.Shard > cfg.Shards {
		return nil, fmt.Errorf("shard %d/%d: want 1 <= k <= N (or both 0)", cfg.Shard, cfg.Shards)
	}
	if len(inputs) == 0 {
		return nil, errors.New("no inputs")
	}
	if cfg.ChunkRecords <= 0 {
		cfg.ChunkRecords = 1024
	}
	if cfg.Processes <= 0 {
		cfg.Processes = 1
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = time.Minute
	}
	format, err := datasets.FormatOf(out)
	if err != nil {
		return nil, err
	}
	cfg.Inputs = inputs
	for _, in := range inputs {
		if _, err := os.Stat(in); err != nil {
			return nil, err
		}
	}
	var goArgs []string
	if cfg.Nodes > 0 {
		goArgs = append(goArgs, "nodes", strconv.FormatUint(cfg.Nodes, 10))
	}
	if cfg.Depth > 0 {
		goArgs = append(goArgs, "depth", strconv.Itoa(cfg.Depth))
	}
	var tables *syzygy.Tables
	if cfg.Syzygy != "" {
		var err error
		if tables, cfg.SyzygyTables, err = tablebase.Open(cfg.Syzygy); err != nil {
			return nil, err
		}
		defer tables.Close()
	}
	// One engine now: for its name, and to fail early.
	first, err := startEngine(cfg.Engine, cfg.Args, cfg.Options, cfg.Timeout)
	if err != nil {
		return nil, err
	}
	cfg.EngineName = first.Name
	settings, err := settingsText(cfg)
	if err != nil {
		first.Close()
		return nil, err
	}

	parts := datasets.PartsDir(out)
	_, partsErr := os.Stat(parts)
	if _, err := os.Stat(out); err == nil && (os.IsNotExist(partsErr) || runparts.OutputComplete(out)) {
		// Finished (a kill may have interrupted the removal of the parts).
		first.Close()
		var m Manifest
		if _, err := toml.DecodeFile(datasets.ManifestPath(out), &m); err != nil {
			return nil, fmt.Errorf("%s exists but its manifest cannot be read (%w); remove it to relabel", out, err)
		}
		if old, _ := settingsText(m.Settings); old != settings {
			return nil, fmt.Errorf("%s was labelled with other settings (see %s)", out, datasets.ManifestPath(out))
		}
		if partsErr == nil {
			if err := os.RemoveAll(parts); err != nil {
				return nil, err
			}
		}
		return &m, nil
	}
	if err := os.MkdirAll(parts, 0o755); err != nil {
		first.Close()
		return nil, err
	}
	unlock, err := runparts.Lock(parts, cfg.Command)
	if err != nil {
		first.Close()
		return nil, err
	}
	defer unlock()
	settingsFile := filepath.Join(parts, "settings.toml")
	if old, err := os.ReadFile(settingsFile); err == nil {
		if string(old) != settings {
			first.Close()
			return nil, fmt.Errorf("%s holds a run with other settings (%s); use another output name or remove it", parts, settingsFile)
		}
	} else if err := fsutil.WriteFileAtomic(settingsFile, []byte(settings), 0o644); err != nil {
		first.Close()
		return nil, err
	}
	// Temporaries a killed run left, in the parts folder (chunks) and
	// beside the output (its merge and manifest); a live process's stay.
	if _, err := datasets.RemoveStaleTempsIn(parts); err != nil {
		first.Close()
		return nil, err
	}
	if err := runparts.RemoveStaleOutputTemps(out); err != nil {
		first.Close()
		return nil, err
	}
	done := map[int64]bool{}
	ents, err := os.ReadDir(parts)
	if err != nil {
		first.Close()
		return nil, err
	}
	for _, e := range ents {
		name := e.Name()
		if c, ok := strings.CutPrefix(name, "c-"); ok {
			if n, err := strconv.ParseInt(strings.TrimSuffix(c, ".txt.zst"), 10, 64); err == nil {
				done[n] = true
			}
		}
	}

	lr := &job{cfg: &cfg, parts: parts, goArgs: strings.Join(goArgs, " "), tables: tables}
	chunks, badInput, err := lr.run(ctx, inputs, done, first)
	if err != nil {
		return nil, err
	}
	return lr.merge(out, format, chunks, badInput)
}

func settingsText(cfg Config) (string, error) {
	var b bytes.Buffer
	err := toml.NewEncoder(&b).Encode(cfg)
	return b.String(), err
}

// job is the state of one Run.
type job struct {
	cfg    *Config
	parts  string
	goArgs string
	tables *syzygy.Tables // Config.Syzygy's, nil without
}

// mine reports whether chunk c belongs to this run's shard.
func (lr *job) mine(c int64) bool {
	return lr.cfg.Shards == 0 || c%int64(lr.cfg.Shards) == int64(lr.cfg.Shard-1)
}

// shardChunks returns how many of the input's chunks are this shard's, and
// the input chunk index of the shard's i-th.
func (lr *job) shardChunks(chunks int64) (int64, func(i int64) int64) {
	if lr.cfg.Shards == 0 {
		return chunks, func(i int64) int64 { return i }
	}
	n, k := int64(lr.cfg.Shards), int64(lr.cfg.Shard-1)
	count := int64(0)
	if chunks > k {
		count = (chunks-k-1)/n + 1
	}
	return count, func(i int64) int64 { return i*n + k }
}

func (lr *job) chunkFile(c int64) string {
	return filepath.Join(lr.parts, fmt.Sprintf("c-%08d.txt.zst", c))
}

type chunk struct {
	index int64
	recs  []datasets.Record
}

// run labels the chunks not yet done and returns the number of chunks of
// the output and the bad input entries skipped.
func (lr *job) run(parent context.Context, inputs []string, done map[int64]bool, first *engine) (int64, int64, error) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	cfg := lr.cfg
	jobs := make(chan chunk)
	errs := make(chan error, cfg.Processes+1)
	var total, badInput int64
	var newDone int64
	var mu sync.Mutex
	start := time.Now()

	var wg sync.WaitGroup
	for i := 0; i < cfg.Processes; i++ {
		var eng *engine
		if i == 0 {
			eng = first
		}
		wg.Add(1)
		go func(eng *engine) {
			defer wg.Done()
			defer func() {
				if eng != nil {
					eng.Close()
				}
			}()
			for ch := range jobs {
				var err error
				if eng == nil {
					if eng, err = startEngine(cfg.Engine, cfg.Args, cfg.Options, cfg.Timeout); err != nil {
						errs <- err
						cancel()
						return
					}
				}
				var text []byte
				text, err = lr.label(ctx, eng, ch)
				if err != nil && ctx.Err() == nil {
					// One retry on a fresh process, then give up.
					eng.Close()
					if eng, err = startEngine(cfg.Engine, cfg.Args, cfg.Options, cfg.Timeout); err == nil {
						text, err = lr.label(ctx, eng, ch)
					}
				}
				if err == nil {
					err = fsutil.WriteFileAtomic(lr.chunkFile(ch.index), text, 0o644)
				}
				if err != nil {
					if ctx.Err() == nil {
						errs <- err
					}
					cancel()
					return
				}
				mu.Lock()
				newDone += int64(len(ch.recs))
				mu.Unlock()
			}
		}(eng)
	}

	// Progress.
	stopProgress := make(chan struct{})
	if cfg.Progress != nil {
		go func() {
			t := time.NewTicker(time.Second)
			defer t.Stop()
			for {
				select {
				case <-t.C:
					mu.Lock()
					n := newDone
					mu.Unlock()
					cfg.Progress(n, float64(n)/time.Since(start).Seconds())
				case <-stopProgress:
					return
				}
			}
		}()
	}

	// Read the inputs in order and hand out the chunks not done.
	readErr := func() error {
		defer close(jobs)
		size := int64(cfg.ChunkRecords)
		var cur chunk
		send := func() bool {
			if len(cur.recs) > 0 {
				select {
				case jobs <- cur:
				case <-ctx.Done():
					return false
				}
			}
			cur = chunk{}
			return true
		}
		for _, in := range inputs {
			if cfg.Limit != 0 && total >= cfg.Limit {
				break
			}
			scan := datasets.Records(in, datasets.Options{SkipBad: cfg.SkipBad})
			for rec, err := range scan.All() {
				if err != nil {
					return err
				}
				c := total / size
				total++
				if !done[c] && lr.mine(c) {
					cur.index = c
					cur.recs = append(cur.recs, rec)
				}
				if total%size == 0 && !send() {
					return ctx.Err()
				}
				if cfg.Limit != 0 && total >= cfg.Limit {
					break
				}
			}
			badInput += scan.Skipped()
		}
		if !send() {
			return ctx.Err()
		}
		return nil
	}()
	if readErr != nil {
		cancel()
	}
	wg.Wait()
	close(stopProgress)
	if cfg.Progress != nil {
		cfg.Progress(newDone, float64(newDone)/time.Since(start).Seconds())
	}
	if err := parent.Err(); err != nil {
		return 0, 0, err
	}
	select {
	case err := <-errs:
		return 0, 0, err
	default:
	}
	if readErr != nil {
		return 0, 0, readErr
	}
	chunks := (total + int64(cfg.ChunkRecords) - 1) / int64(cfg.ChunkRecords)
	return chunks, badInput, nil
}

// label scores one chunk and returns its chunk file content: a header
// comment with the counts, then the labelled records.
func (lr *job) label(ctx context.Context, eng *engine, ch chunk) ([]byte, error) {
	if err := eng.NewGame(lr.cfg.Timeout); err != nil {
		return nil, err
	}
	var body bytes.Buffer
	var mate, noMove, tb, changed int64
	first := ch.index*int64(lr.cfg.ChunkRecords) + 1
	for i := range ch.recs {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		rec := ch.recs[i]
		s, err := eng.Search(rec.FEN(), lr.goArgs, lr.cfg.Timeout)
		if err != nil {
			return nil, fmt.Errorf("input record %d: %w", first+int64(i), err)
		}
		switch {
		case s.NoMove:
			noMove++
			continue
		case s.Mate:
			mate++
			continue
		}
		cp := s.CP
		if rec.SideToMove() != 0 {
			cp = -cp
		}
		rec.Score = int16(max(datasets.MinScore, min(datasets.MaxScore, cp)))
		if lr.tables != nil {
			p, err := rec.Position()
			if err != nil {
				return nil, fmt.Errorf("input record %d: %w", first+int64(i), err)
			}
			res, ok, err := tablebase.Result(lr.tables, p)
			if err != nil {
				return nil, fmt.Errorf("input record %d: %w", first+int64(i), err)
			}
			if ok {
				tb++
				if res != rec.Result {
					changed++
				}
				rec.Result = res
			}
		}
		body.WriteString(runparts.Line(&rec))
		body.WriteByte('\n')
	}
	var out bytes.Buffer
	zw, err := zstd.NewWriter(&out)
	if err != nil {
		return nil, err
	}
	fmt.Fprintf(zw, "# chunk %d records %d mate %d nomove %d", ch.index, len(ch.recs), mate, noMove)
	if lr.tables != nil {
		fmt.Fprintf(zw, " tablebase %d changed %d", tb, changed)
	}
	fmt.Fprintln(zw)
	zw.Write(body.Bytes())
	if err := zw.Close(); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// merge writes chunks 0..n-1 to out, then the manifest, and removes the
// parts directory.
func (lr *job) merge(out string, format datasets.Format, chunks, badInput int64) (*Manifest, error) {
	sum := Summary{BadInput: badInput}
	n, index := lr.shardChunks(chunks)
	header := func(i int64, line []byte) error {
		var idx, n, mate, noMove int64
		if _, err := fmt.Sscanf(string(line), "# chunk %d records %d mate %d nomove %d", &idx, &n, &mate, &noMove); err != nil || idx != index(i) {
			return fmt.Errorf("bad chunk header %q", line)
		}
		sum.Read += n
		sum.Mate += mate
		sum.NoMove += noMove
		if _, rest, ok := strings.Cut(string(line), " tablebase "); ok {
			var tb, changed int64
			if _, err := fmt.Sscanf(rest, "%d changed %d", &tb, &changed); err != nil {
				return fmt.Errorf("bad chunk header %q", line)
			}
			sum.Tablebase += tb
			sum.Changed += changed
		}
		return nil
	}
	file := func(i int64) string { return lr.chunkFile(index(i)) }
	if err := runparts.Merge(out, format, n, file, header, func(datasets.Record) { sum.Labelled++ }); err != nil {
		return nil, err
	}
	m := &Manifest{
		Command:        lr.cfg.Command,
		EngineRevision: version.Revision(),
		Output:         filepath.Base(out),
		Settings:       *lr.cfg,
		Summary:        sum,
	}
	if err := runparts.Finish(out, lr.parts, m, &m.SHA256, &m.Bytes); err != nil {
		return nil, err
	}
	return m, nil
}
