package experiment

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// With opponent = "classical" every variant, the base included, plays the
// classical engine (nnuelab with no arguments), and the tasks' keys differ
// from a run against the base; with the default the base plays no games.
func TestEloOpponent(t *testing.T) {
	const manifest = `
name = "opp"
metrics = ["elo"]
[base]
arch = "koivisto-7.4"
[[variant]]
name = "H1"
overrides = ["history=1"]
[elo]
games = 4
chunk = 2
nodes = 300
`
	plan := func(extra string) *Plan {
		t.Helper()
		path := filepath.Join(t.TempDir(), "opp.toml")
		if err := os.WriteFile(path, []byte(strings.Replace(manifest, "[elo]\n", "[elo]\n"+extra, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		m, err := Load(path)
		if err != nil {
			t.Fatal(err)
		}
		p, err := NewPlan(m, PlanOptions{Out: t.TempDir(), Cache: t.TempDir(), Binary: "/bin/nnuelab"})
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	elo := func(p *Plan) (ids []string, keys []string) {
		for _, tk := range p.Tasks {
			if tk.Kind == KindElo {
				ids, keys = append(ids, tk.ID), append(keys, tk.Key)
			}
		}
		return ids, keys
	}

	def, explicit, classical := plan(""), plan("opponent = \"base\"\n"), plan("opponent = \"classical\"\n")
	defIDs, defKeys := elo(def)
	if !slices.Equal(defIDs, []string{"elo-H1-c000", "elo-H1-c001"}) {
		t.Fatalf("against the base: tasks %v", defIDs)
	}
	if _, keys := elo(explicit); !slices.Equal(keys, defKeys) {
		t.Error(`opponent = "base" changed the task keys of the default`)
	}
	ids, keys := elo(classical)
	if !slices.Equal(ids, []string{"elo-base-c000", "elo-base-c001", "elo-H1-c000", "elo-H1-c001"}) {
		t.Fatalf("against classical: tasks %v", ids)
	}
	if keys[2] == defKeys[0] {
		t.Error("the same task key against the base and against the classical engine")
	}

	args := strings.Join(matchArgs(classical, classical.Task("elo-base-c000")), " ")
	if !strings.Contains(args, "-engine cmd=/bin/nnuelab name=base arg=experiment") ||
		!strings.Contains(args, "-engine cmd=/bin/nnuelab name=classical -each") {
		t.Errorf("match against classical: %s", args)
	}
	args = strings.Join(matchArgs(def, def.Task("elo-H1-c000")), " ")
	if !strings.Contains(args, "name=H1 arg=experiment") || !strings.Contains(args, "name=base arg=experiment") {
		t.Errorf("match against the base: %s", args)
	}
}
