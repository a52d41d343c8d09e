// Package clocks shows how engines used their clocks over a match, from
// the move times in its PGN: a Markdown table per engine (time forfeits,
// the share of the clock a move used, the least clock left) and a figure
// of that share by move number. `nnuelab clocks` prints and plots it for
// any PGN; the ladder draws it for its time-management rungs.
package clocks

import (
	"fmt"
	"image/color"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"

	"github.com/nnuelab/nnuelab/bench/match"
	"github.com/nnuelab/nnuelab/bench/stats"
	"github.com/nnuelab/nnuelab/engine/search"
	"github.com/nnuelab/nnuelab/internal/plotaxis"
	"github.com/nnuelab/nnuelab/internal/svgplot"
	"github.com/nnuelab/nnuelab/internal/zstdfile"
)

// Engine is one player's clocks over the games read, under its PGN name.
type Engine struct {
	Name  string
	Games []match.ClockUse
}

// Read reads the games of PGN files (plain or zstd-compressed .pgn.zst)
// and returns each player's clocks, players in name order. A game it
// cannot rebuild a clock for is an error naming the file and the game.
func Read(files ...string) ([]Engine, error) {
	var es []Engine
	for _, f := range files {
		r, err := zstdfile.Open(f)
		if err != nil {
			return nil, err
		}
		cs, err := match.ReadClockUse(r, f)
		r.Close()
		if err != nil {
			return nil, err
		}
		for _, c := range cs {
			es = append(es, Engine{Name: c.Player, Games: []match.ClockUse{c}})
		}
	}
	return Merge(es), nil
}

