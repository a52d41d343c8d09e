package main

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/nets"
)

// TestEvalNamesNet checks that `nnuelab eval` names the network file it
// used and the SHA-256 of its bytes: a first comment line, or fields of
// each JSON object; shipped nets as shipped:NAME with the manifest's hash.
func TestEvalNamesNet(t *testing.T) {
	const fen = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1"
	src, err := os.ReadFile(filepath.Join("..", "..", "nets", "koivisto-7.4.net"))
	if err != nil {
		t.Fatal(err)
	}
	user := filepath.Join(t.TempDir(), "mine.net")
	src[len(src)/2] ^= 0x04 // a user's own (here: altered) net loads as well
	if err := os.WriteFile(user, src, 0o644); err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(src)
	userSHA := hex.EncodeToString(sum[:])
	shipped, err := nets.Default("koivisto-7.4")
	if err != nil || shipped == nil {
		t.Fatalf("no shipped koivisto-7.4 net: %v", err)
	}
	for _, c := range []struct {
		name      string
		args      []string
		net, hash string
	}{
		{"user file", []string{"--net", user}, user, userSHA},
		{"shipped", nil, "shipped:" + shipped.File, shipped.SHA256},
	} {
		t.Run(c.name, func(t *testing.T) {
			var out, errOut bytes.Buffer
			args := append([]string{"eval", "--arch", "koivisto-7.4", "--fen", fen}, c.args...)
			if code := run(args, &out, &errOut); code != 0 {
				t.Fatalf("exit %d: %s", code, errOut.String())
			}
			lines := strings.Split(strings.TrimSpace(out.String()), "\n")
			if want := "# net " + c.net + " sha256 " + c.hash; len(lines) != 2 || lines[0] != want || !strings.HasPrefix(lines[1], fen+"\t") {
				t.Errorf("stdout %q: want %q, then the evaluation", out.String(), want)
			}
			out.Reset()
			if code := run(append(args, "--json"), &out, &errOut); code != 0 {
				t.Fatalf("--json: exit %d: %s", code, errOut.String())
			}
			var obj map[string]any
			if err := json.Unmarshal(out.Bytes(), &obj); err != nil {
				t.Fatalf("--json: %v: %s", err, out.String())
			}
			if obj["net"] != c.net || obj["net_sha256"] != c.hash {
				t.Errorf("--json: net %v, net_sha256 %v; want %s, %s", obj["net"], obj["net_sha256"], c.net, c.hash)
			}
		})
	}
}
