package inspect

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"

	"github.com/nnuelab/nnuelab/internal/plotaxis"
)

// Histograms and activation charts are drawn with gonum/plot, like the
// experiment reports. A figure is a grid of panels; each panel is drawn in
// its own translated group (<g transform="translate(...)">, a direct child
// of the canvas's root group), which is how the tests count them.

var (
	barBlue   = color.RGBA{R: 0x43, G: 0x93, B: 0xc3, A: 0xff}
	barOrange = color.RGBA{R: 0xe0, G: 0x82, B: 0x14, A: 0xff}
	barGrey   = color.RGBA{R: 0x80, G: 0x80, B: 0x80, A: 0xff}
	clipRed   = color.RGBA{R: 0xc0, G: 0x10, B: 0x20, A: 0xff}
)

// histBins is the number of bins of a float histogram (a quantized one has
// at most as many, of whole integer widths).
const histBins = 48

// newPanel returns a plot with nnuelab's panel style.
func newPanel(title, xLabel, yLabel string) *plot.Plot {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(9)
	p.X.Label.Text, p.Y.Label.Text = xLabel, yLabel
	p.X.Label.TextStyle.Font.Size = vg.Points(8.5)
	p.Y.Label.TextStyle.Font.Size = vg.Points(8.5)
	p.X.Tick.Label.Font.Size = vg.Points(7.5)
	p.Y.Tick.Label.Font.Size = vg.Points(7.5)
	p.X.Tick.Marker, p.Y.Tick.Marker = plotaxis.Ticks, plotaxis.Ticks
	return p
}

// tensorHist returns the histogram panel of a tensor's values, float
// (quantized=false) or quantized, with the clip limits as dashed lines
// when they are near the values, and the share at the clip in the title.
func tensorHist(t *Tensor, st TensorStats, quantized bool, title string) *plot.Plot {
	var lo, hi, width float64
	var value func(i int) float64
	xl := "value (float units)"
	if quantized {
		lo, hi = float64(st.QMin)-0.5, float64(st.QMax)+0.5
		if hi-lo < 12 { // a few values: room around them
			lo, hi = lo-5, hi+5
		}
		span := hi - lo
		width = math.Max(1, math.Ceil(span/histBins))
		value = func(i int) float64 { return float64(t.Q(i)) }
		xl = fmt.Sprintf("quantized value (int%d, ×%s)", t.Bits, strconv.FormatFloat(t.Scale, 'g', 4, 64))
	} else {
		lo, hi = st.Min, st.Max
		if hi-lo <= 1e-9*math.Max(math.Abs(lo), math.Abs(hi)) {
			pad := math.Max(math.Abs(lo)*0.2, 1e-3)
			lo, hi = lo-pad, hi+pad
		}
		width = (hi - lo) / histBins
		value = t.Float
	}
	nb := max(1, int(math.Ceil((hi-lo)/width-1e-9)))
	counts := make([]float64, nb)
	n := t.Len()
	for i := 0; i < n; i++ {
		b := int((value(i) - lo) / width)
		counts[min(max(b, 0), nb-1)]++
	}
	bins := make([]plotter.HistogramBin, nb)
	for i := range bins {
		// float64(x*y) here and below: no FMA fusion at GOAMD64=v3 (make fma-check).
		bins[i] = plotter.HistogramBin{Min: lo + float64(float64(i)*width), Max: lo + float64(float64(i+1)*width), Weight: counts[i] / float64(max(n, 1))}
	}
	p := newPanel(title, xl, "share of values")
	h := &plotter.Histogram{Bins: bins, Width: width, FillColor: barBlue, LineStyle: draw.LineStyle{Width: 0}}
	if !quantized {
		h.FillColor = barGrey
	}
	p.Add(h)
	if t.Quantized() {
		lim := t.Limit()
		if quantized {
			lim = float64(t.QLimit())
		}
		span := hi - lo
		if lim <= hi+float64(0.25*span) || -lim >= lo-float64(0.25*span) {
			var top float64
			for _, c := range counts {
				top = math.Max(top, c/float64(max(n, 1)))
			}
			for _, x := range []float64{-lim, lim} {
				if x < lo-float64(0.25*span) || x > hi+float64(0.25*span) {
					continue
				}
				l, err := plotter.NewLine(plotter.XYs{{X: x, Y: 0}, {X: x, Y: top}})
				if err == nil {
					l.Color, l.Width, l.Dashes = clipRed, vg.Points(1), []vg.Length{vg.Points(3), vg.Points(2)}
					p.Add(l)
				}
			}
		}
	}
	p.Y.Min = 0
	return p
}

