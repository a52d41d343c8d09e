package plantest

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nnuelab/nnuelab/experiments/manifest"
	"github.com/nnuelab/nnuelab/experiments/plan"
)

// PlanOf loads a manifest given as text and expands it into a plan in
// temporary folders.
func PlanOf(t *testing.T, source string) *plan.Plan {
	t.Helper()
	path := filepath.Join(t.TempDir(), "m.toml")
	if err := os.WriteFile(path, []byte(source), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.New(m, plan.Options{Out: t.TempDir(), Cache: t.TempDir(), Binary: "/bin/nnuelab"})
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// EloManifest is the start of a manifest with one variant and an Elo test,
// up to the [elo] keys.
const EloManifest = `
metrics = ["elo"]
[base]
arch = "koivisto-7.4"
[[variant]]
name = "H1"
overrides = ["history=1"]
[elo]`
