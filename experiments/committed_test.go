package experiments

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/nnuelab/nnuelab/experiments/manifest"
	"github.com/nnuelab/nnuelab/experiments/plan"
	"github.com/nnuelab/nnuelab/experiments/records"
	"github.com/nnuelab/nnuelab/internal/testtier"
)

// committedPlans plans every shipped manifest but the generations ones
// against its committed results folder, by manifest file name.
func committedPlans(t *testing.T) map[string]*plan.Plan {
	t.Helper()
	manifests, _ := filepath.Glob("*.toml")
	plans := map[string]*plan.Plan{}
	for _, f := range manifests {
		m, err := manifest.Load(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if m.IsGenerations() {
			continue
		}
		p, err := plan.New(m, plan.Options{Out: filepath.Join("..", plan.ResultsRoot, m.Name), Cache: t.TempDir()})
		if err != nil {
			t.Logf("%s: cannot plan here (%v)", f, err)
			continue
		}
		plans[f] = p
	}
	return plans
}

// TestCommittedResultsKeepTheirKeys: the shipped experiments' committed
// task results are reused under the current runner (a change of the keys
// would make every run start over).
func TestCommittedResultsKeepTheirKeys(t *testing.T) {
	testtier.Needs(t, "Stockfish 15.1 (the keys of the tasks that label with it hash the installed engine)")
	for f, p := range committedPlans(t) {
		n := 0
		for _, tk := range p.Tasks {
			if _, err := os.Stat(plan.ResultPath(p.Out, tk.ID)); err != nil {
				continue
			}
			n++
			if _, ok := plan.ReadResult(p.Out, tk); !ok {
				t.Errorf("%s: the committed result of task %s no longer matches its key", f, tk.ID)
			}
		}
		t.Logf("%s: %d committed task results reused", f, n)
	}
}

// TestCommittedResultsMerge: merging a finished experiment's committed
// task results gives its committed results.jsonl byte for byte (the
// command that ran it aside), so that the records of every metric keep
// their order, values and details whatever reads the task results.
func TestCommittedResultsMerge(t *testing.T) {
	for f, p := range committedPlans(t) {
		committed := records.ResultsPath(p.Out)
		want, err := os.ReadFile(committed)
		if err != nil {
			continue
		}
		old, err := records.ReadResults(committed)
		if err != nil || len(old) == 0 {
			t.Fatalf("%s: %v", committed, err)
		}
		p.Command = old[0].Command
		recs, err := records.Merge(p)
		if err != nil {
			t.Logf("%s: not merged here (%v)", f, err)
			continue
		}
		out := filepath.Join(t.TempDir(), "results.jsonl")
		if err := records.WriteResults(out, recs); err != nil {
			t.Fatal(err)
		}
		if got, _ := os.ReadFile(out); !bytes.Equal(got, want) {
			t.Errorf("%s: the records merged from the committed task results differ from %s", f, committed)
			continue
		}
		t.Logf("%s: %d records as committed", f, len(recs))
	}
}
