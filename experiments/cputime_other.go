//go:build !linux

package experiment

import "time"

// threadClock names the clock threadCPU reads, for the results.
const threadClock = "wall time"

var clockStart = time.Now()

// threadCPU returns the monotonic wall time: this OS has no per-thread CPU
// clock in x/sys, so speed measurements include waits for a core.
func threadCPU() time.Duration { return time.Since(clockStart) }

// processClock names the clock bench_nps is timed by.
const processClock = "process CPU time (rusage)"

// rusageThreadCPU stands for the rusage clock, whose resolution this OS
// does not let us observe from a thread: the wall clock's.
func rusageThreadCPU() time.Duration { return time.Since(clockStart) }
