package nets

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/eval"
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

// TestStockfishNameChecked: a net file named as Stockfish names its nets,
// nn-<first 12 hex digits of its SHA-256>.nnue, is the net of that hash or
// is refused with an error naming the file and both hashes, through every
// path that loads a net file (LoadInfo, LoadNamed, the evaluator factory
// UCI's EvalFile uses). Other names are not checked, and
// LoadOptions.AnyName loads a misnamed file.
func TestStockfishNameChecked(t *testing.T) {
	d, err := Default("koivisto-7.4")
	if err != nil || d == nil {
		t.Fatalf("no shipped koivisto-7.4 net: %v", err)
	}
	data, err := files.ReadFile(d.File)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(data)
	hash := hex.EncodeToString(sum[:])
	wrong := "nn-0123456789ab.nnue"
	if strings.HasPrefix(hash, "0123456789ab") {
		t.Fatal("the test's wrong name is right")
	}
	spec, _ := archs.Load("koivisto-7.4")
	dir := t.TempDir()
	for _, c := range []struct {
		name    string
		wantErr bool
	}{
		{wrong, true},
		{"nn-" + hash[:11] + "0.nnue", hash[11] != '0'},
		{"nn-" + hash[:12] + ".nnue", false},
		{"my-net.nnue", false},
		{"nn-" + strings.ToUpper(hash[:12]) + ".nnue", false}, // not a Stockfish name (upper case): not checked
	} {
		path := filepath.Join(dir, c.name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		loads := map[string]func() error{
			"LoadInfo":   func() error { _, _, err := LoadInfo(spec, path); return err },
			"LoadNamed":  func() error { _, _, _, err := LoadNamed("koivisto-7.4", path); return err },
			"eval.New":   func() error { _, err := eval.New("koivisto-7.4", path); return err },
			"nets.Load":  func() error { _, err := Load(spec, path); return err },
			"net's name": func() error { _, _, _, err := LoadNamed(d.Name(), path); return err },
		}
		for how, load := range loads {
			err := load()
			if !c.wantErr {
				if err != nil {
					t.Errorf("%s %s: %v", how, c.name, err)
				}
				continue
			}
			if err == nil {
				t.Errorf("%s %s (SHA-256 %s): loaded, want an error", how, c.name, hash)
				continue
			}
			for _, want := range []string{path, hash, c.name[3:15]} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("%s %s: error %q does not name %s", how, c.name, err, want)
				}
			}
		}
		if _, _, _, err := LoadNamedWith("koivisto-7.4", path, LoadOptions{AnyName: true}); err != nil {
			t.Errorf("LoadNamedWith AnyName %s: %v", c.name, err)
		}
	}
}
