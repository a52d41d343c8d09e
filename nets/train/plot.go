package train

import (
	"errors"
	"fmt"
	"image/color"
	"math"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"

	"github.com/nnuelab/nnuelab/internal/fsutil"
	"github.com/nnuelab/nnuelab/internal/svgplot"
)

// Curve is one loss history to plot, with its legend label.
type Curve struct {
	Label   string       // legend text
	History []EpochStats // one point per epoch
}

// PlotOptions shape the loss plot.
type PlotOptions struct {
	Title string
	// LogY draws the loss on a logarithmic axis.
	LogY bool
	// ByPositions puts the training positions seen on the x axis instead of
	// the epoch.
	ByPositions bool
	// Width and Height of the SVG (default 16 x 10 cm).
	Width, Height vg.Length
}

// palette is a colour-blind-safe set (Okabe and Ito).
var palette = []color.Color{
	color.RGBA{0, 114, 178, 255}, color.RGBA{213, 94, 0, 255}, color.RGBA{0, 158, 115, 255},
	color.RGBA{204, 121, 167, 255}, color.RGBA{230, 159, 0, 255}, color.RGBA{86, 180, 233, 255},
	color.RGBA{0, 0, 0, 255}, color.RGBA{240, 228, 66, 255},
}

// PlotLoss draws the training (solid) and validation (dashed) loss of each
// curve per epoch as an SVG document.
func PlotLoss(curves []Curve, o PlotOptions) ([]byte, error) {
	if len(curves) == 0 {
		return nil, errors.New("nothing to plot")
	}
	p := plot.New()
	p.Title.Text = o.Title
	p.X.Label.Text = "epoch"
	if o.ByPositions {
		p.X.Label.Text = "training positions"
	}
	p.Y.Label.Text = "loss"
	if o.LogY {
		p.Y.Scale = plot.LogScale{}
		p.Y.Tick.Marker = plot.LogTicks{Prec: -1}
	}
	p.Add(plotter.NewGrid())
	legend := svgplot.Legend{Group: 2} // a curve's train and val side by side
	points := 0
	for i, c := range curves {
		if len(c.History) == 0 {
			return nil, fmt.Errorf("%s: empty history", c.Label)
		}
		col := palette[i%len(palette)]
		for k, series := range []struct {
			name string
			get  func(e EpochStats) float64
			dash []vg.Length
		}{
			{"train", func(e EpochStats) float64 { return e.TrainLoss }, nil},
			{"val", func(e EpochStats) float64 { return e.ValLoss }, []vg.Length{vg.Points(4), vg.Points(3)}},
		} {
			var xy plotter.XYs
			for _, e := range c.History {
				y := series.get(e)
				if math.IsNaN(y) || math.IsInf(y, 0) || (o.LogY && y <= 0) {
					continue
				}
				x := float64(e.Epoch)
				if o.ByPositions {
					x = float64(e.Positions)
				}
				xy = append(xy, plotter.XY{X: x, Y: y})
			}
			if len(xy) == 0 {
				continue
			}
			l, s, err := plotter.NewLinePoints(xy)
			if err != nil {
				return nil, err
			}
			l.Color, l.Dashes, l.Width = col, series.dash, vg.Points(1.5)
			s.Color, s.Radius = col, vg.Points(2)
			s.Shape = draw.CircleGlyph{}
			if k == 1 {
				s.Shape = draw.BoxGlyph{}
			}
			p.Add(l, s)
			legend.Add(c.Label+" "+series.name, l, s)
			points += len(xy)
		}
	}
	if points == 0 {
		return nil, errors.New("no finite loss values to plot")
	}
	w, h := o.Width, o.Height
	if w == 0 {
		w = 16 * vg.Centimeter
	}
	if h == 0 {
		h = 10 * vg.Centimeter
	}
	return svgplot.Render(p, &legend, w, h)
}

// PlotLossFile writes PlotLoss's SVG to path atomically.
func PlotLossFile(path string, curves []Curve, o PlotOptions) error {
	svg, err := PlotLoss(curves, o)
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, svg, 0o644)
}
