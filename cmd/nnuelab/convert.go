package main

import (
	"fmt"
	"io"

	"github.com/nnuelab/nnuelab/datasets"
)

func init() {
	register(command{"convert", "convert and concatenate datasets (text, text.zst, binary pack, Stockfish .binpack and .plain, bulletformat)", runConvert})
}

func runConvert(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("convert", "convert [--skip-bad] [--filter F] --out OUT IN...", stderr)
	out := fs.String("out", "", "output: .txt, .txt.zst, .bin, .binpack, .plain or .bullet, written atomically (format from the name)")
	skipBad := fs.Bool("skip-bad", false, "skip malformed entries (counted and reported) instead of stopping")
	filterFlag := fs.String("filter", "none", "keep only the positions a filter passes: none, default (what train uses: from ply 16, not in check, quiet move, no mate score), or a list of default, min-ply=N, max-score=N, skip-check, skip-noisy, one-in=N (one position in N, by board hash)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	filter, err := datasets.ParseFilter(*filterFlag)
	if err != nil {
		return err
	}
	if *out == "" || fs.NArg() == 0 {
		return usageErrorf(fs, "need --out and at least one input")
	}
	removed, err := datasets.RemoveStaleTemps(*out)
	reportStale(stderr, removed, nil)
	if err != nil {
		return err
	}
	w, err := datasets.Create(*out)
	if err != nil {
		return err
	}
	var skipped, dropped int64
	for _, in := range fs.Args() {
		shown := 0
		scan := datasets.Records(in, datasets.Options{SkipBad: *skipBad, Filter: filter, OnSkip: func(err error) {
			if shown < 10 {
				fmt.Fprintf(stderr, "skipped: %v\n", err)
			}
			shown++
		}})
		for rec, err := range scan.All() {
			if err == nil {
				err = w.Write(rec)
			}
			if err != nil {
				w.Abort()
				return err
			}
		}
		dropped += scan.Dropped()
		skipped += scan.Skipped()
	}
	if err := w.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d records", *out, w.Count())
	if *skipBad {
		fmt.Fprintf(stdout, ", %d bad entries skipped", skipped)
	}
	if filter != nil {
		fmt.Fprintf(stdout, ", %d dropped by the filter", dropped)
	}
	fmt.Fprintln(stdout)
	return nil
}

// reportStale says which temporaries of killed runs were removed, and
// which could not be told stale (for the user to remove).
func reportStale(w io.Writer, removed, unknown []string) {
	for _, p := range removed {
		fmt.Fprintf(w, "removed %s: a temporary an earlier run left when its process was killed\n", p)
	}
	for _, p := range unknown {
		fmt.Fprintf(w, "left %s: a shuffle's temporary folder from an older nnuelab, whose name does not say which process made it; remove it (rm -r) if no shuffle is running\n", p)
	}
}
