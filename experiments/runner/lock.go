package runner

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/nnuelab/nnuelab/internal/fsutil"
)

// LockDir takes an exclusive lock on a results folder (its .lock file,
// fsutil.Lock), so that two runs of one experiment cannot write the same
// files; the second's error names the first by its process ID and command
// line. The kernel drops the lock when the process dies, so a killed run
// leaves nothing to clean up.
func LockDir(dir string) (func(), error) {
	unlock, err := fsutil.Lock(filepath.Join(dir, ".lock"), strings.Join(os.Args, " "))
	if err != nil {
		return nil, fmt.Errorf("another run is using %s: %w", dir, err)
	}
	return unlock, nil
}
