package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestNetsShow: `nets show` writes a page with its figures per net and a
// side-by-side page for several, prints the numbers, takes flags after the
// nets, and refuses plugins and bad names with a clear message.
func TestNetsShow(t *testing.T) {
	dir := t.TempDir()
	var out, errb bytes.Buffer
	args := []string{"nets", "show", "leorik-3.1", "chess768-first", "--top", "1", "--out", dir,
		"--data", "../../datasets/fresh-val/fresh-sf500.bin", "--limit", "500", "--name", "pair"}
	if code := run(args, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	for _, f := range []string{"leorik-3.1.md", "leorik-3.1/histograms.svg", "leorik-3.1/activations.svg",
		"chess768-first.md", "pair.md", "pair/histograms.svg", "pair/activations.svg"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err != nil {
			t.Errorf("missing %s", f)
		}
	}
	for _, s := range []string{"leorik-3.1: arch leorik-3.1", "ft (screlu)", "500 positions", "of 4-byte groups (2 values) non-zero", "wrote " + filepath.Join(dir, "pair.md")} {
		if !strings.Contains(out.String(), s) {
			t.Errorf("stdout lacks %q:\n%s", s, out.String())
		}
	}
	md, _ := os.ReadFile(filepath.Join(dir, "leorik-3.1.md"))
	if !strings.Contains(string(md), "Made by `nnuelab nets show leorik-3.1 chess768-first --top 1") {
		t.Errorf("page does not say how it was made:\n%.400s", md)
	}

	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"nets", "show", "plugin:gofloat"}, "cannot be inspected"},
		{[]string{"nets", "show", "no-such-net"}, `unknown architecture "no-such-net"`},
		{[]string{"nets", "show", "leorik-3.1", "chess768", "--net", "x.nnue"}, "--net goes with exactly one"},
		{[]string{"nets", "show", "leorik-3.1", "--out", dir, "--data", "no-such-file.bin"}, "no-such-file.bin"},
	} {
		out.Reset()
		errb.Reset()
		if code := run(tc.args, &out, &errb); code != 1 || !strings.Contains(errb.String(), tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 1 and %q", tc.args, code, errb.String(), tc.want)
		}
	}
}
