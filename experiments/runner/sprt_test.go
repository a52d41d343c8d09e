package runner

import (
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/bench/stats"
	"github.com/nnuelab/nnuelab/experiments/internal/plantest"
	"github.com/nnuelab/nnuelab/experiments/manifest"
	"github.com/nnuelab/nnuelab/experiments/plan"
	"github.com/nnuelab/nnuelab/experiments/records"
	"github.com/nnuelab/nnuelab/experiments/report"
)

// An SPRT plays chunks two at a time and looks after each, in order; once
// the pooled chunks cross a bound the rest are not needed: not run, not
// missing from the merge, reported with the verdict, and a chunk played past
// the decision is not counted. Undecided, the chunks played are reported as
// a partial run.
func TestSPRTChunks(t *testing.T) {
	p := plantest.PlanOf(t, `name = "sprt"`+plantest.EloManifest+`
max_games = 600
chunk = 200
nodes = 300
[elo.sprt]
elo0 = 0
elo1 = 10
model = "logistic"
`)
	var ids []string
	for _, tk := range p.Tasks {
		if tk.Kind == plan.KindElo {
			ids = append(ids, tk.ID)
		}
	}
	if !slices.Equal(ids, []string{"elo-H1-c000", "elo-H1-c001", "elo-H1-c002"}) {
		t.Fatalf("SPRT tasks %v", ids)
	}
	if c1, c2 := p.Task("elo-H1-c001"), p.Task("elo-H1-c002"); slices.Contains(c1.Needs, "elo-H1-c000") ||
		!slices.Contains(c2.Needs, "elo-H1-c000") || slices.Contains(c2.Needs, "elo-H1-c001") {
		t.Errorf("not two chunks in flight: c001 needs %v, c002 needs %v", c1.Needs, c2.Needs)
	}
	for _, a := range matchArgs(p, p.Task("elo-H1-c000")) {
		if a == "-sprt" {
			t.Error("a chunk runs its own SPRT; the test belongs to the pooled chunks")
		}
	}

	write := func(id string, pen stats.Penta, w, d, l int) { plantest.WriteEloResult(t, p, id, pen, w, d, l) }
	elo := func(recs []records.Record) *records.Record {
		for i := range recs {
			if recs[i].Metric == manifest.MetricElo {
				return &recs[i]
			}
		}
		t.Fatal("no Elo record")
		return nil
	}

	readAll := func() map[string]*plan.TaskResult {
		results := map[string]*plan.TaskResult{}
		for _, tk := range p.Tasks {
			if r, ok := plan.ReadResult(p.Out, tk); ok {
				results[tk.ID] = r
			}
		}
		return results
	}

	// The second and third chunks, which would decide together, finished
	// before the first: no look yet.
	late := stats.Penta{1, 5, 25, 29, 40}
	if s, _ := plan.SPRTTest(p.Manifest); s.Decide(s.LLR(stats.Penta{2, 10, 50, 58, 80})) == stats.Continue {
		t.Fatal("test setup: twice", late, "does not decide")
	}
	write("elo-H1-c001", late, 139, 40, 21)
	write("elo-H1-c002", late, 139, 40, 21)
	if skip := plan.NotNeeded(p, readAll()); len(skip) != 0 {
		t.Fatalf("a look with chunk 0 unfinished skips %v", skip)
	}
	for _, id := range []string{"elo-H1-c001", "elo-H1-c002"} {
		if err := os.Remove(plan.ResultPath(p.Out, id)); err != nil {
			t.Fatal(err)
		}
	}

	// 100 even pairs: undecided, so the next chunk is needed.
	write("elo-H1-c000", stats.Penta{10, 20, 40, 20, 10}, 60, 80, 60)
	results := readAll()
	if skip := plan.NotNeeded(p, results); len(skip) != 0 {
		t.Fatalf("undecided test skips %v", skip)
	}
	if drop := decidedChunks(p); drop("elo-H1-c001") || drop("elo-H1-c002") {
		t.Error("undecided test drops a chunk in play")
	}
	if _, err := records.Merge(p); err == nil {
		t.Error("Merge of an undecided SPRT with chunks left succeeded")
	}
	recs, missing, err := records.MergePartial(p)
	if err != nil || !slices.Equal(missing, []string{"elo-H1-c001", "elo-H1-c002"}) {
		t.Fatalf("partial merge: missing %v, %v", missing, err)
	}
	if r := elo(recs); r.N != 200 || r.Detail["sprt"] != "continue" || r.Detail["games_planned"] != 600 {
		t.Errorf("undecided record: N %d, detail %v", r.N, r.Detail)
	}
	// The report's cell shows how far the test has come, from the record
	// as the report reads it (stored: as results.jsonl holds it).
	undecided := elo(recs)
	want := fmt.Sprintf("SPRT continue (LLR %+.2f of [-2.94, +2.94])", undecided.Detail["llr"].(float64))
	page, err := report.WritePartial(p, recs, missing, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if md, _ := os.ReadFile(page); !strings.Contains(string(md), want+" |") {
		t.Errorf("the Elo cell does not end in %q:\n%s", want, md)
	}

	// A second chunk that wins almost every pair decides for H1: the
	// third is not needed, and the run is complete without it.
	write("elo-H1-c001", stats.Penta{0, 0, 5, 15, 80}, 175, 20, 5)
	results["elo-H1-c001"], _ = plan.ReadResult(p.Out, p.Task("elo-H1-c001"))
	skip := plan.NotNeeded(p, results)
	if !skip["elo-H1-c002"] || len(skip) != 1 {
		t.Fatalf("decided test skips %v, want elo-H1-c002", skip)
	}
	// The third chunk, in play with the second, is stopped (the executor
	// asks when a chunk ends); finished chunks and other tasks are kept.
	drop := decidedChunks(p)
	if !drop("elo-H1-c002") || drop("elo-H1-c001") || drop("elo-H1-c000") || drop(p.Tasks[0].ID) {
		t.Errorf("after the decision: drop c002 %v, c001 %v, c000 %v, %s %v", drop("elo-H1-c002"),
			drop("elo-H1-c001"), drop("elo-H1-c000"), p.Tasks[0].ID, drop(p.Tasks[0].ID))
	}
	done := map[string]bool{}
	for _, tk := range p.Tasks {
		done[tk.ID] = tk.Kind != plan.KindElo || results[tk.ID] != nil
	}
	if wave := nextWave(p, done, map[string]string{}, skip); len(wave) != 0 {
		t.Errorf("wave after the decision: %v", wave[0].ID)
	}
	recs, err = records.Merge(p)
	if err != nil {
		t.Fatalf("Merge of a decided SPRT: %v", err)
	}
	r := elo(recs)
	if r.N != 400 || r.Detail["sprt"] != "H1 accepted" || r.Detail["games_planned"] != nil {
		t.Errorf("decided record: N %d, detail %v", r.N, r.Detail)
	}
	if llr, ok := r.Detail["llr"].(float64); !ok || llr < 2.94 {
		t.Errorf("llr %v, want above the upper bound ln(0.95/0.05)", r.Detail["llr"])
	}

	// The third chunk, played at once with the second, lost every pair:
	// it comes after the decision and does not count.
	write("elo-H1-c002", stats.Penta{100, 0, 0, 0, 0}, 0, 0, 200)
	recs, err = records.Merge(p)
	if err != nil {
		t.Fatalf("Merge with a chunk past the decision: %v", err)
	}
	if r := elo(recs); r.N != 400 || r.Detail["sprt"] != "H1 accepted" || r.Detail["chunks_past_decision"] != 1 {
		t.Errorf("record with a chunk past the decision: N %d, detail %v", r.N, r.Detail)
	}
}
