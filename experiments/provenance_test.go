package experiments

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"runtime/debug"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/experiments/internal/exptest"
	"github.com/nnuelab/nnuelab/experiments/plan"
	"github.com/nnuelab/nnuelab/experiments/records"
	"github.com/nnuelab/nnuelab/experiments/runner"
)

// fakeBuild replaces the build information and git for a test: stamp
// "" is a binary without a VCS stamp, else its revision; modified is
// vcs.modified; status is what `git status --porcelain` prints; diff what
// `git diff HEAD` prints (diffErr: it fails). It returns the git calls.
func fakeBuild(t *testing.T, stamp string, modified bool, status, diff string, diffErr error) *[]string {
	t.Helper()
	oldInfo, oldGit := runner.ReadBuildInfo, runner.RunGit
	t.Cleanup(func() { runner.ReadBuildInfo, runner.RunGit = oldInfo, oldGit })
	runner.ReadBuildInfo = func() (*debug.BuildInfo, bool) {
		bi := &debug.BuildInfo{GoVersion: "go1.26"}
		if stamp != "" {
			mod := "false"
			if modified {
				mod = "true"
			}
			bi.Settings = []debug.BuildSetting{{Key: "vcs", Value: "git"}, {Key: "vcs.revision", Value: stamp}, {Key: "vcs.modified", Value: mod}}
		}
		return bi, true
	}
	var calls []string
	runner.RunGit = func(dir string, args ...string) ([]byte, error) {
		calls = append(calls, strings.Join(args, " "))
		switch args[0] {
		case "status":
			return []byte(status), nil
		case "diff":
			if diffErr != nil {
				return nil, diffErr
			}
			return []byte(diff), nil
		}
		return nil, errors.New("unexpected git call")
	}
	return &calls
}

