package runner

import (
	"slices"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/bench/stats"
	"github.com/nnuelab/nnuelab/experiments/internal/plantest"
	"github.com/nnuelab/nnuelab/experiments/plan"
	"github.com/nnuelab/nnuelab/experiments/records"
	"github.com/nnuelab/nnuelab/experiments/report"
)

// With opponent = "classical" every variant, the base included, plays the
// classical engine (nnuelab with no arguments), and the tasks' keys differ
// from a run against the base; with the default the base plays no games.
func TestEloOpponent(t *testing.T) {
	const manifest = `name = "opp"` + plantest.EloManifest + `
games = 4
chunk = 2
nodes = 300
`
	pl := func(extra string) *plan.Plan {
		return plantest.PlanOf(t, strings.Replace(manifest, "[elo]\n", "[elo]\n"+extra, 1))
	}
	elo := func(p *plan.Plan) (ids []string, keys []string) {
		for _, tk := range p.Tasks {
			if tk.Kind == plan.KindElo {
				ids, keys = append(ids, tk.ID), append(keys, tk.Key)
			}
		}
		return ids, keys
	}

	def, explicit, classical := pl(""), pl("opponent = \"base\"\n"), pl("opponent = \"classical\"\n")
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

// TestNextWave: Elo chunks wait while a training or measurement can run,
// then come all at once in plan (round-robin) order; a task whose needs
// failed holds nothing back.
func TestNextWave(t *testing.T) {
	p := &plan.Plan{Tasks: []*plan.Task{
		{ID: "train-a", Kind: plan.KindTrain},
		{ID: "train-b", Kind: plan.KindTrain},
		{ID: "measure-a", Kind: plan.KindMeasure, Needs: []string{"train-a"}},
		{ID: "measure-b", Kind: plan.KindMeasure, Needs: []string{"train-b"}},
		{ID: "elo-a-c000", Kind: plan.KindElo, Needs: []string{"train-a"}},
		{ID: "elo-b-c000", Kind: plan.KindElo, Needs: []string{"train-b"}},
		{ID: "elo-a-c001", Kind: plan.KindElo, Needs: []string{"train-a"}},
	}}
	ids := func(ts []*plan.Task) string {
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
	p := plantest.PlanOf(t, `
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
	results := map[string]*plan.TaskResult{tk.ID: {Elo: &plan.EloResult{Wins: 4, Penta: stats.Penta{0, 0, 0, 0, 2}}}}
	var v *plan.Variant
	for i := range p.Variants {
		if p.Variants[i].Name == "other" {
			v = p.Variants[i]
		}
	}
	r, err := records.EloRecord(p, v, results, records.Record{Metric: "elo"})
	if err != nil {
		t.Fatal(err)
	}
	if r.Detail["infinite"] != "+inf" || r.Value != 0 {
		t.Fatalf("value %v, details %v", r.Value, r.Detail)
	}
	if got := report.EloRecordText(r); !strings.HasPrefix(got, "+∞ (4-0-0) [") {
		t.Errorf("report cell %q", got)
	}
	r.Detail["infinite"], r.Detail["wins"], r.Detail["losses"] = "-inf", 0, 4
	if got := report.EloValueText(r.Value, r.Detail); got != "−∞ (0-0-4)" {
		t.Errorf("lost every game: %q", got)
	}
}

// TestEloAgainst: a result's "against" names the engine the games were
// played against: the classical engine with opponent = "classical" (it
// named the base before), the base otherwise; the match's own arguments
// decide when the chunk recorded them.
func TestEloAgainst(t *testing.T) {
	base := plantest.PlanOf(t, `name = "b"`+plantest.EloManifest+"\ngames = 2\nchunk = 2\nnodes = 100\n")
	classical := plantest.PlanOf(t, `name = "c"`+plantest.EloManifest+"\nopponent = \"classical\"\ngames = 2\nchunk = 2\nnodes = 100\n")
	for _, tc := range []struct {
		name    string
		p       *plan.Plan
		variant string
		args    func(p *plan.Plan, id string) []string
		want    string
	}{
		{"variant vs the base", base, "H1", func(p *plan.Plan, id string) []string { return matchArgs(p, p.Task(id)) }, "base"},
		{"variant vs classical", classical, "H1", func(p *plan.Plan, id string) []string { return matchArgs(p, p.Task(id)) }, "classical"},
		{"the base vs classical", classical, "base", func(p *plan.Plan, id string) []string { return matchArgs(p, p.Task(id)) }, "classical"},
		{"vs classical, no args recorded", classical, "H1", func(*plan.Plan, string) []string { return nil }, "classical"},
		{"vs the base, no args recorded", base, "H1", func(*plan.Plan, string) []string { return nil }, "base"},
		{"the args name another engine", base, "H1", func(*plan.Plan, string) []string {
			return []string{"match", "-engine", "cmd=a", "name=H1", "-engine", "cmd=/usr/games/stockfish", "name=sf", "-each", "nodes=100"}
		}, "sf"},
	} {
		id := "elo-" + tc.variant + "-c000"
		results := map[string]*plan.TaskResult{id: {Elo: &plan.EloResult{Wins: 1, Losses: 1, Penta: stats.Penta{0, 0, 1, 0, 0}, Args: tc.args(tc.p, id)}}}
		r, err := records.EloRecord(tc.p, tc.p.Variant(tc.variant), results, records.Record{Metric: "elo"})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if got := r.Detail["against"]; got != tc.want {
			t.Errorf("%s: against %v, want %s", tc.name, got, tc.want)
		}
	}
}
