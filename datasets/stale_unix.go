//go:build unix

package datasets

import (
	"errors"
	"syscall"
)

// processAlive reports whether a process with this PID exists (one of
// another user's counts: signalling it is merely not permitted).
func processAlive(pid int) bool {
	err := syscall.Kill(pid, 0)
	return err == nil || errors.Is(err, syscall.EPERM)
}
