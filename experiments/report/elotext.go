package report

import (
	"fmt"

	"github.com/nnuelab/nnuelab/experiments/records"
)

// EloRecordText formats an Elo record: value, 95% interval, games, and the SPRT's
// decision with its LLR against the bounds.
func EloRecordText(r records.Record) string {
	lo, hi := "−∞", "+∞"
	if r.Lower != nil {
		lo = fmt.Sprintf("%+.1f", PlusZero(*r.Lower))
	}
	if r.Upper != nil {
		hi = fmt.Sprintf("%+.1f", PlusZero(*r.Upper))
	}
	s := fmt.Sprintf("%s [%s, %s], %d games", EloValueText(r.Value, r.Detail), lo, hi, r.N)
	if d, ok := r.Detail["sprt"].(string); ok {
		s += ", SPRT " + d
		if llr, ok := r.Detail["llr"].(float64); ok {
			if b := Floats(r.Detail["llr_bounds"]); len(b) == 2 {
				s += fmt.Sprintf(" (LLR %+.2f of [%+.2f, %+.2f])", PlusZero(llr), b[0], b[1])
			}
		}
	}
	return s
}

// Millions formats a position count.
func Millions(n float64) string {
	switch {
	case n >= 1e12:
		// An extrapolation's far end: a power of ten says it plainly
		// where "11583029744.95B" would not.
		return fmt.Sprintf("%.1e", n)
	case n >= 1e9:
		return fmt.Sprintf("%.2fB", n/1e9)
	case n >= 1e6:
		return fmt.Sprintf("%.2fM", n/1e6)
	case n >= 1e3:
		return fmt.Sprintf("%.1fk", n/1e3)
	}
	return fmt.Sprintf("%.0f", n)
}
