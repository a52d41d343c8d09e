package experiment

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/bench/stats"
)

// planOf loads a manifest given as text and expands it into a plan in
// temporary folders.
func planOf(t *testing.T, manifest string) *Plan {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.toml")
	if err := os.WriteFile(path, []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(m, PlanOptions{Out: t.TempDir(), Cache: t.TempDir(), Binary: "/bin/nnuelab"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// eloManifest is the start of a manifest with one variant and an Elo test,
// up to the [elo] keys.
const eloManifest = `
metrics = ["elo"]
[base]
arch = "koivisto-7.4"
[[variant]]
name = "H1"
overrides = ["history=1"]
[elo]`

// With opponent = "classical" every variant, the base included, plays the
// classical engine (nnuelab with no arguments), and the tasks' keys differ
// from a run against the base; with the default the base plays no games.
func TestEloOpponent(t *testing.T) {
	const manifest = `name = "opp"` + eloManifest + `
games = 4
chunk = 2
nodes = 300
`
	plan := func(extra string) *Plan {
		return planOf(t, strings.Replace(manifest, "[elo]\n", "[elo]\n"+extra, 1))
	}
	elo := func(p *Plan) (ids []string, keys []string) {
		for _, tk := range p.Tasks {
			if tk.Kind == KindElo {
				ids, keys = append(ids, tk.ID), append(keys, tk.Key)
			}
		}
		return ids, keys
	}

	def, explicit, classical := plan(""), plan("opponent = \"base\"\n"), plan("opponent = \"classical\"\n")
	defIDs, defKeys := elo(def)
	if !slices.Equal(defIDs, []string{"elo-H1-c000", "elo-H1-c001"}) {
		t.Fatalf("against the base: tasks %v", defIDs)
	}
	if _, keys := elo(explicit); !slices.Equal(keys, defKeys) {
		t.Error(`opponent = "base" changed the task keys of the default`)
	}
	ids, keys := elo(classical)
	if !slices.Equal(ids, []string{"elo-base-c000", "elo-H1-c000", "elo-base-c001", "elo-H1-c001"}) {
		t.Fatalf("against classical: tasks %v", ids)
	}
	if keys[1] == defKeys[0] { // elo-H1-c000 against each opponent
		t.Error("the same task key against the base and against the classical engine")
	}

	args := strings.Join(matchArgs(classical, classical.Task("elo-base-c000")), " ")
	if !strings.Contains(args, "-engine cmd=/bin/nnuelab name=base arg=experiment") ||
		!strings.Contains(args, "-engine cmd=/bin/nnuelab name=classical -each") {
		t.Errorf("match against classical: %s", args)
	}
	args = strings.Join(matchArgs(def, def.Task("elo-H1-c000")), " ")
	if !strings.Contains(args, "name=H1 arg=experiment") || !strings.Contains(args, "name=base arg=experiment") {
		t.Errorf("match against the base: %s", args)
	}
}

// [elo] variants plays only the listed variants; the chunks of a listed
// variant keep their keys (the list is not part of them), and the report
// says the others are not tested rather than pending.
func TestEloVariants(t *testing.T) {
	manifest := `name = "some"` + strings.Replace(eloManifest, "[elo]", "[[variant]]\nname = \"H3\"\noverrides = [\"history=3\"]\n[elo]", 1) + `
games = 2
chunk = 2
nodes = 300
`
	elo := func(p *Plan) map[string]string {
		keys := map[string]string{}
		for _, tk := range p.Tasks {
			if tk.Kind == KindElo {
				keys[tk.ID] = tk.Key
			}
		}
		return keys
	}
	all := elo(planOf(t, manifest))
	if len(all) != 2 {
		t.Fatalf("without a list: Elo tasks %v", all)
	}
	p := planOf(t, strings.Replace(manifest, "[elo]\n", "[elo]\nvariants = [\"H3\"]\n", 1))
	some := elo(p)
	if len(some) != 1 || some["elo-H3-c000"] != all["elo-H3-c000"] {
		t.Fatalf("variants = [\"H3\"]: Elo tasks %v (all: %v)", some, all)
	}

	writeEloResult(t, p, "elo-H3-c000", stats.Penta{0, 0, 1, 0, 0}, 1, 0, 1)
	recs, err := Merge(p)
	if err != nil {
		t.Fatalf("Merge with the listed variant played: %v", err)
	}
	for _, rec := range recs {
		if rec.Metric == MetricElo && rec.Variant != "H3" {
			t.Errorf("an Elo record for %s, which is not listed", rec.Variant)
		}
	}
	mdPath, err := WriteReport(p, recs, t.TempDir())
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
	m, err := Load(write(head + `[train]
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
	p, err := NewPlan(m, PlanOptions{Out: t.TempDir(), Cache: t.TempDir(), Binary: "/bin/nnuelab"})
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
		_, err := Load(write(tc.body))
		if err == nil || !strings.Contains(err.Error(), tc.key) || !strings.Contains(err.Error(), tc.reason) {
			t.Errorf("want an error naming %s (%s), got %v", tc.key, tc.reason, err)
		}
	}
}

// A manifest that trains and measures val_loss on the built-in set gives
// that set to the trainer as its validation (which the trainer leaves out
// of training): the set is cut from the Stockfish data experiments train
// on, and would otherwise leak.
func TestBuiltinValidationIsTrainerValidation(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "b.toml")
	if err := os.WriteFile(path, []byte(`
name = "b"
metrics = ["val_loss"]
[base]
arch = "chess768"
[data]
train = ["a.txt"]
[train]
epochs = 1
`), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := Load(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := NewPlan(m, PlanOptions{Out: filepath.Join(t.TempDir(), "out"), Cache: t.TempDir(), Binary: "/bin/nnuelab"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := p.Task(p.Variants[0].Nets[0].Train).Train.Config
	want := filepath.Join(p.Out, "validation-sf151.txt.zst")
	if len(cfg.ValData) != 1 || cfg.ValData[0] != want || cfg.ValFraction != 0 {
		t.Fatalf("trainer validation %v (fraction %v), want %s", cfg.ValData, cfg.ValFraction, want)
	}
	if err := p.Write(); err != nil {
		t.Fatal(err)
	}
	got, err := fileSHA256(want)
	if err != nil {
		t.Fatal(err)
	}
	if builtin, _ := fileSHA256(BuiltinValidation); got != builtin {
		t.Error("the copy of the built-in validation set differs from it")
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
		p := planOf(t, body)
		tk := p.Task("elo-wide-c000")
		wide := EstimateTask(p, tk)
		tk.Variant = "base"
		narrow := EstimateTask(p, tk)
		switch {
		case limit[0] == 't' && wide != narrow:
			t.Errorf("%s: %v s for the wide net, %v s for the base", limit, wide, narrow)
		case limit[0] == 'n' && !(wide > narrow):
			t.Errorf("%s: the wide net's %v s is not above the base's %v s", limit, wide, narrow)
		}
	}
}

// TestNextWave: Elo chunks wait while a training or measurement can run,
// then come all at once in plan (round-robin) order; a task whose needs
// failed holds nothing back.
func TestNextWave(t *testing.T) {
	p := &Plan{Tasks: []*Task{
		{ID: "train-a", Kind: KindTrain},
		{ID: "train-b", Kind: KindTrain},
		{ID: "measure-a", Kind: KindMeasure, Needs: []string{"train-a"}},
		{ID: "measure-b", Kind: KindMeasure, Needs: []string{"train-b"}},
		{ID: "elo-a-c000", Kind: KindElo, Needs: []string{"train-a"}},
		{ID: "elo-b-c000", Kind: KindElo, Needs: []string{"train-b"}},
		{ID: "elo-a-c001", Kind: KindElo, Needs: []string{"train-a"}},
	}}
	ids := func(ts []*Task) string {
		var s []string
		for _, t := range ts {
			s = append(s, t.ID)
		}
		return strings.Join(s, ",")
	}
	done, failed := map[string]bool{}, map[string]string{}
	for _, step := range []struct {
		finish []string
		fail   string
		want   string
	}{
		{nil, "", "train-a,train-b"},
		{[]string{"train-a"}, "", "train-b,measure-a"},
		{[]string{"train-b", "measure-a"}, "", "measure-b"},
		{[]string{"measure-b"}, "", "elo-a-c000,elo-b-c000,elo-a-c001"},
	} {
		for _, id := range step.finish {
			done[id] = true
		}
		if got := ids(nextWave(p, done, failed, nil)); got != step.want {
			t.Fatalf("after %v: wave %s, want %s", step.finish, got, step.want)
		}
	}
	// A failed training: its measurement never runs, and the other
	// variant's chunks do not wait for it.
	done, failed = map[string]bool{"train-a": true, "measure-a": true}, map[string]string{"train-b": "crashed"}
	if got := ids(nextWave(p, done, failed, nil)); got != "elo-a-c000,elo-a-c001" {
		t.Fatalf("with train-b failed: wave %s", got)
	}
}

// TestEloInfinite: a variant that won every game has an infinite Elo; the
// record says so in its details (JSON holds no infinity) and the report
// prints "+∞ (4-0-0)", never "+0.0".
func TestEloInfinite(t *testing.T) {
	p := planOf(t, `
name = "w"
metrics = ["elo"]
[base]
arch = "koivisto-7.4"
[[variant]]
name = "other"
arch = "leorik-3.1"
[elo]
games = 4
chunk = 4
nodes = 100
`)
	tk := p.Task("elo-other-c000")
	results := map[string]*TaskResult{tk.ID: {Elo: &EloResult{Wins: 4, Penta: stats.Penta{0, 0, 0, 0, 2}}}}
	var v *Variant
	for i := range p.Variants {
		if p.Variants[i].Name == "other" {
			v = p.Variants[i]
		}
	}
	r, err := eloRecord(p, v, results, Record{Metric: "elo"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Detail["infinite"] != "+inf" || r.Value != 0 {
		t.Fatalf("value %v, details %v", r.Value, r.Detail)
	}
	if got := eloRecordText(r); !strings.HasPrefix(got, "+∞ (4-0-0) [") {
		t.Errorf("report cell %q", got)
	}
	r.Detail["infinite"], r.Detail["wins"], r.Detail["losses"] = "-inf", 0, 4
	if got := eloValueText(r.Value, r.Detail); got != "−∞ (0-0-4)" {
		t.Errorf("lost every game: %q", got)
	}
}

// TestEloAgainst: a result's "against" names the engine the games were
// played against: the classical engine with opponent = "classical" (it
// named the base before), the base otherwise; the match's own arguments
// decide when the chunk recorded them.
func TestEloAgainst(t *testing.T) {
	base := planOf(t, `name = "b"`+eloManifest+"\ngames = 2\nchunk = 2\nnodes = 100\n")
	classical := planOf(t, `name = "c"`+eloManifest+"\nopponent = \"classical\"\ngames = 2\nchunk = 2\nnodes = 100\n")
	for _, tc := range []struct {
		name    string
		p       *Plan
		variant string
		args    func(p *Plan, id string) []string
		want    string
	}{
		{"variant vs the base", base, "H1", func(p *Plan, id string) []string { return matchArgs(p, p.Task(id)) }, "base"},
		{"variant vs classical", classical, "H1", func(p *Plan, id string) []string { return matchArgs(p, p.Task(id)) }, "classical"},
		{"the base vs classical", classical, "base", func(p *Plan, id string) []string { return matchArgs(p, p.Task(id)) }, "classical"},
		{"vs classical, no args recorded", classical, "H1", func(*Plan, string) []string { return nil }, "classical"},
		{"vs the base, no args recorded", base, "H1", func(*Plan, string) []string { return nil }, "base"},
		{"the args name another engine", base, "H1", func(*Plan, string) []string {
			return []string{"match", "-engine", "cmd=a", "name=H1", "-engine", "cmd=/usr/games/stockfish", "name=sf", "-each", "nodes=100"}
		}, "sf"},
	} {
		id := "elo-" + tc.variant + "-c000"
		results := map[string]*TaskResult{id: {Elo: &EloResult{Wins: 1, Losses: 1, Penta: stats.Penta{0, 0, 1, 0, 0}, Args: tc.args(tc.p, id)}}}
		r, err := eloRecord(tc.p, tc.p.Variant(tc.variant), results, Record{Metric: "elo"})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := r.Detail["against"]; got != tc.want {
			t.Errorf("%s: against %v, want %s", tc.name, got, tc.want)
		}
	}
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
