package sfnet_test

import (
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/nets/sfnet"
	"github.com/nnuelab/nnuelab/nets/sfnet/sfnettest"
)

// TestExtractStockfishPackages extracts the nets from the real npm
// packages stockfish@17.1.0 and stockfish@18.0.8 (installed by `make
// sf-npm`; the test fails saying so when they are missing) and checks
// each net's size and whole SHA-256, which must start with its name, and
// the modules that hold no reachable net (the threaded builds).
func TestExtractStockfishPackages(t *testing.T) {
	type want struct {
		size   int
		sha256 string
	}
	nets := map[string]want{
		"nn-1c0000000000.nnue": {74874478, "1c0000000000a67d629999d932d0c373f7450ce43cd12d0562868f4eaf9ae2ad"},
		"nn-37f18f62d772.nnue": {3519630, "37f18f62d772f3107e1d6aaca3898c130c3c86f2ab63e6555fbbca20635a899d"},
		"nn-9067e33176e8.nnue": {6617595, "9067e33176e8c5edb7aa8db6a3aedd012f84a1f39872e86357c6c2d0993f314d"}, // the lite builds' net
		"nn-c288c895ea92.nnue": {108919594, "c288c895ea924429ea9092e3f36b2b3c1f00f2a3a4c759ff7e57e79e3b43e4a7"},
	}
	for _, tc := range []struct {
		version string
		found   []string
	}{
		{sfnettest.V171, []string{"nn-1c0000000000.nnue", "nn-37f18f62d772.nnue", "nn-9067e33176e8.nnue"}},
		{sfnettest.V18, []string{"nn-37f18f62d772.nnue", "nn-9067e33176e8.nnue", "nn-c288c895ea92.nnue"}},
	} {
		t.Run(tc.version, func(t *testing.T) {
			pkg := sfnettest.Package(t, tc.version)
			t.Logf("npm package stockfish@%s: %s", tc.version, pkg)
			start := time.Now()
			res, err := sfnet.Extract(pkg, "", false)
			if err != nil {
				t.Fatal(err)
			}
			t.Logf("extracted %d nets from %d modules in %v", len(res.Nets), len(res.Modules), time.Since(start).Round(time.Millisecond))
			var got []string
			for _, n := range res.Nets {
				got = append(got, n.Name)
				w := nets[n.Name]
				if len(n.Data) != w.size || n.SHA256 != w.sha256 {
					t.Errorf("%s: %d bytes, SHA-256 %s; want %d bytes, %s", n.Name, len(n.Data), n.SHA256, w.size, w.sha256)
				}
				t.Logf("%s (%d bytes) in %v: %s", n.Name, len(n.Data), n.Modules, n.Shape)
			}
			if len(got) != len(tc.found) {
				t.Fatalf("nets %v, want %v", got, tc.found)
			}
			for i := range got {
				if got[i] != tc.found[i] {
					t.Fatalf("nets %v, want %v", got, tc.found)
				}
			}
			for _, m := range res.Modules {
				if m.Err != nil {
					t.Logf("%s: %v", m.Module, m.Err)
				}
				for _, c := range m.Failed {
					t.Errorf("%s: a net header at %d gave no net: %s", m.Module, c.Offset, c.Reason)
				}
			}
		})
	}
}
