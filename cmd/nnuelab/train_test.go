package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/nnue"
	"github.com/nnuelab/nnuelab/nets"
)

const trainSample = "../../nets/train/testdata/sample.txt.zst"

func runCmd(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// TestTrainCommand runs a small training through the CLI, interrupts
// nothing but resumes it to more epochs, exports the net, and plots the
// history; then checks the errors of bad invocations.
func TestTrainCommand(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "k.nnue.zst")
	common := []string{"--data", trainSample, "--max-positions", "3000", "--batch", "256", "--out", out, "--quiet"}
	code, stdout, stderr := runCmd(t, append([]string{"train", "--arch", "koivisto-7.4", "--epochs", "1"}, common...)...)
	if code != 0 {
		t.Fatalf("train: exit %d: %s", code, stderr)
	}
	if !strings.Contains(stdout, "koivisto-7.4: 1 epochs") || !strings.Contains(stdout, "exported "+filepath.Join(dir, "k.net")) {
		t.Fatalf("stdout %q", stdout)
	}
	// Resume needs only --out; more epochs are allowed.
	code, stdout, stderr = runCmd(t, "train", "--resume", "--out", out, "--epochs", "2", "--quiet")
	if code != 0 || !strings.Contains(stdout, "2 epochs") {
		t.Fatalf("resume: exit %d: %s %s", code, stdout, stderr)
	}
	// The float net and the exported Koivisto file load into the same net.
	spec, _ := archs.Load("koivisto-7.4")
	a, err := nets.LoadFloat(spec, out)
	if err != nil {
		t.Fatal(err)
	}
	b, err := nnue.LoadFile(spec, filepath.Join(dir, "k.net"))
	if err != nil {
		t.Fatal(err)
	}
	if !equalFT(a, b) {
		t.Fatal("exported net differs from the float net")
	}
	// Export again from the float net, explicitly.
	code, stdout, stderr = runCmd(t, "train", "--arch", "koivisto-7.4", "--export-from", out, "--export", filepath.Join(dir, "again.net"))
	if code != 0 || !strings.Contains(stdout, "again.net") {
		t.Fatalf("export-from: exit %d: %s %s", code, stdout, stderr)
	}
	if x, y := mustRead(t, filepath.Join(dir, "k.net")), mustRead(t, filepath.Join(dir, "again.net")); !bytes.Equal(x, y) {
		t.Fatal("--export-from wrote a different file")
	}
	code, stdout, stderr = runCmd(t, "plot-loss", filepath.Join(dir, "k.csv"), "-o", filepath.Join(dir, "k.svg"), "--title", "koivisto")
	if code != 0 || !strings.Contains(string(mustRead(t, filepath.Join(dir, "k.svg"))), "<svg") {
		t.Fatalf("plot-loss: exit %d: %s %s", code, stdout, stderr)
	}

	for _, tc := range []struct {
		name string
		args []string
		code int
		want string
	}{
		{"help", []string{"train", "--help"}, 0, "Usage: nnuelab train"},
		{"no out", []string{"train", "--arch", "chess768", "--data", trainSample}, 2, "--out is required"},
		{"no arch", []string{"train", "--data", trainSample, "--out", filepath.Join(dir, "x.nnue.zst")}, 2, "--arch is required"},
		{"no data", []string{"train", "--arch", "chess768", "--out", filepath.Join(dir, "x.nnue.zst")}, 2, "--data is required"},
		{"bad loss", []string{"train", "--arch", "chess768", "--loss", "huber", "--data", trainSample, "--out", filepath.Join(dir, "x.nnue.zst")}, 1, `unknown loss "huber"`},
		{"bad number", []string{"train", "--batch", "many"}, 2, "invalid value"},
		{"stray argument", []string{"train", "extra"}, 2, `unexpected argument "extra"`},
		{"resume without checkpoint", []string{"train", "--resume", "--out", filepath.Join(dir, "none.nnue.zst")}, 1, "no such file"},
		{"resume with other lr", []string{"train", "--resume", "--out", out, "--lr", "0.5"}, 1, "other settings"},
		{"overwrite checkpoint", append([]string{"train", "--arch", "koivisto-7.4"}, common...), 1, "--resume"},
		{"missing data", []string{"train", "--arch", "chess768", "--data", filepath.Join(dir, "absent.txt"), "--out", filepath.Join(dir, "y.nnue.zst")}, 1, "absent.txt"},
		{"export without format", []string{"train", "--arch", "chess768", "--export-from", out}, 1, "no published net format"},
		{"export wrong arch", []string{"train", "--arch", "koivisto-16", "--export-from", out}, 1, `trained for architecture "koivisto-7.4"`},
		{"plot nothing", []string{"plot-loss"}, 2, "no history file"},
		{"plot bad file", []string{"plot-loss", out}, 1, "not a loss history"},
		{"plot labels", []string{"plot-loss", "--labels", "a,b", filepath.Join(dir, "k.csv")}, 1, "2 labels for 1 files"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCmd(t, tc.args...)
			if code != tc.code || !strings.Contains(stdout+stderr, tc.want) {
				t.Fatalf("exit %d, want %d with %q; stdout %q stderr %q", code, tc.code, tc.want, stdout, stderr)
			}
		})
	}
}

func mustRead(t *testing.T, path string) []byte {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// equalFT compares two networks by their feature weights and a few
// evaluations.
func equalFT(a, b *nnue.Network) bool {
	if !slicesEqual(a.FTWeights, b.FTWeights) || !slicesEqual(a.FTBias, b.FTBias) {
		return false
	}
	for _, fen := range []string{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "8/8/4k3/8/8/2K5/5Q2/8 b - - 0 1"} {
		p, _ := board.ParseFEN(fen)
		if a.Evaluate(p, nil) != b.Evaluate(p, nil) {
			return false
		}
	}
	return true
}

func slicesEqual(a, b []int16) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}
