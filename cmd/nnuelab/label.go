package main

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"strings"
	"time"

	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/datasets/label"
)

func init() {
	register(command{"label", "rescore a dataset with a UCI engine at fixed nodes or depth (parallel, resumable)", runLabel})
}

// optionList collects repeated --option NAME=VALUE flags.
type optionList [][2]string

func (o *optionList) String() string {
	var s []string
	for _, kv := range *o {
		s = append(s, kv[0]+"="+kv[1])
	}
	return strings.Join(s, ",")
}

func (o *optionList) Set(v string) error {
	name, value, ok := strings.Cut(v, "=")
	if !ok || strings.TrimSpace(name) == "" {
		return fmt.Errorf("want NAME=VALUE, got %q", v)
	}
	*o = append(*o, [2]string{strings.TrimSpace(name), strings.TrimSpace(value)})
	return nil
}

func runLabel(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("label", "label --engine PATH (--nodes N | --depth D) --out FILE [flags] IN...", stderr)
	engine := fs.String("engine", "/usr/games/stockfish", "UCI engine to score with")
	engineArgs := fs.String("engine-args", "", "arguments for the engine, space-separated")
	var opts optionList
	fs.Var(&opts, "option", "UCI option NAME=VALUE sent after uci (repeatable), e.g. --option Hash=16 (Threads=1 keeps searches deterministic)")
	out := fs.String("out", "", "output: .txt, .txt.zst or .bin; work in progress is kept in FILE.parts/")
	nodes := fs.Uint64("nodes", 0, "nodes per position")
	depth := fs.Int("depth", 0, "depth per position")
	procs := fs.Int("processes", runtime.NumCPU(), "engine processes run at once (does not change the output)")
	chunk := fs.Int("chunk", 1024, "records per chunk: unit of work and resumption; ucinewgame starts each")
	limit := fs.Int64("limit", 0, "label only the first N records (0: all)")
	timeout := fs.Duration("timeout", time.Minute, "longest one search may take before the engine is killed")
	shard := fs.String("shard", "", "label only shard k of N: chunks with index k-1 mod N (default: all)")
	skipBad := fs.Bool("skip-bad", false, "skip malformed input entries (counted) instead of stopping")
	syzygyDirs := fs.String("syzygy", "", "Syzygy table directories (':'-separated): a position they hold gets their result instead of its game's; the manifest lists the tables by name and checksum")
	quiet := fs.Bool("quiet", false, "no progress line")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() == 0 {
		return usageErrorf(fs, "need --out and at least one input")
	}
	if *nodes == 0 && *depth <= 0 {
		return &usageError{err: errors.New("give --nodes or --depth")}
	}
	var k, n int
	if *shard != "" {
		var err error
		if k, n, err = parseShard(*shard); err != nil {
			return err
		}
	}
	st := newStatus(stderr, *quiet)
	ctx, stop := interruptible()
	defer stop()
	m, err := label.Run(ctx, fs.Args(), *out, label.Config{
		Engine: *engine, Args: strings.Fields(*engineArgs), Options: opts,
		Nodes: *nodes, Depth: *depth, ChunkRecords: *chunk, Limit: *limit, SkipBad: *skipBad,
		Shard: k, Shards: n, Syzygy: *syzygyDirs,
		Processes: *procs, Timeout: *timeout,
		Command: "nnuelab label " + strings.Join(args, " "),
		Progress: func(done int64, rate float64) {
			st.show(fmt.Sprintf("label: %d positions this run  %.0f pos/s", done, rate), false)
		},
	})
	st.show("", true)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted; finished chunks are kept in %s, rerun the same command to continue", datasets.PartsDir(*out))
		}
		return err
	}
	s := m.Summary
	fmt.Fprintf(stdout, "%s: %d positions labelled by %s (of %d read; dropped %d mate, %d without a move; %d bad input entries skipped)\n",
		*out, s.Labelled, m.Settings.EngineName, s.Read, s.Mate, s.NoMove, s.BadInput)
	if s.Tablebase > 0 {
		fmt.Fprintf(stdout, "%d results from the tables (%d differed from their game's)\n", s.Tablebase, s.Changed)
	}
	fmt.Fprintf(stdout, "manifest: %s\n", datasets.ManifestPath(*out))
	return nil
}
