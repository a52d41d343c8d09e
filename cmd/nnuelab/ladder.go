package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/nnuelab/nnuelab/bench/ladder"
	"github.com/nnuelab/nnuelab/internal/fsutil"
)

func init() {
	register(command{"ladder", "strength on Stockfish's UCI_Elo scale: each setting against Stockfish 15.1 at several levels (resumable), table into a page", runLadder})
}

func runLadder(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("ladder", `ladder [flags]

Plays every rung of the ladder file (an nnuelab setting: Arch, Threads, clock)
against Stockfish 15.1 limited to each of the rung's UCI_Elo levels, one match
a level, keeping each finished match in the results folder (a rerun plays only
what is missing), then writes the table of results and each rung's rating on
the UCI_Elo scale between the page's ladder markers.

Flags:`, stderr)
	cfgPath := fs.String("config", "docs/strength/ladder.toml", "ladder file")
	out := fs.String("out", "docs/strength/ladder", "results folder (RUNG-eLEVEL.json and .pgn.zst per match)")
	page := fs.String("page", "docs/strength.md", "page whose ladder markers receive the table (\"\" = print it)")
	reportOnly := fs.Bool("report-only", false, "play nothing: write the table from the kept results")
	dryRun := fs.Bool("dry-run", false, "play nothing: list each match's games kept and an estimate of the time the rest takes")
	check := fs.Bool("check", false, "with --report-only: fail if the page's table differs from the results instead of writing it")
	var only listFlag
	fs.Var(&only, "rung", "play only these rungs (repeatable, or comma-separated)")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf(fs, "unexpected argument %q", fs.Arg(0))
	}
	if *check && !*reportOnly {
		return errors.New("--check goes with --report-only")
	}
	cfg, err := ladder.Load(*cfgPath)
	if err != nil {
		return err
	}
	if *dryRun {
		return ladderDryRun(cfg, *out, only, stdout)
	}
	if !*reportOnly {
		bin, err := os.Executable()
		if err != nil {
			return err
		}
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		if err := ladder.Run(ctx, cfg, ladder.Options{Binary: bin, Out: *out, Only: only, Log: stderr}); err != nil {
			return err
		}
	}
	figDir := *out
	if *page != "" {
		if figDir, err = filepath.Rel(filepath.Dir(*page), *out); err != nil {
			return err
		}
	}
	table, err := ladder.Report(cfg, *out, figDir)
	if err != nil {
		return err
	}
	if err := ladderFigures(cfg, *out, *check, stdout); err != nil {
		return err
	}
	if *page == "" {
		_, err := fmt.Fprint(stdout, table)
		return err
	}
	old, err := os.ReadFile(*page)
	if err != nil {
		return err
	}
	doc, err := ladder.Splice(string(old), table)
	if err != nil {
		return fmt.Errorf("%s: %w", *page, err)
	}
	return updatePage(*page, string(old), doc, *check, stdout, "the ladder table",
		fmt.Sprintf("differs from the ladder's results in %s: run `nnuelab ladder --report-only`", *out))
}

// ladderFigures writes the ladder's clock figures into the results
// folder, or with check fails if one differs from what is there.
func ladderFigures(cfg *ladder.Config, out string, check bool, stdout io.Writer) error {
	figs, err := ladder.Figures(cfg, out)
	if err != nil {
		return err
	}
	for _, f := range figs {
		old, err := os.ReadFile(f.Path)
		switch {
		case check && (err != nil || !bytes.Equal(old, f.SVG)):
			return fmt.Errorf("%s differs from the ladder's results in %s: run `nnuelab ladder --report-only`", f.Path, out)
		case check:
			fmt.Fprintf(stdout, "%s: regenerates byte-identically\n", f.Path)
		case err == nil && bytes.Equal(old, f.SVG):
		default:
			if err := fsutil.WriteFileAtomic(f.Path, f.SVG, 0o644); err != nil {
				return err
			}
			fmt.Fprintln(stdout, f.Path)
		}
	}
	return nil
}

// ladderDryRun prints what a run would play: each match's games kept and
// the estimated wall time of the rest.
func ladderDryRun(cfg *ladder.Config, out string, only []string, w io.Writer) error {
	st, err := cfg.States(out, only)
	if err != nil {
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "match\tgames kept\tto play, estimated")
	var left float64
	for _, s := range st {
		how := ""
		if s.Measured && s.Kept < s.Games {
			how = " (from the games kept at its clock)"
		}
		fmt.Fprintf(tw, "%s\t%d of %d\t%s%s\n", s.ID, s.Kept, s.Games, time.Duration(s.Left*float64(time.Second)).Round(time.Minute), how)
		left += s.Left
	}
	fmt.Fprintf(tw, "all\t\t%s\n", time.Duration(left*float64(time.Second)).Round(time.Minute))
	if err := tw.Flush(); err != nil {
		return err
	}
	_, err = fmt.Fprintln(w, "(estimate: from the mean length of the games kept at a match's clock, or else each side uses 90% of its clock over 65 moves; each rung plays its concurrency of games at once: by default the ladder's at one thread, one game at more)")
	return err
}
