package train

import (
	"runtime"
	"syscall"
)

// background runs the calling goroutine, for the rest of its life, on an
// OS thread of its own at a low scheduling priority (nice 10 above the
// process's), and reports whether it could. The stream's goroutine runs
// so: on a machine whose cores the training workers fill, it takes the
// time they leave (while they wait for each other between the phases of a
// step) instead of preempting one of them in the middle of a phase, which
// stalls the phase for the others; when it falls behind, the workers block
// on it and it runs. Nice 10 rather than 19 so that it still wins that
// time from other jobs at nice 19 (Linux's weights: 1024 at nice 0, 110 at
// 10, 15 at 19). The thread ends with the goroutine (it stays locked), so
// no other goroutine ever runs at that priority, and the Go runtime starts
// new threads from a clean template thread, not from a locked one.
func background() bool {
	runtime.LockOSThread()
	prio, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		return false
	}
	// The raw system call returns 20 - nice.
	nice := min(20-prio+backgroundNice, 19)
	return syscall.Setpriority(syscall.PRIO_PROCESS, syscall.Gettid(), nice) == nil
}

// backgroundNice is how much lower than the process the stream runs.
const backgroundNice = 10
