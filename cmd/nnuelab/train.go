package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/nets/train"
)

func init() {
	register(command{"train", "train a network of any architecture (float32, CPU, deterministic, resumable)", runTrain})
}

// listFlag is a repeatable flag whose values may also be comma-separated.
type listFlag []string

// String implements flag.Value.
func (l *listFlag) String() string { return strings.Join(*l, ",") }

// Set implements flag.Value: it appends each comma-separated value.
func (l *listFlag) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		if s = strings.TrimSpace(s); s != "" {
			*l = append(*l, s)
		}
	}
	return nil
}

// repeatFlag is a repeatable flag taken verbatim (overrides contain commas).
type repeatFlag []string

// String implements flag.Value.
func (r *repeatFlag) String() string { return strings.Join(*r, " ") }

// Set implements flag.Value: it appends v.
func (r *repeatFlag) Set(v string) error { *r = append(*r, v); return nil }

const trainSynopsis = `train --arch ARCH --data FILE[,FILE...] --out NET.nnue.zst [flags]
       nnuelab train --resume --out NET.nnue.zst [--epochs N] [--threads N]
       nnuelab train --arch ARCH --export-from NET.nnue.zst [--export FILE]

Trains ARCH (a name from archs/ or a .toml path; --set key=value overrides)
on positions in any dataset format (text, binary packs, Stockfish's
.binpack and .plain, bulletformat; docs/datasets.md), filtered as read. After every epoch it
writes the float net (--out), a checkpoint (NAME.ckpt) and the loss history
(NAME.csv) atomically; --resume continues an interrupted run from its
checkpoint (the flags are taken from it) and gives the same net as an
uninterrupted one. At the end, architectures with a published format
(Koivisto, Leorik, Stockfish 12) are also exported (NAME.net / NAME.nnue).
Training is deterministic for a --seed, whatever --threads is.

Flags:`

