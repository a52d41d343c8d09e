package label

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/datasets/internal/datatest"
)

// TestLabelRemovesOnlyStaleTemps: as TestGenerateRemovesOnlyStaleTemps,
// for a labelling run.
func TestLabelRemovesOnlyStaleTemps(t *testing.T) {
	dir := t.TempDir()
	in, _ := labelInput(t, dir, 120)
	cfg := fakeEngine(t)
	out := filepath.Join(dir, "out.bin")
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := Run(cancelled, []string{in}, out, cfg); err == nil {
		t.Fatal("a cancelled run finished")
	}
	if _, err := os.Stat(filepath.Join(datasets.PartsDir(out), "settings.toml")); err != nil {
		t.Fatal(err)
	}
	dead, live := datatest.DeadPID(t), datatest.LivePID(t)
	cases := datatest.LayTemps(t, datasets.PartsDir(out), dead, live, "c-00000001.txt.zst", "settings.toml")
	cases = append(cases, datatest.LayTemps(t, dir, dead, live, "out.bin", "out.bin.manifest.toml")...)
	if _, err := Run(cancelled, []string{in}, out, cfg); err == nil {
		t.Fatal("a cancelled run finished")
	}
	datatest.CheckTemps(t, "resumed label", cases)
	if _, err := Run(context.Background(), []string{in}, out, cfg); err != nil {
		t.Fatal(err)
	}
	datatest.CheckTemps(t, "finished label", cases[4:])
}
