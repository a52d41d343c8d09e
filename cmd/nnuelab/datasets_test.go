package main

import (
	"bytes"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/internal/testtier"
)

// TestDatasetCommands runs the dataset pipeline end to end through the CLI:
// datagen, convert, shuffle, stats (with a plot), and the flag errors.
func TestDatasetCommands(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"datagen", []string{"datagen", "--quiet", "--out", p("g.txt"), "--games", "6", "--nodes", "500", "--hash", "1", "--threads", "2", "--seed", "3"}, 0, "positions from 6 games", ""},
		{"datagen again is a no-op", []string{"datagen", "--quiet", "--out", p("g.txt"), "--games", "6", "--nodes", "500", "--hash", "1", "--seed", "3"}, 0, "positions from 6 games", ""},
		{"datagen other settings", []string{"datagen", "--quiet", "--out", p("g.txt"), "--games", "6", "--nodes", "501", "--hash", "1", "--seed", "3"}, 1, "", "other settings"},
		{"datagen shard 2/2", []string{"datagen", "--quiet", "--out", p("s2.bin"), "--games", "6", "--nodes", "500", "--hash", "1", "--seed", "3", "--shard", "2/2"}, 0, "from 3 games", ""},
		{"datagen no out", []string{"datagen", "--games", "1"}, 2, "", "--out is required"},
		{"datagen bad shard", []string{"datagen", "--out", p("x.bin"), "--games", "1", "--shard", "3/2"}, 1, "", "k/N"},
		{"datagen help", []string{"datagen", "--help"}, 0, "", "--random-plies"},
		{"convert", []string{"convert", "--out", p("g.bin"), p("g.txt")}, 0, "records", ""},
		{"convert back", []string{"convert", "--out", p("g2.txt"), p("g.bin")}, 0, "records", ""},
		{"convert bad input", []string{"convert", "--out", p("bad.bin"), "../../datasets/testdata/sample.txt", p("g.txt.manifest.toml")}, 1, "", "line 1"},
		{"convert skip-bad", []string{"convert", "--skip-bad", "--out", p("sk.bin"), p("g.txt.manifest.toml")}, 0, "bad entries skipped", "skipped:"},
		{"shuffle", []string{"shuffle", "--out", p("t-%d.bin"), "-n", "2", "--val", p("v.txt"), "--val-frac", "0.1", p("g.bin"), "../../datasets/testdata/sample.txt"}, 0, "(validation", ""},
		{"shuffle bad pattern", []string{"shuffle", "--out", p("t.bin"), "-n", "2", p("g.bin")}, 1, "", "%d"},
		{"stats", []string{"stats", "--plot", p("s.svg"), p("t-1.bin"), p("t-2.bin"), p("v.txt")}, 0, "duplicate rate", ""},
		{"stats no input", []string{"stats"}, 2, "", "at least one input"},
		{"label no limit", []string{"label", "--out", p("l.bin"), p("g.bin")}, 2, "", "--nodes or --depth"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(tc.args, &out, &errb)
			if code != tc.code {
				t.Fatalf("exit code %d, want %d; stdout %q stderr %q", code, tc.code, out.String(), errb.String())
			}
			if !strings.Contains(out.String(), tc.stdout) {
				t.Errorf("stdout %q lacks %q", out.String(), tc.stdout)
			}
			if !strings.Contains(errb.String(), tc.stderr) {
				t.Errorf("stderr %q lacks %q", errb.String(), tc.stderr)
			}
		})
	}
	a, _ := os.ReadFile(p("g.txt"))
	b, _ := os.ReadFile(p("g2.txt"))
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Error("text -> binary -> text changed the datagen output")
	}
	if m, err := os.ReadFile(p("t-1.bin.manifest.toml")); err != nil || !bytes.Contains(m, []byte(`split = "validation"`)) {
		t.Errorf("shuffle manifest missing or without the validation output (%v)", err)
	}
	svg, _ := os.ReadFile(p("s.svg"))
	if !bytes.Contains(svg, []byte("<svg")) || !bytes.Contains(svg, []byte("pieces on the board")) {
		t.Error("the plot is not an SVG with the histograms")
	}
	// stats --json agrees with the files' record counts.
	var out, errb bytes.Buffer
	if code := run([]string{"stats", "--json", p("g.bin")}, &out, &errb); code != 0 {
		t.Fatal(errb.String())
	}
	var s struct {
		Positions int64    `json:"positions"`
		Results   [3]int64 `json:"results"`
	}
	if err := json.Unmarshal(out.Bytes(), &s); err != nil {
		t.Fatal(err)
	}
	if n := int64(bytes.Count(a, []byte{'\n'})); s.Positions != n || s.Results[0]+s.Results[1]+s.Results[2] != n {
		t.Errorf("stats counts %+v for %d lines", s, n)
	}
}

