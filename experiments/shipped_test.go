package experiments

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/experiments/internal/exptest"
	"github.com/nnuelab/nnuelab/experiments/manifest"
)

// TestShippedManifests parses every manifest in this folder.
func TestShippedManifests(t *testing.T) {
	files, err := filepath.Glob("*.toml")
	if err != nil || len(files) == 0 {
		t.Fatalf("no manifests: %v", err)
	}
	for _, f := range files {
		m, err := manifest.Load(f)
		if err != nil {
			t.Errorf("%s: %v", f, err)
			continue
		}
		if m.Title == "" || m.Claim == "" || m.Source == "" {
			t.Errorf("%s: a shipped manifest needs a title, the claim and its source", f)
		}
	}
}

// FuzzParse feeds the parser arbitrary bytes: it must return a manifest or
// an *Error naming the file, never panic. Interesting inputs found are kept
// in testdata/fuzz/FuzzParse.
func FuzzParse(f *testing.F) {
	f.Add([]byte(exptest.Minimal))
	f.Add([]byte(exptest.Minimal + "[grid]\nhistory = [1, 2]\n\"quant.qa\" = [64, 128]\n"))
	f.Add([]byte("metrics = [\"elo\"]\n[base]\narch = \"koivisto-7.4\"\n[[variant]]\noverrides = [\"history=1\"]\n[elo]\nmax_games = 10\ntc = \"1+0.01\"\n[elo.sprt]\nelo0 = 0\nelo1 = 5\n"))
	f.Add([]byte("seeds = [1, 2]\n" + exptest.Minimal + "[data]\ntrain = [\"a\"]\n[train]\nepochs = 1\n"))
	for _, name := range []string{"quickstart.toml", "generations.toml"} {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data)
		}
	}
	// A generation that changes the trained architecture, and one that
	// warm-starts across the change (an error). Generation 99 lies past any
	// generation the shipped loop names, so the seeds keep their meaning as
	// the loop goes on (a generation given twice is another error).
	if data, err := os.ReadFile("generations.toml"); err == nil {
		f.Add(append(data, "\n[[generations.gen]]\ngen = 99\noverrides = [\"accumulator.width=512\"]\n"...))
		f.Add(append(data, "\n[[generations.gen]]\ngen = 99\narch = \"chess768\"\noverrides = [\"accumulator.width=512\"]\nwarm_start = true\n"...))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := manifest.Parse("fuzz.toml", dir, data)
		if err != nil {
			var e *manifest.Error
			if !errors.As(err, &e) || !strings.HasPrefix(err.Error(), "fuzz.toml: ") {
				t.Fatalf("error %q is not a manifest error naming the file", err)
			}
			return
		}
		if g := m.Generations; g != nil {
			if m.Name == "" || len(m.Metrics) == 0 || g.Arch == "" || g.Count < 1 || m.Train == nil {
				t.Fatalf("accepted generations manifest without name, metrics, arch, count or training: %+v", m)
			}
			return
		}
		if m.Name == "" || len(m.Metrics) == 0 || m.Base.Arch == "" {
			t.Fatalf("accepted manifest without name, metrics or base: %+v", m)
		}
		for _, v := range m.All() {
			if _, err := m.Spec(v); err != nil {
				t.Fatalf("accepted variant %s whose spec fails: %v", v.Name, err)
			}
		}
	})
}
