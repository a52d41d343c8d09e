package train

import (
	"math"
	"path/filepath"
	"strings"
	"testing"
)

func TestPlotLoss(t *testing.T) {
	h := []EpochStats{{Epoch: 1, Positions: 100, TrainLoss: 0.08, ValLoss: 0.079}, {Epoch: 2, Positions: 200, TrainLoss: 0.06, ValLoss: 0.065}, {Epoch: 3, Positions: 300, TrainLoss: 0.05, ValLoss: math.NaN()}}
	for _, o := range []PlotOptions{{Title: "chess768"}, {LogY: true, ByPositions: true}} {
		svg, err := PlotLoss([]Curve{{"a", h}, {"b", h[:2]}}, o)
		if err != nil {
			t.Fatal(err)
		}
		s := string(svg)
		if !strings.HasPrefix(s, "<?xml") || !strings.Contains(s, "<svg") || !strings.Contains(s, "a train") || !strings.Contains(s, "b val") {
			t.Fatalf("not the expected SVG: %.300s", s)
		}
		if o.Title != "" && !strings.Contains(s, o.Title) {
			t.Fatal("title missing")
		}
	}
	if _, err := PlotLoss(nil, PlotOptions{}); err == nil {
		t.Fatal("empty plot accepted")
	}
	if _, err := PlotLoss([]Curve{{"x", []EpochStats{{Epoch: 1, TrainLoss: math.NaN(), ValLoss: math.NaN()}}}}, PlotOptions{}); err == nil {
		t.Fatal("all-NaN plot accepted")
	}
	// Round trip through the CSV history.
	dir := t.TempDir()
	path := filepath.Join(dir, "h.csv")
	if err := WriteHistory(path, h); err != nil {
		t.Fatal(err)
	}
	back, err := ReadHistory(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(back) != 3 || back[1] != h[1] || !math.IsNaN(back[2].ValLoss) {
		t.Fatalf("round trip: %+v", back)
	}
	if err := PlotLossFile(filepath.Join(dir, "h.svg"), []Curve{{"h", back}}, PlotOptions{}); err != nil {
		t.Fatal(err)
	}
}

func TestReadHistoryErrors(t *testing.T) {
	for _, tc := range []struct{ name, data, want string }{
		{"header", "a,b\n1,2\n", "not a loss history"},
		{"fields", strings.Join(historyHeader, ",") + "\n1,2,3\n", "wrong number of fields"},
		{"number", strings.Join(historyHeader, ",") + "\n1,2,3,x,1,1,1,1,1,1,1,1\n", "line 2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := parseHistory("h.csv", []byte(tc.data)); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
}
