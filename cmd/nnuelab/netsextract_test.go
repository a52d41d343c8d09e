package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/nets/sfnet/sfnettest"
)

// TestNetsExtractCLI runs `nnuelab nets extract` on one part of the
// single-threaded module of the npm package stockfish@17.1.0 (unpacked
// into the npm cache by sfnettest; `make sf-npm` installs the package):
// the parts are joined, both nets come out into --out with their
// SHA-256, and --no-cache leaves the cache alone.
func TestNetsExtractCLI(t *testing.T) {
	dir := sfnettest.Unpacked(t, sfnettest.V171)
	part := filepath.Join(dir, "package", "src", "stockfish-17.1-single-a496a04-part-2.wasm")
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"nets", "extract", part, "--out", out, "--no-cache", "--json"}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var res struct {
		Seconds float64
		Nets    []struct {
			Name   string
			Bytes  int
			SHA256 string
			Files  []string
		}
		Modules []struct {
			Module string
			Parts  []string
		}
	}
	if err := json.Unmarshal(stdout.Bytes(), &res); err != nil {
		t.Fatalf("%v: %s", err, stdout.String())
	}
	if len(res.Modules) != 1 || len(res.Modules[0].Parts) != 6 || len(res.Nets) != 2 {
		t.Fatalf("modules %+v, nets %+v", res.Modules, res.Nets)
	}
	for _, n := range res.Nets {
		data, err := os.ReadFile(filepath.Join(out, n.Name))
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		if len(data) != n.Bytes || hex.EncodeToString(sum[:]) != n.SHA256 || !strings.HasPrefix(n.SHA256, n.Name[3:15]) || len(n.Files) != 1 {
			t.Errorf("%s: %d bytes with SHA-256 %x, reported %+v", n.Name, len(data), sum, n)
		}
	}
	if entries, _ := os.ReadDir(filepath.Join(os.Getenv("XDG_CACHE_HOME"), "nnuelab")); len(entries) != 0 {
		t.Errorf("--no-cache wrote into the cache: %v", entries)
	}
	t.Logf("%s: 2 nets in %.1fs", res.Modules[0].Module, res.Seconds)

	bad := filepath.Join(t.TempDir(), "not-a-module.wasm")
	os.WriteFile(bad, []byte("#!/bin/sh\n"), 0o644)
	stderr.Reset()
	if code := run([]string{"nets", "extract", bad}, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), bad) || !strings.Contains(stderr.String(), "not 00 61 73 6d") {
		t.Errorf("a file that is no module: exit %d, %s", code, stderr.String())
	}
}

// TestNetsFetchCLI fetches nets from a local server in the place of
// Stockfish's net server: one goes into the cache and --out, one that is
// not the net its name says is refused, and --arch refuses a net of
// another architecture, naming the file and what the architecture wants.
func TestNetsFetchCLI(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	data := []byte("not a network, but its bytes name it all the same")
	sum := sha256.Sum256(data)
	name := "nn-" + hex.EncodeToString(sum[:])[:12] + ".nnue"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if strings.HasSuffix(r.URL.Path, "/"+name) || strings.HasSuffix(r.URL.Path, "/nn-000000000000.nnue") {
			w.Write(data)
			return
		}
		http.NotFound(w, r)
	}))
	defer srv.Close()
	out := t.TempDir()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"nets", "fetch", name, "--server", srv.URL, "--out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if got, err := os.ReadFile(filepath.Join(out, name)); err != nil || !bytes.Equal(got, data) {
		t.Errorf("--out copy: %v", err)
	}
	for _, tc := range []struct {
		args   []string
		substr []string
	}{
		{[]string{"nn-000000000000.nnue"}, []string{"nn-000000000000.nnue", "SHA-256", name}},
		{[]string{"nn-ffffffffffff.nnue"}, []string{"404"}},
		{[]string{name, "--arch", "sf17.1-small"}, []string{name, "arch sf17.1-small", "does not fit"}},
	} {
		stderr.Reset()
		code := run(append([]string{"nets", "fetch", "--server", srv.URL}, tc.args...), &stdout, &stderr)
		if code == 0 {
			t.Errorf("%v: no error", tc.args)
		}
		for _, s := range tc.substr {
			if !strings.Contains(stderr.String(), s) {
				t.Errorf("%v: %q does not mention %q", tc.args, stderr.String(), s)
			}
		}
	}
}