func runTrain(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("train", trainSynopsis, stderr)
	d := train.DefaultConfig()
	var data, valData listFlag
	var sets repeatFlag
	archName := fs.String("arch", "", "architecture: "+strings.Join(archs.Builtin(), ", ")+", or a .toml path")
	fs.Var(&sets, "set", "override an architecture key, e.g. --set accumulator.width=128 (repeatable)")
	fs.Var(&data, "data", "training data files (.txt, .txt.zst, .bin, .binpack, .plain, .bullet; repeatable or comma-separated)")
	fs.Var(&valData, "val-data", "validation files (default: hold out --val-fraction of --data by position)")
	valFrac := fs.Float64("val-fraction", d.ValFraction, "fraction of positions held out for validation (by board hash)")
	maxPos := fs.Int("max-positions", 0, "read at most this many positions (0 = all)")
	skipBad := fs.Bool("skip-bad", false, "skip malformed data entries (counted) instead of stopping at the first")
	shuffleBuf := fs.Int("shuffle-buffer", 0, "stream the training data from disk as it trains, shuffled through a buffer of this many positions (about 40 bytes each), instead of reading it all into memory (0); memory is then bounded by the buffer, not by the data (docs/training.md, \"Streaming\")")
	scanCache := fs.String("scan-cache", defaultScanCache(), "with --shuffle-buffer and --val-data: a directory that keeps what the scan found in each training file, so that --resume and later runs on unchanged files skip reading them again (\"off\": none)")
	ckptEvery := fs.Duration("checkpoint-every", 10*time.Minute, "write a checkpoint this often within an epoch too (a killed run resumes from it with --resume); 0 = at the end of each epoch only")
	filter := fs.String("filter", "default", "positions to train on: default (from ply 16, not in check, quiet move, |score| <= 30000: what datagen keeps), none, or a list of default, min-ply=N, max-score=N, skip-check, skip-noisy, one-in=N (one training position in N, by board hash; validation stays whole)")
	out := fs.String("out", "", "float net written after every epoch (NAME.nnue.zst); NAME.ckpt and NAME.csv go beside it")
	seed := fs.Uint64("seed", d.Seed, "random seed (initial weights, shuffling)")
	threads := fs.Int("threads", 0, "worker threads (0 = all cores); the result does not depend on it")
	batch := fs.Int("batch", d.Batch, "positions per optimizer step")
	epochs := fs.Int("epochs", d.Epochs, "epochs")
	epochSize := fs.Int("epoch-size", 0, "positions per epoch (0 = the training set's size)")
	positions := fs.Int64("positions", 0, "position budget: sets --epochs to ceil(positions / epoch size)")
	lossKind := fs.String("loss", d.Loss.Kind, "loss: mpe (|sigmoid(s*cp) - target|^power, CudAD), mse, or result (Rengar: ln(1+exp(-s*cp)) for a win, ...)")
	power := fs.Float64("power", d.Loss.Power, "exponent of the mpe loss")
	scale := fs.Float64("scale", d.Loss.Scale, "sigmoid scale s per centipawn (CudAD 2.5/400; Rengar's own logit is 1/128)")
	lambda := fs.Float64("lambda", d.Loss.Lambda, "target = lambda*sigmoid(s*score) + (1-lambda)*wdl (0.9: docs/reports/recipe.md; 0.5: CudAD's average)")
	lambdaEnd := fs.Float64("lambda-end", -1, "if >= 0: lambda moves linearly from --lambda at the first step to this at the last (validation uses --lambda)")
	optim := fs.String("optimizer", d.Optim.Kind, "adamw (decoupled weight decay) or adam (L2)")
	lr := fs.Float64("lr", d.Optim.LR, "learning rate (per unit of each tensor's natural scale)")
	beta1 := fs.Float64("beta1", d.Optim.Beta1, "Adam beta1")
	beta2 := fs.Float64("beta2", d.Optim.Beta2, "Adam beta2")
	eps := fs.Float64("eps", d.Optim.Eps, "Adam epsilon")
	wd := fs.Float64("wd", d.Optim.WeightDecay, "weight decay (not on biases)")
	decayScope := fs.String("decay-scope", "all", "weights that decay: all, transformer (not the head), buckets (the transformer's king-specific rows only: not a factorized net's virtual rows nor the head)")
	schedule := fs.String("schedule", d.Optim.Schedule, "learning-rate schedule: constant, step, cosine")
	stepEpochs := fs.Int("step-epochs", d.Optim.StepEpochs, "step schedule: multiply the rate by --gamma every this many epochs")
	gamma := fs.Float64("gamma", d.Optim.Gamma, "step schedule factor")
	minLR := fs.Float64("min-lr", d.Optim.MinLR, "cosine schedule: final learning rate")
	warmup := fs.Int("warmup", 0, "linear warm-up over this many steps")
	factorize := fs.String("factorize", d.Factorize, "train king-bucketed feature sets with virtual (piece, square) features shared by all buckets, folded into the net at the end: auto (on with king buckets), on, off")
	qat := fs.String("qat", d.QAT, "quantization-aware training of the head (forward on the weights rounded as the engine holds them): auto (on for sf12 heads), on, off")
	export := fs.String("export", "auto", "published-format export: auto (NAME.net/.nnue beside --out), none, or a path")
	exportFrom := fs.String("export-from", "", "only export this trained float net to --export (no training)")
	resume := fs.Bool("resume", false, "continue from the checkpoint of --out")
	initNet := fs.String("init", "", "start from this float net of the same architecture (a warm start, e.g. from the previous generation) instead of random weights")
	measure := fs.Int("measure-steps", 0, "stop after this many steps and report the throughput (writes nothing)")
	quiet := fs.Bool("quiet", false, "no progress output")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf(fs, "unexpected argument %q", fs.Arg(0))
	}
	set := map[string]bool{}
	fs.Visit(func(f *flag.Flag) { set[f.Name] = true })

	if *exportFrom != "" {
		if *archName == "" {
			return errors.New("--export-from needs --arch")
		}
		spec, err := train.LoadSpec(&train.Config{Arch: *archName, Overrides: sets})
		if err != nil {
			return err
		}
		if train.ExportFormat(spec) == "" {
			return fmt.Errorf("architecture %s (format %s) has no published net format", spec.Name, spec.Net.Format)
		}
		dst := *export
		if dst == "auto" || dst == "" {
			ext := ".net"
			if spec.Net.Format == "leorik" || spec.Net.Format == "sf12" {
				ext = ".nnue"
			}
			dst = train.PathsFor(*exportFrom).Base + ext
		}
		if dst == "none" {
			return errors.New("--export-from with --export none does nothing")
		}
		if err := train.ExportNetFile(spec, *exportFrom, dst); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "exported %s (%s)\n", dst, spec.Net.Format)
		return nil
	}

	if *out == "" {
		return &usageError{err: errors.New("--out is required (the float net to write, e.g. nets/chess768.nnue.zst)")}
	}
	cfg := d
	if *resume {
		// Start from the checkpoint's settings; flags given now must agree
		// (Run checks that), except the epochs and threads.
		saved, err := train.CheckpointConfig(train.PathsFor(*out).Checkpoint)
		if err != nil {
			return err
		}
		cfg = *saved
	}
	apply := func(name string, f func()) {
		if !*resume || set[name] {
			f()
		}
	}
	apply("arch", func() { cfg.Arch = *archName })
	apply("set", func() { cfg.Overrides = sets })
	apply("data", func() { cfg.Data = data })
	apply("val-data", func() { cfg.ValData = valData })
	apply("val-fraction", func() { cfg.ValFraction = *valFrac })
	apply("max-positions", func() { cfg.MaxPositions = *maxPos })
	apply("skip-bad", func() { cfg.SkipBad = *skipBad })
	apply("shuffle-buffer", func() { cfg.ShuffleBuffer = *shuffleBuf })
	cfg.ScanCache = *scanCache
	if cfg.ScanCache == "off" {
		cfg.ScanCache = ""
	}
	var filterErr error
	apply("filter", func() { cfg.Filter, filterErr = datasets.ParseFilter(*filter) })
	if filterErr != nil {
		return filterErr
	}
	apply("seed", func() { cfg.Seed = *seed })
	apply("batch", func() { cfg.Batch = *batch })
	apply("epochs", func() { cfg.Epochs = *epochs })
	apply("epoch-size", func() { cfg.EpochSize = *epochSize })
	apply("positions", func() { cfg.Positions = *positions })
	apply("loss", func() { cfg.Loss.Kind = *lossKind })
	apply("power", func() { cfg.Loss.Power = *power })
	apply("scale", func() { cfg.Loss.Scale = *scale })
	apply("lambda", func() { cfg.Loss.Lambda = *lambda })
	apply("lambda-end", func() {
		cfg.Loss.LambdaEnd = nil
		if *lambdaEnd >= 0 {
			cfg.Loss.LambdaEnd = lambdaEnd
		}
	})
	apply("optimizer", func() { cfg.Optim.Kind = *optim })
	apply("lr", func() { cfg.Optim.LR = *lr })
	apply("beta1", func() { cfg.Optim.Beta1 = *beta1 })
	apply("beta2", func() { cfg.Optim.Beta2 = *beta2 })
	apply("eps", func() { cfg.Optim.Eps = *eps })
	apply("wd", func() { cfg.Optim.WeightDecay = *wd })
	apply("decay-scope", func() { cfg.Optim.DecayScope = *decayScope })
	apply("schedule", func() { cfg.Optim.Schedule = *schedule })
	apply("step-epochs", func() { cfg.Optim.StepEpochs = *stepEpochs })
	apply("gamma", func() { cfg.Optim.Gamma = *gamma })
	apply("min-lr", func() { cfg.Optim.MinLR = *minLR })
	apply("warmup", func() { cfg.Optim.Warmup = *warmup })
	apply("qat", func() { cfg.QAT = *qat })
	apply("factorize", func() { cfg.Factorize = *factorize })
	apply("init", func() { cfg.Init = *initNet })
	cfg.Out = *out
	cfg.Threads = *threads
	cfg.Export = *export
	cfg.Command = "nnuelab train " + strings.Join(args, " ")
	if !*resume && *archName == "" {
		return &usageError{err: errors.New("--arch is required")}
	}
	if !*resume && len(data) == 0 {
		return &usageError{err: errors.New("--data is required")}
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	opt := train.Options{Resume: *resume, StopAfter: *measure, LogEvery: 30 * time.Second, CheckpointEvery: *ckptEvery}
	if *ckptEvery <= 0 {
		opt.CheckpointEvery = -1 // epoch ends only
	}
	if !*quiet {
		opt.Log = stderr
		if f, ok := stderr.(*os.File); ok {
			if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
				opt.Terminal = true
			}
		}
	}
	res, err := train.Run(ctx, cfg, opt)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("%w\nresume with: nnuelab train --resume --out %s", err, *out)
		}
		return err
	}
	if *measure > 0 {
		h := res.History[len(res.History)-1]
		perCPU := ""
		if h.CPUSeconds > 0 {
			perCPU = fmt.Sprintf("; per CPU-second: %.0f positions, %.2f GFLOP", h.PosPerSec*h.Seconds/h.CPUSeconds, h.GFLOPs*h.Seconds/h.CPUSeconds)
		}
		fmt.Fprintf(stdout, "%s: %d steps of %d in %.1f s (%.1f CPU-s), %.0f positions/s, %.2f GFLOP/s with %d threads%s\n",
			res.Spec.Name, h.Step, cfg.Batch, h.Seconds, h.CPUSeconds, h.PosPerSec, h.GFLOPs, res.Threads, perCPU)
		return nil
	}
	last := res.History[len(res.History)-1]
	fmt.Fprintf(stdout, "%s: %d epochs, train loss %.6f, val loss %.6f -> %s\n", res.Spec.Name, last.Epoch, last.TrainLoss, last.ValLoss, res.Paths.Net)
	if res.Exported != "" {
		fmt.Fprintf(stdout, "exported %s\n", res.Exported)
	}
	return nil
}

// defaultScanCache is --scan-cache's default: nnuelab/scan in the user's
// cache directory (as Go keeps its build cache), or none without one.
func defaultScanCache() string {
	dir, err := os.UserCacheDir()
	if err != nil {
		return "off"
	}
	return filepath.Join(dir, "nnuelab", "scan")
}
