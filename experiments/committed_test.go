package experiments

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nnuelab/nnuelab/experiments/manifest"
	"github.com/nnuelab/nnuelab/experiments/plan"
)

// TestCommittedResultsKeepTheirKeys: the shipped experiments' committed
// task results are reused under the current runner (a change of the keys
// would make every run start over).
func TestCommittedResultsKeepTheirKeys(t *testing.T) {
	manifests, _ := filepath.Glob("*.toml")
	for _, f := range manifests {
		m, err := manifest.Load(f)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		if m.IsGenerations() {
			continue
		}
		p, err := plan.NewPlan(m, plan.PlanOptions{Out: filepath.Join("..", plan.ResultsRoot, m.Name), Cache: t.TempDir()})
		if err != nil {
			t.Logf("%s: cannot plan here (%v)", f, err)
			continue
		}
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
