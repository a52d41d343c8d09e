// Package plotaxis holds nnuelab's conventions for the axes of its gonum
// plots (reports, net figures), so that every figure labels numbers alike.
package plotaxis

import (
	"math"
	"strconv"

	"gonum.org/v1/plot"
)

// Ticks places gonum's default ticks and labels each with as few decimals
// as make every label read as its value: an axis stepping by 2.5 shows
// "2.5", not "2", and 140.0..140.3 gets one decimal, not two. Values of
// 1e5 and more are labelled with three significant digits.
var Ticks = plot.TickerFunc(func(lo, hi float64) []plot.Tick {
	ts := plot.DefaultTicks{}.Ticks(lo, hi)
	step := math.Inf(1)
	prev := math.NaN()
	for _, t := range ts {
		if t.Label == "" {
			continue
		}
		if !math.IsNaN(prev) {
			step = math.Min(step, t.Value-prev)
		}
		prev = t.Value
	}
	dec := 0
	if !math.IsInf(step, 1) && step > 0 {
		dec = max(0, int(math.Ceil(-float64(math.Log10(step))-1e-6)))
	}
	// The step's magnitude is a lower bound; add decimals until every
	// label parses back to its tick's value.
	for ; dec < 6; dec++ {
		exact := true
		for _, t := range ts {
			if t.Label == "" || math.Abs(t.Value) >= 1e5 {
				continue
			}
			back, _ := strconv.ParseFloat(strconv.FormatFloat(t.Value, 'f', dec, 64), 64)
			if math.Abs(back-t.Value) > 1e-9*math.Max(1, math.Abs(t.Value)) {
				exact = false
				break
			}
		}
		if exact {
			break
		}
	}
	for i := range ts {
		if ts[i].Label != "" {
			v := ts[i].Value
			if math.Abs(v) >= 1e5 {
				ts[i].Label = strconv.FormatFloat(v, 'g', 3, 64)
			} else {
				ts[i].Label = strconv.FormatFloat(v, 'f', dec, 64)
			}
		}
	}
	return ts
})
