//go:build !linux

package train

import "runtime"

// background runs the calling goroutine on an OS thread of its own; other
// systems keep its priority (see the Linux version).
func background() bool {
	runtime.LockOSThread()
	return false
}
