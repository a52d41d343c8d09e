//go:build unix

package runner

import (
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// LockDir takes an exclusive lock on a results folder, so that two runs
// of one experiment cannot write the same files. The kernel drops the lock
// when the process dies, so a killed run leaves nothing to clean up.
func LockDir(dir string) (func(), error) {
	path := filepath.Join(dir, ".lock")
	f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
		f.Close()
		return nil, fmt.Errorf("another run is using %s (%v)", dir, err)
	}
	return func() { f.Close() }, nil
}
