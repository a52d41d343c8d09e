package main

import (
	"fmt"
	"io"

	"github.com/nnuelab/nnuelab/bench/clocks"
	"github.com/nnuelab/nnuelab/internal/fsutil"
)

func init() {
	register(command{"clocks", "how each engine of a match used its clock, from the PGN (summary; --plot SVG)", runClocks})
}

func runClocks(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("clocks", "clocks [--plot FILE.svg] [--title T] PGN... (PGN or zstd-compressed .pgn.zst)", stderr)
	plotFile := fs.String("plot", "", "write the share of the clock each move used, by move number, to this SVG file")
	title := fs.String("title", "", "plot title")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageErrorf(fs, "need at least one PGN file")
	}
	es, err := clocks.Read(fs.Args()...)
	if err != nil {
		return err
	}
	fmt.Fprint(stdout, clocks.Table(es))
	if *plotFile == "" {
		return nil
	}
	svg, err := clocks.Plot(es, *title)
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(*plotFile, svg, 0o644)
}
