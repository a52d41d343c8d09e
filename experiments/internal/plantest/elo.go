package plantest

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/nnuelab/nnuelab/bench/stats"
	"github.com/nnuelab/nnuelab/experiments/plan"
)

// WriteEloResult stores the result of Elo task id as a finished match
// chunk with the given pentanomial and game counts.
func WriteEloResult(t *testing.T, p *plan.Plan, id string, pen stats.Penta, w, d, l int) {
	t.Helper()
	tk := p.Task(id)
	r := plan.TaskResult{ID: id, Kind: plan.KindElo, Key: tk.Key, Variant: tk.Variant, Elo: &plan.EloResult{Wins: w, Draws: d, Losses: l, Penta: pen}}
	data, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(p.Out, "tasks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(plan.ResultPath(p.Out, id), data, 0o644); err != nil {
		t.Fatal(err)
	}
}
