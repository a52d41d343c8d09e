package train

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/engine/nnue"
	"github.com/nnuelab/nnuelab/internal/cputime"
	"github.com/nnuelab/nnuelab/internal/fsutil"
	"github.com/nnuelab/nnuelab/nets"
)

// Config is a training run. Everything that shapes the result is here and
// is recorded in the net's header and the checkpoint.
//
// Its toml tags are the keys of an experiment manifest's [train] section,
// which decodes straight into this type (experiments/manifest TrainSpec);
// keys a manifest sets elsewhere ([data], [loss], seeds) or never (paths,
// the command) are toml:"-". The JSON form is the cache key's and the
// checkpoint's: its field names never change.
type Config struct {
	// Arch is an architecture name from archs/ or a .toml path;
	// Overrides are "key=value" assignments on top (archs.Spec.Override).
	Arch      string   `json:"arch" toml:"-"`
	Overrides []string `json:"overrides,omitempty" toml:"-"`
	// Data are the training files (text, text.zst or binary packs);
	// ValData optional validation files, else ValFraction of the
	// positions (by board hash) is held out.
	Data        []string `json:"data" toml:"-"`
	ValData     []string `json:"val_data,omitempty" toml:"-"`
	ValFraction float64  `json:"val_fraction" toml:"-"`
	// MaxPositions limits the positions read (0 = all).
	MaxPositions int `json:"max_positions,omitempty" toml:"-"`
	// SkipBad skips malformed data entries (counted) instead of stopping.
	SkipBad bool `json:"skip_bad,omitempty" toml:"-"`
	// ShuffleBuffer, when positive, streams the training data from disk
	// as training goes, shuffled through a buffer of this many positions
	// (stream.go), instead of reading it all into memory: memory is
	// bounded by the buffer, not by the data.
	ShuffleBuffer int `json:"shuffle_buffer,omitempty" toml:"shuffle_buffer"`
	// ScanCache, when set, is a directory where a streamed run keeps what
	// its scan found in each training file (scancache.go), so that a
	// resumed or repeated run skips reading the files again. It does not
	// change the result, so it is no part of the run's identity.
	ScanCache string `json:"-" toml:"-"`
	// Init, if set, is a float net of the same architecture (nnuelab's
	// format, e.g. the previous generation's) that training starts from
	// instead of random weights: a warm start. InitSHA256 is its hash,
	// filled in by Run and checked on resume.
	Init       string `json:"init,omitempty" toml:"init"`
	InitSHA256 string `json:"init_sha256,omitempty" toml:"-"`
	// Filter drops positions from the training and validation data as
	// they are read (datasets.Filter); nil keeps every position.
	Filter *datasets.Filter `json:"filter,omitempty" toml:"-"`
	// Out is the float net written after every epoch (*.nnue.zst); the
	// checkpoint, loss history and exports go beside it (see Paths).
	Out  string `json:"out" toml:"-"`
	Seed uint64 `json:"seed" toml:"-"`
	// Threads is the number of workers (0 = all cores). The result does
	// not depend on it.
	Threads int `json:"-" toml:"threads"`
	Batch   int `json:"batch" toml:"batch"`
	// Epochs is the number of epochs of EpochSize positions (0 = the
	// training set's size). Positions, when set, is the budget instead:
	// Epochs becomes ceil(Positions/EpochSize).
	Epochs    int   `json:"epochs" toml:"epochs"`
	EpochSize int   `json:"epoch_size" toml:"epoch_size"`
	Positions int64 `json:"positions,omitempty" toml:"positions"`
	Loss      Loss  `json:"loss" toml:"-"`
	// Optim is embedded so that its keys (optimizer, lr, ...) sit beside
	// the others in a TOML table, as a manifest's [train] writes them; its
	// JSON stays the object "optim".
	Optim `json:"optim"`
	// QAT is quantization-aware training of the head (Model.SetQAT): "on",
	// "off", or "auto" (QATFor).
	QAT string `json:"qat" toml:"qat"`
	// Factorize trains king-bucketed feature sets with virtual features
	// shared by the buckets (Factorized): "on", "off", or "auto"
	// (FactorizeFor); empty is off.
	Factorize string `json:"factorize,omitempty" toml:"factorize"`
	// Export writes the published format where the architecture has one:
	// "auto" (beside Out), "none", or a path.
	Export string `json:"-" toml:"-"`
	// Command is the command line, recorded in the header.
	Command string `json:"-" toml:"-"`
}

