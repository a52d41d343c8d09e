package sfnet

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestCached151 uses the export SetExport151 installs only when the cache
// lacks the net or holds a damaged copy (removed first), passes the cache
// path, and returns its error; without one it says the net is missing.
func TestCached151(t *testing.T) {
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	defer SetExport151(export151)
	dir, err := MakeCacheDir()
	if err != nil {
		t.Fatal(err)
	}
	want := filepath.Join(dir, SF151NetName)

	SetExport151(nil)
	if _, err := Cached151(); err == nil || !strings.Contains(err.Error(), SF151NetName) {
		t.Errorf("no export: error %v, want one naming %s", err, SF151NetName)
	}

	boom := errors.New("boom")
	var asked []string
	SetExport151(func(dst string) error {
		asked = append(asked, dst)
		_, statErr := os.Stat(dst)
		if !os.IsNotExist(statErr) {
			t.Errorf("export asked with a file already at %s", dst)
		}
		return boom
	})
	if err := os.WriteFile(want, []byte("damaged"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Cached151(); !errors.Is(err, boom) {
		t.Errorf("failed export: error %v", err)
	}
	if len(asked) != 1 || asked[0] != want {
		t.Errorf("export asked for %v, want once for %s", asked, want)
	}
}
