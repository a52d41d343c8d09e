package main

import (
	"bytes"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestGeneratedFilesUpToDate generates every package's assembly and stubs
// in memory and compares them byte for byte with the committed files, so a
// hand edit of the output or a generator change without `go generate` fails
// make test.
func TestGeneratedFilesUpToDate(t *testing.T) {
	for _, name := range names() {
		t.Run(name, func(t *testing.T) {
			files, err := generate(name)
			if err != nil {
				t.Fatal(err)
			}
			for _, file := range slices.Sorted(maps.Keys(files)) {
				path := filepath.Join("..", "..", targets[name].dir, file)
				committed, err := os.ReadFile(path)
				if err != nil {
					t.Errorf("%v (run: go generate ./%s)", err, targets[name].dir)
					continue
				}
				if want := files[file]; !bytes.Equal(committed, want) {
					line, got, exp := firstDiff(committed, want)
					t.Errorf("%s differs from the generator's output at line %d:\n  committed: %q\n  generated: %q\nrun: go generate ./%s", path, line, got, exp, targets[name].dir)
				}
			}
		})
	}
}

// firstDiff returns the first line (1-based) where a and b differ and the two
// lines.
func firstDiff(a, b []byte) (int, string, string) {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range max(len(al), len(bl)) {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y || i >= len(al) || i >= len(bl) {
			return i + 1, x, y
		}
	}
	return 0, "", ""
}

// TestGenerateIsDeterministic generates each package twice: map order or
// register allocation must not change the output between runs.
func TestGenerateIsDeterministic(t *testing.T) {
	for _, name := range names() {
		a, err := generate(name)
		if err != nil {
			t.Fatal(err)
		}
		b, err := generate(name)
		if err != nil {
			t.Fatal(err)
		}
		for f := range a {
			if !bytes.Equal(a[f], b[f]) {
				t.Errorf("%s/%s: two runs of the generator differ", name, f)
			}
		}
	}
}

// TestUnknownPackage checks the error for a package the generator does not
// know.
func TestUnknownPackage(t *testing.T) {
	if _, err := generate("nope"); err == nil || !strings.Contains(err.Error(), "simd") {
		t.Errorf("generate(nope) = %v, want an error naming the known packages", err)
	}
}
