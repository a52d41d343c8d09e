package sfnet

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// isolateCache points the net cache at a fresh folder for the test.
func isolateCache(t *testing.T) string {
	t.Helper()
	d := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", d)
	return filepath.Join(d, "nnuelab")
}

func writeFile(t *testing.T, dir, name string, data []byte) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// TestExtractSynthetic extracts two nets laid out over many segments (zero
// runs left out) from a .wasm file, into a folder and the cache.
func TestExtractSynthetic(t *testing.T) {
	cache := isolateCache(t)
	mod, nets := synthModule(1)
	m, err := ParseWasm(mod)
	if err != nil {
		t.Fatal(err)
	}
	if len(m.Segments) < 20 {
		t.Fatalf("only %d segments: the zero runs were not left out", len(m.Segments))
	}
	dir := t.TempDir()
	p := writeFile(t, dir, "engine.wasm", mod)
	out := filepath.Join(dir, "out")
	res, err := Extract(p, out, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Nets) != 2 {
		t.Fatalf("%d nets, want 2", len(res.Nets))
	}
	for _, want := range nets {
		name, _ := NameOf(want)
		for _, dst := range []string{filepath.Join(out, name), filepath.Join(cache, name)} {
			got, err := os.ReadFile(dst)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s: %d bytes, not the net (%d bytes)", dst, len(got), len(want))
			}
		}
		if c, err := Cached(name); err != nil || c != filepath.Join(cache, name) {
			t.Errorf("Cached(%s) = %s, %v", name, c, err)
		}
	}
	if !strings.Contains(res.Nets[0].Shape+res.Nets[1].Shape, "HalfKAv2_hm (22528 inputs) -> 512, 8 layer stacks of 700 bytes") {
		t.Errorf("shapes %q, %q", res.Nets[0].Shape, res.Nets[1].Shape)
	}
}

// TestExtractParts joins a module shipped in parts, from any part and in
// a package, and reports a missing part.
func TestExtractParts(t *testing.T) {
	isolateCache(t)
	mod, nets := synthModule(2)
	dir := t.TempDir()
	third := len(mod) / 3
	parts := [][]byte{mod[:third], mod[third : 2*third], mod[2*third:]}
	files := map[string][]byte{}
	var order []string
	for i, b := range parts {
		name := fmt.Sprintf("stockfish-x-single-abc-part-%d.wasm", i)
		writeFile(t, dir, name, b)
		files["package/src/"+name] = b
		order = append(order, "package/src/"+name)
	}
	res, err := Extract(filepath.Join(dir, "stockfish-x-single-abc-part-1.wasm"), "", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Nets) != 2 || len(res.Modules) != 1 || len(res.Modules[0].Parts) != 3 || res.Modules[0].Module != "stockfish-x-single-abc.wasm" {
		t.Fatalf("from parts: %d nets, %d modules (failed: %v)", len(res.Nets), len(res.Modules), res.Modules[0].Failed)
	}

	// A package with the parts, a threaded build (passive segments) and
	// a whole module holding one of the nets again.
	threaded := module(4, []segment{{data: []byte("passive data"), passive: true}})
	files["package/src/stockfish-x-abc.wasm"] = threaded
	_, one := synthModule(3)
	files["package/src/lite.wasm"] = module(uint64(len(nets[1])/pageSize+2), splitSegments(synthMemory(nets[1]), 64, 16))
	files["package/README.md"] = []byte("not a module")
	order = append(order, "package/src/stockfish-x-abc.wasm", "package/src/lite.wasm", "package/README.md")
	pkg := writeFile(t, dir, "stockfish-x.tgz", tgz(t, files, order))
	res, err = Extract(pkg, "", false)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Nets) != 2 || len(res.Modules) != 3 {
		t.Fatalf("package: %d nets, %d modules", len(res.Nets), len(res.Modules))
	}
	for _, w := range res.Nets {
		if name, _ := NameOf(nets[1]); w.Name == name && len(w.Modules) != 2 {
			t.Errorf("%s found in %v, want both modules", w.Name, w.Modules)
		}
	}
	var threadedErr error
	for _, m := range res.Modules {
		if m.Module == "stockfish-x-abc.wasm" {
			threadedErr = m.Err
		}
	}
	if !errors.Is(threadedErr, ErrNoActiveData) {
		t.Errorf("threaded module: %v", threadedErr)
	}
	_ = one

	os.Remove(filepath.Join(dir, "stockfish-x-single-abc-part-1.wasm"))
	_, err = Extract(filepath.Join(dir, "stockfish-x-single-abc-part-0.wasm"), "", false)
	if err == nil || !strings.Contains(err.Error(), "part 1 is missing") || !strings.Contains(err.Error(), "stockfish-x-single-abc") {
		t.Errorf("missing part: %v", err)
	}
}

