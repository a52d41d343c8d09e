package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/internal/zstdfile"
)

// TestExperimentCommand covers the command's argument handling and a dry
// run; experiments/runner_test.go runs real experiments through the binary.
func TestExperimentCommand(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.toml")
	os.WriteFile(good, []byte("title = \"t\"\nmetrics = [\"agreement\", \"eval_speed\"]\n[base]\narch = \"koivisto-7.4\"\n[[variant]]\noverrides = [\"history=1\"]\n"), 0o644)
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("metrics = [\"agreement\"]\n[base]\narch = \"koivisto-7.4\"\nhistory = 2\n"), 0o644)
	// A training value the trainer refuses fails the dry run, naming the
	// manifest and the key.
	badTrain := filepath.Join(dir, "badtrain.toml")
	os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x"), 0o644)
	os.WriteFile(badTrain, []byte("metrics = [\"quant_error\"]\n[base]\narch = \"chess768\"\n[data]\ntrain = [\"a.txt\"]\n[train]\nbatch = 2000000\n"), 0o644)
	// An override that breaks a head's rule fails the dry run, naming the
	// variant, the key and the rule (archs).
	badQA := filepath.Join(dir, "badqa.toml")
	os.WriteFile(badQA, []byte("metrics = [\"agreement\"]\n[base]\narch = \"sf15.1\"\n[[variant]]\nname = \"qa64\"\noverrides = [\"quant.qa=64\"]\n"), 0o644)
	out := filepath.Join(dir, "out")
	// The repository's claims table, read from this package's folder (a
	// later --doc wins over the one given here).
	root := filepath.Join("..", "..")
	claimsPaths := []string{"--claims", filepath.Join(root, "docs", "claims.toml"), "--manifests", filepath.Join(root, "experiments"),
		"--results", filepath.Join(root, "results")}
	claimsPaths = append([]string{"--doc", filepath.Join(root, "docs", "claims.md")}, claimsPaths...)
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"no subcommand", []string{"experiment"}, 2, "", "missing subcommand"},
		{"unknown subcommand", []string{"experiment", "go"}, 2, "", `unknown subcommand "go"`},
		{"help", []string{"experiment", "--help"}, 0, "", "Usage: nnuelab experiment"},
		{"run without file", []string{"experiment", "run"}, 2, "", "one manifest FILE"},
		{"run help names --allow-dirty", []string{"experiment", "run", "--help"}, 0, "", "-allow-dirty"},
		{"bad executor", []string{"experiment", "run", good, "--executor", "k8s"}, 1, "", "local or slurm"},
		{"missing file", []string{"experiment", "run", filepath.Join(dir, "none.toml")}, 1, "", "none.toml"},
		{"bad manifest", []string{"experiment", "run", bad, "--dry-run"}, 1, "", `bad.toml: key "base.history": unknown key`},
		{"skip unknown", []string{"experiment", "run", good, "--skip", "elo", "--dry-run"}, 1, "", `cannot skip "elo"`},
		{"head rule", []string{"experiment", "run", badQA, "--dry-run"}, 1, "", `badqa.toml: key "variant[0]": variant "qa64": builtin:sf15.1.toml (overridden): key "quant.qa": the sf15 head needs quant.qa = 127`},
		{"bad training value", []string{"experiment", "run", badTrain, "--dry-run"}, 1, "", `badtrain.toml: key "train.batch": batch size 2000000 out of range 1..1048576`},
		{"dry run, flags after the file", []string{"experiment", "run", good, "--dry-run", "--out", out}, 0, "measure-base-s1", ""},
		{"report without results", []string{"experiment", "report", good, "--out", out}, 1, "", "no results to report"},
		{"task without plan", []string{"experiment", "task", "--out", out, "speed"}, 1, "", "no plan in"},
		{"claims: the committed page", append([]string{"experiment", "claims", "--check"}, claimsPaths...), 0, "regenerates byte-identically", ""},
		{"claims: a page without markers", append(append([]string{"experiment", "claims", "--check"}, claimsPaths...), "--doc", good), 1, "", "markers"},
		{"claims: an argument", []string{"experiment", "claims", "docs/claims.toml"}, 2, "", "unexpected arguments"},
		{"engine without arch", []string{"experiment", "engine"}, 2, "", "give --arch"},
		{"engine with a bad arch", []string{"experiment", "engine", "--arch", bad}, 1, "", "bad.toml"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var o, e bytes.Buffer
			if code := run(tc.args, &o, &e); code != tc.code {
				t.Fatalf("exit code %d, want %d; stderr %q", code, tc.code, e.String())
			}
			if !strings.Contains(o.String(), tc.stdout) {
				t.Errorf("stdout %q lacks %q", o.String(), tc.stdout)
			}
			if !strings.Contains(e.String(), tc.stderr) {
				t.Errorf("stderr %q lacks %q", e.String(), tc.stderr)
			}
		})
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a dry run created the results folder")
	}
}

// TestExperimentMigrate: `experiment migrate` moves an earlier binary's
// results folder (plain PGN) to results/, compressed; a report before it
// names the command, after it reads the new place; a second migrate does
// nothing.
func TestExperimentMigrate(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	os.WriteFile("m.toml", []byte("name = \"m\"\nmetrics = [\"agreement\"]\n[base]\narch = \"koivisto-7.4\"\n"), 0o644)
	old := filepath.Join("experiments", "results", "m")
	os.MkdirAll(filepath.Join(old, "games"), 0o755)
	os.MkdirAll(filepath.Join(old, "tasks"), 0o755)
	os.WriteFile(filepath.Join(old, "games", "elo-a-c000.pgn"), []byte("[Event \"x\"]\n\n1. e4 e5 1-0\n"), 0o644)
	os.WriteFile(filepath.Join(old, "tasks", "measure-base-s1.json"), []byte("{}\n"), 0o644)
	for _, tc := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"no folder", []string{"experiment", "migrate"}, 2, "", "give the folders"},
		{"--to with two folders", []string{"experiment", "migrate", "a", "b", "--to", "c"}, 2, "", "--to with one folder only"},
		{"a folder outside experiments/results", []string{"experiment", "migrate", "elsewhere"}, 1, "", "not under experiments/results"},
		{"report before: names the command", []string{"experiment", "report", "m.toml"}, 1, "", "nnuelab experiment migrate experiments/results/m"},
		{"migrate", []string{"experiment", "migrate", old}, 0, "1 files copied, 1 games compressed", ""},
		{"again", []string{"experiment", "migrate", old}, 0, "migrated already", ""},
		{"report after: no results.jsonl in the new place", []string{"experiment", "report", "m.toml"}, 1, "", "results/m/results.jsonl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var o, e bytes.Buffer
			if code := run(tc.args, &o, &e); code != tc.code {
				t.Fatalf("exit code %d, want %d; stderr %q", code, tc.code, e.String())
			}
			if !strings.Contains(o.String(), tc.stdout) || !strings.Contains(e.String(), tc.stderr) {
				t.Errorf("stdout %q, stderr %q; want %q, %q", o.String(), e.String(), tc.stdout, tc.stderr)
			}
		})
	}
	if b, err := zstdfile.ReadFile(filepath.Join("results", "m", "games", "elo-a-c000.pgn.zst")); err != nil || !strings.Contains(string(b), "1. e4 e5") {
		t.Errorf("migrated games: %q, %v", b, err)
	}
}
