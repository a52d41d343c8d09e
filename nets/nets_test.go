package nets

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/archs"
)

// TestShippedNetCorruption flips one bit at a few places of every shipped
// net's bytes: the check against the manifest's SHA-256 must fail, naming
// the net and both hashes (Koivisto's .net and Leorik's .nnue files carry
// no checksum of their own, so nothing else would notice).
func TestShippedNetCorruption(t *testing.T) {
	m, err := Manifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range m {
		data, err := files.ReadFile(e.File)
		if err != nil {
			t.Fatal(err)
		}
		if err := verifyNet(e.File, data, e.SHA256); err != nil {
			t.Fatalf("intact %s: %v", e.File, err)
		}
		for _, at := range []struct {
			name string
			i    int
		}{{"first byte", 0}, {"middle", len(data) / 2}, {"last byte", len(data) - 1}} {
			t.Run(e.File+"/"+at.name, func(t *testing.T) {
				bad := append([]byte(nil), data...)
				bad[at.i] ^= 0x04
				sum := sha256.Sum256(bad)
				got := hex.EncodeToString(sum[:])
				err := verifyNet(e.File, bad, e.SHA256)
				if err == nil {
					t.Fatal("a flipped bit passed the check")
				}
				for _, want := range []string{e.File, got, e.SHA256} {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not name %s", err, want)
					}
				}
			})
		}
	}
}

// TestShippedCheckCached checks that an embedded net is hashed once per
// process: a second check of the same net reuses the first outcome.
func TestShippedCheckCached(t *testing.T) {
	d, err := Default("koivisto-7.4")
	if err != nil || d == nil {
		t.Fatalf("no shipped koivisto-7.4 net: %v", err)
	}
	data, err := files.ReadFile(d.File)
	if err != nil {
		t.Fatal(err)
	}
	if err := checkShipped(d, data); err != nil {
		t.Fatal(err)
	}
	// The embedded bytes cannot change; these stand-ins are not hashed again.
	if err := checkShipped(d, []byte("not the net")); err != nil {
		t.Errorf("second check hashed again: %v", err)
	}
	spec, _ := archs.Load("koivisto-7.4")
	if _, info, err := LoadInfo(spec, ""); err != nil || !info.Shipped || info.File != d.File || info.SHA256 != d.SHA256 {
		t.Errorf("LoadInfo of the shipped net: %+v, %v", info, err)
	}
}

// TestLoadInfoUserFile checks that a net file given by path reports the
// SHA-256 of its bytes, for a file the loader does not read to the end too.
func TestLoadInfoUserFile(t *testing.T) {
	d, err := Default("koivisto-7.4")
	if err != nil || d == nil {
		t.Fatalf("no shipped koivisto-7.4 net: %v", err)
	}
	data, err := files.ReadFile(d.File)
	if err != nil {
		t.Fatal(err)
	}
	spec, _ := archs.Load("koivisto-7.4")
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		data []byte
	}{
		{"copy", data},
		{"flipped weight", func() []byte { b := append([]byte(nil), data...); b[len(b)/2] ^= 0x04; return b }()},
	} {
		path := filepath.Join(dir, c.name+".net")
		if err := os.WriteFile(path, c.data, 0o644); err != nil {
			t.Fatal(err)
		}
		_, info, err := LoadInfo(spec, path)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		sum := sha256.Sum256(c.data)
		if info.File != path || info.Shipped || info.SHA256 != hex.EncodeToString(sum[:]) {
			t.Errorf("%s: %+v, want sha256 %x", c.name, info, sum)
		}
	}
	if _, _, err := LoadInfo(spec, filepath.Join(dir, "missing.net")); err == nil || !strings.Contains(err.Error(), "missing.net") {
		t.Errorf("missing file: %v", err)
	}
}
