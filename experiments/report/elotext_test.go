package report

import "testing"

// TestMillions: position counts in k, M and B, and an extrapolation's far
// end as a power of ten rather than billions with eleven digits.
func TestMillions(t *testing.T) {
	for _, tc := range []struct {
		n    float64
		want string
	}{
		{512, "512"},
		{20442, "20.4k"},
		{12050191, "12.05M"},
		{5.3e9, "5.30B"},
		{999.9e9, "999.90B"},
		{1.1583029744e19, "1.2e+19"},
	} {
		if got := Millions(tc.n); got != tc.want {
			t.Errorf("Millions(%g) = %q, want %q", tc.n, got, tc.want)
		}
	}
}
