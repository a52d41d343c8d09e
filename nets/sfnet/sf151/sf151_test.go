package sf151

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/internal/testtier"
	"github.com/nnuelab/nnuelab/nets/sfnet"
)

// TestExport exports the net from the installed Stockfish into
// a fresh folder and checks the errors for a missing binary and for a
// program that is not Stockfish 15.1.
func TestExport(t *testing.T) {
	testtier.Needs(t, "Stockfish 15.1 (Debian's stockfish)")
	dir := t.TempDir()
	dst := filepath.Join(dir, "with space", "sf.nnue")
	if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
		t.Fatal(err)
	}
	sf := DefaultStockfishPath()
	if err := Export(sf, dst); err != nil {
		t.Fatal(err)
	}
	if err := sfnet.Check151(dst); err != nil {
		t.Fatal(err)
	}
	if left, _ := filepath.Glob(filepath.Join(filepath.Dir(dst), ".nnuelab-export-*")); len(left) != 0 {
		t.Errorf("temporary folders left behind: %v", left)
	}

	err := Export(filepath.Join(dir, "no-such-stockfish"), filepath.Join(dir, "x.nnue"))
	if err == nil || !strings.Contains(err.Error(), "cannot run") || !strings.Contains(err.Error(), "make deps") {
		t.Errorf("missing binary: error %v", err)
	}

	fake := filepath.Join(dir, "fake-engine")
	script := "#!/bin/sh\nwhile read l; do case \"$l\" in uci) echo 'id name Fakefish 1'; echo uciok;; isready) echo readyok;; quit) exit 0;; export_net*) echo 'Network saved successfully to x'; printf abc > ${l#export_net };; esac; done\n"
	if err := os.WriteFile(fake, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join(dir, "fake.nnue")
	err = Export(fake, out)
	if err == nil || !strings.Contains(err.Error(), "Fakefish 1") || !strings.Contains(err.Error(), "3 bytes") {
		t.Errorf("wrong engine: error %v", err)
	}
	if _, statErr := os.Stat(out); !os.IsNotExist(statErr) {
		t.Errorf("a wrong net was left at %s", out)
	}

	t.Setenv("NNUELAB_STOCKFISH", fake)
	if got := DefaultStockfishPath(); got != fake {
		t.Errorf("DefaultStockfishPath with $NNUELAB_STOCKFISH: %s", got)
	}
}
