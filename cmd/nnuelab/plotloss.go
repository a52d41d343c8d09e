package main

import (
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/nnuelab/nnuelab/nets/train"
)

func init() {
	register(command{"plot-loss", "draw training loss histories (the trainer's NAME.csv) as an SVG", runPlotLoss})
}

func runPlotLoss(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("plot-loss", `plot-loss [flags] HISTORY.csv [HISTORY.csv ...]

Draws the training (solid) and validation (dashed) loss per epoch of each
history that nnuelab train wrote (NAME.csv beside the net), one colour per
file, labelled with the file name (or --labels).

Flags:`, stderr)
	out := fs.String("o", "loss.svg", "output SVG file")
	title := fs.String("title", "", "plot title")
	labels := fs.String("labels", "", "comma-separated legend labels, one per history (default: the file names)")
	logY := fs.Bool("log", false, "logarithmic loss axis")
	byPos := fs.Bool("positions", false, "training positions on the x axis instead of epochs")
	// Flags may come before, between or after the files.
	var files []string
	for {
		if err := parseFlags(fs, args); err != nil {
			return err
		}
		if fs.NArg() == 0 {
			break
		}
		files = append(files, fs.Arg(0))
		args = fs.Args()[1:]
	}
	if len(files) == 0 {
		return usageErrorf(fs, "no history file given")
	}
	var names []string
	if *labels != "" {
		names = strings.Split(*labels, ",")
		if len(names) != len(files) {
			return fmt.Errorf("--labels has %d labels for %d files", len(names), len(files))
		}
	}
	var curves []train.Curve
	for i, path := range files {
		h, err := train.ReadHistory(path)
		if err != nil {
			return err
		}
		label := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
		if names != nil {
			label = strings.TrimSpace(names[i])
		}
		curves = append(curves, train.Curve{Label: label, History: h})
	}
	if err := train.PlotLossFile(*out, curves, train.PlotOptions{Title: *title, LogY: *logY, ByPositions: *byPos}); err != nil {
		return err
	}
	fmt.Fprintf(stdout, "wrote %s\n", *out)
	return nil
}
