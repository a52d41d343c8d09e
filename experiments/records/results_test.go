package records

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/experiments/internal/plantest"
	"github.com/nnuelab/nnuelab/experiments/metrics"
	"github.com/nnuelab/nnuelab/experiments/plan"
)

func TestResultsFile(t *testing.T) {
	lo, hi := -1.5, 2.5
	recs := []Record{
		{Experiment: "e", Variant: "base", Label: "base", Base: true, Metric: "val_loss", Value: 0.25, N: 10, ArchSHA256: "a", Command: "c"},
		{Experiment: "e", Variant: "H1", Label: "H1", Metric: "elo", Value: 0.5, Lower: &lo, Upper: &hi, Unit: "Elo", N: 4,
			Detail: map[string]any{"games": 4, "penta": []int{0, 1, 2, 1, 0}}, Overrides: []string{"history=1"}, ArchSHA256: "b", Command: "c"},
	}
	path := filepath.Join(t.TempDir(), "out", "results.jsonl")
	if err := WriteResults(path, recs); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(path)
	if lines := strings.Split(strings.TrimSpace(string(data)), "\n"); len(lines) != 2 || !strings.HasPrefix(lines[0], `{"experiment":"e","variant":"base"`) {
		t.Errorf("file:\n%s", data)
	}
	got, err := ReadResults(path)
	if err != nil {
		t.Fatal(err)
	}
	stored, err := AsStored(recs)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, stored) {
		t.Errorf("read back %+v\nas stored %+v", got, stored)
	}
	// As stored, details are JSON's: numbers float64, lists []any.
	if d := got[1].Detail; d["games"] != 4.0 || !reflect.DeepEqual(d["penta"], []any{0.0, 1.0, 2.0, 1.0, 0.0}) || *got[1].Lower != lo {
		t.Errorf("detail %#v", d)
	}
}

func TestDecodeResults(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		n          int
		err        string
	}{
		{"empty", "", 0, ""},
		{"blank lines skipped", "\n{\"metric\":\"a\"}\n  \n{\"metric\":\"b\"}\n", 2, ""},
		{"unknown keys ignored", `{"metric":"a","colour":1}` + "\n", 1, ""},
		{"bad line named", "{\"metric\":\"a\"}\n\n{\"metric\":\n", 0, "x.jsonl line 3"},
		{"wrong type", `{"value":"high"}` + "\n", 0, "x.jsonl line 1"},
	} {
		recs, err := decodeResults(strings.NewReader(tc.text), "x.jsonl")
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.err)
		case tc.err == "" && (err != nil || len(recs) != tc.n):
			t.Errorf("%s: %d records, %v; want %d", tc.name, len(recs), err, tc.n)
		}
	}
}

func TestFinite(t *testing.T) {
	for _, x := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		if finite(x) != 0 || fptr(x) != nil {
			t.Errorf("%v: finite %v, fptr %v", x, finite(x), fptr(x))
		}
	}
	if finite(-2.5) != -2.5 || *fptr(3) != 3 {
		t.Error("a finite value changed")
	}
	if infSign(math.Inf(1)) != "+inf" || infSign(math.Inf(-1)) != "-inf" {
		t.Error("infSign")
	}
}

// writeResult stores a finished task's result as the runner does.
func writeResult(t *testing.T, p *plan.Plan, r plan.TaskResult) {
	t.Helper()
	tk := p.Task(r.ID)
	if tk == nil {
		t.Fatalf("no task %s", r.ID)
	}
	r.Kind, r.Key, r.Variant = tk.Kind, tk.Key, tk.Variant
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(p.Out, "tasks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plan.ResultPath(p.Out, r.ID), data, 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestMergeMeasure: measure results become the metrics' records, per
// variant in plan order (a registered metric's through its definition);
// a missing task fails Merge and is listed by MergePartial.
func TestMergeMeasure(t *testing.T) {
	p := plantest.PlanOf(t, `metrics = ["agreement", "nodes_to_depth"]
[base]
arch = "koivisto-7.4"
[[variant]]
name = "H1"
overrides = ["history=1"]
`)
	writeResult(t, p, plan.TaskResult{ID: "measure-base-s1", Measure: &metrics.MeasureResult{
		Agreement: &metrics.Agreement{N: 100, Scale: 1.1, MAE: 20, MAEUnscaled: 25, Sign: 0.9, Corr: 0.95}, Reference: "builtin",
		Metrics: map[string]json.RawMessage{metrics.MetricNodesToDepth: json.RawMessage(`{"depth":7,"nodes":[300,100,200]}`)},
	}})
	if _, err := Merge(p); err == nil || !strings.Contains(err.Error(), "measure-H1-s1 has no result") {
		t.Errorf("merge with a task missing: %v", err)
	}
	recs, missing, err := MergePartial(p)
	if err != nil || !reflect.DeepEqual(missing, []string{"measure-H1-s1"}) {
		t.Fatalf("partial: missing %v, %v", missing, err)
	}
	var got []string
	for _, r := range recs {
		got = append(got, r.Variant+" "+r.Metric)
	}
	want := []string{"base agreement.mae_cp", "base agreement.sign", "base agreement.corr", "base nodes_to_depth"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("records %q, want %q", got, want)
	}
	if r := recs[0]; r.Value != 20 || r.N != 100 || r.Detail["scale"] != 1.1 || r.DataSHA256 != p.PositionsSHA256 || r.Command != p.Command {
		t.Errorf("agreement record %+v", r)
	}
	if r := recs[3]; r.Value != 200 || r.Unit != "nodes" || r.N != 3 {
		t.Errorf("nodes_to_depth record %+v", r)
	}
	writeResult(t, p, plan.TaskResult{ID: "measure-H1-s1", Measure: &metrics.MeasureResult{
		Agreement: &metrics.Agreement{N: 100, MAE: 30}, Metrics: map[string]json.RawMessage{metrics.MetricNodesToDepth: json.RawMessage(`{"depth":7,"nodes":[5]}`)},
	}})
	recs, err = Merge(p)
	if err != nil || len(recs) != 8 || recs[4].Variant != "H1" || recs[4].Value != 30 || recs[7].Value != 5 {
		t.Errorf("full merge: %v, %+v", err, recs)
	}
}

// TestMatchOpponent: the engine a chunk's games were played against, from
// the match's arguments (the second engine's name; none when unnamed).
func TestMatchOpponent(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"match", "-engine", "name=a"}, ""},
		{[]string{"match", "-engine", "name=a", "-engine", "cmd=x", "-each", "name=z"}, ""},
		{[]string{"match", "-engine", "name=a", "arg=name=q", "-engine", "cmd=x", "name=b"}, "b"},
	} {
		if got := matchOpponent(tc.args); got != tc.want {
			t.Errorf("matchOpponent(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
}
