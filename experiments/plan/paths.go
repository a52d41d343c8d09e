package plan

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ResultsRoot is the folder (relative to the repository's root, where
// commands run) that holds every experiment's results, RESULTS/NAME: at the
// top level, outside the Go package folders.
var ResultsRoot = "results"

// LegacyResultsRoot is where results were kept before they moved to
// ResultsRoot; `nnuelab experiment migrate` moves a folder from there.
var LegacyResultsRoot = filepath.Join("experiments", "results")

// DefaultOut returns an experiment's results folder when none is given,
// ResultsRoot/name. When that folder is missing but the old one,
// LegacyResultsRoot/name, exists (written by an earlier binary), it
// returns an error saying how to migrate it, rather than starting over
// beside it.
func DefaultOut(name string) (string, error) {
	out := filepath.Join(ResultsRoot, name)
	if _, err := os.Stat(out); err == nil {
		return out, nil
	}
	old := filepath.Join(LegacyResultsRoot, name)
	if st, err := os.Stat(old); err == nil && st.IsDir() {
		return "", fmt.Errorf("the results of %s are in %s, where an earlier nnuelab kept them: move them to %s with `nnuelab experiment migrate %s` (or name the folder with --out)",
			name, filepath.ToSlash(old), filepath.ToSlash(out), filepath.ToSlash(old))
	}
	return out, nil
}

// RelPath shows a path relative to the working folder when it is inside it.
func RelPath(p string) string {
	wd, err := os.Getwd()
	if err != nil || !filepath.IsAbs(p) {
		return p
	}
	if r, err := filepath.Rel(wd, p); err == nil && !strings.HasPrefix(r, "..") {
		return r
	}
	return p
}

// RelAll is RelPath of each path.
func RelAll(ps []string) []string {
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = "`" + filepath.ToSlash(RelPath(p)) + "`"
	}
	return out
}
