package runner

import (
	"context"
	"os/exec"
	"syscall"
)

// processAttr puts a child in its own process group and has the kernel
// kill it when the thread that started it dies, so that a killed runner or
// task leaves no orphaned work behind.
func processAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}

// command is exec.CommandContext whose cancellation kills the child's
// whole process group (a match and its engines).
func command(ctx context.Context, bin string, args ...string) *exec.Cmd {
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.SysProcAttr = processAttr()
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	return cmd
}
