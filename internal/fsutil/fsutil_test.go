package fsutil

import (
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFileAtomic(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "f.txt")
	for _, content := range []string{"first", "second, longer"} {
		if err := WriteFileAtomic(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		got, err := os.ReadFile(p)
		if err != nil || string(got) != content {
			t.Fatalf("read %q, %v; want %q", got, err, content)
		}
	}
	if st, _ := os.Stat(p); st.Mode().Perm() != 0o644 {
		t.Errorf("mode %v", st.Mode().Perm())
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
	// A folder that does not exist: an error, nothing written.
	if err := WriteFileAtomic(filepath.Join(dir, "no", "f"), []byte("x"), 0o644); err == nil {
		t.Error("write into a missing folder succeeded")
	}
}

func TestCreate(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "out.bin")
	f, err := Create(p, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	base, pid, ok := TempOwner(filepath.Base(f.Name()))
	if !ok || base != "out.bin" || pid != os.Getpid() {
		t.Fatalf("temporary %s: TempOwner = %q, %d, %v", f.Name(), base, pid, ok)
	}
	if _, err := f.Write([]byte("data")); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Fatalf("%s exists before Commit", p)
	}
	if err := f.Commit(); err != nil {
		t.Fatal(err)
	}
	if err := f.Commit(); err == nil {
		t.Error("a second Commit succeeded")
	}
	f.Abort() // after Commit: nothing
	if got, _ := os.ReadFile(p); string(got) != "data" {
		t.Fatalf("read %q", got)
	}
	g, err := Create(p, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	g.Write([]byte("other"))
	if err := g.Abort(); err != nil {
		t.Fatal(err)
	}
	if got, _ := os.ReadFile(p); string(got) != "data" {
		t.Fatalf("after Abort: read %q", got)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("temporary files left: %v", ents)
	}
	sum, n, err := FileSHA256(p)
	if err != nil || n != 4 || sum != "3a6eb0790f39ac87c94f3856b2dd2c5d110e6811602261a9a923d3bb23adc8b7" {
		t.Errorf("FileSHA256 = %s, %d, %v", sum, n, err)
	}
}

func TestTempOwner(t *testing.T) {
	for _, tc := range []struct {
		name, base string
		pid        int
		ok         bool
	}{
		{TempName("a.txt", 42, 7), "a.txt", 42, true},
		{TempName("x.tmp", 1, 2), "x.tmp", 1, true},
		{".a.txt.tmp12", "", 0, false},
		{".a.txt.tmp12-", "", 0, false},
		{"a.txt.tmp12-3", "", 0, false},
		{".a.txt.tmpx-3", "", 0, false},
		{"..tmp1-2", "", 0, false},
	} {
		base, pid, ok := TempOwner(tc.name)
		if base != tc.base || pid != tc.pid || ok != tc.ok {
			t.Errorf("TempOwner(%q) = %q, %d, %v; want %q, %d, %v", tc.name, base, pid, ok, tc.base, tc.pid, tc.ok)
		}
	}
}
