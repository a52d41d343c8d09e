//go:build unix

package uciclient

import (
	"os/exec"
	"syscall"
)

// setProcessGroup starts the engine in a process group of its own, so that
// the terminal's Ctrl-C reaches the runner only (which then shuts the
// engines down in order) and killing the group also ends any helper
// processes a wrapper script started.
func setProcessGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// killProcess kills the engine's process group.
func killProcess(cmd *exec.Cmd) {
	if cmd.Process == nil {
		return
	}
	if err := syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL); err != nil {
		_ = cmd.Process.Kill()
	}
}
