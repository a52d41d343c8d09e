//go:build !linux

package cputime

import "time"

var start = time.Now()

// ThreadClock names the clock Thread reads, for results that quote it.
const ThreadClock = "wall time"

// Thread is the monotonic wall time here: this OS has no per-thread CPU
// clock nnuelab reads.
func Thread() time.Duration { return time.Since(start) }

// RusageThread is Thread here.
func RusageThread() time.Duration { return time.Since(start) }
