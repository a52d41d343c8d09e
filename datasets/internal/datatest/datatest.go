// Package datatest holds the test helpers that the tests of datasets,
// datagen and label share: processes dead and alive to own temporary files,
// temporaries laid out and checked, and copies of the Syzygy test tables
// (damaged on request). Test code only.
package datatest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/internal/fsutil"
)

// TablesDir is engine/syzygy's test data (the 3-4 piece tables and KRBvKR)
// from a package two folders below the repository's root (datasets/datagen,
// datasets/label).
const TablesDir = "../../engine/syzygy/testdata/tables"

// DeadPID returns the PID of a process that has exited (and been reaped).
func DeadPID(t testing.TB) int {
	t.Helper()
	cmd := exec.Command("true")
	if err := cmd.Run(); err != nil {
		t.Skipf("no `true` to run: %v", err)
	}
	return cmd.Process.Pid
}

// LivePID starts a process that lives until the test ends.
func LivePID(t testing.TB) int {
	t.Helper()
	cmd := exec.Command("sleep", "600")
	if err := cmd.Start(); err != nil {
		t.Skipf("no `sleep` to run: %v", err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	return cmd.Process.Pid
}

// MakeTemp creates a file (or folder) with mtime age ago and returns it.
func MakeTemp(t testing.TB, path string, dir bool, age time.Duration) string {
	t.Helper()
	var err error
	if dir {
		err = os.MkdirAll(path, 0o755)
		if err == nil {
			err = os.WriteFile(filepath.Join(path, "0-00000"), make([]byte, 1000), 0o644)
		}
	} else {
		err = os.WriteFile(path, []byte("partial output"), 0o644)
	}
	if err != nil {
		t.Fatal(err)
	}
	if age > 0 {
		old := time.Now().Add(-age)
		if dir {
			os.Chtimes(filepath.Join(path, "0-00000"), old, old)
		}
		if err := os.Chtimes(path, old, old); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// StaleCase is a temporary file a test lays out, and whether a run must
// remove it.
type StaleCase struct {
	Name   string
	Path   string
	Remove bool
}

// LayTemps creates the temporaries of a dead and of a live process for each
// of names in dir.
func LayTemps(t testing.TB, dir string, dead, live int, names ...string) []StaleCase {
	t.Helper()
	var cases []StaleCase
	for i, n := range names {
		cases = append(cases,
			StaleCase{"a dead process's temp of " + n, MakeTemp(t, filepath.Join(dir, fsutil.TempName(n, dead, uint64(2*i+1))), false, 0), true},
			StaleCase{"a live process's temp of " + n, MakeTemp(t, filepath.Join(dir, fsutil.TempName(n, live, uint64(2*i+2))), false, 0), false})
	}
	return cases
}

// CheckTemps fails the test for each case removed or kept against its
// Remove, saying how the run was made.
func CheckTemps(t testing.TB, how string, cases []StaleCase) {
	t.Helper()
	for _, c := range cases {
		_, err := os.Stat(c.Path)
		if gone := os.IsNotExist(err); gone != c.Remove {
			t.Errorf("%s: %s: removed %v, want %v", how, c.Name, gone, c.Remove)
		}
	}
}

// CopyTables copies the test tables to a temporary folder, flipping a bit
// in the middle of the file named damage (none when empty).
func CopyTables(t testing.TB, damage string) string {
	t.Helper()
	dir := t.TempDir()
	ents, err := os.ReadDir(TablesDir)
	if err != nil {
		t.Fatal(err)
	}
	found := damage == ""
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(TablesDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == damage {
			b[len(b)/2] ^= 0x20
			found = true
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if !found {
		t.Fatalf("no %s in %s", damage, TablesDir)
	}
	return dir
}
