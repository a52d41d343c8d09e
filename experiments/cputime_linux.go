package experiment

import (
	"time"

	"golang.org/x/sys/unix"
)

// threadClock names the clock threadCPU reads, for the results.
const threadClock = "thread CPU time (clock_gettime CLOCK_THREAD_CPUTIME_ID)"

// threadCPU returns the calling thread's CPU time, so that speed
// measurements do not count time the thread spent waiting for a core on a
// loaded machine. Callers lock the goroutine to its thread. It reads the
// kernel's nanosecond thread clock: getrusage's figure, which it read
// before, advances in scheduler ticks (4 ms) on some kernels, which made a
// 28 ms round's ratio one of 6/7, 1 and 7/6.
func threadCPU() time.Duration {
	var ts unix.Timespec
	if err := unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts); err == nil {
		return time.Duration(ts.Nano())
	}
	return rusageThreadCPU()
}

// processClock names the clock bench_nps is timed by: the bench process's
// CPU time as wait4 reports it (its rusage).
const processClock = "process CPU time (rusage)"

// rusageThreadCPU is the calling thread's CPU time as getrusage counts it:
// the same accounting as a child's rusage, so its smallest step is the
// resolution of the bench process's CPU time.
func rusageThreadCPU() time.Duration {
	var ru unix.Rusage
	if err := unix.Getrusage(unix.RUSAGE_THREAD, &ru); err != nil {
		return time.Duration(time.Now().UnixNano())
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