// fakeRepo makes a folder with a .git entry and returns it.
func fakeRepo(t *testing.T) string {
	t.Helper()
	repo := filepath.Join(t.TempDir(), "repo")
	if err := os.MkdirAll(filepath.Join(repo, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	return repo
}

func sha(s string) string {
	sum := sha256.Sum256([]byte(s))
	return hex.EncodeToString(sum[:])
}

// TestCheckBuild: a binary built from a dirty tree (vcs.modified=true, or
// no stamp and a dirty working tree) may not write results under a
// repository's results/ (or the old experiments/results) without
// --allow-dirty; with it, or
// writing elsewhere, the run records the sha256 of `git diff HEAD`; a
// clean build records nothing.
func TestCheckBuild(t *testing.T) {
	const diff = "diff --git a/x b/x\n+uncommitted\n"
	repo := fakeRepo(t)
	committed := filepath.Join(repo, "results", "quickstart")
	legacy := filepath.Join(repo, "experiments", "results", "quickstart")
	elsewhere := filepath.Join(t.TempDir(), "out")
	for _, tc := range []struct {
		name       string
		stamp      string
		modified   bool
		status     string
		diffErr    error
		out        string
		allowDirty bool
		want       string // the diff hash
		wantErr    []string
	}{
		{"clean stamped build", "abc123", false, "", nil, committed, false, "", nil},
		{"dirty stamped build refused", "abc123", true, "", nil, committed, false, "",
			[]string{"refusing to write results under", "vcs.modified=true, revision abc123", "--allow-dirty", "sha256 of `git diff HEAD`"}},
		{"dirty stamped build allowed", "abc123", true, "", nil, committed, true, sha(diff), nil},
		{"dirty stamped build, results elsewhere", "abc123", true, "", nil, elsewhere, false, sha(diff), nil},
		{"the results folder itself", "abc123", true, "", nil, filepath.Join(repo, "results"), false, "", []string{"refusing"}},
		{"a sibling folder is not committed results", "abc123", true, "", nil, filepath.Join(repo, "results-mine"), false, sha(diff), nil},
		{"the old results folder, refused", "abc123", true, "", nil, legacy, false, "", []string{"refusing"}},
		{"the old results root itself", "abc123", true, "", nil, filepath.Join(repo, "experiments", "results"), false, "", []string{"refusing"}},
		{"a sibling of the old root is not committed results", "abc123", true, "", nil, filepath.Join(repo, "experiments", "results-mine"), false, sha(diff), nil},
		{"unstamped, dirty tree refused", "", false, " M engine/eval/eval.go\n", nil, committed, false, "", []string{"no VCS stamp", "uncommitted changes", "--allow-dirty"}},
		{"unstamped, dirty tree allowed", "", false, " M engine/eval/eval.go\n", nil, committed, true, sha(diff), nil},
		{"unstamped, clean tree", "", false, "", nil, committed, false, "", nil},
		{"git diff fails", "abc123", true, "", errors.New("no git"), committed, true, "", []string{"hashing the uncommitted changes", "no git"}},
	} {
		calls := fakeBuild(t, tc.stamp, tc.modified, tc.status, diff, tc.diffErr)
		got, err := runner.CheckBuild(tc.out, tc.allowDirty)
		if len(tc.wantErr) > 0 {
			if err == nil {
				t.Errorf("%s: no error (hash %q)", tc.name, got)
				continue
			}
			for _, w := range tc.wantErr {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%s: error %q lacks %q", tc.name, err, w)
				}
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s: diff hash %q, want %q (git calls %q)", tc.name, got, tc.want, *calls)
		}
	}
}

// TestRunRefusesDirtyBuild runs a one-task manifest into a repository's
// results/ with a dirty build: refused without --allow-dirty
// (nothing written), run with it, and the task result and run.json
// record the diff's hash.
func TestRunRefusesDirtyBuild(t *testing.T) {
	if testing.Short() {
		t.Skip("runs a task")
	}
	const diff = "diff --git a/engine/eval/eval.go b/engine/eval/eval.go\n+// uncommitted\n"
	repo := fakeRepo(t)
	manifest := filepath.Join(repo, "experiments", "dirty.toml")
	if err := os.MkdirAll(filepath.Dir(manifest), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(manifest, []byte("metrics = [\"agreement\"]\n[base]\narch = \"koivisto-7.4\"\n[positions]\nlimit = 20\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(repo, "results", "dirty")
	opt := runner.RunOptions{Options: plan.Options{Out: out, Cache: filepath.Join(repo, "cache"), Binary: exptest.Nnuelab(t), Command: "nnuelab experiment run dirty.toml"},
		NoReport: true, Executor: &runner.Local{Jobs: 1}}
	fakeBuild(t, "abc123", true, "", diff, nil)

	_, err := Run(context.Background(), manifest, opt)
	if err == nil || !strings.Contains(err.Error(), "--allow-dirty") {
		t.Fatalf("a dirty build wrote committed results: %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("the refused run left %s (%v)", out, err)
	}

	opt.AllowDirty = true
	if _, err := Run(context.Background(), manifest, opt); err != nil {
		t.Fatal(err)
	}
	var res plan.TaskResult
	if err := json.Unmarshal(exptest.ReadFile(t, plan.ResultPath(out, "measure-base-s1")), &res); err != nil {
		t.Fatal(err)
	}
	if res.DiffSHA256 != sha(diff) {
		t.Errorf("task result records diff %q, want %q", res.DiffSHA256, sha(diff))
	}
	var info runner.RunInfo
	if err := json.Unmarshal(exptest.ReadFile(t, filepath.Join(out, "run.json")), &info); err != nil {
		t.Fatal(err)
	}
	if info.DiffSHA256 != sha(diff) {
		t.Errorf("run.json records diff %q, want %q", info.DiffSHA256, sha(diff))
	}
	if _, err := os.Stat(records.ResultsPath(out)); err != nil {
		t.Errorf("no results: %v", err)
	}
}
