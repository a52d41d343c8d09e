package plotaxis

import (
	"math"
	"strconv"
	"testing"
)

// TestTickLabels: every labelled tick reads as its value, with no more
// decimals than the axis needs.
func TestTickLabels(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		want   string // one label that must be there
	}{
		{0, 5, "2.5"},
		{0, 1, "0.5"},
		{0, 100, "50"},
		{140, 140.3, "140.1"},
	} {
		seen := false
		for _, tk := range Ticks.Ticks(tc.lo, tc.hi) {
			if tk.Label == "" {
				continue
			}
			v, err := strconv.ParseFloat(tk.Label, 64)
			if err != nil || math.Abs(v-tk.Value) > 1e-9*math.Max(1, math.Abs(v)) {
				t.Errorf("[%g, %g]: tick %g labelled %q", tc.lo, tc.hi, tk.Value, tk.Label)
			}
			seen = seen || tk.Label == tc.want
		}
		if !seen {
			t.Errorf("[%g, %g]: no label %q in %v", tc.lo, tc.hi, tc.want, Ticks.Ticks(tc.lo, tc.hi))
		}
	}
}