// histTitle is the panel title of a tensor histogram.
func histTitle(name string, t *Tensor, st TensorStats, quantized bool) string {
	switch {
	case !t.Quantized():
		return fmt.Sprintf("%s — float (not quantized)", name)
	case quantized:
		return fmt.Sprintf("%s — quantized, clip ±%d: %s at clip", name, t.QLimit(), pct(st.AtClip))
	}
	kind := "float"
	if !t.FromFloatFile() {
		kind = "dequantized"
	}
	return fmt.Sprintf("%s — %s, clip ±%s", name, kind, strconv.FormatFloat(t.Limit(), 'g', 4, 64))
}

// pct formats a share as a percentage with enough digits to tell a small
// share from zero.
func pct(s float64) string {
	switch {
	case s == 0:
		return "0%"
	case s < 0.0001:
		return "<0.01%"
	case s < 0.1:
		return strconv.FormatFloat(100*s, 'f', 2, 64) + "%"
	}
	return strconv.FormatFloat(100*s, 'f', 1, 64) + "%"
}

// grid draws panels (nil cells stay empty) under a title, each in its own
// translated group, and returns the SVG.
func grid(title string, cells [][]*plot.Plot, cellW, cellH vg.Length) ([]byte, error) {
	rows := len(cells)
	cols := 0
	for _, r := range cells {
		cols = max(cols, len(r))
	}
	titleH := vg.Points(22)
	pad := vg.Points(6)
	ts := plot.New().Title.TextStyle
	ts.Font.Size = vg.Points(11)
	ts.XAlign, ts.YAlign = draw.XLeft, draw.YTop
	w := max(vg.Length(cols)*cellW, ts.Width(title)+vg.Points(10)) + 2*pad
	h := vg.Length(vg.Length(rows)*cellH) + titleH + pad
	c := vgsvg.New(w, h)
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	if title != "" {
		dc.FillText(ts, vg.Point{X: pad, Y: h - vg.Points(6)}, title)
	}
	for r, row := range cells {
		for col, p := range row {
			if p == nil {
				continue
			}
			x := pad + vg.Length(vg.Length(col)*cellW)
			y := h - titleH - vg.Length(vg.Length(r+1)*cellH)
			c.Push()
			c.Translate(vg.Point{X: x, Y: y})
			p.Draw(draw.Canvas{Canvas: c, Rectangle: vg.Rectangle{Max: vg.Point{X: cellW - pad, Y: cellH - pad}}})
			c.Pop()
		}
	}
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

// HistogramsSVG returns the figure of every tensor's values: one row per
// tensor, float (or dequantized) values left, quantized values right.
func HistogramsSVG(v *Net) ([]byte, error) {
	var cells [][]*plot.Plot
	openFloatRow := false // the last row holds one float-only panel
	for _, t := range v.Tensors {
		st := t.Stats()
		p := tensorHist(t, st, false, histTitle(t.Name, t, st, false))
		if !t.Quantized() {
			// Float-only tensors (Rengar's head) go two to a row.
			if openFloatRow {
				cells[len(cells)-1] = append(cells[len(cells)-1], p)
			} else {
				cells = append(cells, []*plot.Plot{p})
			}
			openFloatRow = !openFloatRow
			continue
		}
		openFloatRow = false
		cells = append(cells, []*plot.Plot{p, tensorHist(t, st, true, histTitle(t.Name, t, st, true))})
	}
	if v.Virtual != nil {
		st := v.Virtual.Stats()
		cells = append(cells, []*plot.Plot{tensorHist(v.Virtual, st, false, "ft.virtual — float (factorizer rows, folded at export)")})
	}
	return grid(fmt.Sprintf("%s: weights and biases of every layer (dashed: the clip of the storage type at the arch's multiplier)", v.Name),
		cells, 9*vg.Centimeter, 5.4*vg.Centimeter)
}

// compareTensors returns the tensors of each net that a side-by-side
// figure shows, row by row: every tensor when the nets share one design
// (the same tensor names), else the four every design has: the first
// layer's weights and biases, the output layer's weights (the last tensor
// that is not a bias) and bias (the last bias), nil where a net has none.
func compareTensors(vs []*Net) [][]*Tensor {
	same := true
	for _, v := range vs[1:] {
		same = same && slices.Equal(tensorNames(v), tensorNames(vs[0]))
	}
	out := make([][]*Tensor, len(vs))
	for i, v := range vs {
		if same {
			out[i] = v.Tensors
			continue
		}
		var w, b *Tensor
		for _, t := range v.Tensors[2:] {
			if strings.Contains(t.Name, "bias") {
				b = t
			} else if t.Name != "psqt" {
				w = t
			}
		}
		out[i] = []*Tensor{v.Tensors[0], v.Tensors[1], w, b}
	}
	return out
}

func tensorNames(v *Net) []string {
	var out []string
	for _, t := range v.Tensors {
		out = append(out, t.Name)
	}
	return out
}

// CompareHistogramsSVG returns the histograms of several nets side by side:
// one column per net, the tensors of compareTensors down the column (float
// or dequantized values, the clip dashed and its share in the title).
func CompareHistogramsSVG(vs []*Net) ([]byte, error) {
	ts := compareTensors(vs)
	rows := 0
	for _, col := range ts {
		rows = max(rows, len(col))
	}
	cells := make([][]*plot.Plot, rows)
	for r := range cells {
		cells[r] = make([]*plot.Plot, len(vs))
	}
	for c, v := range vs {
		for r, t := range ts[c] {
			if t == nil {
				continue
			}
			st := t.Stats()
			title := fmt.Sprintf("%s\n%s", v.Name, t.Name)
			if t.Quantized() {
				title += fmt.Sprintf(" (%s at clip)", pct(st.AtClip))
			}
			cells[r][c] = tensorHist(t, st, false, title)
		}
	}
	return grid("weights and biases side by side (float or dequantized values; dashed: the clip)", cells, 8*vg.Centimeter, 5.2*vg.Centimeter)
}

// ActivationsSVG returns the activation figure of one net: the share of
// zero and saturated outputs per layer, then per layer the distribution of
// its neurons' activity (the share of outputs where a neuron is non-zero,
// and where it is saturated).
func ActivationsSVG(v *Net, a *Activations) ([]byte, error) {
	var names []string
	var zero, sat plotter.Values
	for _, l := range a.Layers {
		names = append(names, l.Name)
		zero = append(zero, l.ZeroShare())
		sat = append(sat, l.SaturatedShare())
	}
	bars := newPanel(fmt.Sprintf("outputs per layer (%d positions); first layer: %s of 4-byte groups non-zero", a.Positions, pct(a.NonZeroGroupShare())),
		"layer", "share of outputs")
	labels, series := []string{"zero", "saturated"}, []plotter.Values{zero, sat}
	ceil := false
	for _, l := range a.Layers {
		ceil = ceil || l.Ceil != 0
	}
	if !ceil {
		labels, series = labels[:1], series[:1]
	}
	if err := groupedBars(bars, names, labels, series); err != nil {
		return nil, err
	}
	if len(names) > 2 {
		bars.X.Tick.Label.Rotation = math.Pi / 8
		bars.X.Tick.Label.XAlign, bars.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	}
	cells := [][]*plot.Plot{}
	row := []*plot.Plot{bars}
	for _, l := range a.Layers {
		row = append(row, activityHist(l))
		if len(row) == 2 {
			cells = append(cells, row)
			row = nil
		}
	}
	if row != nil {
		cells = append(cells, row)
	}
	return grid(fmt.Sprintf("%s: activations over %s", v.Name, a.Data), cells, 11*vg.Centimeter, 6.5*vg.Centimeter)
}

// activityHist is the panel of one layer's neurons: how often each is
// non-zero and how often saturated. Bars left of 0 count the neurons at
// exactly 0 (dead, or never saturated), right of 1 those at exactly 1.
func activityHist(l *ActLayer) *plot.Plot {
	const nb = 20
	var act, sat [nb + 2]float64
	reached := 0
	for u, n := range l.Seen {
		if n == 0 {
			continue
		}
		reached++
		act[bin01(share(l.Active[u], n), nb)]++
		sat[bin01(share(l.AtCeil[u], n), nb)]++
	}
	title := fmt.Sprintf("%s: %d dead, %d always saturated of %d", l.Name, len(l.Dead()), len(l.AlwaysSaturated()), reached)
	if un := l.Unreached(); un > 0 {
		title += fmt.Sprintf(" (%d unreached)", un)
	}
	p := newPanel(title, "share of a neuron's outputs (left of 0: exactly 0, right of 1: exactly 1)", "neurons")
	series := []struct {
		v   [nb + 2]float64
		c   color.Color
		lab string
	}{{act, barBlue, "non-zero"}, {sat, barOrange, "saturated"}}
	if l.Ceil == 0 {
		series = series[:1]
	}
	const bw = 1.0 / nb
	for k, s := range series {
		w := bw / float64(len(series))
		var bins []plotter.HistogramBin
		for i, c := range s.v {
			var x0 float64
			switch i {
			case 0:
				x0 = -1.5 * bw
			case nb + 1:
				x0 = 1 + 0.5*bw
			default:
				x0 = float64(i-1) * bw
			}
			x0 += float64(float64(k) * w)
			bins = append(bins, plotter.HistogramBin{Min: x0, Max: x0 + w, Weight: c})
		}
		h := &plotter.Histogram{Bins: bins, Width: w, FillColor: s.c, LineStyle: draw.LineStyle{Width: 0}}
		p.Add(h)
		p.Legend.Add(s.lab, h)
	}
	var top float64
	for _, s := range series {
		for _, c := range s.v {
			top = math.Max(top, c)
		}
	}
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.X.Min, p.X.Max = -2*bw, 1+2*bw
	p.Y.Min, p.Y.Max = 0, math.Max(1, 1.25*top) // room for the legend
	return p
}

// bin01 returns the bin of a share in [0, 1]: 0 for exactly 0, nb+1 for
// exactly 1, else 1 + floor(s*nb) (at most nb).
func bin01(s float64, nb int) int {
	switch {
	case s <= 0:
		return 0
	case s >= 1:
		return nb + 1
	}
	return 1 + min(int(s*float64(nb)), nb-1)
}

// groupedBars adds one bar series per entry of series at the nominal x
// positions names.
func groupedBars(p *plot.Plot, names, labels []string, series []plotter.Values) error {
	colors := []color.Color{barBlue, barOrange, barGrey}
	w := vg.Points(14)
	for i, s := range series {
		b, err := plotter.NewBarChart(s, w)
		if err != nil {
			return err
		}
		b.Color = colors[i%len(colors)]
		b.LineStyle.Width = 0
		b.Offset = vg.Length(float64(i)-float64(float64(len(series)-1)/2)) * w
		p.Add(b)
		p.Legend.Add(labels[i], b)
	}
	p.Legend.Top = true
	p.Legend.TextStyle.Font.Size = vg.Points(8)
	p.NominalX(names...)
	p.X.Min, p.X.Max = -0.6, float64(len(names))-0.4
	p.X.Tick.Label.Font.Size = vg.Points(7.5)
	p.Y.Min = 0
	p.Y.Max = 1.15 // shares, with room for the legend
	return nil
}

// CompareActivationsSVG returns the activation statistics of several nets
// side by side: zero and saturated shares of every layer, and the first
// layer's non-zero 4-byte groups, one bar per net.
func CompareActivationsSVG(vs []*Net, as []*Activations) ([]byte, error) {
	var names, netNames []string
	var zero, sat, groups plotter.Values
	for i, v := range vs {
		if as[i] == nil {
			continue
		}
		netNames = append(netNames, v.Name)
		groups = append(groups, as[i].NonZeroGroupShare())
		for _, l := range as[i].Layers {
			names = append(names, v.Name+": "+l.Name)
			zero = append(zero, l.ZeroShare())
			sat = append(sat, l.SaturatedShare())
		}
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("no activation statistics to compare")
	}
	a := newPanel("zero and saturated outputs per layer", "", "share of outputs")
	if err := groupedBars(a, names, []string{"zero", "saturated"}, []plotter.Values{zero, sat}); err != nil {
		return nil, err
	}
	a.X.Tick.Label.Rotation = math.Pi / 6
	a.X.Tick.Label.XAlign, a.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	a.X.Label.Text = "net: layer"
	b := newPanel("first layer: 4-byte groups with a non-zero value (what a sparse affine multiplies)", "", "share of groups")
	if err := groupedBars(b, netNames, []string{"non-zero groups"}, []plotter.Values{groups}); err != nil {
		return nil, err
	}
	b.X.Tick.Label.Rotation = math.Pi / 6
	b.X.Tick.Label.XAlign, b.X.Tick.Label.YAlign = draw.XRight, draw.YCenter
	b.X.Label.Text = "net"
	wA := vg.Length(math.Max(16, float64(1.5*float64(len(names)))+4)) * vg.Centimeter
	return grid("activations side by side", [][]*plot.Plot{{a}, {b}}, wA, 9*vg.Centimeter)
}