// Merge joins the games of engines of the same name, in order, and
// returns the engines in name order (nil for none): the clocks of several
// matches, perhaps renamed by the caller, as one table and figure.
func Merge(es []Engine) []Engine {
	by := map[string][]match.ClockUse{}
	for _, e := range es {
		by[e.Name] = append(by[e.Name], e.Games...)
	}
	var out []Engine
	for n, g := range by {
		out = append(out, Engine{Name: n, Games: g})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out
}

// Table returns a Markdown table: per engine its games, moves, time
// forfeits, the median, 95th percentile and largest share of the clock a
// move used, the least clock left after a move (before the increment)
// and the median depth its comments report (moves with a mate score or
// without a depth left out), which shows what the clock bought. For
// nnuelab's engines (a name starting "nnuelab") it adds how a move's time
// compared with the soft limit its time plan gave (PlanRatios).
func Table(es []Engine) string {
	var b strings.Builder
	b.WriteString("| engine | games | moves | time forfeits | share of the clock a move used: median / 95th pct / max | least clock left after a move | median depth | nnuelab's move time / its soft limit: mean / 90th pct |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|\n")
	for _, e := range es {
		var shares []float64
		forfeits, moves := 0, 0
		least := -1.0
		for _, c := range e.Games {
			if c.Forfeit {
				forfeits++
			}
			for i, m := range c.Moves {
				shares = append(shares, m.Share())
				after := m.Before - m.Used
				if i == len(c.Moves)-1 {
					after = c.Left
				}
				if s := after.Seconds(); least < 0 || s < least {
					least = s
				}
			}
			moves += len(c.Moves)
		}
		sort.Float64s(shares)
		q := func(p float64) float64 { return stats.Quantile(shares, p) }
		depth := "–"
		if d := e.Depths(); len(d) > 0 {
			depth = strconv.Itoa(d[len(d)/2])
		}
		plan := "–"
		if r := e.PlanRatios(); len(r) > 0 {
			sum := 0.0
			for _, x := range r {
				sum += x
			}
			plan = fmt.Sprintf("%.2f / %.2f", sum/float64(len(r)), stats.Quantile(r, 0.9))
		}
		fmt.Fprintf(&b, "| %s | %d | %d | %d | %.1f%% / %.1f%% / %.1f%% | %.3f s | %s | %s |\n",
			e.Name, len(e.Games), moves, forfeits, 100*q(0.5), 100*q(0.95), 100*q(1), max(least, 0), depth, plan)
	}
	return b.String()
}

// Depths returns the depths the engine's move comments report, in
// increasing order, leaving out moves with a mate score (whose depth says
// little about the search) or without a depth.
func (e Engine) Depths() []int {
	var d []int
	for _, c := range e.Games {
		for _, m := range c.Moves {
			if m.Depth > 0 && !m.Mate {
				d = append(d, m.Depth)
			}
		}
	}
	slices.Sort(d)
	return d
}

// PlanRatios returns, for an engine of nnuelab's (its name starts
// "nnuelab"; nil for any other), each move's time divided by the soft
// limit search.ClockPlan gave it from the clock, increment and moves to go
// the move saw, less search.DefaultMoveOverhead, in increasing order.
// The search stretches its soft limit when the best move is unstable and
// shrinks it when stable, so a ratio near 1 is a plan kept on average; the
// tail is how far single moves overrun it, which sizes the reserve a
// repeating time control needs.
func (e Engine) PlanRatios() []float64 {
	if !strings.HasPrefix(e.Name, "nnuelab") {
		return nil
	}
	var r []float64
	for _, c := range e.Games {
		for _, m := range c.Moves {
			soft, _ := search.ClockPlan(m.Before-search.DefaultMoveOverhead, m.Inc, m.ToGo)
			r = append(r, m.Used.Seconds()/soft.Seconds())
		}
	}
	slices.Sort(r)
	return r
}

// MinPlotGames is how many of an engine's games must reach a move number
// for Plot to draw it: a tenth of them, and at least 5, so that the tail
// of a few long games does not read as a trend.
func MinPlotGames(games int) int {
	return max(5, (games+9)/10)
}

// Plot draws, per engine, the median and the largest share of the clock
// its n-th move used over the games, for the move numbers MinPlotGames
// of its games reach, and returns the SVG. At a repeating control (40
// moves in 60 s) the move axis is marked at each control, where the
// clock refills, so the run-down before it reads off the figure.
func Plot(es []Engine, title string) ([]byte, error) {
	p := plot.New()
	p.Title.Text = title
	marked := ""
	p.X.Tick.Marker = plotaxis.Ticks
	if period := controlMoves(es); period > 0 {
		marked = fmt.Sprintf(", marked at each control of %d", period)
		p.X.Tick.Marker = controlTicks(period)
	}
	p.X.Label.Text = "move number (the engine's own moves" + marked + "; drawn while a tenth of its games, at least 5, reach it)"
	p.Y.Label.Text = "share of the clock the move used (%)"
	p.Y.Tick.Marker = plotaxis.Ticks
	p.Add(plotter.NewGrid())
	var legend svgplot.Legend
	colors := []color.RGBA{{31, 119, 180, 255}, {214, 39, 40, 255}, {44, 160, 44, 255}, {148, 103, 189, 255}}
	for i, e := range es {
		perMove := map[int][]float64{}
		last := 0
		for _, c := range e.Games {
			for _, m := range c.Moves {
				perMove[m.Move] = append(perMove[m.Move], 100*m.Share())
				last = max(last, m.Move)
			}
		}
		var med, mx plotter.XYs
		for k := 1; k <= last; k++ {
			v := perMove[k]
			if len(v) < MinPlotGames(len(e.Games)) {
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
			return nil, err
		}
		l1.Color, l1.Width = c, vg.Points(1.5)
		l2, err := plotter.NewLine(mx)
		if err != nil {
			return nil, err
		}
		l2.Color, l2.Width, l2.Dashes = c, vg.Points(1), []vg.Length{vg.Points(3), vg.Points(2)}
		p.Add(l1, l2)
		legend.Add(e.Name+" median", l1)
		legend.Add(e.Name+" max", l2)
	}
	p.Y.Min = 0     // shares read against nothing used
	p.Y.Max *= 1.05 // the largest share below the frame, not on it
	return svgplot.Render(p, &legend, 9*vg.Inch, 5*vg.Inch)
}

// controlMoves returns the moves per control of the games' repeating
// time control (the most moves to go any move saw), 0 in sudden death.
func controlMoves(es []Engine) int {
	n := 0
	for _, e := range es {
		for _, c := range e.Games {
			for _, m := range c.Moves {
				n = max(n, m.ToGo)
			}
		}
	}
	return n
}

// controlTicks marks a move axis at every multiple of period, labelled,
// with an unlabelled tick halfway between.
func controlTicks(period int) plot.Ticker {
	return plot.TickerFunc(func(lo, hi float64) []plot.Tick {
		var ts []plot.Tick
		half := float64(period) / 2
		for k := math.Ceil(lo / half); k*half <= hi; k++ {
			t := plot.Tick{Value: k * half}
			if int(k)%2 == 0 {
				t.Label = strconv.Itoa(int(k * half))
			}
			ts = append(ts, t)
		}
		return ts
	})
}
