// Package plugintest builds the example plugins of plugins/ for tests: the
// Go ones with `go build`, the Node.js one as a launcher script (after `npm
// ci` when its node_modules is missing). In make check's fast tier
// (internal/testtier) npm is not run, and a test that runs a plugin needing
// a program from outside Go says so with Needs.
package plugintest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nnuelab/nnuelab/internal/testtier"
)

// needs names what each example plugin needs beyond Go.
var needs = map[string]string{
	"nodepst": "Node.js and npm's packages (the nodepst plugin)",
	"sfeval":  "Stockfish 15.1 (the sfeval plugin runs it)",
}

// Needs declares that a test uses the example plugin name (plugin:name
// or name); see testtier.Needs. Plugins that need only Go run in every tier.
func Needs(t testing.TB, name string) {
	t.Helper()
	if what, ok := needs[strings.TrimPrefix(name, "plugin:")]; ok {
		testtier.Needs(t, what)
	}
}

// Evaluators are the example evaluator plugins, by name.
var Evaluators = []string{"gofloat", "nodepst", "sfeval"}

// Metrics are the example metric plugins.
var Metrics = []string{"accuracy"}

// RepoRoot returns the root of the nnuelab workspace (where go.work is).
func RepoRoot() (string, error) {
	out, err := exec.Command("go", "env", "GOWORK").Output()
	if err != nil {
		return "", fmt.Errorf("go env GOWORK: %w", err)
	}
	w := strings.TrimSpace(string(out))
	if w == "" || w == "off" {
		return "", fmt.Errorf("not in the nnuelab workspace (go env GOWORK is %q)", w)
	}
	return filepath.Dir(w), nil
}

var npmMu sync.Mutex

// Build builds every example plugin into dir as `make plugins` lays them
// out: evaluators in dir, metrics in dir/metrics. The Go plugins are built
// concurrently with `go build`; the Node.js plugin gets a launcher script.
func Build(dir string) error {
	root, err := RepoRoot()
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Join(dir, "metrics"), 0o755); err != nil {
		return err
	}
	targets := map[string]string{
		filepath.Join(dir, "gofloat"):             "./plugins/gofloat",
		filepath.Join(dir, "sfeval"):              "./plugins/sfeval",
		filepath.Join(dir, "metrics", "accuracy"): "./plugins/accuracy",
	}
	// One go build of several main packages cannot name each output, so run
	// them side by side (they share the build cache).
	errs := make(chan error, len(targets)+1)
	for out, pkg := range targets {
		go func() {
			cmd := exec.Command("go", "build", "-o", out, pkg)
			cmd.Dir = root
			if b, err := cmd.CombinedOutput(); err != nil {
				errs <- fmt.Errorf("go build %s: %w\n%s", pkg, err, b)
				return
			}
			errs <- nil
		}()
	}
	go func() { errs <- buildNode(root, dir) }()
	var first error
	for i := 0; i < len(targets)+1; i++ {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	return first
}

// buildNode installs the Node.js plugin's packages if needed (npm ci, from
// package-lock.json) and writes its launcher.
func buildNode(root, dir string) error {
	src := filepath.Join(root, "plugins", "nodepst")
	npmMu.Lock()
	defer npmMu.Unlock()
	// Test binaries of several packages may get here at once.
	unlock, err := lockFile(filepath.Join(src, ".npm-ci.lock"))
	if err != nil {
		return err
	}
	defer unlock()
	// No npm in the fast tier: the launcher is written (so the plugin is
	// found and listed) and the tests that run it say Needs.
	if _, err := os.Stat(filepath.Join(src, "node_modules", "@grpc", "grpc-js")); err != nil && !testtier.Fast() {
		cmd := exec.Command("npm", "ci", "--no-audit", "--no-fund")
		cmd.Dir = src
		if b, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("npm ci in %s: %w\n%s", src, err, b)
		}
	}
	return WriteNodeLauncher(filepath.Join(dir, "nodepst"), filepath.Join(src, "index.js"))
}

// WriteNodeLauncher writes an executable shell script at path that runs
// the Node.js script with node.
func WriteNodeLauncher(path, script string) error {
	body := fmt.Sprintf("#!/bin/sh\nexec node %q \"$@\"\n", script)
	return os.WriteFile(path, []byte(body), 0o755)
}
