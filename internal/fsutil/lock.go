package fsutil

import (
	"fmt"
	"strconv"
	"strings"
)

// LockedError is Lock's error when another process holds the lock: it
// names the lock file and, as far as the holder wrote them into it, the
// holder's process ID and what it said it was doing.
type LockedError struct {
	Path   string
	PID    int    // 0 when the holder wrote none (yet)
	Holder string // the holder's own words: a command line, a run
}

// Error says "PATH is locked by pid N (HOLDER)".
func (e *LockedError) Error() string {
	who := "another process"
	if e.PID > 0 {
		who = "pid " + strconv.Itoa(e.PID)
	}
	if e.Holder != "" {
		who += " (" + e.Holder + ")"
	}
	return fmt.Sprintf("%s is locked by %s", e.Path, who)
}

// lockInfo is what a holder writes into its lock file.
func lockInfo(pid int, holder string) []byte {
	return []byte("pid " + strconv.Itoa(pid) + "\n" + strings.ReplaceAll(holder, "\n", " ") + "\n")
}

// parseLockInfo reads lockInfo's text back; anything else gives zeros.
func parseLockInfo(b []byte) (pid int, holder string) {
	first, rest, _ := strings.Cut(string(b), "\n")
	if n, ok := strings.CutPrefix(first, "pid "); ok {
		pid, _ = strconv.Atoi(n)
	}
	return pid, strings.TrimSuffix(rest, "\n")
}
