package experiments

import (
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/nnue"
	"github.com/nnuelab/nnuelab/experiments/internal/exptest"
	"github.com/nnuelab/nnuelab/experiments/internal/plantest"
	"github.com/nnuelab/nnuelab/experiments/manifest"
	"github.com/nnuelab/nnuelab/experiments/plan"
	"github.com/nnuelab/nnuelab/experiments/records"
	"github.com/nnuelab/nnuelab/experiments/report"
	"github.com/nnuelab/nnuelab/experiments/runner"
	"github.com/nnuelab/nnuelab/nets"
)

// tinyActArch is chess768 with 32 neurons and a clipped ReLU.
const tinyActArch = `name = "tiny-act"
description = "test: 768 -> 32x2 -> 1 (clipped ReLU)"
[net]
format = "nnuelab"
[features]
set = "chess768"
[accumulator]
width = 32
[head]
type = "linear"
activation = "crelu"
inputs = "stm+opp"
[quant]
qa = 255
qb = 64
scale = 400
[output]
perspective = "stm"
`

// writeTinyActNet writes the tiny net whose activations are known by
// construction into dir: neuron 0 has bias 2 (above the clip of 1: always
// saturated), neurons 1..15 bias 0.5 (never zero, never saturated),
// neurons 16..31 bias -1 (dead: no feature of a legal position has a
// weight). One weight sits at int16's clip at QA 255 (32767/255), on a
// White pawn on a1, which no position has, for neuron 16.
func writeTinyActNet(t *testing.T, dir string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, "tiny-act.toml"), []byte(tinyActArch), 0o644); err != nil {
		t.Fatal(err)
	}
	spec, err := archs.Parse("tiny-act.toml", []byte(tinyActArch))
	if err != nil {
		t.Fatal(err)
	}
	const W = 32
	fs := nnue.NewFeatureSet(&spec.Features)
	pawnA1 := fs.Index(board.White, 4, board.MakePiece(board.White, board.Pawn), 0)
	ftw := make([]float32, 768*W)
	ftw[pawnA1*W+16] = 32767.0 / 255
	ftb := make([]float32, W)
	for j := range ftb {
		switch {
		case j == 0:
			ftb[j] = 2
		case j < 16:
			ftb[j] = 0.5
		default:
			ftb[j] = -1
		}
	}
	ow := make([]float32, 2*W)
	for j := range ow {
		ow[j] = float32(j%5) / 8
	}
	ts := []nnue.Tensor{
		{Name: "ft.weight", Shape: []int{768, W}, Data: ftw},
		{Name: "ft.bias", Shape: []int{W}, Data: ftb},
		{Name: "out.weight", Shape: []int{1, 2 * W}, Data: ow},
		{Name: "out.bias", Shape: []int{1}, Data: []float32{0.125}},
	}
	if err := nets.WriteFloat(filepath.Join(dir, "tiny-act.nnue.zst"), nets.Header{Arch: spec.Name}, ts); err != nil {
		t.Fatal(err)
	}
}

// tinyActManifest measures the tiny net's activations with a clipped ReLU
// (the base) and a ReLU (no ceiling) on the first 120 built-in positions.
const tinyActManifest = `name = "act"
metrics = ["sparsity", "saturation"]
[base]
arch = "tiny-act.toml"
net = "tiny-act.nnue.zst"
[[variant]]
name = "relu"
overrides = ["head.activation=\"relu\""]
[positions]
limit = 120
`