// TestExtractErrors checks that damaged modules, packages and nets give
// errors that name the file and what was wrong.
func TestExtractErrors(t *testing.T) {
	isolateCache(t)
	mod, nets := synthModule(4)
	m, err := ParseWasm(mod)
	if err != nil {
		t.Fatal(err)
	}
	data := m.Sections[len(m.Sections)-1]
	seg := m.Segments[5]
	mem := synthMemory(nets...)
	// The net's bytes changed after its name was taken: no cut matches.
	bad := synthMemory(nets[0])
	bad[bytes.Index(bad, nets[0][:100])+5000] ^= 1
	badNet := module(uint64(len(bad)/pageSize+2), splitSegments(bad, 1024, 16))
	// A global.get offset (a relocatable module).
	reloc := bytes.Clone(mod)
	off := seg.At + 1 // flags, then the i32.const opcode
	reloc[off] = 0x23
	// A segment far beyond the others.
	far := module(1<<16, []segment{{offset: 16, data: []byte("abc")}, {offset: 1 << 31, data: []byte("x")}})
	tooSmall := module(0, splitSegments(mem, 1024, 16))
	gz := tgz(t, map[string][]byte{"package/src/a.wasm": mod}, []string{"package/src/a.wasm"})

	cases := []struct {
		name   string
		data   []byte
		substr []string
	}{
		{"empty.wasm", nil, []string{"empty.wasm", "the file is empty"}},
		{"text.wasm", []byte("hello world"), []string{"text.wasm", "68 65 6c 6c", "not 00 61 73 6d"}},
		{"header.wasm", mod[:6], []string{"header.wasm", "truncated", "8-byte header"}},
		{"version.wasm", append([]byte("\x00asm\x02\x00\x00\x00"), mod[8:]...), []string{"version.wasm", "version 2"}},
		{"cut-in-data.wasm", mod[:data.At+100], []string{"cut-in-data.wasm", "truncated", "section 11 (data)", "claims"}},
		{"cut-at-end.wasm", mod[:len(mod)-1], []string{"cut-at-end.wasm", "truncated", "section 11 (data)"}},
		{"reloc.wasm", reloc, []string{"reloc.wasm", "global.get", "relocatable", "byte " + fmt.Sprint(off)}},
		{"far.wasm", far, []string{"far.wasm", "corrupt offsets"}},
		{"small-memory.wasm", tooSmall, []string{"small-memory.wasm", "beyond the initial memory of 0 pages"}},
		{"no-nets.wasm", module(2, []segment{{offset: 8, data: []byte("nothing here")}}), []string{"no-nets.wasm", "no Stockfish net found", "no net header"}},
		{"bad-net.wasm", badNet, []string{"bad-net.wasm", "no Stockfish net found", "none checked", "no cut gives a name the module holds", "HalfKAv2_hm (22528 inputs) -> 512"}},
		{"cut.tgz", gz[:len(gz)/2], []string{"cut.tgz", "truncated or corrupt package"}},
		{"empty.tgz", tgz(t, map[string][]byte{"package/x.js": []byte("x")}, []string{"package/x.js"}), []string{"empty.tgz", "no .wasm module"}},
	}
	dir := t.TempDir()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := writeFile(t, dir, tc.name, tc.data)
			_, err := Extract(p, "", false)
			if err == nil {
				t.Fatal("no error")
			}
			t.Log(err)
			for _, s := range tc.substr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		})
	}
	if _, err := Extract(filepath.Join(dir, "missing.wasm"), "", false); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file: %v", err)
	}
}

