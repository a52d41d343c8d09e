package cputime

import (
	"runtime"
	"testing"
	"time"
)

// spin burns CPU for about d of wall time.
func spin(d time.Duration) int {
	n := 0
	for t := time.Now(); time.Since(t) < d; n++ {
	}
	return n
}

func TestClocksAdvance(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	p0, t0, r0 := Process(), Thread(), RusageThread()
	spin(50 * time.Millisecond)
	p1, t1, r1 := Process(), Thread(), RusageThread()
	if runtime.GOOS != "windows" && runtime.GOOS != "plan9" && p1 <= p0 {
		t.Errorf("process CPU time did not advance: %v -> %v", p0, p1)
	}
	if t1 <= t0 || r1 < r0 {
		t.Errorf("thread CPU time did not advance: %v -> %v, rusage %v -> %v", t0, t1, r0, r1)
	}
}
