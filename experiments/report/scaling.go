package report

import (
	"errors"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/BurntSushi/toml"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/datasets/datagen"
	"github.com/nnuelab/nnuelab/experiments/manifest"
	"github.com/nnuelab/nnuelab/experiments/plan"
	"github.com/nnuelab/nnuelab/experiments/records"
	"github.com/nnuelab/nnuelab/internal/plotaxis"
	"github.com/nnuelab/nnuelab/internal/svgplot"
)

// scalingRow is one point: a variant, the self-play positions it trained
// on, what the training filter kept of them, and its Elo.
type scalingRow struct {
	name, label       string
	selfplay, trained float64
	elo               *records.Record
}

// scalingRows gathers the points of p's [scaling] from its records; a
// variant without a finished Elo or training is left out.
func scalingRows(p *plan.Plan, recs []records.Record) ([]scalingRow, error) {
	s := p.Manifest.Scaling
	var rows []scalingRow
	for _, name := range s.Variants {
		v := p.Variant(name)
		if v == nil {
			return nil, fmt.Errorf("scaling: no variant %q", name)
		}
		row := scalingRow{name: name, label: v.Label}
		for i := range recs {
			r := &recs[i]
			if r.Variant != name {
				continue
			}
			switch r.Metric {
			case manifest.MetricElo:
				row.elo = r
			case "train.val_loss":
				if hist, _ := r.Detail["history"].([]any); len(hist) > 0 {
					if e := Floats(hist[0]); len(e) == 3 {
						row.trained = e[0]
					}
				}
			}
		}
		n, err := selfplayPositions(p, v)
		if err != nil {
			return nil, fmt.Errorf("scaling: variant %s: %w", name, err)
		}
		row.selfplay = n
		if row.elo != nil && row.trained > 0 {
			rows = append(rows, row)
		}
	}
	return rows, nil
}

// selfplayPositions counts the positions in a trained variant's data, as
// the files' datagen manifests (or, for shards the plan made, their task
// results) record them.
func selfplayPositions(p *plan.Plan, v *plan.Variant) (float64, error) {
	if len(v.Nets) == 0 || v.Nets[0].Train == "" {
		return 0, errors.New("not trained by this experiment")
	}
	t := p.Task(v.Nets[0].Train)
	if t == nil || t.Train == nil {
		return 0, fmt.Errorf("no training task %s", v.Nets[0].Train)
	}
	var n float64
	for _, f := range t.Train.Config.Data {
		c, err := filePositionsMade(p, f)
		if err != nil {
			return 0, err
		}
		n += c
	}
	return n, nil
}

func filePositionsMade(p *plan.Plan, f string) (float64, error) {
	for _, t := range p.Tasks {
		if t.Kind == plan.KindDatagen && t.Data != nil && t.Data.Out == f {
			if r, ok := plan.ReadResult(p.Out, t); ok && r.Data != nil {
				return float64(r.Data.Positions), nil
			}
			return 0, fmt.Errorf("shard %s: task %s has no result", f, t.ID)
		}
	}
	var gm datagen.Manifest
	data, err := os.ReadFile(datasets.ManifestPath(f))
	if err != nil {
		return 0, fmt.Errorf("%s: no datagen manifest beside it to count its positions: %w", f, err)
	}
	if err := toml.Unmarshal(data, &gm); err != nil {
		return 0, fmt.Errorf("%s: %w", datasets.ManifestPath(f), err)
	}
	if gm.Summary.Positions <= 0 {
		return 0, fmt.Errorf("%s: summary.positions is %d", datasets.ManifestPath(f), gm.Summary.Positions)
	}
	return float64(gm.Summary.Positions), nil
}

