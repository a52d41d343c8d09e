package inspect

import (
	"bytes"
	"fmt"
	"html"
	"math"
	"strconv"
)

// Board figures are written as plain SVG rather than through gonum/plot:
// thousands of squares per figure, drawn as one path per colour level with
// integer coordinates, keep a figure near 50 kB where plot's one path per
// rectangle would be ten times that.

// rdBu is ColorBrewer's 11-class RdBu, from strongly negative (blue) to
// strongly positive (red).
var rdBu = [11][3]float64{
	{0x05, 0x30, 0x61}, {0x21, 0x66, 0xac}, {0x43, 0x93, 0xc3}, {0x92, 0xc5, 0xde}, {0xd1, 0xe5, 0xf0},
	{0xf7, 0xf7, 0xf7},
	{0xfd, 0xdb, 0xc7}, {0xf4, 0xa5, 0x82}, {0xd6, 0x60, 0x4d}, {0xb2, 0x18, 0x2b}, {0x67, 0x00, 0x1f},
}

// levels is the number of colour levels of a board figure (odd: one for 0).
const levels = 31

// levelColor returns the colour of level l in [0, levels).
func levelColor(l int) string {
	t := float64(float64(l) / float64(levels-1) * 10) // 0..10 along rdBu
	i := min(int(t), 9)
	f := t - float64(i)
	var c [3]int
	for k := range c {
		// float64(x*y) here and below: no FMA fusion at GOAMD64=v3 (make fma-check).
		c[k] = int(math.Round(float64(rdBu[i][k]*(1-f)) + float64(rdBu[i+1][k]*f)))
	}
	return fmt.Sprintf("#%02x%02x%02x", c[0], c[1], c[2])
}

// level returns the colour level of v on a scale of ±scale.
func level(v, scale float64) int {
	if scale <= 0 {
		return levels / 2
	}
	l := int(math.Round(v/scale*float64(levels/2))) + levels/2
	return min(max(l, 0), levels-1)
}

// noFeature is the colour of a square without a feature.
const noFeature = "#b4b4b4"

// BoardRow is one row of a board figure: twelve 8×8 boards of one king
// bucket (or of the virtual rows).
type BoardRow struct {
	// Label and Sub are the row's two caption lines.
	Label, Sub string
	W          [12][64]float64
	OK         [12][64]bool
}

// BoardFigure is a grid of piece-plane boards, one row per king bucket.
type BoardFigure struct {
	Title string
	Rows  []BoardRow
	// Unit names the values' unit on the legend.
	Unit string
}

const (
	cell      = 9
	boardSize = 8 * cell
	colPitch  = boardSize + 10
	groupGap  = 16
	rowPitch  = boardSize + 18
	leftW     = 116
	topH      = 68
)

// boardX returns the left edge of plane p's boards.
func boardX(p int) int {
	x := leftW + p*colPitch
	if p >= 6 {
		x += groupGap
	}
	return x
}

