package records

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/bench/stats"
	"github.com/nnuelab/nnuelab/experiments/internal/plantest"
	"github.com/nnuelab/nnuelab/experiments/plan"
	"github.com/nnuelab/nnuelab/internal/zstdfile"
)

// TestMergeEditedTask: a finished Elo chunk's task file edited afterwards
// (wins 0 -> 1: the report would count 5 games of a 4-game manifest) is an
// error naming the file when results are merged (a run's end, a partial
// report), not a count used: its games, kept beside it, say otherwise.
func TestMergeEditedTask(t *testing.T) {
	p := plantest.PlanOf(t, `name = "ed"`+plantest.EloManifest+`
games = 4
chunk = 2
nodes = 300
`)
	// Each chunk: the variant draws both games of its pair.
	games := "[Event \"x\"]\n[Round \"1\"]\n[Result \"1/2-1/2\"]\n\n1. e4 1/2-1/2\n\n[Event \"x\"]\n[Round \"2\"]\n[Result \"1/2-1/2\"]\n\n1. d4 1/2-1/2\n\n"
	var ids []string
	for _, tk := range p.Tasks {
		if tk.Kind != plan.KindElo {
			continue
		}
		ids = append(ids, tk.ID)
		plantest.WriteEloResult(t, p, tk.ID, stats.Penta{0, 0, 1, 0, 0}, 0, 2, 0)
		if err := os.MkdirAll(filepath.Join(p.Out, "games"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := zstdfile.WriteFile(plan.GamesPath(p.Out, tk.ID), []byte(games), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if len(ids) != 2 {
		t.Fatalf("Elo tasks %v, want 2 chunks", ids)
	}
	if _, err := Merge(p); err != nil {
		t.Fatalf("intact results: %v", err)
	}
	path := plan.ResultPath(p.Out, ids[1])
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	edited := strings.Replace(string(data), `"wins":0`, `"wins":1`, 1)
	if edited == string(data) {
		t.Fatalf("no wins to edit in %s", data)
	}
	if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
		t.Fatal(err)
	}
	recs, err := Merge(p)
	if err == nil || !strings.Contains(err.Error(), path) {
		n := 0
		for _, r := range recs {
			if r.Metric == "elo" {
				n = r.N
			}
		}
		t.Errorf("merged the edited chunk (elo over %d games), error %v; want an error naming %s", n, err, path)
	}
	if _, _, err := MergePartial(p); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("partial merge of the edited chunk: %v", err)
	}
}
