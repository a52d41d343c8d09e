//go:build unix

package cputime

import (
	"syscall"
	"time"
)

// Process returns the process's user+system CPU time (getrusage), or 0
// where it cannot be read.
func Process() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
