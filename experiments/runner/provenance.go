package runner

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"

	"github.com/nnuelab/nnuelab/experiments/plan"
)

// The seams of the dirty-build check: the running binary's build
// information and git (tests replace both).
var (
	ReadBuildInfo = debug.ReadBuildInfo
	RunGit        = func(dir string, args ...string) ([]byte, error) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			return nil, fmt.Errorf("git %s in %s: %v: %s", strings.Join(args, " "), dir, err, strings.TrimSpace(stderr.String()))
		}
		return out, nil
	}
)

// dirtyBuild tells whether the running binary was built from a tree with
// uncommitted changes, and why it thinks so: the Go toolchain's VCS stamp
// (vcs.modified), or, for a binary without one (go run, go test, a
// workspace build without -buildvcs), the working tree of repo, as
// version.Revision marks it "+dirty". repo "" with no stamp: not dirty
// (nothing to tell it by).
func dirtyBuild(repo string) (dirty bool, why string, err error) {
	if bi, ok := ReadBuildInfo(); ok {
		rev, modified := "", ""
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				modified = s.Value
			}
		}
		if rev != "" {
			if modified == "true" {
				return true, fmt.Sprintf("this nnuelab was built from a tree with uncommitted changes (vcs.modified=true, revision %s)", rev), nil
			}
			return false, "", nil
		}
	}
	if repo == "" {
		return false, "", nil
	}
	st, err := RunGit(repo, "status", "--porcelain", "--untracked-files=no")
	if err != nil {
		return false, "", err
	}
	if len(bytes.TrimSpace(st)) > 0 {
		return true, fmt.Sprintf("this nnuelab carries no VCS stamp and the tree it runs in (%s) has uncommitted changes", repo), nil
	}
	return false, "", nil
}

// repoRoot returns the git work tree holding path (which need not exist
// yet): the nearest folder upwards with a .git entry, "" if none.
func repoRoot(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return ""
	}
	for dir := abs; ; {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// committedResults tells whether out lies under a repository's results
// root (plan.ResultsRoot; or the old one, plan.LegacyResultsRoot), where
// results are committed, and returns the repository.
func committedResults(out string) (repo string, ok bool) {
	repo = repoRoot(out)
	if repo == "" {
		return "", false
	}
	abs, err := filepath.Abs(out)
	if err != nil {
		return repo, false
	}
	rel, err := filepath.Rel(repo, abs)
	if err != nil {
		return repo, false
	}
	rel = filepath.ToSlash(rel)
	for _, root := range []string{plan.ResultsRoot, plan.LegacyResultsRoot} {
		root = filepath.ToSlash(root)
		if rel == root || strings.HasPrefix(rel, root+"/") {
			return repo, true
		}
	}
	return repo, false
}

// CheckBuild is the runner's check before it writes results to out. A
// binary built from a dirty tree may not write under a repository's
// results/ (what no commit reproduces must not pass for
// committed results) unless allowDirty; then, and for any dirty build
// writing elsewhere, it returns the sha256 of `git diff HEAD` of the
// repository at this moment, which the run and its task results record.
// A clean build returns "".
func CheckBuild(out string, allowDirty bool) (diffSHA256 string, err error) {
	repo, committed := committedResults(out)
	if repo == "" {
		if wd, err := os.Getwd(); err == nil {
			repo = repoRoot(wd)
		}
	}
	dirty, why, err := dirtyBuild(repo)
	if err != nil {
		return "", fmt.Errorf("checking the build for uncommitted changes: %w", err)
	}
	if !dirty {
		return "", nil
	}
	if committed && !allowDirty {
		return "", fmt.Errorf("refusing to write results under %s: %s, which no commit reproduces; commit and rebuild (make), or pass --allow-dirty to record the sha256 of `git diff HEAD` with the results", plan.RelPath(out), why)
	}
	if repo == "" {
		return "", nil
	}
	diff, err := RunGit(repo, "diff", "HEAD")
	if err != nil {
		return "", fmt.Errorf("hashing the uncommitted changes: %w", err)
	}
	sum := sha256.Sum256(diff)
	return hex.EncodeToString(sum[:]), nil
}
