package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/nnuelab/nnuelab/datasets"
)

func init() {
	register(command{"convert", "convert and concatenate datasets (text, text.zst, binary pack)", runConvert})
}

func runConvert(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("convert", "convert [--skip-bad] --out OUT IN...", stderr)
	out := fs.String("out", "", "output: .txt, .txt.zst or .bin, written atomically (format from the name)")
	skipBad := fs.Bool("skip-bad", false, "skip malformed entries (counted and reported) instead of stopping")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *out == "" || fs.NArg() == 0 {
		fs.Usage()
		return errors.New("need --out and at least one input")
	}
	w, err := datasets.Create(*out)
	if err != nil {
		return err
	}
	var skipped int64
	for _, in := range fs.Args() {
		shown := 0
		r, err := datasets.OpenWith(in, datasets.Options{SkipBad: *skipBad, OnSkip: func(err error) {
			if shown < 10 {
				fmt.Fprintf(stderr, "skipped: %v\n", err)
			}
			shown++
		}})
		if err != nil {
			w.Abort()
			return err
		}
		_, err = datasets.Copy(w, r)
		skipped += r.Skipped()
		r.Close()
		if err != nil {
			w.Abort()
			return err
		}
	}
	if err := w.Close(); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "%s: %d records", *out, w.Count())
	if *skipBad {
		fmt.Fprintf(stdout, ", %d bad entries skipped", skipped)
	}
	fmt.Fprintln(stdout)
	return nil
}