// SVG renders the figure: a diverging colour scale symmetric around zero up
// to the largest |value| shown, with its legend; squares without a feature
// in grey.
func (f *BoardFigure) SVG() []byte {
	var scale float64
	for _, r := range f.Rows {
		for p := range r.W {
			for sq, v := range r.W[p] {
				if r.OK[p][sq] {
					scale = max(scale, math.Abs(v))
				}
			}
		}
	}
	gridW := boardX(11) + boardSize
	legendX := gridW + 30
	width := legendX + 100
	rowsH := len(f.Rows) * rowPitch
	legendH := max(rowsH-16, 150)
	height := topH + max(rowsH, legendH+16) + 34
	var b bytes.Buffer
	fmt.Fprintf(&b, `<?xml version="1.0" encoding="UTF-8"?>
<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" font-family="Liberation Sans, Arial, Helvetica, sans-serif">
<rect width="%d" height="%d" fill="#ffffff"/>
`, width, height, width, height, width, height)
	text := func(x, y int, size int, anchor, s string, extra string) {
		fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="%d" text-anchor="%s"%s>%s</text>`+"\n", x, y, size, anchor, extra, html.EscapeString(s))
	}
	text(8, 20, 15, "start", f.Title, ` class="title"`)
	// Column headers: the two piece groups, then the pieces.
	text((boardX(0)+boardX(5)+boardSize)/2, 40, 12, "middle", "own pieces (the perspective shown: White)", "")
	text((boardX(6)+boardX(11)+boardSize)/2, 40, 12, "middle", "their pieces (Black)", "")
	names := [6]string{"pawn", "knight", "bishop", "rook", "queen", "king"}
	for p := 0; p < 12; p++ {
		text(boardX(p)+boardSize/2, 58, 11, "middle", names[p%6], ` class="col-label"`)
	}
	for r, row := range f.Rows {
		y0 := topH + r*rowPitch
		text(leftW-12, y0+boardSize/2-2, 12, "end", row.Label, ` class="row-label"`)
		if row.Sub != "" {
			text(leftW-12, y0+boardSize/2+12, 10, "end", row.Sub, "")
		}
		// One path per colour level over the row's twelve boards; runs of
		// squares of the same level along a rank are one rectangle.
		paths := map[string]*bytes.Buffer{}
		var order []string
		emit := func(color string, x, y, w int) {
			pb := paths[color]
			if pb == nil {
				pb = &bytes.Buffer{}
				paths[color] = pb
				order = append(order, color)
			}
			fmt.Fprintf(pb, "M%d %dh%dv%dh-%dz", x, y, w, cell, w)
		}
		for p := 0; p < 12; p++ {
			x0 := boardX(p)
			for rank := 7; rank >= 0; rank-- {
				y := y0 + (7-rank)*cell
				start, cur := 0, ""
				for file := 0; file <= 8; file++ {
					c := ""
					if file < 8 {
						sq := rank*8 + file
						if row.OK[p][sq] {
							c = levelColor(level(row.W[p][sq], scale))
						} else {
							c = noFeature
						}
					}
					if file == 8 || c != cur {
						if file > 0 {
							emit(cur, x0+start*cell, y, (file-start)*cell)
						}
						start, cur = file, c
					}
				}
			}
		}
		for _, c := range order {
			fmt.Fprintf(&b, `<path fill="%s" d="%s"/>`+"\n", c, paths[c].String())
		}
		for p := 0; p < 12; p++ {
			fmt.Fprintf(&b, `<g class="board"><title>%s, %s</title><rect x="%d" y="%d" width="%d" height="%d" fill="none" stroke="#555555" stroke-width="0.6"/></g>`+"\n",
				html.EscapeString(row.Label), planeName(p), boardX(p), y0, boardSize, boardSize)
		}
		if r == len(f.Rows)-1 {
			x0, yb := boardX(0), y0+boardSize+11
			text(x0+cell/2, yb, 9, "middle", "a", "")
			text(x0+boardSize-cell/2, yb, 9, "middle", "h", "")
			text(x0-3, y0+boardSize-1, 9, "end", "1", "")
			text(x0-3, y0+cell-1, 9, "end", "8", "")
		}
	}
	// The legend: a colour bar from -scale (bottom) to +scale (top).
	ly := topH
	step := float64(legendH) / levels
	for l := 0; l < levels; l++ {
		y := float64(ly) + float64(float64(levels-1-l)*step)
		fmt.Fprintf(&b, `<rect class="legend" x="%d" y="%s" width="14" height="%s" fill="%s"/>`+"\n", legendX, ff(y), ff(step+0.3), levelColor(l))
	}
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="14" height="%d" fill="none" stroke="#555555" stroke-width="0.6"/>`+"\n", legendX, ly, legendH)
	for _, t := range []float64{1, 0.5, 0, -0.5, -1} {
		y := float64(ly) + float64((1-t)/2*float64(legendH))
		fmt.Fprintf(&b, `<path d="M%d %sh4" stroke="#000000" stroke-width="0.6"/>`+"\n", legendX+14, ff(y))
		text(legendX+20, int(math.Round(y))+4, 10, "start", formatTick(t*scale), ` class="legend-tick"`)
	}
	lx, lyMid := legendX+76, ly+legendH/2
	fmt.Fprintf(&b, `<text x="%d" y="%d" font-size="11" text-anchor="middle" transform="rotate(-90 %d %d)" class="legend-label">%s</text>`+"\n",
		lx, lyMid, lx, lyMid, html.EscapeString(f.Unit))
	fmt.Fprintf(&b, `<rect x="%d" y="%d" width="10" height="10" fill="%s" stroke="#555555" stroke-width="0.6"/>`+"\n", legendX, ly+legendH+10, noFeature)
	text(legendX+14, ly+legendH+19, 10, "start", "no feature", "")
	fmt.Fprintf(&b, "</svg>\n")
	return b.Bytes()
}

func ff(v float64) string { return strconv.FormatFloat(v, 'f', 2, 64) }

// formatTick prints a legend value with three significant digits.
func formatTick(v float64) string {
	if v == 0 {
		return "0"
	}
	return strconv.FormatFloat(v, 'g', 3, 64)
}

// NeuronFigure returns the board figure of neuron j: one row per shown
// king bucket (at most maxBuckets) and, when the net keeps them, one of the
// factorizer's virtual rows.
func (v *Net) NeuronFigure(j int, maxBuckets int, norm float64, rank int) *BoardFigure {
	f := &BoardFigure{
		Title: fmt.Sprintf("%s — first-layer neuron %s (weight norm %.3g, %s strongest of %d): weights by piece and square",
			v.Name, v.NeuronName(j), norm, ordinal(rank), v.Network.Width),
		Unit: "weight (float units)",
	}
	shown := v.ShownBuckets(maxBuckets)
	for i := range shown {
		b := &shown[i]
		row := BoardRow{Label: fmt.Sprintf("bucket %d", b.Bucket), Sub: "own king " + b.King.String()}
		if len(v.buckets) == 1 {
			row.Label, row.Sub = "no king buckets", ""
		}
		row.W, row.OK = v.Board(b, j)
		f.Rows = append(f.Rows, row)
	}
	if v.Virtual != nil && len(shown) > 0 {
		row := BoardRow{Label: "virtual rows", Sub: "(factorizer)"}
		row.W, row.OK = v.VirtualBoard(&shown[0], j)
		f.Rows = append(f.Rows, row)
	}
	return f
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return fmt.Sprintf("%d%s", n, suffix)
}
