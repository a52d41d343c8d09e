package stats

import "sort"

// Median returns the median of xs (the mean of the middle two for an even
// count), 0 for none: the figure speed comparisons quote over repeated runs
// on a noisy machine.
func Median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}