// scalingSection writes the report's "Elo against positions" section: the
// points, the log-linear fit, where it reaches the goal and what that costs.
func scalingSection(p *plan.Plan, recs []records.Record, reference string) (string, error) {
	s := p.Manifest.Scaling
	rows, err := scalingRows(p, recs)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	b.WriteString("## Elo against self-play positions\n\n")
	if len(rows) == 0 {
		b.WriteString("No point is measured yet.\n\n")
		return b.String(), nil
	}
	fmt.Fprintf(&b, "| variant | self-play positions | after the training filter | Elo vs %s [95%%] |\n|---|---|---|---|\n", reference)
	var pts []ScalePoint
	for _, r := range rows {
		fmt.Fprintf(&b, "| %s | %s | %s | %s |\n", r.label, Millions(r.selfplay), Millions(r.trained), EloRecordText(*r.elo))
		if pt, ok := EloScalePoint(r.selfplay, *r.elo); ok {
			pts = append(pts, pt)
		}
	}
	b.WriteString("\n")
	f, err := FitScaling(pts)
	if err != nil {
		fmt.Fprintf(&b, "No fit yet: %v.\n\n", err)
		return b.String(), nil
	}
	most := 0.0
	for _, r := range rows {
		most = max(most, r.selfplay)
	}
	fmt.Fprintf(&b, "- **Fit** (Elo = A + B·log2(positions), weighted by 1/SE² of each point's Elo, %d points): B = **%+.1f ± %.1f Elo per doubling** of the self-play (95%%), A = %.1f.\n",
		f.Points, f.B, 1.96*f.SEB, f.A)
	n, ok := f.PositionsFor(s.Goal)
	if !ok {
		fmt.Fprintf(&b, "- The line does not rise, so it never reaches %+.0f Elo against %s.\n\n", s.Goal, reference)
		return b.String(), nil
	}
	fmt.Fprintf(&b, "- **At that rate the Elo against %s reaches %+.0f at about %s self-play positions**, %.0f× the %s of the largest point (%.1f doublings).",
		reference, s.Goal, Millions(n), n/most, Millions(most), math.Log2(n/most))
	if nFast, nSlow, ok := f.PositionsRange(s.Goal); ok {
		fmt.Fprintf(&b, " With the slope at either end of its interval (the line pivoting about the points' weighted centre): %s to %s positions.", Millions(nFast), Millions(nSlow))
	} else {
		b.WriteString(" The slope's interval reaches zero, so the data cannot bound the size from above.")
	}
	b.WriteString("\n")
	if s.PositionsPerCPUSecond > 0 {
		fmt.Fprintf(&b, "- **Cost**: %s\n", SelfplayCost(n, s.PositionsPerCPUSecond, s.Rate))
	}
	b.WriteString("- A log-linear fit over one data size range says nothing certain about a range 10× larger: the curve of engine authors' nets flattens as the data grows, and larger nets (wider layers, king buckets) are what turn more data into Elo there. Read the numbers as the order of magnitude, not a forecast.\n\n")
	return b.String(), nil
}

// scalingPlot draws the [scaling] points of p with their fit and goal.
func scalingPlot(p *plan.Plan, recs []records.Record, reference string) ([]byte, error) {
	rows, err := scalingRows(p, recs)
	if err != nil || len(rows) < 2 {
		return nil, err
	}
	var pts []ScalePoint
	for _, r := range rows {
		if pt, ok := EloScalePoint(r.selfplay, *r.elo); ok {
			pts = append(pts, pt)
		}
	}
	return ScalingPlot(pts, p.Manifest.Scaling.Goal, "Elo against "+reference+" by self-play positions", "self-play positions (log scale)")
}

