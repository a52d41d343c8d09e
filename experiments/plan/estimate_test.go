package plan

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/experiments/manifest"
)

// planText plans a manifest given as text in temporary folders.
func planText(t *testing.T, text string) *Plan {
	t.Helper()
	m := manifestWithData(t, text)
	dir := m.Dir
	p, err := New(m, Options{Out: filepath.Join(dir, "out"), Cache: filepath.Join(dir, "cache"), Binary: "/bin/nnuelab"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

func TestDurationText(t *testing.T) {
	for _, tc := range []struct {
		sec  float64
		want string
	}{
		{0, "0s"},
		{0.04, "0s"},
		{1.26, "1.3s"},
		{59.94, "59.9s"},
		{61.4, "1m1s"},
		{3 * 3600, "3h0m0s"},
		{36000, "10.0h"},
		{90000, "25.0h"},
	} {
		if got := DurationText(tc.sec); got != tc.want {
			t.Errorf("DurationText(%v) = %q, want %q", tc.sec, got, tc.want)
		}
	}
}

// TestGameSeconds: a game costs its plies at the tightest of the limits
// (clock, nodes, depth), plus the engines' start.
func TestGameSeconds(t *testing.T) {
	start := 2 * estStartSec
	for _, tc := range []struct {
		name string
		e    manifest.EloSpec
		want float64
	}{
		{"nodes", manifest.EloSpec{Nodes: 5000}, estGamePlies*5000.0/estNPS + start},
		{"clock 10+0.1", manifest.EloSpec{TC: "10+0.1"}, estGamePlies*(2*(10+0.1*65)*estHeadShare/estGamePlies) + start},
		{"clock or nodes: the tighter", manifest.EloSpec{TC: "10+0.1", Nodes: 1000}, estGamePlies*1000.0/estNPS + start},
		{"depth 8", manifest.EloSpec{Depth: 8}, estGamePlies*float64(estBenchNodesD8)/50/estNPS + start},
		{"depth 10: four times depth 8", manifest.EloSpec{Depth: 10}, estGamePlies*4*float64(estBenchNodesD8)/50/estNPS + start},
		{"no limit", manifest.EloSpec{}, estGamePlies + start},
	} {
		if got := gameSeconds(&tc.e); math.Abs(got-tc.want) > 1e-9*tc.want {
			t.Errorf("%s: %v s, want %v", tc.name, got, tc.want)
		}
	}
}

const estimateManifest = `
metrics = ["agreement", "elo"]
[base]
arch = "koivisto-7.4"
[[variant]]
name = "H1"
overrides = ["history=1"]
[positions]
limit = 1000
[elo]
games = 40
chunk = 20
nodes = 1000
`

// TestEstimateTasks: measure tasks cost the start plus their evaluations,
// chunks their games; finished tasks leave the wall estimate, and more
// cores shorten it.
func TestEstimateTasks(t *testing.T) {
	p := planText(t, estimateManifest)
	var measure, chunk *Task
	for _, tk := range p.Tasks {
		switch {
		case tk.Kind == KindMeasure && tk.Variant == "base":
			measure = tk
		case tk.Kind == KindElo && chunk == nil:
			chunk = tk
		}
	}
	if measure == nil || chunk == nil {
		t.Fatalf("tasks %v", p.Tasks)
	}
	if got, want := EstimateTask(p, measure), estStartSec+1000*estEvalSec*widthFactor(p, "base"); math.Abs(got-want) > 1e-12 {
		t.Errorf("measure: %v s, want %v", got, want)
	}
	if got, want := EstimateTask(p, chunk), 20*gameSeconds(p.Manifest.Elo); math.Abs(got-want) > 1e-9 {
		t.Errorf("chunk of 20 games: %v s, want %v", got, want)
	}
	one, two := WallEstimate(p, 1), WallEstimate(p, 2)
	if !(one > 0) || math.Abs(two-one/2) > 1e-9 {
		t.Errorf("wall: %v s on one core, %v on two", one, two)
	}
	// A finished task costs nothing any more.
	if err := os.MkdirAll(filepath.Join(p.Out, "tasks"), 0o755); err != nil {
		t.Fatal(err)
	}
	r := []byte(`{"id":"` + chunk.ID + `","kind":"elo","key":"` + chunk.Key + `","elo":{}}`)
	if err := os.WriteFile(ResultPath(p.Out, chunk.ID), r, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, want := WallEstimate(p, 1), one-EstimateTask(p, chunk); math.Abs(got-want) > 1e-9 {
		t.Errorf("wall after a chunk: %v s, want %v", got, want)
	}
	var b bytes.Buffer
	Describe(&b, p, "local", 2)
	for _, want := range []string{"measure-base-s1", chunk.ID, "done"} {
		if !strings.Contains(b.String(), want) {
			t.Errorf("dry run lacks %q:\n%s", want, b.String())
		}
	}
}

// TestCached: a train or data task whose output is in the cache costs
// nothing; other kinds are never cached.
func TestCached(t *testing.T) {
	dir := t.TempDir()
	if Cached(&Task{Kind: KindMeasure}) {
		t.Error("a measure task is cached")
	}
	tr := &Task{Kind: KindTrain, Train: &TrainJob{Dir: dir}}
	if Cached(tr) {
		t.Error("a train task with no done.json is cached")
	}
	if err := os.WriteFile(filepath.Join(dir, "done.json"), []byte("{}"), 0o644); err != nil {
		t.Fatal(err)
	}
	if !Cached(tr) {
		t.Error("a train task with done.json is not cached")
	}
}
