// Package version tells which source revision a binary was built from, so
// that every manifest and result record can name the code that made it.
package version

import (
	"bytes"
	"os/exec"
	"runtime/debug"
	"strings"
	"sync"
)

// Revision returns the VCS revision the running binary was built from, with
// "+dirty" when the tree had uncommitted changes. Binaries built without VCS
// stamping (go test, or go build in workspace mode without -buildvcs=true;
// the Makefile passes it) fall back to the git HEAD of the working
// directory, marked as such; without git it is "unknown".
func Revision() string {
	once.Do(func() { rev = lookup() })
	return rev
}

var (
	once sync.Once
	rev  string
)

func lookup() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		r, dirty := "", false
		for _, s := range bi.Settings {
			switch s.Key {
			case "vcs.revision":
				r = s.Value
			case "vcs.modified":
				dirty = s.Value == "true"
			}
		}
		if r != "" {
			if dirty {
				r += "+dirty"
			}
			return r
		}
	}
	out, err := exec.Command("git", "rev-parse", "HEAD").Output()
	if err != nil {
		return "unknown"
	}
	r := strings.TrimSpace(string(out))
	if st, err := exec.Command("git", "status", "--porcelain", "--untracked-files=no").Output(); err == nil && len(bytes.TrimSpace(st)) > 0 {
		r += "+dirty"
	}
	return r + " (git HEAD of the working directory; binary not VCS-stamped)"
}

// GoVersion returns the Go toolchain version the binary was built with.
func GoVersion() string {
	if bi, ok := debug.ReadBuildInfo(); ok {
		return bi.GoVersion
	}
	return "unknown"
}
