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

// Quantile returns the value at fraction p (0..1) of sorted, which must be
// in increasing order: the element at index ⌊p·n⌋, the largest for p = 1,
// 0 for none. The tables of per-move figures (clock shares, time over the
// time plan) quote their percentiles with it, so the same rank is used
// everywhere.
func Quantile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return 0
	}
	return sorted[max(0, min(int(p*float64(n)), n-1))]
}
