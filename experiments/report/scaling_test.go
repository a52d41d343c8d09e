package report

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/experiments/manifest"
	"github.com/nnuelab/nnuelab/experiments/plan"
	"github.com/nnuelab/nnuelab/experiments/records"
	"github.com/nnuelab/nnuelab/nets/train"
)

// The scaling section counts each point's self-play from the datagen
// manifests beside its files (or the plan's own shard results), takes the
// filtered count from the training history, fits the line and reads it off
// at the goal; a variant without Elo is left out, and a file without a
// manifest is an error naming it.
func TestScalingSection(t *testing.T) {
	dir := t.TempDir()
	shard := func(name string, positions int) string {
		f := filepath.Join(dir, name)
		if err := os.WriteFile(f+".manifest.toml", []byte(fmt.Sprintf("[summary]\n  positions = %d\n", positions)), 0o644); err != nil {
			t.Fatal(err)
		}
		return f
	}
	a, b := shard("a.binpack", 1_000_000), shard("b.binpack", 1_000_000)
	c, d := shard("c.binpack", 1_000_000), shard("d.binpack", 1_000_000)
	m := &manifest.Manifest{Name: "scale", Scaling: &manifest.ScalingSpec{Variants: []string{"one", "two", "four", "none"}, Goal: -200, PositionsPerCPUSecond: 100, Rate: "test"}}
	p := &plan.Plan{Manifest: m, Out: dir}
	for i, v := range []struct {
		name  string
		files []string
	}{{"one", []string{a}}, {"two", []string{a, b}}, {"four", []string{a, b, c, d}}, {"none", []string{a}}} {
		id := "train-" + v.name
		p.Variants = append(p.Variants, &plan.Variant{Name: v.name, Label: v.name + " label", Base: i == 0, Nets: []plan.NetRef{{Kind: "trained", Train: id}}})
		p.Tasks = append(p.Tasks, &plan.Task{ID: id, Kind: plan.KindTrain, Train: &plan.TrainJob{Config: train.Config{Data: v.files}}})
	}
	elo := func(v string, e, lo, hi float64) records.Record {
		return records.Record{Variant: v, Metric: manifest.MetricElo, Value: e, Lower: &lo, Upper: &hi, N: 400}
	}
	hist := func(v string, n float64) records.Record {
		return records.Record{Variant: v, Metric: "train.val_loss", Detail: map[string]any{"history": []any{[]any{n, 0.01, 0.02}}}}
	}
	// 100 Elo per doubling exactly: -600 at 1M, -500 at 2M, -400 at 4M.
	recs := []records.Record{
		elo("one", -600, -650, -550), hist("one", 670_000),
		elo("two", -500, -550, -450), hist("two", 1_340_000),
		elo("four", -400, -450, -350), hist("four", 2_680_000),
		hist("none", 670_000),
	}
	got, err := scalingSection(p, recs, "ref")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{
		"| one label | 1.00M | 670.0k | -600.0 [-650.0, -550.0], 400 games |",
		"| four label | 4.00M | 2.68M |",
		"B = **+100.0 ± ",
		// -200 is two doublings past 4M: 16M positions, 4x the largest point.
		"reaches -200 at about 16.00M self-play positions**, 4× the 4.00M",
		"about 44 CPU-hours",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("section lacks %q:\n%s", want, got)
		}
	}
	if strings.Contains(got, "none label") {
		t.Errorf("a variant without Elo is listed:\n%s", got)
	}
	svg, err := scalingPlot(p, recs, "ref")
	if err != nil || !strings.Contains(string(svg), "<svg") || !strings.Contains(string(svg), "Elo per doubling") {
		t.Errorf("plot: %v, %d bytes", err, len(svg))
	}

	os.Remove(d + ".manifest.toml")
	if _, err := scalingSection(p, recs, "ref"); err == nil || !strings.Contains(err.Error(), "d.binpack") {
		t.Errorf("a file without its manifest: %v", err)
	}
}
