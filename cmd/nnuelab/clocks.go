package main

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"sort"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/nnuelab/nnuelab/bench/match"
	"github.com/nnuelab/nnuelab/internal/fsutil"
	"github.com/nnuelab/nnuelab/internal/plotaxis"
	"github.com/nnuelab/nnuelab/internal/svgplot"
	"github.com/nnuelab/nnuelab/internal/zstdfile"
)

func init() {
	register(command{"clocks", "how each engine of a match used its clock, from the PGN (summary; --plot SVG)", runClocks})
}

func runClocks(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("clocks", "clocks [--plot FILE.svg] [--title T] PGN... (PGN or zstd-compressed .pgn.zst)", stderr)
	plotFile := fs.String("plot", "", "write the share of the clock each move used, by move number, to this SVG file")
	title := fs.String("title", "", "plot title")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 0 {
		fs.Usage()
		return errors.New("need at least one PGN file")
	}
	by := map[string][]match.ClockUse{}
	var names []string
	for _, f := range fs.Args() {
		r, err := zstdfile.Open(f) // an experiment's games are .pgn.zst
		if err != nil {
			return err
		}
		cs, err := match.ReadClockUse(r, f)
		r.Close()
		if err != nil {
			return err
		}
		for _, c := range cs {
			if _, ok := by[c.Player]; !ok {
				names = append(names, c.Player)
			}
			by[c.Player] = append(by[c.Player], c)
		}
	}
	sort.Strings(names)
	fmt.Fprintln(stdout, "| engine | games | moves | time forfeits | share of the clock a move used: median / 95th pct / max | least clock left after a move |")
	fmt.Fprintln(stdout, "|---|---|---|---|---|---|")
	for _, n := range names {
		var shares []float64
		forfeits, moves := 0, 0
		least := -1.0
		for _, c := range by[n] {
			if c.Forfeit {
				forfeits++
			}
			left := c.Moves
			for i, m := range left {
				shares = append(shares, m.Share())
				after := m.Before - m.Used
				if i == len(left)-1 {
					after = c.Left
				}
				if s := after.Seconds(); least < 0 || s < least {
					least = s
				}
			}
			moves += len(c.Moves)
		}
		sort.Float64s(shares)
		q := func(p float64) float64 {
			if len(shares) == 0 {
				return 0
			}
			return shares[min(int(p*float64(len(shares))), len(shares)-1)]
		}
		fmt.Fprintf(stdout, "| %s | %d | %d | %d | %.1f%% / %.1f%% / %.1f%% | %.3f s |\n",
			n, len(by[n]), moves, forfeits, 100*q(0.5), 100*q(0.95), 100*q(1), max(least, 0))
	}
	if *plotFile == "" {
		return nil
	}
	return plotClocks(*plotFile, *title, names, by)
}

// plotClocks draws, per engine, the median and the maximum share of the
// clock its n-th move used over the games. A move number is drawn only
// while at least minPlotGames(games) of the engine's games reach it, so
// that the long tail of a few long games does not read as a trend.
func plotClocks(path, title string, names []string, by map[string][]match.ClockUse) error {
	p := plot.New()
	p.Title.Text = title
	p.X.Label.Text = "move number (the engine's own moves; drawn while a tenth of its games, at least 5, reach it)"
	p.X.Tick.Marker = plotaxis.Ticks
	p.Y.Tick.Marker = plotaxis.Ticks
	p.Y.Label.Text = "share of the clock the move used (%)"
	p.Add(plotter.NewGrid())
	var legend svgplot.Legend
	colors := []color.RGBA{{31, 119, 180, 255}, {214, 39, 40, 255}, {44, 160, 44, 255}, {148, 103, 189, 255}}
	for i, n := range names {
		perMove := map[int][]float64{}
		last := 0
		for _, c := range by[n] {
			for _, m := range c.Moves {
				perMove[m.Move] = append(perMove[m.Move], 100*m.Share())
				last = max(last, m.Move)
			}
		}
		var med, mx plotter.XYs
		for k := 1; k <= last; k++ {
			v := perMove[k]
			if len(v) < minPlotGames(len(by[n])) {
				continue
			}
			sort.Float64s(v)
			med = append(med, plotter.XY{X: float64(k), Y: v[len(v)/2]})
			mx = append(mx, plotter.XY{X: float64(k), Y: v[len(v)-1]})
		}
		if len(med) == 0 {
			continue
		}
		c := colors[i%len(colors)]
		l1, err := plotter.NewLine(med)
		if err != nil {
			return err
		}
		l1.Color, l1.Width = c, vg.Points(1.5)
		l2, err := plotter.NewLine(mx)
		if err != nil {
			return err
		}
		l2.Color, l2.Width, l2.Dashes = c, vg.Points(1), []vg.Length{vg.Points(3), vg.Points(2)}
		p.Add(l1, l2)
		legend.Add(n+" median", l1)
		legend.Add(n+" max", l2)
	}
	p.Y.Min = 0 // shares read against nothing used
	svg, err := svgplot.Render(p, &legend, 9*vg.Inch, 5*vg.Inch)
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, svg, 0o644)
}

// minPlotGames is how many of an engine's games must reach a move number
// for plotClocks to draw it: a tenth of them, and at least 5.
func minPlotGames(games int) int {
	return max(5, (games+9)/10)
}
