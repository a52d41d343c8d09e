package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestWDLFitMatchesModel refits the committed data and checks that the
// model the engine ships (engine/wdl/model.go) is what the fit writes: the
// default WDL model is reproducible from the repository.
func TestWDLFitMatchesModel(t *testing.T) {
	out := filepath.Join(t.TempDir(), "model.go")
	var stdout, stderr bytes.Buffer
	data := "../../datasets/wdl-leorik31/leorik31-wdl.binpack"
	if code := run([]string{"wdl", "fit", "--min-ply", "8", "--go", out, data}, &stdout, &stderr); code != 0 {
		t.Fatalf("wdl fit: exit %d: %s", code, stderr.String())
	}
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("../../engine/wdl/model.go")
	if err != nil {
		t.Fatal(err)
	}
	// The first comment lines name the command with its paths as given.
	body := func(b []byte) string { s := string(b); return s[strings.Index(s, "var defaultModel"):] }
	if body(got) != body(want) {
		t.Errorf("engine/wdl/model.go is not what the fit writes:\n%s\nwant\n%s", body(want), body(got))
	}
	if !strings.Contains(stdout.String(), "282732 positions fitted") || !strings.Contains(stdout.String(), "| 78 |") {
		t.Errorf("fit output:\n%s", stdout.String())
	}
}

func TestWDLErrors(t *testing.T) {
	junk := filepath.Join(t.TempDir(), "junk.txt")
	os.WriteFile(junk, []byte("not a position [0.5] 12\n"), 0o644)
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"no verb", []string{"wdl"}, `expected "wdl fit"`},
		{"unknown verb", []string{"wdl", "show"}, `expected "wdl fit"`},
		{"no data", []string{"wdl", "fit"}, "need at least one dataset"},
		{"missing file", []string{"wdl", "fit", "/nonexistent/x.binpack"}, "nonexistent"},
		{"malformed data", []string{"wdl", "fit", junk}, "junk.txt"},
	}
	for _, tc := range tests {
		var stdout, stderr bytes.Buffer
		if code := run(tc.args, &stdout, &stderr); code == 0 || !strings.Contains(stderr.String(), tc.want) {
			t.Errorf("%s: exit %d, stderr %q, want an error containing %q", tc.name, code, stderr.String(), tc.want)
		}
	}
}