// A SettingError is a training setting out of its range: Key is its
// TOML key (Config's, Optim's and Loss's toml tags: a manifest's [train]
// and [loss] keys), so that a config file's reader can name the key in
// its own file.
type SettingError struct {
	Key    string
	Reason string
}

func (e *SettingError) Error() string { return e.Reason }

// settingErr is a SettingError of key.
func settingErr(key, format string, a ...any) error {
	return &SettingError{Key: key, Reason: fmt.Sprintf(format, a...)}
}

// QATFor resolves a QAT mode for spec: "on" and "off" as said, "auto" on
// for sf12 heads only. Stockfish 12's int8 dense layers are coarse, and
// training through their rounding lowers the quantized net's validation
// loss (halfkp 0.00617 vs 0.00628 after 3 epochs). For a linear head the
// straight-through estimator on the output layer costs more than the
// rounding it removes, although that rounding is biased (SCReLU
// activations are all positive, so the output-weight errors add up:
// chess768 after 30 epochs on 3.1M positions, quantized validation loss
// 0.0076-0.0079 plain vs 0.0077-0.0081 trained through the rounding, with
// mean |q-f| of 9-19 cp vs 1.8 cp). Rengar's head is float either way.
func QATFor(spec *archs.Spec, mode string) bool {
	switch mode {
	case "on":
		return true
	case "auto":
		return spec.Head.Type == "sf12"
	}
	return false
}

// DefaultConfig returns the defaults: AdamW (lr 0.01 per tensor unit,
// betas 0.9/0.999, weight decay 0.01) on a cosine schedule down to 1% of
// the rate, batch 16384, 20 epochs of the training set, MPE loss with power
// 2.5, sigmoid scale 2.5/400 and lambda 0.9 (the target mostly the
// search's score: docs/reports/recipe.md measured it +242 Elo over
// CudAD's 0.5 on own self-play), 2% held out for validation, quantization-aware training where it helps ("auto"). (On the
// 1.1M-position Stockfish set, 3 epochs at lr 0.01 beat 0.003 and 0.001 for
// every head: chess768, leorik-3.2, halfkp, rengar.)
func DefaultConfig() Config {
	return Config{
		ValFraction: 0.02, Seed: 1, Batch: 16384, Epochs: 20, QAT: "auto", Factorize: "auto",
		Loss:   Loss{Kind: "mpe", Power: 2.5, Scale: 2.5 / 400, Lambda: 0.9},
		Optim:  Optim{Kind: "adamw", LR: 0.01, Beta1: 0.9, Beta2: 0.999, Eps: 1e-8, WeightDecay: 0.01, Schedule: "cosine", MinLR: 1e-4, StepEpochs: 5, Gamma: 0.3},
		Export: "auto",
	}
}

// Validate checks the config: the architecture, data and output are
// given, and every setting is in its range (ValidateSettings).
func (c *Config) Validate() error {
	switch {
	case c.Arch == "":
		return errors.New("no architecture given")
	case len(c.Data) == 0:
		return errors.New("no training data given")
	case c.Out == "":
		return errors.New("no output path given")
	}
	return c.ValidateSettings()
}

