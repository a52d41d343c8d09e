package main

import (
	"bytes"
	"go/ast"
	"go/parser"
	"go/token"
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

// TestAdamLayout checks the generator's copy of vec.Adam's fields (the
// kernel reads them by offset) against the struct in nets/train/vec.
func TestAdamLayout(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), filepath.Join("..", "..", targets["vec"].dir, "vec.go"), nil, parser.SkipObjectResolution)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	ast.Inspect(f, func(n ast.Node) bool {
		ts, ok := n.(*ast.TypeSpec)
		if !ok || ts.Name.Name != "Adam" {
			return true
		}
		for _, field := range ts.Type.(*ast.StructType).Fields.List {
			if id, ok := field.Type.(*ast.Ident); !ok || id.Name != "float32" {
				t.Errorf("vec.Adam has a field of type %v; the kernel expects float32 only", field.Type)
			}
			for _, name := range field.Names {
				got = append(got, name.Name)
			}
		}
		return false
	})
	if !slices.Equal(got, adamFields) {
		t.Errorf("vec.Adam's fields are %v, the generator's adamFields %v", got, adamFields)
	}
}
