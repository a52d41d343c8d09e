//go:build unix

package vec

import "syscall"

// cpuSeconds is the process's CPU time (for rates per CPU-second, which
// other jobs on a shared machine do not lower).
func cpuSeconds() float64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return float64(ru.Utime.Sec+ru.Stime.Sec) + float64(ru.Utime.Usec+ru.Stime.Usec)/1e6
}
