// Package exptest holds what the experiments packages' tests share: the
// nnuelab binary their end-to-end tests drive (built once per test
// binary), running it, reading files and the smallest valid manifest.
// Only tests import it.
package exptest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
)

// Minimal is the smallest valid manifest: one metric on a shipped arch,
// which tests extend with the keys they check.
const Minimal = `
metrics = ["agreement"]
[base]
arch = "koivisto-7.4"
`

// Root is the repository's root folder (found from this file's path), so
// that tests in any experiments package can name its files.
func Root() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Clean(filepath.Join(filepath.Dir(file), "..", "..", ".."))
}

var (
	binOnce sync.Once
	binPath string
	binErr  error
)

// Nnuelab returns the path of the nnuelab binary built from this tree,
// building it on first use: the end-to-end tests drive the real command,
// whose executors start it again for every task. Call Cleanup from
// TestMain.
func Nnuelab(t testing.TB) string {
	t.Helper()
	binOnce.Do(func() {
		dir, err := os.MkdirTemp("", "nnuelab-experiment-test")
		if err != nil {
			binErr = err
			return
		}
		binPath = filepath.Join(dir, "nnuelab")
		cmd := exec.Command("go", "build", "-o", binPath, "./cmd/nnuelab")
		cmd.Dir = Root()
		out, err := cmd.CombinedOutput()
		if err != nil {
			binErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if binErr != nil {
		t.Fatal(binErr)
	}
	return binPath
}

// Cleanup removes the binary Nnuelab built, if any.
func Cleanup() {
	if binPath != "" {
		os.RemoveAll(filepath.Dir(binPath))
	}
}

// Run runs nnuelab with args in dir (env added to the environment) and
// returns its combined output; a failure fails the test.
func Run(t testing.TB, dir string, env []string, args ...string) string {
	t.Helper()
	cmd := exec.Command(Nnuelab(t), args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("nnuelab %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// ReadFile returns the file's contents; a failure fails the test.
func ReadFile(t testing.TB, path string) []byte {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return data
}
