// Package svgplot renders nnuelab's gonum figures (report plots, loss
// curves, clock use) to SVG the one way: the legend goes under the data
// area, in as many columns as the width holds, and the figure grows by its
// height. gonum draws a legend inside the data area, where it covers lines
// and points as soon as a figure has more than a few entries.
package svgplot

import (
	"bytes"
	"fmt"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// Legend collects a figure's entries in place of plot.Plot's own legend.
// The zero value is ready to use.
type Legend struct {
	// Group > 1 keeps runs of that many entries (a net's training and
	// validation curves) side by side on one row: the number of columns is
	// a multiple of it whenever the width holds Group columns.
	Group int

	entries []entry
}

type entry struct {
	name   string
	thumbs []plot.Thumbnailer
}

// Add adds an entry: its text and the thumbnails drawn beside it (the
// plotters that draw the series, as for plot.Legend.Add).
func (l *Legend) Add(name string, thumbs ...plot.Thumbnailer) {
	l.entries = append(l.entries, entry{name, thumbs})
}

// Len returns the number of entries.
func (l *Legend) Len() int {
	if l == nil {
		return 0
	}
	return len(l.entries)
}

// The legend's layout.
const (
	fontSize = 10 // points
	pad      = 6  // points around the legend block
	colGap   = 14 // points between columns
	rowGap   = 2  // points between rows
	thumbW   = 20 // points of thumbnail
)

// Render draws p in a w×h area with l's entries under it and returns the
// SVG, w wide and h plus the legend's height tall. An empty or nil l draws
// p alone at w×h. p's own legend must be empty: the figure would draw it
// over the data.
func Render(p *plot.Plot, l *Legend, w, h vg.Length) ([]byte, error) {
	if p.Legend.Rectangle(draw.Canvas{}).Size().Y > 0 {
		return nil, fmt.Errorf("svgplot: the plot %q has entries in its own legend; add them to a svgplot.Legend", p.Title.Text)
	}
	cols, rows, colW, rowH := layout(l, w)
	legH := vg.Length(0)
	if l.Len() > 0 {
		// float64(x*y) here and below: no FMA fusion at GOAMD64=v3 (make fma-check).
		legH = vg.Length(vg.Length(rows)*rowH) + vg.Points(2*pad)
	}
	c := vgsvg.New(w, h+legH)
	dc := draw.New(c)
	p.Draw(draw.Crop(dc, 0, 0, legH, 0))
	for col := 0; col < cols; col++ {
		lg := plot.NewLegend()
		lg.TextStyle.Font.Size = vg.Points(fontSize)
		lg.ThumbnailWidth = vg.Points(thumbW)
		lg.Top, lg.Left = true, true
		lg.Padding = vg.Points(rowGap)
		for i := col; i < l.Len(); i += cols { // row by row
			lg.Add(l.entries[i].name, l.entries[i].thumbs...)
		}
		x := vg.Points(pad) + vg.Length(vg.Length(col)*colW)
		lg.Draw(draw.Canvas{Canvas: dc.Canvas, Rectangle: vg.Rectangle{
			Min: vg.Point{X: x, Y: vg.Points(pad)},
			Max: vg.Point{X: x + colW, Y: legH - vg.Points(pad)},
		}})
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// layout returns the legend's columns and rows (entries fill a row before
// the next), a column's width and a row's height.
func layout(l *Legend, w vg.Length) (cols, rows int, colW, rowH vg.Length) {
	n := l.Len()
	if n == 0 {
		return 0, 0, 0, 0
	}
	sty := plot.NewLegend().TextStyle
	sty.Font.Size = vg.Points(fontSize)
	var textW vg.Length
	for _, e := range l.entries {
		textW = max(textW, sty.Width(" "+e.name))
		rowH = max(rowH, sty.Rectangle(e.name).Max.Y) // as plot.Legend spaces its entries
	}
	rowH += vg.Points(rowGap)
	colW = vg.Points(thumbW) + textW + vg.Points(colGap)
	cols = max(1, min(n, int((w-vg.Points(2*pad)+vg.Points(colGap))/colW)))
	if g := l.Group; g > 1 && cols >= g {
		cols -= cols % g
	}
	rows = (n + cols - 1) / cols
	return cols, rows, colW, rowH
}
