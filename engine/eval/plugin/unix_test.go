//go:build unix

package plugin

import "syscall"

const stopSignal = syscall.SIGSTOP

// processAlive reports whether pid exists (a zombie not yet reaped counts).
func processAlive(pid int) bool { return syscall.Kill(pid, 0) == nil }
