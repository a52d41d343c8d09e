package main

import (
	"math"
	"testing"
)

func TestCompute(t *testing.T) {
	for _, c := range []struct {
		name                    string
		scores, targets, result []float32
		params                  map[string]string
		want                    map[string]float64
		wantErr                 bool
	}{
		{name: "empty", want: map[string]float64{"positions": 0}},
		{name: "stats only", scores: []float32{100, -100}, want: map[string]float64{"positions": 2, "mean_cp": 0, "std_cp": 100}},
		{name: "targets", scores: []float32{100, -50, 0}, targets: []float32{50, 50, 0},
			want: map[string]float64{"positions": 3, "mae_cp": 50, "rmse_cp": math.Sqrt((2500 + 10000) / 3.0), "sign_agreement": 2.0 / 3}},
		{name: "results at score 0", scores: []float32{0, 0}, result: []float32{1, 0},
			want: map[string]float64{"wdl_loss": math.Log(2)}},
		{name: "scale", scores: []float32{400}, result: []float32{1}, params: map[string]string{"scale": "400"},
			want: map[string]float64{"wdl_loss": math.Log(1 + math.Exp(-1))}},
		{name: "bad scale", scores: []float32{1}, params: map[string]string{"scale": "-1"}, wantErr: true},
		{name: "unknown param", scores: []float32{1}, params: map[string]string{"k": "1"}, wantErr: true},
		{name: "bad result", scores: []float32{1}, result: []float32{2}, wantErr: true},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, err := compute(c.scores, c.targets, c.result, c.params)
			if (err != nil) != c.wantErr {
				t.Fatalf("err = %v, want error %v", err, c.wantErr)
			}
			for k, v := range c.want {
				if math.Abs(got[k]-v) > 1e-9 {
					t.Errorf("%s = %v, want %v", k, got[k], v)
				}
			}
		})
	}
}