// ValidateSettings checks every setting of the config but the paths: the
// one copy of the training rules, which experiment manifests apply too.
// A bad value is a *SettingError naming its key.
func (c *Config) ValidateSettings() error {
	switch {
	case c.Batch < 1 || c.Batch > maxBatch:
		return settingErr("batch", "batch size %d out of range 1..%d", c.Batch, maxBatch)
	case c.Epochs < 1 && c.Positions <= 0:
		return settingErr("epochs", "epochs %d must be >= 1 (or give a position budget)", c.Epochs)
	case c.EpochSize < 0:
		return settingErr("epoch_size", "epoch size %d must be >= 0 (0 = the training set's size)", c.EpochSize)
	case c.Positions < 0:
		return settingErr("positions", "position budget %d must be >= 0", c.Positions)
	case c.MaxPositions < 0:
		return settingErr("max_positions", "max positions %d must be >= 0", c.MaxPositions)
	case c.ShuffleBuffer < 0 || c.ShuffleBuffer > maxLoad:
		return settingErr("shuffle_buffer", "shuffle buffer %d out of range 0..%d positions", c.ShuffleBuffer, maxLoad)
	case c.ShuffleBuffer > 0 && c.MaxPositions > 0:
		return settingErr("shuffle_buffer", "max positions reads a prefix into memory; with a shuffle buffer, list fewer files or give a position budget")
	case c.Threads < 0 || c.Threads > 1024:
		return settingErr("threads", "threads %d out of range 0..1024", c.Threads)
	case c.QAT != "auto" && c.QAT != "on" && c.QAT != "off":
		return settingErr("qat", "qat %q is not one of auto, on, off", c.QAT)
	case c.Factorize != "" && c.Factorize != "auto" && c.Factorize != "on" && c.Factorize != "off":
		return settingErr("factorize", "factorize %q is not one of auto, on, off", c.Factorize)
	case c.Init != "" && strings.TrimSpace(c.Init) == "":
		return settingErr("init", "init %q is an empty path", c.Init)
	}
	if err := c.Loss.Validate(); err != nil {
		return err
	}
	return c.Optim.Validate()
}

// maxBatch is the largest batch: the workers' gradient buffers are sized
// by it.
const maxBatch = 1 << 20

// Paths are the files of a run, derived from Out: for Out =
// "dir/NAME.nnue.zst", the checkpoint "dir/NAME.ckpt", the loss history
// "dir/NAME.csv" and the export "dir/NAME.<ext>".
type Paths struct {
	Net, Checkpoint, History string
	Base                     string // Out without .nnue.zst: the exports' stem
}

// PathsFor returns the files of a run writing out.
func PathsFor(out string) Paths {
	base := out
	for _, suf := range []string{".zst", ".nnue"} {
		base = strings.TrimSuffix(base, suf)
	}
	return Paths{Net: out, Checkpoint: base + ".ckpt", History: base + ".csv", Base: base}
}

// Result summarizes a finished run.
type Result struct {
	Spec     *archs.Spec // the architecture, overrides applied
	Model    *Model      // the trained model
	Data     *Data       // the data it was trained on
	Paths    Paths       // the files written
	Threads  int         // worker threads used
	History  []EpochStats
	Exported string // the published-format file written, if any
}

// Options are how a run reports and where it starts.
type Options struct {
	// Log receives the progress line and one line per epoch (nil: none).
	Log io.Writer
	// Terminal redraws the progress line in place (\r) instead of
	// printing a line every LogEvery.
	Terminal bool
	LogEvery time.Duration
	// Resume continues from the checkpoint (an error if there is none).
	Resume bool
	// Data, if not nil, is used instead of reading cfg.Data (tests,
	// benchmarks).
	Data *Data
	// StopAfter, if positive, stops after that many optimizer steps and
	// writes nothing (throughput measurements): the one history entry
	// times all steps of the run.
	StopAfter int
	// CheckpointEvery is how often a checkpoint is written within an
	// epoch, so that a killed run loses at most that much (0: every 10
	// minutes; negative: only at the end of each epoch). A cancelled
	// context writes one at once. Checkpoints do not change the net.
	CheckpointEvery time.Duration
	// checkpointSteps, if positive, checkpoints every that many steps
	// instead (tests).
	checkpointSteps int
	// afterStep, if not nil, is called after every step with the steps
	// done (tests: interruptions, files changing under a run).
	afterStep func(step int)
	// beforePass, if not nil, is called by a streamed run's stream as it
	// starts each pass over the files (tests: files changing under a run
	// at a point the stream has not read past).
	beforePass func(pass int64)
}

