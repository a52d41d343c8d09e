package datagen

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/datasets/internal/datatest"
)

// TestGenerateRemovesOnlyStaleTemps: a datagen run resuming in its parts
// folder removes the temporaries (games, chunks, settings; its output's
// and manifest's beside it) of processes that are gone, and leaves those
// of a live process (which will rename them into place).
func TestGenerateRemovesOnlyStaleTemps(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "a.bin")
	cfg := testGenConfig(4)
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	// A run stopped at once: its parts folder and settings stay.
	if _, err := Generate(cancelled, cfg, out, Options{}); err == nil {
		t.Fatal("a cancelled run finished")
	}
	if _, err := os.Stat(filepath.Join(datasets.PartsDir(out), "settings.toml")); err != nil {
		t.Fatal(err)
	}
	dead, live := datatest.DeadPID(t), datatest.LivePID(t)
	cases := datatest.LayTemps(t, datasets.PartsDir(out), dead, live, "g-00000001.txt", "c-00000000.txt.zst", "settings.toml")
	cases = append(cases, datatest.LayTemps(t, dir, dead, live, "a.bin", "a.bin.manifest.toml")...)
	if _, err := Generate(cancelled, cfg, out, Options{}); err == nil {
		t.Fatal("a cancelled run finished")
	}
	datatest.CheckTemps(t, "resumed datagen", cases)
	// The run finishes with the live process's temporaries in place.
	generate(t, cfg, out)
	datatest.CheckTemps(t, "finished datagen", cases[6:])
}
