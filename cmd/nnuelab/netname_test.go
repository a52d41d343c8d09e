package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEvalNetStockfishName: `nnuelab eval --net nn-<hash>.nnue` refuses a
// file whose SHA-256 does not start with the hash its name gives (exit 1,
// naming the file and both hashes) and loads it with --any-net-name; a
// file under its own Stockfish name loads as any file does.
func TestEvalNetStockfishName(t *testing.T) {
	const fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
	src, err := os.ReadFile(filepath.Join("..", "..", "nets", "koivisto-7.4.net"))
	if err != nil {
		t.Fatal(err)
	}
	s := sha256.Sum256(src)
	sum := hex.EncodeToString(s[:])
	dir := t.TempDir()
	wrong := filepath.Join(dir, "nn-000000000000.nnue")
	right := filepath.Join(dir, "nn-"+sum[:12]+".nnue")
	for _, p := range []string{wrong, right} {
		if err := os.WriteFile(p, src, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []struct {
		name  string
		args  []string
		code  int
		names []string // what stderr must name
	}{
		{"misnamed", []string{"--net", wrong}, 1, []string{wrong, "000000000000", sum}},
		{"misnamed, --any-net-name", []string{"--net", wrong, "--any-net-name"}, 0, nil},
		{"its own name", []string{"--net", right}, 0, nil},
	} {
		var out, errOut bytes.Buffer
		args := append([]string{"eval", "--arch", "koivisto-7.4", "--fen", fen}, c.args...)
		if code := run(args, &out, &errOut); code != c.code {
			t.Errorf("%s: exit %d, want %d: %s", c.name, code, c.code, errOut.String())
			continue
		}
		for _, want := range c.names {
			if !strings.Contains(errOut.String(), want) {
				t.Errorf("%s: stderr %q does not name %s", c.name, errOut.String(), want)
			}
		}
		if c.code == 0 && !strings.Contains(out.String(), fen+"\t") {
			t.Errorf("%s: no evaluation on stdout: %q", c.name, out.String())
		}
	}
}