// defaultCheckpointEvery is Options.CheckpointEvery's default.
const defaultCheckpointEvery = 10 * time.Minute

// LoadSpec loads the architecture of cfg with its overrides.
func LoadSpec(cfg *Config) (*archs.Spec, error) {
	spec, err := archs.Load(cfg.Arch)
	if err != nil {
		return nil, err
	}
	if len(cfg.Overrides) > 0 {
		if spec, err = spec.Override(cfg.Overrides...); err != nil {
			return nil, err
		}
	}
	return spec, nil
}

// compareResume lists the differences between the checkpoint's config and
// the requested one that a resume cannot honour. The epochs may grow; the
// paths may be spelt differently (the checkpoint was found, and the data
// are checked by their SHA-256).
func compareResume(saved, now *Config) error {
	a, _ := json.Marshal(saved)
	b, _ := json.Marshal(now)
	var ma, mb map[string]any
	json.Unmarshal(a, &ma)
	json.Unmarshal(b, &mb)
	for _, k := range []string{"epochs", "positions", "out", "data", "val_data"} {
		delete(ma, k)
		delete(mb, k)
	}
	var diffs []string
	for k := range ma {
		if fmt.Sprint(ma[k]) != fmt.Sprint(mb[k]) {
			diffs = append(diffs, fmt.Sprintf("%s: checkpoint %v, now %v", k, ma[k], mb[k]))
		}
	}
	for k := range mb {
		if _, ok := ma[k]; !ok {
			diffs = append(diffs, fmt.Sprintf("%s: checkpoint unset, now %v", k, mb[k]))
		}
	}
	if len(diffs) > 0 {
		sort.Strings(diffs)
		return fmt.Errorf("the checkpoint was made with other settings (resume with the same flags, only --epochs/--positions may grow):\n  %s", strings.Join(diffs, "\n  "))
	}
	return nil
}

// warmStart loads the float net at path into m and returns its SHA-256.
func warmStart(m *Model, path string) (string, error) {
	sum, _, err := fsutil.FileSHA256(path)
	if err != nil {
		return "", fmt.Errorf("init: %w", err)
	}
	f, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("init: %w", err)
	}
	defer f.Close()
	h, ts, err := nets.ReadFloat(f)
	if err != nil {
		return "", fmt.Errorf("init %s: %w", path, err)
	}
	if h.ArchSHA256 != "" && h.ArchSHA256 != m.Spec.NetSHA256() {
		return "", fmt.Errorf("init %s: trained for architecture %s (arch SHA-256 %.12s), not %s (%.12s)", path, h.Arch, h.ArchSHA256, m.Spec.Name, m.Spec.NetSHA256())
	}
	if err := m.WarmStart(ts); err != nil {
		return "", fmt.Errorf("init %s: %w", path, err)
	}
	return sum, nil
}

