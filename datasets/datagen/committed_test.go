package datagen

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/datasets"
)

// TestFindCommitted: a finished output is found under a root by its
// settings (not its name or folder), another seed's is not, a damaged copy
// is an error naming it, and an adopted copy is what Generate then returns
// without playing.
func TestFindCommitted(t *testing.T) {
	dir := t.TempDir()
	cfg := testGenConfig(3)
	made := filepath.Join(dir, "made", "a.binpack")
	if err := os.MkdirAll(filepath.Dir(made), 0o755); err != nil {
		t.Fatal(err)
	}
	cfg.Keep = KeepAll
	m := generate(t, cfg, made)

	// Committed under another name, in a folder with other files beside it.
	root := filepath.Join(dir, "datasets")
	committed := filepath.Join(root, "selfplay-x", "shard-0001.binpack")
	if err := AdoptCommitted(made, committed); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "selfplay-x", "README.md"), []byte("# x\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, "other.manifest.toml"), []byte("not = [toml"), 0o644); err != nil {
		t.Fatal(err)
	}

	tests := []struct {
		name  string
		patch func(*Config)
		roots []string
		want  string
	}{
		{"same settings", func(*Config) {}, []string{root}, committed},
		{"threads do not count", func(c *Config) { c.Threads = 1 }, []string{root}, committed},
		{"another seed", func(c *Config) { c.Seed++ }, []string{root}, ""},
		{"another shard", func(c *Config) { c.Shard, c.Shards = 2, 2 }, []string{root}, ""},
		{"no such root", func(*Config) {}, []string{filepath.Join(dir, "none"), root}, committed},
	}
	for _, tc := range tests {
		c := cfg
		tc.patch(&c)
		got, err := FindCommitted(c, tc.roots)
		if err != nil || got != tc.want {
			t.Errorf("%s: found %q (%v), want %q", tc.name, got, err, tc.want)
		}
	}

	// Adopted into a fresh output, Generate finds the run finished: the
	// same manifest, no game played (no parts folder made).
	out := filepath.Join(dir, "cache", "shard-0001.binpack")
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := AdoptCommitted(committed, out); err != nil {
		t.Fatal(err)
	}
	var played bool
	got, err := Generate(t.Context(), cfg, out, Options{Command: "test", Progress: func(Progress) { played = true }})
	if err != nil || got.SHA256 != m.SHA256 || played {
		t.Fatalf("Generate on the adopted copy: %v, sha %v (want %s), played %v", err, got, m.SHA256, played)
	}
	if _, err := os.Stat(datasets.PartsDir(out)); !os.IsNotExist(err) {
		t.Errorf("a parts folder was made for an adopted output (%v)", err)
	}

	// A damaged copy is never adopted.
	data, err := os.ReadFile(committed)
	if err != nil {
		t.Fatal(err)
	}
	data[len(data)/2] ^= 0x10
	if err := os.WriteFile(committed, data, 0o644); err != nil {
		t.Fatal(err)
	}
	if got, err := FindCommitted(cfg, []string{root}); err == nil || !strings.Contains(err.Error(), committed) {
		t.Errorf("damaged copy: found %q, error %v; want an error naming %s", got, err, committed)
	}
}
