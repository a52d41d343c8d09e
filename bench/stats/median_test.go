package stats

import "testing"

func TestMedian(t *testing.T) {
	tests := []struct {
		in   []float64
		want float64
	}{
		{nil, 0},
		{[]float64{3}, 3},
		{[]float64{5, 1, 3}, 3},
		{[]float64{4, 1, 3, 2}, 2.5},
	}
	for _, tc := range tests {
		in := append([]float64(nil), tc.in...)
		if got := Median(tc.in); got != tc.want {
			t.Errorf("Median(%v) = %v, want %v", tc.in, got, tc.want)
		}
		for i := range in {
			if in[i] != tc.in[i] {
				t.Errorf("Median reordered its input")
			}
		}
	}
}

func TestQuantile(t *testing.T) {
	ten := []float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}
	tests := []struct {
		in   []float64
		p    float64
		want float64
	}{
		{nil, 0.5, 0},
		{[]float64{7}, 0.9, 7},
		{ten, 0, 1},
		{ten, 0.5, 6},
		{ten, 0.9, 10},
		{ten, 0.95, 10},
		{ten, 0.89, 9},
		{ten, 1, 10},
		{ten, -1, 1},
	}
	for _, tc := range tests {
		if got := Quantile(tc.in, tc.p); got != tc.want {
			t.Errorf("Quantile(%v, %v) = %v, want %v", tc.in, tc.p, got, tc.want)
		}
	}
}
