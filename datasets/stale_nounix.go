//go:build !unix

package datasets

// processAlive cannot tell without a way to probe a PID: every owner
// counts as alive, so nothing is removed.
func processAlive(pid int) bool { return true }
