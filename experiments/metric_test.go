package experiments

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/experiments/internal/exptest"
	"github.com/nnuelab/nnuelab/experiments/metrics"
	"github.com/nnuelab/nnuelab/experiments/records"
)

// TestRegisteredMetric runs a manifest listing nodes_to_depth, the metric
// defined only in package metrics, through the command: its measure tasks,
// records, table column and setup line come from its definition.
func TestRegisteredMetric(t *testing.T) {
	dir := t.TempDir()
	text := `title = "registered metric"
metrics = ["nodes_to_depth"]
[base]
arch = "koivisto-7.4"
[[variant]]
name = "H1"
overrides = ["history=1"]
[positions]
limit = 50
[speed]
positions = 2
`
	if err := os.WriteFile(filepath.Join(dir, "depth.toml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	exptest.Run(t, dir, nil, "experiment", "run", "depth.toml", "--out", "out", "--report-dir", "reports", "--cache", "cache")
	recs, err := records.ReadResults(filepath.Join(dir, "out", "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	byVariant := map[string]records.Record{}
	for _, r := range recs {
		if r.Metric != metrics.MetricNodesToDepth {
			t.Errorf("unexpected record %s", r.Metric)
		}
		byVariant[r.Variant] = r
	}
	for _, v := range []string{"base", "H1"} {
		r, ok := byVariant[v]
		if !ok {
			t.Fatalf("no %s record for %s in %v", metrics.MetricNodesToDepth, v, recs)
		}
		if r.Value <= 0 || r.N != 2 || r.Unit != "nodes" || r.Detail["depth"] != 7.0 {
			t.Errorf("%s: %+v", v, r)
		}
	}
	// The history depth changes where accumulators come from, not the
	// evaluation: both searches visit the same nodes.
	if byVariant["base"].Value != byVariant["H1"].Value {
		t.Errorf("history=1 changed the search: %v vs %v nodes", byVariant["H1"].Value, byVariant["base"].Value)
	}
	md := string(exptest.ReadFile(t, filepath.Join(dir, "reports", "depth.md")))
	for _, want := range []string{"| nodes to depth 7 (median) |", "- Nodes to depth: the search completes depth 7 on 2 positions"} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}