// TestCache checks Store and Cached: a copy whose bytes do not match its
// name is refused, and a damaged cached copy is removed.
func TestCache(t *testing.T) {
	cache := isolateCache(t)
	_, nets := synthModule(5)
	name, _ := NameOf(nets[1])
	if _, err := Cached(name); !errors.Is(err, ErrNotCached) {
		t.Fatalf("empty cache: %v", err)
	}
	if _, err := Store("nn-000000000000.nnue", nets[1]); !errors.Is(err, errNameMismatch) || !strings.Contains(err.Error(), name) {
		t.Errorf("store under another name: %v", err)
	}
	if _, err := Store("net.nnue", nets[1]); err == nil || !strings.Contains(err.Error(), "not a Stockfish net name") {
		t.Errorf("store under a bad name: %v", err)
	}
	p, err := Store(name, nets[1])
	if err != nil || p != filepath.Join(cache, name) {
		t.Fatalf("store: %s, %v", p, err)
	}
	if got, err := Cached(name); err != nil || got != p {
		t.Fatalf("cached: %s, %v", got, err)
	}
	damaged := bytes.Clone(nets[1])
	damaged[100] ^= 0x40
	if err := os.WriteFile(p, damaged, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = Cached(name)
	if !errors.Is(err, errNameMismatch) || !strings.Contains(err.Error(), "removed it") || !strings.Contains(err.Error(), p) {
		t.Errorf("damaged copy: %v", err)
	}
	if _, err := os.Stat(p); !os.IsNotExist(err) {
		t.Errorf("the damaged copy is still there")
	}
}

// TestFetch fetches nets from a local server that plays Stockfish's net
// server (no network in tests): a good net is cached, a wrong one, a
// missing one and a cut-off answer are errors naming the net.
func TestFetch(t *testing.T) {
	isolateCache(t)
	_, nets := synthModule(6)
	good, _ := NameOf(nets[0])
	other, _ := NameOf(nets[1])
	wrong := "nn-0123456789ab.nnue"
	var requests []string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests = append(requests, r.URL.Path)
		switch r.URL.Path {
		case "/api/nn/" + good:
			w.Write(nets[0])
		case "/api/nn/" + wrong:
			w.Write(nets[1]) // another net's bytes
		case "/api/nn/" + other:
			w.Header().Set("Content-Length", fmt.Sprint(len(nets[1])))
			w.Write(nets[1][:len(nets[1])/2]) // the connection drops
		default:
			http.Error(w, "Not Found", http.StatusNotFound)
		}
	}))
	defer srv.Close()
	ctx := context.Background()
	p, err := Fetch(ctx, srv.URL, good)
	if err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(p); !bytes.Equal(b, nets[0]) {
		t.Fatalf("%s does not hold the net", p)
	}
	if _, err := Fetch(ctx, srv.URL, good); err != nil || len(requests) != 1 {
		t.Errorf("a cached net was downloaded again (%v, requests %v)", err, requests)
	}
	for _, tc := range []struct {
		name   string
		substr []string
	}{
		{wrong, []string{wrong, "SHA-256", "names " + other}},
		{"nn-ffffffffffff.nnue", []string{"nn-ffffffffffff.nnue", "404"}},
		{other, []string{other}},
		{"my-net.nnue", []string{"not a Stockfish net name"}},
	} {
		_, err := Fetch(ctx, srv.URL, tc.name)
		if err == nil {
			t.Errorf("%s: no error", tc.name)
			continue
		}
		for _, s := range tc.substr {
			if !strings.Contains(err.Error(), s) {
				t.Errorf("%s: error %q does not mention %q", tc.name, err, s)
			}
		}
		if _, err := Cached(tc.name); err == nil {
			t.Errorf("%s was cached", tc.name)
		}
	}
}

// FuzzParseWasm feeds mutated modules to the parser, the memory layout
// and the net finder: an error or a result, never a panic or an
// allocation out of proportion to the input. The seeds are a synthetic
// module with two nets, its parts and hand-made damage; the corpus that
// `go test -fuzz FuzzParseWasm` grows stays in testdata/fuzz.
func FuzzParseWasm(f *testing.F) {
	mod, _ := synthModule(7)
	f.Add(mod)
	f.Add(mod[:len(mod)/2])
	f.Add(mod[:9])
	f.Add(module(1, []segment{{offset: 1 << 31, data: []byte("x")}}))
	f.Add(module(1<<15, []segment{{offset: 0xFFFFFFF0, data: make([]byte, 64)}}))
	f.Add(module(2, []segment{{data: []byte("abc"), passive: true}}))
	f.Add(append(append([]byte(nil), mod[:8]...), 11, 0x80, 0x80, 0x80, 0x80, 0x10))
	f.Add([]byte("\x00asm\x01\x00\x00\x00\x0b\x07\x01\x00\x41\x7f\x0b\x01\x00"))
	f.Add([]byte("\x00asm\x01\x00\x00\x00\x02\x08\x01\x01a\x01b\x02\x00\x01"))
	f.Fuzz(func(t *testing.T, data []byte) {
		m, err := ParseWasm(data)
		if err != nil {
			return
		}
		mem, base, err := m.Memory()
		if err != nil {
			return
		}
		if len(mem) > 2*len(data)+1<<24+1<<20 {
			t.Fatalf("memory image of %d bytes from %d bytes of module", len(mem), len(data))
		}
		names := NetNames(mem)
		for _, n := range func() []Net { n, _ := FindNets(mem, base, names); return n }() {
			if got, _ := NameOf(n.Data); got != n.Name {
				t.Fatalf("net %s has SHA-256 name %s", n.Name, got)
			}
		}
	})
}
