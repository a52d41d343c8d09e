package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/engine/eval/plugin"
)

// TestDatagenPluginKilled kills the evaluator plugin during `nnuelab
// datagen --arch plugin:gofloat`: the run must stop with an error naming
// the plugin and its death (exit 1), not go on with the classical
// evaluation's positions under the plugin's name, and write neither the
// output nor its manifest.
func TestDatagenPluginKilled(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Fatal("finds the plugin process through /proc: linux only")
	}
	dir, bin := pluginEnv(t)
	out := filepath.Join(t.TempDir(), "gen.bin")
	cmd := exec.Command(bin, "datagen", "--arch", "plugin:gofloat", "--out", out, "--games", "400",
		"--nodes", "400", "--threads", "1", "--chunk-games", "2", "--quiet")
	cmd.Env = append(os.Environ(), plugin.EnvDirs+"="+dir)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	// Let it play for a moment with the plugin, then kill the plugin.
	time.Sleep(time.Second)
	killed := killPlugin(t, cmd.Process.Pid)
	var err error
	select {
	case err = <-done:
	case <-time.After(5 * time.Minute):
		cmd.Process.Kill()
		t.Fatalf("datagen still running 5 minutes after its plugin died; stderr: %s", stderr.String())
	}
	t.Logf("killed plugin %d; stderr: %s", killed, stderr.String())
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		t.Errorf("datagen ended with %v after its plugin died, want exit 1; stdout: %s", err, stdout.String())
	}
	if !regexp.MustCompile(`plugin gofloat \(pid ` + strconv.Itoa(killed) + `\) died`).MatchString(stderr.String()) {
		t.Errorf("stderr %q: want the plugin's death named", stderr.String())
	}
	for _, p := range []string{out, datasets.ManifestPath(out)} {
		if _, err := os.Stat(p); err == nil {
			t.Errorf("%s written after the plugin died", p)
		}
	}
}