// Run trains a network as cfg says. Each epoch ends with the validation
// loss, the float net, an atomic checkpoint and the CSV history, so that
// an interrupted run (ctx cancelled, or killed) resumes with
// Options.Resume from the last completed epoch and gives the same net as
// an uninterrupted one.
func Run(ctx context.Context, cfg Config, opt Options) (*Result, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	spec, err := LoadSpec(&cfg)
	if err != nil {
		return nil, err
	}
	paths := PathsFor(cfg.Out)
	if dir := filepath.Dir(cfg.Out); dir != "" {
		if st, err := os.Stat(dir); err != nil || !st.IsDir() {
			return nil, fmt.Errorf("output folder %s does not exist", dir)
		}
	}
	var opts []Option
	if FactorizeFor(spec, cfg.Factorize) {
		opts = append(opts, Factorized())
	}
	m, err := NewModel(spec, cfg.Seed, opts...)
	if err != nil {
		return nil, err
	}
	m.SetQAT(QATFor(spec, cfg.QAT))
	if cfg.Init != "" {
		if cfg.InitSHA256, err = warmStart(m, cfg.Init); err != nil {
			return nil, err
		}
	}
	res := &Result{Spec: spec, Model: m, Paths: paths}
	st := &state{}
	savedData := ""
	if opt.Resume {
		saved, s, h, err := loadCheckpoint(paths.Checkpoint, m)
		if err != nil {
			return nil, err
		}
		if err := compareResume(saved, &cfg); err != nil {
			return nil, err
		}
		if h.ContentSHA256 == "" {
			// Written before checkpoints were sealed: still resumed, as the
			// runs that wrote them expect, but only its payload is checked.
			logf(opt.Log, "note: checkpoint %s predates content checksums: its payload is checked, its header (config, step, history) is not\n", paths.Checkpoint)
		}
		st, savedData = s, h.DatasetSHA256
	} else if _, err := os.Stat(paths.Checkpoint); err == nil && opt.StopAfter == 0 {
		return nil, fmt.Errorf("checkpoint %s exists: resume it (--resume) or remove it", paths.Checkpoint)
	}
	data := opt.Data
	var sd *streamData
	switch {
	case data != nil && cfg.ShuffleBuffer > 0:
		return nil, errors.New("a shuffle buffer streams the data files; Options.Data is data in memory")
	case data == nil && cfg.ShuffleBuffer > 0:
		logf(opt.Log, "scanning %s ...\n", strings.Join(cfg.Data, ", "))
		if data, sd, err = scanStream(&cfg, defaultThreads(cfg.Threads)); err != nil {
			return nil, err
		}
		sd.beforePass = opt.beforePass
		logf(opt.Log, "streaming %d training positions a pass from %d blocks of %d files through a shuffle buffer of %d\n",
			sd.n, len(sd.blocks), len(sd.files), cfg.ShuffleBuffer)
		if cfg.ScanCache != "" {
			logf(opt.Log, "scan cache %s: %d of %d files' scans taken from it\n", cfg.ScanCache, sd.cachedFiles, len(sd.files))
			if sd.cacheErr != nil {
				logf(opt.Log, "note: scan cache %s not written: %v\n", cfg.ScanCache, sd.cacheErr)
			}
		}
	case data == nil:
		logf(opt.Log, "reading %s ...\n", strings.Join(cfg.Data, ", "))
		if data, err = LoadData(cfg.Data, cfg.ValData, cfg.ValFraction, cfg.MaxPositions, cfg.SkipBad, cfg.Filter); err != nil {
			return nil, err
		}
	}
	if opt.Data == nil {
		if data.Excluded > 0 {
			logf(opt.Log, "left out %d training positions that are also in the validation files\n", data.Excluded)
		}
		if data.Filtered > 0 {
			logf(opt.Log, "filter dropped %d positions\n", data.Filtered)
		}
		if data.Skipped > 0 {
			logf(opt.Log, "skipped %d bad entries\n", data.Skipped)
		}
	}
	if opt.Resume && savedData != data.SHA256 {
		return nil, fmt.Errorf("checkpoint %s was trained on data with SHA-256 %s; the data given now hashes to %s", paths.Checkpoint, savedData, data.SHA256)
	}
	res.Data = data
	epochSize := cfg.EpochSize
	if epochSize == 0 {
		epochSize = int(data.TrainPositions())
	}
	epochs := cfg.Epochs
	if cfg.Positions > 0 {
		epochs = int((cfg.Positions + int64(epochSize) - 1) / int64(epochSize))
	}
	stepsPerEpoch := (epochSize + cfg.Batch - 1) / cfg.Batch
	totalSteps := epochs * stepsPerEpoch
	if within := st.Step - st.Epoch*stepsPerEpoch; within < 0 || within >= stepsPerEpoch && st.Epoch < epochs {
		return nil, fmt.Errorf("checkpoint %s: step %d is not in epoch %d of %d steps", paths.Checkpoint, st.Step, st.Epoch+1, stepsPerEpoch)
	}
	e := newEngine(m, cfg.Loss, cfg.Threads)
	res.Threads = e.threads
	factorized := ""
	if m.Factorized() {
		factorized = fmt.Sprintf(" (%d of them virtual: factorized king buckets)", m.factor*m.width)
	}
	logf(opt.Log, "%s: %d parameters%s, %d training and %d validation positions, %d epochs of %d positions (%d steps of %d), %d threads, kernels %s\n",
		spec.Name, m.NumParams(), factorized, data.TrainPositions(), len(data.Val), epochs, epochSize, stepsPerEpoch, cfg.Batch, e.threads, kernelName())

	var src batcher
	if sd != nil {
		if st.Positions > 0 {
			logf(opt.Log, "resuming at stream position %d: replaying the pass before it and its own up to it (decoding only)\n", st.Positions)
		}
		// The stream's goroutine runs beside the workers at a low priority
		// (background): it needs a P of its own for the OS to arbitrate.
		if prev := runtime.GOMAXPROCS(0); prev < e.threads+1 {
			runtime.GOMAXPROCS(e.threads + 1)
			defer runtime.GOMAXPROCS(prev)
		}
		src = newStreamSource(sd, cfg.Seed, cfg.ShuffleBuffer, cfg.Batch, st.Positions)
	} else {
		src = &memSource{recs: data.Train, stream: newStream(len(data.Train), cfg.Seed)}
	}
	defer src.close()
	if err := src.wait(); err != nil {
		return nil, err
	}
	prog := &progress{w: opt.Log, terminal: opt.Terminal, every: opt.LogEvery}
	// A measurement (StopAfter) times the steps from the start of the run
	// and writes nothing.
	runStart, runCPU, runPos, runFlops := time.Now(), cputime.Process().Seconds(), st.Positions, 0.0
	measured := func(epoch int, loss float64) *Result {
		prog.clear()
		secs := time.Since(runStart).Seconds()
		res.History = append(st.History, EpochStats{Epoch: epoch + 1, Step: st.Step, Positions: st.Positions,
			TrainLoss: loss, ValLoss: math.NaN(), Seconds: secs, CPUSeconds: cputime.Process().Seconds() - runCPU,
			PosPerSec: float64(st.Positions-runPos) / secs, GFLOPs: runFlops / secs / 1e9})
		return res
	}
	every := opt.CheckpointEvery
	if every == 0 {
		every = defaultCheckpointEvery
	}
	lastSave := time.Now()
	for epoch := st.Epoch; epoch < epochs; epoch++ {
		start, cpu0 := time.Now(), cputime.Process().Seconds()
		s0, part := 0, epochPart{}
		if epoch == st.Epoch {
			// A checkpoint from within this epoch: go on from its step.
			s0, part = st.Step-epoch*stepsPerEpoch, st.Part
		}
		posStart := int64(epoch) * int64(epochSize)
		segPos, segFlops := st.Positions, 0.0
		// sofar is the epoch's part up to now, for a checkpoint.
		sofar := func() epochPart {
			p := part
			p.Seconds += time.Since(start).Seconds()
			p.CPUSeconds += cputime.Process().Seconds() - cpu0
			return p
		}
		var lr float64
		for s := s0; s < stepsPerEpoch; s++ {
			if err := ctx.Err(); err != nil {
				prog.clear()
				if opt.StopAfter > 0 {
					return res, fmt.Errorf("interrupted in epoch %d: %w", epoch+1, err)
				}
				st.Part = sofar()
				if err := saveCheckpoint(paths.Checkpoint, m, &cfg, data.SHA256, st); err != nil {
					return res, fmt.Errorf("interrupted in epoch %d; writing the checkpoint: %w", epoch+1, err)
				}
				return res, fmt.Errorf("interrupted in epoch %d at step %d (the checkpoint holds it; --resume goes on): %w", epoch+1, st.Step, err)
			}
			if opt.StopAfter > 0 && st.Step >= opt.StopAfter {
				return measured(epoch, part.LossSum/float64(max(part.LossN, 1))), nil
			}
			lo := int64(s) * int64(cfg.Batch)
			hi := min(lo+int64(cfg.Batch), int64(epochSize))
			batch, err := src.next(posStart+lo, int(hi-lo))
			if err != nil {
				prog.clear()
				return res, err
			}
			lr = cfg.Optim.rate(st.Step, epoch, totalSteps)
			h := &hyper{o: &cfg.Optim, lr: lr, step: st.Step + 1}
			e.loss.Lambda = cfg.Loss.lambdaAt(st.Step, totalSteps)
			l := e.step(batch, h)
			if math.IsNaN(l) || math.IsInf(l, 0) {
				return res, fmt.Errorf("epoch %d step %d: the loss is %g (learning rate too high?)", epoch+1, st.Step+1, l)
			}
			part.Flops += e.lastFlops()
			segFlops += e.lastFlops()
			runFlops += e.lastFlops()
			part.LossSum += float64(l * float64(len(batch)))
			part.LossN += int64(len(batch))
			st.Step++
			st.Positions += int64(len(batch))
			el := time.Since(start).Seconds()
			rate := float64(st.Positions-segPos) / el
			left := float64(int64(epochs)*int64(epochSize)-(posStart+hi)) / rate
			prog.update(fmt.Sprintf("epoch %d/%d %s %3.0f%% loss %.6f | %.0f pos/s | %.1f GFLOP/s | ETA %s",
				epoch+1, epochs, bar(float64(hi)/float64(epochSize), 20), 100*float64(hi)/float64(epochSize),
				part.LossSum/float64(part.LossN), rate, segFlops/el/1e9, fmtDuration(left)))
			due := every > 0 && time.Since(lastSave) >= every
			if opt.checkpointSteps > 0 {
				due = st.Step%opt.checkpointSteps == 0
			}
			if due && opt.StopAfter == 0 && s+1 < stepsPerEpoch {
				st.Part = sofar()
				if err := saveCheckpoint(paths.Checkpoint, m, &cfg, data.SHA256, st); err != nil {
					return res, fmt.Errorf("writing checkpoint: %w", err)
				}
				lastSave = time.Now()
			}
			if opt.afterStep != nil {
				opt.afterStep(st.Step)
			}
		}
		if opt.StopAfter > 0 {
			if epoch == epochs-1 {
				return measured(epoch, part.LossSum/float64(max(part.LossN, 1))), nil
			}
			continue
		}
		done := sofar()
		st.Part = epochPart{}
		e.loss.Lambda = cfg.Loss.Lambda
		val := e.evalLoss(data.Val)
		qnet, err := nnue.FromFloat(spec, m.Tensors())
		if err != nil {
			return res, fmt.Errorf("epoch %d: the engine cannot load the net: %w", epoch+1, err)
		}
		qval, qerr, skipped := e.evalQuantized(qnet, data.Val)
		if skipped > 0 && epoch == st.Epoch {
			logf(opt.Log, "note: %d validation positions are not legal positions for the engine; the quantized loss leaves them out\n", skipped)
		}
		stats := EpochStats{Epoch: epoch + 1, Step: st.Step, Positions: st.Positions, LR: lr,
			TrainLoss: done.LossSum / float64(done.LossN), ValLoss: val, QValLoss: qval, QuantErrCP: qerr, Seconds: done.Seconds, CPUSeconds: done.CPUSeconds,
			PosPerSec: float64(epochSize) / done.Seconds, GFLOPs: done.Flops / done.Seconds / 1e9}
		st.History = append(st.History, stats)
		st.Epoch = epoch + 1
		if err := writeNet(paths.Net, m, &cfg, data, st); err != nil {
			return res, fmt.Errorf("writing net: %w", err)
		}
		if err := WriteHistory(paths.History, st.History); err != nil {
			return res, fmt.Errorf("writing history: %w", err)
		}
		if err := saveCheckpoint(paths.Checkpoint, m, &cfg, data.SHA256, st); err != nil {
			return res, fmt.Errorf("writing checkpoint: %w", err)
		}
		lastSave = time.Now()
		prog.clear()
		logf(opt.Log, "epoch %d/%d: train loss %.6f, val loss %.6f (quantized %.6f, |q-f| %.2f cp), lr %.3g, %.0f pos/s, %.1f GFLOP/s, %.1f s; saved %s\n",
			epoch+1, epochs, stats.TrainLoss, val, qval, qerr, lr, stats.PosPerSec, stats.GFLOPs, done.Seconds, paths.Net)
	}
	res.History = st.History
	if cfg.Export != "none" && ExportFormat(spec) != "" {
		path := cfg.Export
		if path == "auto" || path == "" {
			path = paths.Base + "." + exportExt(spec)
		}
		if err := ExportFile(spec, m.Tensors(), path); err != nil {
			return res, fmt.Errorf("export: %w", err)
		}
		res.Exported = path
		logf(opt.Log, "exported %s (format %s)\n", path, spec.Net.Format)
	}
	return res, nil
}