// runTasksInProcess runs every task of a plan in-process, in order.
func runTasksInProcess(t *testing.T, p *plan.Plan) []records.Record {
	t.Helper()
	if err := p.Write(); err != nil {
		t.Fatal(err)
	}
	for _, tk := range p.Tasks {
		if err := runner.RunTask(context.Background(), p.Out, tk.ID, io.Discard); err != nil {
			t.Fatal(err)
		}
	}
	recs, err := records.Merge(p)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestActivationMetrics: the sparsity and saturation records of a net
// whose answers are known, and the report's columns.
func TestActivationMetrics(t *testing.T) {
	dir := t.TempDir()
	writeTinyActNet(t, dir)
	path := filepath.Join(dir, "act.toml")
	if err := os.WriteFile(path, []byte(tinyActManifest), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.New(m, plan.Options{Out: filepath.Join(dir, "out"), Cache: filepath.Join(dir, "cache"), Binary: "/bin/nnuelab", Command: "nnuelab experiment run act.toml"})
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, tk := range p.Tasks {
		ids = append(ids, tk.ID)
	}
	if strings.Join(ids, " ") != "activations-base-s1 activations-relu-s1" {
		t.Fatalf("tasks %v", ids)
	}
	recs := runTasksInProcess(t, p)
	got := map[string]records.Record{}
	for _, r := range recs {
		got[r.Variant+" "+r.Metric] = r
	}
	const values = 768*32 + 32 + 64 + 1 // ft.weight, ft.bias, out.weight, out.bias
	for _, tc := range []struct {
		key   string
		value float64
		n     int
	}{
		{"base sparsity.zero", 0.5, 120},                          // 16 dead neurons of 32
		{"base sparsity.nonzero_groups", 0.5, 120},                // int16 pairs: 8 live groups of 16
		{"base sparsity.dead", 16, 120},                           // neurons 16..31
		{"base saturation.outputs", 1.0 / 32, 120},                // neuron 0
		{"base saturation.always", 1, 120},                        // neuron 0, on every position
		{"base saturation.weights_at_clip", 1.0 / values, values}, // the pawn on a1
		{"relu sparsity.zero", 0.5, 120},
		{"relu sparsity.dead", 16, 120},
		{"relu saturation.outputs", 0, 0}, // ReLU has no ceiling: a note
		{"relu saturation.weights_at_clip", 1.0 / values, values},
	} {
		r, ok := got[tc.key]
		if !ok {
			t.Errorf("no record %q", tc.key)
			continue
		}
		if math.Abs(r.Value-tc.value) > 1e-15 || r.N != tc.n {
			t.Errorf("%s = %v over %d, want %v over %d", tc.key, r.Value, r.N, tc.value, tc.n)
		}
	}
	if r := got["relu saturation.outputs"]; r.Detail["note"] == nil || !strings.Contains(r.Detail["note"].(string), "no ceiling") {
		t.Errorf("relu saturation: %+v", r.Detail)
	}
	if _, ok := got["relu saturation.always"]; ok {
		t.Error("a ReLU net has always-saturated neurons")
	}
	if _, ok := got["base saturation.later"]; ok {
		t.Error("a linear head has later layers")
	}
	if r := got["base sparsity.nonzero_groups"]; r.Detail["group_values"] != 2 {
		t.Errorf("groups of %v values, want 2", r.Detail["group_values"])
	}

	md, err := report.Write(p, recs, filepath.Join(dir, "reports"))
	if err != nil {
		t.Fatal(err)
	}
	page := string(exptest.ReadFile(t, md))
	for _, want := range []string{
		"| zero outputs, first layer | non-zero 4-byte groups | dead neurons, first layer | saturated outputs, first layer | quantized weights at clip |",
		"| **base** (base) | – | 50.0% | 50.0% | 16 | 3.1% | 0.004% |",
		"| relu | `head.activation=\"relu\"` | 50.0% | 50.0% | 16 | n/a | 0.004% |",
		"- Saturated outputs n/a: ft (relu) has no ceiling: nothing saturates.",
		"- **relu** has 50.0% of its first layer's outputs zero (base 50.0%) and 50.0% of its 4-byte groups non-zero (base 50.0%); has 0.004% of its quantized weights at the clip.",
		"- Activations (sparsity, saturation): every position evaluated from scratch",
	} {
		if !strings.Contains(page, want) {
			t.Errorf("report lacks %q:\n%s", want, page)
		}
	}
}

// TestActivationTasksKeys: asking for sparsity or saturation adds one
// activations task per variant and seed and leaves every other task's key
// as it was; the activations task's key does not depend on which of the
// two metrics is asked for (one pass measures both).
func TestActivationTasksKeys(t *testing.T) {
	const head = `
[base]
arch = "koivisto-7.4"
[[variant]]
name = "H1"
overrides = ["history=1"]
[positions]
limit = 50
[speed]
positions = 2
nodes = 1000
`
	keys := func(metrics string) map[string]string {
		p := plantest.PlanOf(t, "metrics = ["+metrics+"]\n"+head)
		out := map[string]string{}
		for _, tk := range p.Tasks {
			out[tk.ID] = tk.Key
		}
		return out
	}
	before := keys(`"agreement", "history_shares", "eval_speed"`)
	var act map[string]string
	for _, tc := range []struct{ metrics string }{
		{`"agreement", "history_shares", "eval_speed", "sparsity"`},
		{`"agreement", "history_shares", "eval_speed", "saturation"`},
		{`"sparsity", "agreement", "saturation", "history_shares", "eval_speed"`},
	} {
		after := keys(tc.metrics)
		for id, k := range before {
			if after[id] != k {
				t.Errorf("%s: task %s changed its key", tc.metrics, id)
			}
		}
		if len(after) != len(before)+2 || after["activations-base-s1"] == "" || after["activations-H1-s1"] == "" {
			t.Errorf("%s: tasks %v", tc.metrics, after)
		}
		if act == nil {
			act = after
		} else if after["activations-H1-s1"] != act["activations-H1-s1"] {
			t.Errorf("%s: the activations task's key depends on the metrics asked for", tc.metrics)
		}
	}
	if act["activations-base-s1"] == act["activations-H1-s1"] {
		t.Error("two variants' activations tasks share a key")
	}
}

// TestActivationMetricsRefused: a design without activation statistics is
// refused when the manifest asks for them, naming the variant.
func TestActivationMetricsRefused(t *testing.T) {
	for _, tc := range []struct {
		name, toml, reason string
	}{
		{"sf17 base", "metrics = [\"sparsity\"]\n[base]\narch = \"sf17.1\"\n", `base (base): arch sf17.1: no activation statistics for head type "sf17"`},
		{"sf17 variant", "metrics = [\"agreement\", \"saturation\"]\n[base]\narch = \"koivisto-7.4\"\n[[variant]]\nname = \"big\"\narch = \"sf17.1\"\n", `variant[0] (big)`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := manifest.Parse("m.toml", t.TempDir(), []byte(tc.toml))
			var e *manifest.Error
			if !errors.As(err, &e) || e.Key != "metrics" || !strings.Contains(e.Reason, tc.reason) {
				t.Errorf("error %v, want key metrics and %q", err, tc.reason)
			}
		})
	}
	// Without the metrics the same manifest is fine.
	if _, err := manifest.Parse("m.toml", t.TempDir(), []byte("metrics = [\"agreement\"]\n[base]\narch = \"koivisto-7.4\"\n[[variant]]\nname = \"big\"\narch = \"sf17.1\"\n")); err != nil {
		t.Errorf("without sparsity: %v", err)
	}
}
