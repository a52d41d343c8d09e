package plan

import (
	"os"
	"path/filepath"
	"strings"
)

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