// writeNet writes the float net with its header: architecture, its hash,
// the data's hash and the training config and results.
func writeNet(path string, m *Model, cfg *Config, data *Data, st *state) error {
	cj, _ := json.Marshal(cfg)
	last := st.History[len(st.History)-1]
	var files []string
	for _, f := range data.Files {
		files = append(files, filepath.Base(f.Path)+" "+f.SHA256)
	}
	h := nets.Header{Arch: m.Spec.Name, ArchSHA256: m.Spec.NetSHA256(), DatasetSHA256: data.SHA256,
		Created: time.Now().UTC().Format(time.RFC3339),
		Training: map[string]string{
			"trainer":    "nnuelab train",
			"command":    cfg.Command,
			"config":     string(cj),
			"data":       strings.Join(files, "; "),
			"epochs":     strconv.Itoa(st.Epoch),
			"steps":      strconv.Itoa(st.Step),
			"positions":  strconv.FormatInt(st.Positions, 10),
			"train_loss": fmtF(last.TrainLoss),
			"val_loss":   fmtF(last.ValLoss),
			"qval_loss":  fmtF(last.QValLoss),
			"quant_err":  fmtF(last.QuantErrCP) + " cp",
		}}
	if err := nets.WriteFloat(path, h, m.Tensors()); err != nil {
		return err
	}
	return os.Chmod(path, 0o644) // WriteFloat's temporary file is 0600
}

