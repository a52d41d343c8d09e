package experiment

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadClock names the clock threadCPU reads, for the results.
const threadClock = "thread CPU time"

// threadCPU returns the calling thread's CPU time (user + system), so that
// speed measurements do not count time the thread spent waiting for a core
// on a loaded machine. Callers lock the goroutine to its thread.
func threadCPU() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		return time.Duration(time.Now().UnixNano())
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
