//go:build unix

package plugin

import (
	"fmt"
	"os"
	"strings"
	"syscall"
	"time"
)

const stopSignal = syscall.SIGSTOP

// processAlive reports whether pid exists (a zombie not yet reaped counts).
func processAlive(pid int) bool { return syscall.Kill(pid, 0) == nil }

// waitStopped waits until pid is in the stopped state (Linux /proc), so a
// test does not race the delivery of SIGSTOP; elsewhere it waits briefly.
func waitStopped(pid int) {
	deadline := time.Now().Add(2 * time.Second)
	for time.Now().Before(deadline) {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
		if err != nil {
			time.Sleep(50 * time.Millisecond)
			return
		}
		// The state follows the parenthesised command name.
		if i := strings.LastIndexByte(string(data), ')'); i >= 0 && i+2 < len(data) && (data[i+2] == 'T' || data[i+2] == 't') {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}
