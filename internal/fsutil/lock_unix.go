//go:build unix

package fsutil

import (
	"errors"
	"fmt"
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// Lock takes an exclusive lock on the file at path (created if missing),
// so that two processes cannot do the same work at once, and writes into
// it this process's ID and holder, the words (a command line) a second
// process's *LockedError quotes. The kernel drops the lock when the
// process dies, so a killed holder leaves nothing to clean up. The holder
// may remove the file (with its folder) before it unlocks; a Lock only
// succeeds on the file that is at path once it holds it. unlock releases
// the lock (once; later calls do nothing).
func Lock(path, holder string) (unlock func(), err error) {
	for range 10 {
		f, err := os.OpenFile(path, os.O_CREATE|os.O_RDWR, 0o644)
		if err != nil {
			return nil, fmt.Errorf("lock: %w", err)
		}
		if err := unix.Flock(int(f.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			defer f.Close()
			if !errors.Is(err, unix.EWOULDBLOCK) {
				return nil, fmt.Errorf("lock %s: %w", path, err)
			}
			b, _ := io.ReadAll(io.LimitReader(f, 4096))
			pid, who := parseLockInfo(b)
			return nil, &LockedError{Path: path, PID: pid, Holder: who}
		}
		// The file may have been removed (or replaced) by its last holder
		// between our open and our lock: then the lock guards nothing.
		if same(f, path) {
			if err := writeLockInfo(f, holder); err != nil {
				f.Close()
				return nil, fmt.Errorf("lock %s: %w", path, err)
			}
			done := false
			return func() {
				if !done {
					done = true
					f.Close()
				}
			}, nil
		}
		f.Close()
	}
	return nil, fmt.Errorf("lock %s: the file keeps being replaced while it is locked", path)
}

// same reports whether the open file f is the file now at path.
func same(f *os.File, path string) bool {
	a, err := f.Stat()
	if err != nil {
		return false
	}
	b, err := os.Stat(path)
	return err == nil && os.SameFile(a, b)
}

func writeLockInfo(f *os.File, holder string) error {
	if err := f.Truncate(0); err != nil {
		return err
	}
	_, err := f.WriteAt(lockInfo(os.Getpid(), holder), 0)
	return err
}