// ScalingPlot draws Elo against log2 of the positions: the points in the
// order given with their 95% intervals, the weighted log-linear fit
// (FitScaling), extended to the goal when it reaches it within 2^12 times
// the data, and the goal as a line, so that a report shows the
// extrapolation its text reads off. nil when the points cannot be fitted.
func ScalingPlot(pts []ScalePoint, goal float64, title, xLabel string) ([]byte, error) {
	f, err := FitScaling(pts)
	if err != nil {
		return nil, nil
	}
	var xys plotter.XYs
	var errs plotter.YErrors
	for _, pt := range pts {
		xys = append(xys, plotter.XY{X: math.Log2(pt.Positions / 1e6), Y: pt.Elo})
		errs = append(errs, struct{ Low, High float64 }{pt.Elo - pt.Lower, pt.Upper - pt.Elo})
	}
	pl := plot.New()
	pl.Title.Text = title
	pl.X.Label.Text = xLabel
	pl.Y.Label.Text = "Elo (95% interval)"
	pl.Add(plotter.NewGrid())
	var legend svgplot.Legend
	points, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, err
	}
	points.Shape, points.Radius, points.Color = draw.CircleGlyph{}, vg.Points(3), Palette[0]
	eb, err := plotter.NewYErrorBars(struct {
		plotter.XYs
		plotter.YErrors
	}{xys, errs})
	if err != nil {
		return nil, err
	}
	eb.LineStyle.Color = Palette[0]
	pl.Add(points, eb)
	legend.Add("measured", points)
	x0, x1 := xys[0].X, xys[len(xys)-1].X
	if n, ok := f.PositionsFor(goal); ok && math.Log2(n/1e6) <= x1+12 {
		x1 = math.Log2(n / 1e6)
	}
	line, err := plotter.NewLine(plotter.XYs{{X: x0, Y: f.A + float64(f.B*(x0+math.Log2(1e6)))}, {X: x1, Y: f.A + float64(f.B*(x1+math.Log2(1e6)))}})
	if err != nil {
		return nil, err
	}
	line.Color, line.Dashes = Palette[1], []vg.Length{vg.Points(4), vg.Points(3)}
	pl.Add(line)
	legend.Add(fmt.Sprintf("fit: %+.0f Elo per doubling", f.B), line)
	target, err := plotter.NewLine(plotter.XYs{{X: x0, Y: goal}, {X: x1, Y: goal}})
	if err != nil {
		return nil, err
	}
	target.Color, target.Dashes = Palette[2], []vg.Length{vg.Points(1), vg.Points(2)}
	pl.Add(target)
	legend.Add(fmt.Sprintf("goal: %+.0f", goal), target)
	for _, a := range []*plot.Axis{&pl.X, &pl.Y} {
		pad := (a.Max - a.Min) * 0.06
		if pad == 0 || math.IsNaN(pad) {
			pad = 1
		}
		a.Min, a.Max = a.Min-pad, a.Max+pad
	}
	pl.X.Tick.Marker, pl.Y.Tick.Marker = doublings, plotaxis.Ticks
	return svgplot.Render(pl, &legend, 17*vg.Centimeter, 11*vg.Centimeter)
}

// doublings ticks an axis in log2 of millions at every doubling, labelled
// with the count it stands for (1M, 2M, 4M, ...).
var doublings = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
	var ts []plot.Tick
	for k := math.Ceil(lo); k <= hi; k++ {
		n := math.Exp2(k) * 1e6
		label := fmt.Sprintf("%gM", n/1e6)
		if n >= 1e9 {
			label = fmt.Sprintf("%gB", n/1e9)
		} else if n < 1e6 {
			label = fmt.Sprintf("%gk", n/1e3)
		}
		ts = append(ts, plot.Tick{Value: k, Label: label})
	}
	return ts
})

// SelfplayCost says what making n self-play positions costs at rate
// positions per CPU-second (measured where src says): CPU-hours, days of
// this 2-core machine and 3-hour sessions, and what one session makes.
func SelfplayCost(n, rate float64, src string) string {
	cpu := n / rate
	// float64(x*y) here and below: no FMA fusion at GOAMD64=v3 (make fma-check).
	return fmt.Sprintf("self-play makes %.0f positions per CPU-second with the player net (%s), so %s positions take about %s CPU-hours: %.1f days of this 2-core machine, or %.1f sessions of 3 hours on 2 cores (training is minutes beside it). One such session makes about %s positions.",
		rate, src, Millions(n), thousands(int64(math.Round(cpu/3600))), cpu/3600/2/24, cpu/3600/6, Millions(float64(rate*3*3600)*2))
}
