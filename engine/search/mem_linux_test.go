//go:build linux

package search

import (
	"os"
	"path/filepath"
	"testing"
)

// TestMemoryFigures: on Linux the machine's memory and the memory
// available now are known, and what is available is no more than the
// machine has.
func TestMemoryFigures(t *testing.T) {
	phys, avail := physicalMemoryMB(), availableMemoryMB()
	if phys <= 0 || avail <= 0 {
		t.Fatalf("physical %d MB, available %d MB: want both known", phys, avail)
	}
	if avail > phys {
		t.Errorf("available %d MB exceeds the machine's %d MB", avail, phys)
	}
}

func TestReadBytes(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		text string
		n    uint64
		ok   bool
	}{
		{"1073741824\n", 1 << 30, true},
		{"max\n", 0, false}, // cgroup v2: no limit
		{"", 0, false},
		{"-1\n", 0, false},
	} {
		p := filepath.Join(dir, "f")
		if err := os.WriteFile(p, []byte(tc.text), 0o644); err != nil {
			t.Fatal(err)
		}
		if n, ok := readBytes(p); n != tc.n || ok != tc.ok {
			t.Errorf("%q: %d %v, want %d %v", tc.text, n, ok, tc.n, tc.ok)
		}
	}
	if _, ok := readBytes(filepath.Join(dir, "missing")); ok {
		t.Error("a missing file read as a number")
	}
}
