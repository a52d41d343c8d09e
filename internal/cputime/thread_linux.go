package cputime

import (
	"time"

	"golang.org/x/sys/unix"
)

// ThreadClock names the clock Thread reads, for results that quote it.
const ThreadClock = "thread CPU time (clock_gettime CLOCK_THREAD_CPUTIME_ID)"

// Thread returns the calling thread's CPU time from the kernel's
// nanosecond thread clock (clock_gettime CLOCK_THREAD_CPUTIME_ID), else
// RusageThread's. (getrusage's figure advances in scheduler ticks, 4 ms on
// some kernels, too coarse for short rounds.)
func Thread() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err == nil {
		return time.Duration(ts.Nano())
	}
	return RusageThread()
}

// RusageThread is the calling thread's CPU time as getrusage counts it:
// the same accounting as a child process's rusage, so its smallest step is
// the resolution of a child's CPU time. Where it cannot be read it is the
// wall time.
func RusageThread() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		return time.Duration(time.Now().UnixNano())
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