// TestLabelCommand labels 40 positions with Stockfish 15.1 through the CLI.
func TestLabelCommand(t *testing.T) {
	testtier.Needs(t, "Stockfish 15.1 (Debian's stockfish)")
	const sf = "/usr/games/stockfish"
	if _, err := exec.LookPath(sf); err != nil {
		t.Fatalf("Stockfish 15.1 is needed at %s for this test (run 'make deps'): %v", sf, err)
	}
	out := filepath.Join(t.TempDir(), "l.txt")
	var stdout, stderr bytes.Buffer
	code := run([]string{"label", "--quiet", "--engine", sf, "--option", "Threads=1", "--option", "Hash=8",
		"--nodes", "1000", "--limit", "40", "--chunk", "20", "--out", out, "../../datasets/testdata/sample.txt"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.Contains(stdout.String(), "labelled by Stockfish 15.1 (of 40 read") {
		t.Fatalf("stdout %q", stdout.String())
	}
}

// TestStaleTempsCommands: convert and shuffle killed with -9 leave
// ".NAME.tmpPID-N" files and ".shuffle-HOST-PID-N/" folders; the next run
// removes those whose process is gone, says so on stderr, and names an
// older nnuelab's bucket folder for the user to remove.
func TestStaleTempsCommands(t *testing.T) {
	dir := t.TempDir()
	p := func(name string) string { return filepath.Join(dir, name) }
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Skip(err)
	}
	pid := strconv.Itoa(dead.Process.Pid)
	host, _ := os.Hostname()
	const sample = "../../datasets/testdata/sample.txt"
	for _, tc := range []struct {
		name    string
		stale   []string // files, or folders when ending in /
		args    []string
		removed []string
		left    []string
	}{
		{"convert", []string{".c.bin.tmp" + pid + "-1"}, []string{"convert", "--out", p("c.bin"), sample},
			[]string{".c.bin.tmp" + pid + "-1"}, nil},
		{"shuffle", []string{".shuffle-" + host + "-" + pid + "-77/", ".s.bin.tmp" + pid + "-2", ".shuffle-4242/"},
			[]string{"shuffle", "--out", p("s.bin"), sample},
			[]string{".shuffle-" + host + "-" + pid + "-77", ".s.bin.tmp" + pid + "-2"}, []string{".shuffle-4242"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, s := range tc.stale {
				if name, ok := strings.CutSuffix(s, "/"); ok {
					os.MkdirAll(p(name), 0o755)
					os.WriteFile(filepath.Join(p(name), "0-00000"), []byte("bucket"), 0o644)
				} else {
					os.WriteFile(p(s), []byte("partial"), 0o644)
				}
			}
			var out, errb bytes.Buffer
			if code := run(tc.args, &out, &errb); code != 0 {
				t.Fatalf("exit %d: %s", code, errb.String())
			}
			for _, r := range tc.removed {
				if _, err := os.Stat(p(r)); !os.IsNotExist(err) {
					t.Errorf("%s is still there", r)
				}
				if !strings.Contains(errb.String(), "removed "+p(r)+":") {
					t.Errorf("stderr does not say %s was removed: %q", r, errb.String())
				}
			}
			for _, l := range tc.left {
				if _, err := os.Stat(p(l)); err != nil {
					t.Errorf("%s was removed: %v", l, err)
				}
				if !strings.Contains(errb.String(), "left "+p(l)+":") || !strings.Contains(errb.String(), "remove it") {
					t.Errorf("stderr does not name %s for the user to remove: %q", l, errb.String())
				}
			}
		})
	}
}
