//go:build !linux

package runner

import (
	"context"
	"os/exec"
	"syscall"
)

// processAttr has no portable equivalent of Linux's parent-death signal.
func processAttr() *syscall.SysProcAttr { return nil }

// command is exec.CommandContext.
func command(ctx context.Context, bin string, args ...string) *exec.Cmd {
	return exec.CommandContext(ctx, bin, args...)
}
