package runner

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/bench/stats"
	"github.com/nnuelab/nnuelab/experiments/metrics"
	"github.com/nnuelab/nnuelab/experiments/plan"
)

// TestSeal: the task files of a results folder written before seals get
// their content_sha256 with their text kept (an Elo chunk's counts checked
// against its games first), read back as the same results, and are then
// protected: an edit is an error. Sealed files are left as they are; a
// chunk whose counts are not its games', and a folder a run holds, are
// refused naming them.
func TestSeal(t *testing.T) {
	out := filepath.Join(t.TempDir(), "exp")
	legacy := func(r *plan.TaskResult) string {
		b, _ := json.MarshalIndent(r, "", "  ")
		return string(b) + "\n"
	}
	measure := &plan.TaskResult{ID: "measure-a-s1", Kind: plan.KindMeasure, Key: "km",
		Measure: &metrics.MeasureResult{Agreement: &metrics.Agreement{N: 10, MAE: 33.5}}}
	elo := &plan.TaskResult{ID: "elo-a-c000", Kind: plan.KindElo, Key: "ke", Elo: &plan.EloResult{Wins: 1, Draws: 1, Penta: stats.Penta{0, 0, 0, 1, 0}}}
	files := map[string]string{
		"tasks/measure-a-s1.json": legacy(measure),
		"tasks/elo-a-c000.json":   legacy(elo),
		"games/elo-a-c000.pgn": "[Event \"x\"]\n[Round \"1\"]\n[Result \"1-0\"]\n\n1. e4 1-0\n\n" +
			"[Event \"x\"]\n[Round \"2\"]\n[Result \"1/2-1/2\"]\n\n1. e4 1/2-1/2\n\n",
	}
	for name, text := range files {
		p := filepath.Join(out, name)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	done := &plan.TaskResult{ID: "train-x", Kind: plan.KindTrain, Key: "kt", Train: &plan.TrainResult{Key: "kt", NetSHA256: "ab"}}
	if err := plan.WriteResult(out, done); err != nil {
		t.Fatal(err)
	}
	sealedBefore, _ := os.ReadFile(plan.ResultPath(out, done.ID))

	st, err := Seal(out, nil)
	if err != nil || st.Sealed != 2 || st.Checked != 1 {
		t.Fatalf("Seal: %+v, %v; want 2 sealed, 1 checked", st, err)
	}
	for _, r := range []*plan.TaskResult{measure, elo, done} {
		path := plan.ResultPath(out, r.ID)
		data, _ := os.ReadFile(path)
		if old, ok := files["tasks/"+r.ID+".json"]; ok && !strings.HasPrefix(string(data), strings.TrimSuffix(old, "\n}\n")) {
			t.Errorf("%s: sealing changed its text:\n%s", r.ID, data)
		}
		got, err := plan.LoadResult(out, &plan.Task{ID: r.ID, Key: r.Key})
		if err != nil || got == nil || got.ContentSHA256 == "" || got.Kind != r.Kind {
			t.Errorf("%s sealed: %+v, %v", r.ID, got, err)
		}
	}
	if now, _ := os.ReadFile(plan.ResultPath(out, done.ID)); string(now) != string(sealedBefore) {
		t.Error("a sealed file was rewritten")
	}
	// Sealed now: an edited MAE is an error.
	path := plan.ResultPath(out, measure.ID)
	data, _ := os.ReadFile(path)
	os.WriteFile(path, []byte(strings.Replace(string(data), "33.5", "31.5", 1)), 0o644)
	if _, err := plan.LoadResult(out, &plan.Task{ID: measure.ID, Key: measure.Key}); err == nil || !strings.Contains(err.Error(), "checksum") {
		t.Errorf("edited after sealing: %v", err)
	}
	if _, err := Seal(out, nil); err == nil || !strings.Contains(err.Error(), path) {
		t.Errorf("Seal over an edited sealed file: %v", err)
	}
	os.WriteFile(path, data, 0o644)

	// A legacy chunk whose counts are not its games' is not sealed.
	bad := *elo
	bad.Elo = &plan.EloResult{Wins: 2, Penta: stats.Penta{0, 0, 0, 0, 1}}
	badPath := plan.ResultPath(out, elo.ID)
	os.WriteFile(badPath, []byte(legacy(&bad)), 0o644)
	if _, err := Seal(out, nil); err == nil || !strings.Contains(err.Error(), badPath) {
		t.Errorf("Seal of a chunk its games contradict: %v", err)
	}
	if now, _ := os.ReadFile(badPath); string(now) != legacy(&bad) {
		t.Error("the contradicted chunk was sealed")
	}
	os.Remove(badPath)

	// A folder a run holds is refused.
	unlock, err := LockDir(out)
	if err != nil {
		t.Fatal(err)
	}
	defer unlock()
	if _, err := Seal(out, nil); err == nil || !strings.Contains(err.Error(), "another run") {
		t.Errorf("Seal of a locked folder: %v", err)
	}
}
