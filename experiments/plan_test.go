package experiments

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/bench/stats"
	"github.com/nnuelab/nnuelab/experiments/internal/plantest"
	"github.com/nnuelab/nnuelab/experiments/manifest"
	"github.com/nnuelab/nnuelab/experiments/plan"
	"github.com/nnuelab/nnuelab/experiments/records"
	"github.com/nnuelab/nnuelab/experiments/report"
)

// [elo] variants plays only the listed variants; the chunks of a listed
// variant keep their keys (the list is not part of them), and the report
// says the others are not tested rather than pending.
func TestEloVariants(t *testing.T) {
	source := `name = "some"` + strings.Replace(plantest.EloManifest, "[elo]", "[[variant]]\nname = \"H3\"\noverrides = [\"history=3\"]\n[elo]", 1) + `
games = 2
chunk = 2
nodes = 300
`
	elo := func(p *plan.Plan) map[string]string {
		keys := map[string]string{}
		for _, tk := range p.Tasks {
			if tk.Kind == plan.KindElo {
				keys[tk.ID] = tk.Key
			}
		}
		return keys
	}
	all := elo(plantest.PlanOf(t, source))
	if len(all) != 2 {
		t.Fatalf("without a list: Elo tasks %v", all)
	}
	p := plantest.PlanOf(t, strings.Replace(source, "[elo]\n", "[elo]\nvariants = [\"H3\"]\n", 1))
	some := elo(p)
	if len(some) != 1 || some["elo-H3-c000"] != all["elo-H3-c000"] {
		t.Fatalf("variants = [\"H3\"]: Elo tasks %v (all: %v)", some, all)
	}

	plantest.WriteEloResult(t, p, "elo-H3-c000", stats.Penta{0, 0, 1, 0, 0}, 1, 0, 1)
	recs, err := records.Merge(p)
	if err != nil {
		t.Fatalf("Merge with the listed variant played: %v", err)
	}
	for _, rec := range recs {
		if rec.Metric == manifest.MetricElo && rec.Variant != "H3" {
			t.Errorf("an Elo record for %s, which is not listed", rec.Variant)
		}
	}
	mdPath, err := report.Write(p, recs, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	body, err := os.ReadFile(mdPath)
	if err != nil {
		t.Fatal(err)
	}
	md := string(body)
	if !strings.Contains(md, "(only H3; the others are not tested)") || strings.Contains(md, "**Pending:**") {
		t.Errorf("report does not say that only H3 plays, or calls Elo pending:\n%s", md)
	}
}

// A variant's own training data gives it its own training task (the
// cache key holds the data's hash); variants without it share [data].
func TestVariantData(t *testing.T) {
	dir := t.TempDir()
	for _, f := range []string{"a.txt", "b.txt", "v.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write := func(body string) string {
		path := filepath.Join(dir, "d.toml")
		if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
		return path
	}
	const head = `
name = "d"
metrics = ["val_loss"]
[base]
arch = "chess768"
[data]
train = ["a.txt"]
validation = ["v.txt"]
`
	m, err := manifest.Load(write(head + `[train]
epochs = 1
[[variant]]
name = "own"
data = ["b.txt"]
[[variant]]
name = "same"
overrides = ["history=1"]
[[variant]]
name = "both"
data = ["a.txt", "b.txt"]
[[variant]]
name = "decay"
[variant.train]
weight_decay = 0.5
[[variant]]
name = "scope"
[variant.train]
decay_scope = "buckets"
[[variant]]
name = "scope-all"
[variant.train]
decay_scope = "all"
`))
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.New(m, plan.Options{Out: t.TempDir(), Cache: t.TempDir(), Binary: "/bin/nnuelab"})
	if err != nil {
		t.Fatal(err)
	}
	train := map[string]string{} // variant -> train task
	for _, v := range p.Variants {
		train[v.Name] = v.Nets[0].Train
	}
	if train["base"] == "" || train["own"] == train["base"] || train["both"] == train["own"] || train["both"] == train["base"] {
		t.Errorf("train tasks by variant: %v", train)
	}
	own := p.Task(train["own"]).Train.Config
	if len(own.Data) != 1 || filepath.Base(own.Data[0]) != "b.txt" || len(own.ValData) != 1 || filepath.Base(own.ValData[0]) != "v.txt" {
		t.Errorf("variant own trains on %v, validates on %v", own.Data, own.ValData)
	}
	if base := p.Task(train["base"]).Train.Config; len(base.Data) != 1 || filepath.Base(base.Data[0]) != "a.txt" {
		t.Errorf("base trains on %v", base.Data)
	}
	// A variant's own schedule is its training config, and so its key.
	if train["decay"] == train["base"] || train["decay"] == train["same"] {
		t.Errorf("variant decay shares a train task: %v", train)
	}
	if d, b := p.Task(train["decay"]).Train.Config, p.Task(train["base"]).Train.Config; d.Optim.WeightDecay != 0.5 || b.Optim.WeightDecay != 0.01 {
		t.Errorf("weight decay: variant %v, base %v", d.Optim.WeightDecay, b.Optim.WeightDecay)
	}
	// A decay scope is in the key; the default "all" is not (it is stored
	// empty, so nets trained before the scope existed keep their keys).
	if sc := p.Task(train["scope"]).Train.Config; sc.Optim.DecayScope != "buckets" || train["scope"] == train["base"] {
		t.Errorf("variant scope: decay scope %q, task %s (base %s)", sc.Optim.DecayScope, train["scope"], train["base"])
	}
	if train["scope-all"] != train["base"] || p.Task(train["base"]).Train.Config.Optim.DecayScope != "" {
		t.Errorf("decay_scope = \"all\" changes the train key: %s vs base %s", train["scope-all"], train["base"])
	}

	for _, tc := range []struct{ body, key, reason string }{
		{head + "[[variant]]\nname = \"x\"\ndata = [\"b.txt\"]\n", "variant[0].data", "needs a [train] section"},
		{head + "[train]\nepochs = 1\n[[variant]]\nname = \"x\"\nnet = \"a.txt\"\ndata = [\"b.txt\"]\n", "variant[0].data", "not both"},
		{head + "[train]\nepochs = 1\n[[variant]]\nname = \"x\"\ndata = [\" \"]\n", "variant[0].data", "empty path"},
	} {
		_, err := manifest.Load(write(tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.key) || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("want an error naming %s (%s), got %v", tc.key, tc.reason, err)
		}
	}
}

// A clock bounds a game whatever the net's width; at fixed nodes a wider
// net takes longer.
func TestEloEstimateWidth(t *testing.T) {
	for _, limit := range []string{`tc = "10+0.1"`, `nodes = 5000`} {
		body := `
name = "w"
metrics = ["elo"]
[base]
arch = "koivisto-7.4"
[[variant]]
name = "wide"
arch = "leorik-3.1"
[elo]
games = 2
chunk = 2
` + limit + "\n"
		p := plantest.PlanOf(t, body)
		tk := p.Task("elo-wide-c000")
		wide := plan.EstimateTask(p, tk)
		tk.Variant = "base"
		narrow := plan.EstimateTask(p, tk)
		switch {
		case limit[0] == 't' && wide != narrow:
			t.Errorf("%s: %v s for the wide net, %v s for the base", limit, wide, narrow)
		case limit[0] == 'n' && !(wide > narrow):
			t.Errorf("%s: the wide net's %v s is not above the base's %v s", limit, wide, narrow)
		}
	}
}
