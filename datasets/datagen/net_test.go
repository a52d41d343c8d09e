package datagen

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/datasets"
	_ "github.com/nnuelab/nnuelab/nets" // the net architectures datagen can play with
)

// TestGenerateNetByContent: a run is identified by its net's content, not
// the net's path: the same net at another path (another checkout) takes the
// finished run as done, another net is refused.
func TestGenerateNetByContent(t *testing.T) {
	dir := t.TempDir()
	copyNet := func(name, src string) string {
		data, err := os.ReadFile(filepath.Join("..", "..", "nets", src))
		if err != nil {
			t.Fatal(err)
		}
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	cfg := testGenConfig(2)
	cfg.Nodes = 200
	cfg.Arch = "chess768"
	cfg.EvalFile = copyNet("here.nnue.zst", "chess768-first.nnue.zst")
	out := filepath.Join(dir, "s.binpack")
	m1 := generate(t, cfg, out)
	before, err := os.ReadFile(datasets.ManifestPath(out))
	if err != nil {
		t.Fatal(err)
	}
	cfg.EvalFile = copyNet("elsewhere.nnue.zst", "chess768-first.nnue.zst")
	m2 := generate(t, cfg, out)
	if m2.SHA256 != m1.SHA256 || m2.Settings.EvalFile != filepath.Join(dir, "here.nnue.zst") {
		t.Fatalf("the same net at another path: manifest %+v, want the finished run's", m2.Settings)
	}
	if after, _ := os.ReadFile(datasets.ManifestPath(out)); !bytes.Equal(before, after) {
		t.Fatal("the finished run's manifest was rewritten")
	}
	cfg.EvalFile = copyNet("other.nnue.zst", "chess768-gen1.nnue.zst")
	if _, err := Generate(context.Background(), cfg, out, Options{}); err == nil || !strings.Contains(err.Error(), "other settings") {
		t.Fatalf("another net: %v, want other settings refused", err)
	}
}
