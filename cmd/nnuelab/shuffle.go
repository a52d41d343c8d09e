package main

import (
	"fmt"
	"io"
	"strings"

	"github.com/nnuelab/nnuelab/datasets"
)

func init() {
	register(command{"shuffle", "mix datasets into N shuffled outputs and a validation split (external memory)", runShuffle})
}

func runShuffle(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("shuffle", "shuffle --out PATTERN [-n N] [--val FILE --val-frac F] [--seed S] IN...", stderr)
	out := fs.String("out", "", "output name, with %d (1..N) when -n > 1; format from the name (.txt, .txt.zst, .bin)")
	n := fs.Int("n", 1, "number of shuffled training outputs")
	val := fs.String("val", "", "validation output (positions split off by board hash, never also in training)")
	valFrac := fs.Float64("val-frac", 0, "expected share of positions in the validation output")
	seed := fs.Uint64("seed", 1, "seed of the order and the split")
	mem := fs.Int("mem-records", 4_000_000, "records held in memory at once (about 40 bytes each)")
	tmp := fs.String("tmp", "", "directory for the bucket files (default: beside the output; 32 bytes per record)")
	skipBad := fs.Bool("skip-bad", false, "skip malformed entries (counted) instead of stopping")
	manifest := fs.String("manifest", "", "where to write the manifest (command, seed, inputs and outputs with counts and SHA-256; default: FIRST-OUTPUT.manifest.toml)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() == 0 {
		return usageErrorf(fs, "need --out and at least one input")
	}
	outs, err := datasets.ShuffleOutputNames(*out, *n)
	if err != nil {
		return err
	}
	cfg := datasets.ShuffleConfig{
		Seed: *seed, Outputs: outs, ValOutput: *val, ValFrac: *valFrac,
		MemRecords: *mem, TempDir: *tmp, Read: datasets.Options{SkipBad: *skipBad},
	}
	s, err := datasets.Shuffle(fs.Args(), cfg)
	reportStale(stderr, s.StaleRemoved, s.StaleUnknown)
	if err != nil {
		return err
	}
	m, err := datasets.NewShuffleManifest("nnuelab shuffle "+strings.Join(args, " "), fs.Args(), cfg, s)
	if err != nil {
		return fmt.Errorf("manifest: %w", err)
	}
	if *manifest == "" {
		*manifest = datasets.ManifestPath(outs[0])
	}
	if err := m.Write(*manifest); err != nil {
		return fmt.Errorf("manifest: %w", err)
	}
	fmt.Fprintf(stdout, "read %d records", s.Read)
	if s.Skipped > 0 {
		fmt.Fprintf(stdout, " (%d bad entries skipped)", s.Skipped)
	}
	fmt.Fprintf(stdout, " through %d buckets\n", s.Buckets)
	for i, o := range outs {
		fmt.Fprintf(stdout, "%s: %d\n", o, s.Train[i])
	}
	if *val != "" {
		fmt.Fprintf(stdout, "%s: %d (validation, %.2f%%)\n", *val, s.Val, 100*float64(s.Val)/float64(max(s.Read, 1)))
	}
	fmt.Fprintf(stdout, "manifest: %s\n", *manifest)
	return nil
}
