package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"image/color"
	"io"
	"path/filepath"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/internal/fsutil"
)

func init() {
	register(command{"stats", "dataset statistics: counts, results, score and piece histograms, duplicates (--plot SVG)", runStats})
}

func runStats(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("stats", "stats [--skip-bad] [--json] [--plot FILE.svg] [--bin CP] [--range CP] IN...", stderr)
	skipBad := fs.Bool("skip-bad", false, "skip malformed entries (counted) instead of stopping")
	asJSON := fs.Bool("json", false, "print the statistics as JSON")
	plotFile := fs.String("plot", "", "write histograms (score, piece count, results) to this SVG file")
	bin := fs.Int("bin", 100, "score histogram bin width (cp)")
	scoreRange := fs.Int("range", 2000, "score histogram range: -range..+range cp, the outer bins open")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		return usageErrorf(fs, "need at least one input")
	}
	if *bin < 1 || *scoreRange < *bin {
		return fmt.Errorf("--bin %d --range %d: want 1 <= bin <= range", *bin, *scoreRange)
	}
	b := datasets.NewStatsBuilder(*bin, *scoreRange)
	for _, in := range fs.Args() {
		scan := datasets.Records(in, datasets.Options{SkipBad: *skipBad})
		for rec, err := range scan.All() {
			if err != nil {
				return err
			}
			b.Add(&rec)
		}
		b.AddSkipped(scan.Skipped())
	}
	s := b.Stats()
	if *plotFile != "" {
		if err := plotStats(s, strings.Join(fs.Args(), ", "), *plotFile); err != nil {
			return err
		}
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(s)
	}
	printStats(stdout, s)
	return nil
}

func pct(n, of int64) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

func printStats(w io.Writer, s datasets.Stats) {
	n := s.Positions
	fmt.Fprintf(w, "positions      %d", n)
	if s.Skipped > 0 {
		fmt.Fprintf(w, " (%d bad entries skipped)", s.Skipped)
	}
	fmt.Fprintln(w)
	fmt.Fprintf(w, "distinct       %d (duplicate rate %.2f%%)\n", s.Distinct, 100*s.DuplicateRate)
	fmt.Fprintf(w, "results        White won %d (%.1f%%)  draw %d (%.1f%%)  Black won %d (%.1f%%)\n",
		s.Results[2], pct(s.Results[2], n), s.Results[1], pct(s.Results[1], n), s.Results[0], pct(s.Results[0], n))
	fmt.Fprintf(w, "side to move   white %d  black %d\n", s.WhiteToMove, s.BlackToMove)
	fmt.Fprintf(w, "score          min %d  max %d  mean %.1f  mean |score| %.1f (cp, White's view)\n", s.ScoreMin, s.ScoreMax, s.ScoreMean, s.AbsScoreMean)
	fmt.Fprintln(w, "\nscore histogram (cp)")
	for i, c := range s.ScoreBins {
		lo, hi := s.ScoreLow+i*s.ScoreBinWidth, s.ScoreLow+(i+1)*s.ScoreBinWidth
		label := fmt.Sprintf("[%d, %d)", lo, hi)
		if i == 0 {
			label = fmt.Sprintf("< %d", hi)
		} else if i == len(s.ScoreBins)-1 {
			label = fmt.Sprintf(">= %d", lo)
		}
		fmt.Fprintf(w, "  %-14s %9d %6.2f%% %s\n", label, c, pct(c, n), bar(c, n))
	}
	fmt.Fprintln(w, "\npieces on the board")
	for k := 2; k <= 32; k++ {
		if c := s.Pieces[k]; c > 0 {
			fmt.Fprintf(w, "  %2d %9d %6.2f%% %s\n", k, c, pct(c, n), bar(c, n))
		}
	}
}

// bar draws a share as up to 40 '#'.
func bar(c, n int64) string {
	if n == 0 {
		return ""
	}
	return strings.Repeat("#", int(40*float64(c)/float64(n)+0.5))
}

// plotStats draws the score, piece-count and result histograms side by side
// into an SVG file (written atomically).
func plotStats(s datasets.Stats, title, path string) error {
	fill := color.RGBA{R: 70, G: 110, B: 170, A: 255}
	hist := func(name, xlabel string, bins []plotter.HistogramBin, width float64) (*plot.Plot, error) {
		p := plot.New()
		p.Title.Text = name
		p.X.Label.Text = xlabel
		p.Y.Label.Text = "positions"
		p.Y.Tick.Marker = plot.TickerFunc(func(min, max float64) []plot.Tick {
			ticks := plot.DefaultTicks{}.Ticks(min, max)
			for i := range ticks {
				if ticks[i].Label != "" {
					ticks[i].Label = strconv.FormatFloat(ticks[i].Value, 'f', -1, 64)
				}
			}
			return ticks
		})
		h := &plotter.Histogram{Bins: bins, Width: width, FillColor: fill, LineStyle: plotter.DefaultLineStyle}
		h.LineStyle.Width = vg.Points(0.5)
		p.Add(h)
		return p, nil
	}
	var scoreBins []plotter.HistogramBin
	for i, c := range s.ScoreBins {
		lo := float64(s.ScoreLow + i*s.ScoreBinWidth)
		scoreBins = append(scoreBins, plotter.HistogramBin{Min: lo, Max: lo + float64(s.ScoreBinWidth), Weight: float64(c)})
	}
	var pieceBins []plotter.HistogramBin
	for k := 2; k <= 32; k++ {
		pieceBins = append(pieceBins, plotter.HistogramBin{Min: float64(k) - 0.5, Max: float64(k) + 0.5, Weight: float64(s.Pieces[k])})
	}
	resultBins := []plotter.HistogramBin{
		{Min: -0.5, Max: 0.5, Weight: float64(s.Results[0])},
		{Min: 0.5, Max: 1.5, Weight: float64(s.Results[1])},
		{Min: 1.5, Max: 2.5, Weight: float64(s.Results[2])},
	}
	ps, err := hist("score (outer bins open)", "cp, White's view", scoreBins, float64(s.ScoreBinWidth))
	if err != nil {
		return err
	}
	pp, err := hist("pieces on the board", "pieces", pieceBins, 1)
	if err != nil {
		return err
	}
	pr, err := hist("game result", "White's view", resultBins, 1)
	if err != nil {
		return err
	}
	pr.X.Tick.Marker = plot.ConstantTicks([]plot.Tick{{Value: 0, Label: "0-1"}, {Value: 1, Label: "1/2"}, {Value: 2, Label: "1-0"}})
	ps.Title.Text = fmt.Sprintf("score — %s (%d positions)", filepath.Base(title), s.Positions)

	const w, h = 15 * vg.Inch, 4 * vg.Inch
	c := vgsvg.New(w, h)
	dc := draw.New(c)
	tiles := draw.Tiles{Rows: 1, Cols: 3, PadX: vg.Millimeter * 6, PadTop: vg.Millimeter * 2, PadBottom: vg.Millimeter * 2, PadLeft: vg.Millimeter * 2, PadRight: vg.Millimeter * 4}
	plots := [][]*plot.Plot{{ps, pp, pr}}
	canvases := plot.Align(plots, tiles, dc)
	for i, p := range plots[0] {
		p.Draw(canvases[0][i])
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, buf.Bytes(), 0o644)
}