// batcher hands out the training stream a batch at a time.
type batcher interface {
	// next returns the stream's positions k .. k+n-1, valid until the
	// next call; the calls follow the stream in order.
	next(k int64, n int) ([]*datasets.Record, error)
	// wait returns once the first positions are ready.
	wait() error
	close()
}

// memSource is the training stream of data in memory.
type memSource struct {
	recs   []datasets.Record
	stream *stream
	ptrs   []*datasets.Record
}

func (m *memSource) next(k int64, n int) ([]*datasets.Record, error) {
	m.ptrs = m.ptrs[:0]
	for i := k; i < k+int64(n); i++ {
		m.ptrs = append(m.ptrs, &m.recs[m.stream.at(i)])
	}
	return m.ptrs, nil
}

func (m *memSource) wait() error { return nil }

func (m *memSource) close() {}

// stream maps a training-stream position k to a training record: pass
// k/n visits the records in a permutation drawn from (seed, pass).
type stream struct {
	n    int
	seed uint64
	pass int64
	perm []int32
}

func newStream(n int, seed uint64) *stream { return &stream{n: n, seed: seed, pass: -1} }

func (s *stream) at(k int64) int32 {
	if p := k / int64(s.n); p != s.pass {
		s.pass = p
		if s.perm == nil {
			s.perm = make([]int32, s.n)
		}
		for i := range s.perm {
			s.perm[i] = int32(i)
		}
		rng := rand.New(rand.NewPCG(s.seed, uint64(p)+0x5eed))
		for i := s.n - 1; i > 0; i-- {
			j := rng.IntN(i + 1)
			s.perm[i], s.perm[j] = s.perm[j], s.perm[i]
		}
	}
	return s.perm[k%int64(s.n)]
}

func logf(w io.Writer, format string, a ...any) {
	if w != nil {
		fmt.Fprintf(w, format, a...)
	}
}
