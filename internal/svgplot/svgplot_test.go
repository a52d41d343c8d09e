package svgplot

import (
	"bytes"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
)

// figure returns a one-line plot with n legend entries named by name(i).
func figure(t *testing.T, n int, name func(int) string) (*plot.Plot, *Legend) {
	t.Helper()
	p := plot.New()
	l, err := plotter.NewLine(plotter.XYs{{X: 0, Y: 0}, {X: 1, Y: 1}})
	if err != nil {
		t.Fatal(err)
	}
	p.Add(l)
	var lg Legend
	for i := 0; i < n; i++ {
		lg.Add(name(i), l)
	}
	return p, &lg
}

var heightRE = regexp.MustCompile(`<svg[^>]*height="([0-9.]+)pt"`)

// svgHeight reads the figure's height in points from its root element.
func svgHeight(t *testing.T, svg []byte) float64 {
	t.Helper()
	m := heightRE.FindSubmatch(svg)
	if m == nil {
		t.Fatalf("no height in %.200s", svg)
	}
	h, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// TestLegendUnderTheData: the figure grows by the legend, never draws it
// inside the given area, holds every entry's text, and fills the width
// with columns before adding rows.
func TestLegendUnderTheData(t *testing.T) {
	const w, h = 16 * vg.Centimeter, 10 * vg.Centimeter
	short := func(i int) string { return "n" + strconv.Itoa(i) }
	long := func(i int) string { return strings.Repeat("a long label ", 5) + strconv.Itoa(i) }
	for _, tc := range []struct {
		name       string
		n          int
		label      func(int) string
		group      int
		wantGrowth bool
	}{
		{"no legend", 0, short, 0, false},
		{"one short entry", 1, short, 0, true},
		{"short entries share rows", 30, short, 0, true},
		{"long entries one a row", 4, long, 0, true},
		{"pairs stay together", 7, func(i int) string { return strings.Repeat("x", 18) + strconv.Itoa(i) }, 2, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, lg := figure(t, tc.n, tc.label)
			lg.Group = tc.group
			svg, err := Render(p, lg, w, h)
			if err != nil {
				t.Fatal(err)
			}
			got := svgHeight(t, svg)
			if grew := got > h.Points()+0.5; grew != tc.wantGrowth {
				t.Errorf("height %.1fpt for a %.1fpt plot: grew %v, want %v", got, h.Points(), grew, tc.wantGrowth)
			}
			for i := 0; i < tc.n; i++ {
				if !bytes.Contains(svg, []byte(">"+tc.label(i)+"<")) {
					t.Errorf("entry %q not drawn", tc.label(i))
				}
			}
			if tc.n == 0 {
				return
			}
			cols, rows, colW, _ := layout(lg, w)
			room := w - vg.Points(2*pad) + vg.Points(colGap) // what the columns may take
			switch {
			case rows != (tc.n+cols-1)/cols || cols < 1:
				t.Errorf("%d columns x %d rows for %d entries", cols, rows, tc.n)
			case vg.Length(cols)*colW > room && cols > 1:
				t.Errorf("%d columns of %.1fpt overrun the %.1fpt width", cols, colW.Points(), w.Points())
			case tc.group > 1 && cols%tc.group != 0:
				t.Errorf("%d columns split groups of %d", cols, tc.group)
			case tc.group <= 1 && cols < tc.n && vg.Length(cols+1)*colW <= room:
				t.Errorf("%d columns of %.1fpt leave room for another in %.1fpt", cols, colW.Points(), w.Points())
			}
			if tc.label(0) == short(0) && tc.n > 1 && rows >= tc.n {
				t.Errorf("short entries one a row (%d rows)", rows)
			}
		})
	}
}

// TestMoreEntriesTaller: a legend of more rows makes a taller figure.
func TestMoreEntriesTaller(t *testing.T) {
	long := func(i int) string { return strings.Repeat("label ", 12) + strconv.Itoa(i) }
	var prev float64
	for _, n := range []int{1, 3, 9} {
		p, lg := figure(t, n, long)
		svg, err := Render(p, lg, 10*vg.Centimeter, 6*vg.Centimeter)
		if err != nil {
			t.Fatal(err)
		}
		h := svgHeight(t, svg)
		if h <= prev {
			t.Errorf("%d entries: height %.1fpt, not above %.1fpt", n, h, prev)
		}
		prev = h
	}
}

// TestOwnLegendRefused: entries in the plot's own legend would be drawn
// over the data, so Render refuses the plot, naming it.
func TestOwnLegendRefused(t *testing.T) {
	p, _ := figure(t, 0, nil)
	p.Title.Text = "mine"
	l, _ := plotter.NewLine(plotter.XYs{{X: 0, Y: 1}, {X: 1, Y: 0}})
	p.Legend.Add("inside", l)
	_, err := Render(p, nil, 10*vg.Centimeter, 6*vg.Centimeter)
	if err == nil || !strings.Contains(err.Error(), `"mine"`) {
		t.Fatalf("err = %v, want a refusal naming the plot", err)
	}
}
