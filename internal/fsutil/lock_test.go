//go:build unix

package fsutil

import (
	"bufio"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestLockHolder: a second Lock of a held path fails with a *LockedError
// naming the path and the holder (its PID and what it said it is); once
// the holder unlocks, or its process dies (kill -9), the path can be
// locked again.
func TestLockHolder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.lock")
	unlock, err := Lock(path, "nnuelab datagen --out a.bin")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Lock(path, "the second")
	var le *LockedError
	if !errors.As(err, &le) {
		t.Fatalf("second Lock: %v, want a *LockedError", err)
	}
	for _, want := range []string{path, "pid " + strconv.Itoa(os.Getpid()), "nnuelab datagen --out a.bin"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not name %q", err, want)
		}
	}
	if le.PID != os.Getpid() {
		t.Errorf("LockedError.PID %d, want %d", le.PID, os.Getpid())
	}
	unlock()
	unlock2, err := Lock(path, "the second")
	if err != nil {
		t.Fatalf("Lock after unlock: %v", err)
	}
	unlock2()

	// A holder in another process, killed: the kernel drops its lock.
	cmd := exec.Command(os.Args[0], "-test.run=^TestLockChild$")
	cmd.Env = append(os.Environ(), "FSUTIL_LOCK_CHILD="+path)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil || line != "locked\n" {
		cmd.Process.Kill()
		t.Fatalf("child: %q, %v", line, err)
	}
	_, err = Lock(path, "the parent")
	if !errors.As(err, &le) || le.PID != cmd.Process.Pid || !strings.Contains(err.Error(), "child holder") {
		t.Errorf("Lock held by child %d: %v", cmd.Process.Pid, err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	unlock3, err := Lock(path, "the parent")
	if err != nil {
		t.Fatalf("Lock after the holder was killed: %v", err)
	}
	unlock3()
}

// TestLockChild holds the lock FSUTIL_LOCK_CHILD names until it is killed
// (TestLockHolder's other process); without the variable it does nothing.
func TestLockChild(t *testing.T) {
	path := os.Getenv("FSUTIL_LOCK_CHILD")
	if path == "" {
		return
	}
	if _, err := Lock(path, "child holder"); err != nil {
		os.Stdout.WriteString(err.Error() + "\n")
		os.Exit(1)
	}
	os.Stdout.WriteString("locked\n")
	time.Sleep(time.Hour) // until killed
}

// TestLockRemovedWhileHeld: a holder may remove its lock file (a folder
// removed at the end of a run); a later Lock then takes a new file, and a
// Lock never succeeds on a file no longer at the path.
func TestLockRemovedWhileHeld(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "parts", "lock")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	unlock, err := Lock(path, "first")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Dir(path)); err != nil {
		t.Fatal(err)
	}
	if _, err := Lock(path, "second"); err == nil {
		t.Error("Lock of a path whose folder is gone succeeded")
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	unlock2, err := Lock(path, "second")
	if err != nil {
		t.Fatalf("Lock of the new file: %v", err)
	}
	unlock()
	unlock2()
}
