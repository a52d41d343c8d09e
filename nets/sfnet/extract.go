// Package sfnet gets Stockfish's networks: it extracts the nets that a
// WebAssembly build of Stockfish embeds (an npm package such as
// stockfish@17.1.0, or a .wasm module), fetches a net by name from
// Stockfish's public net server, has an installed Stockfish 15.1 export its
// default net (export_net over UCI), and keeps them in nnuelab's net cache
// by name (CacheDir). Stockfish names a net nn- plus the first 12 hex digits of the
// file's SHA-256, so every net that passes through here is checked against
// its name.
package sfnet

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// WasmFile is one WebAssembly module read from disk or a package.
type WasmFile struct {
	// Name is the module's file name (for a module shipped in parts, the
	// first part's name with the -part-0 removed).
	Name string
	// Parts lists the files it was joined from, in order.
	Parts []string
	Data  []byte
}

// partRE matches the parts a split module ships in: NAME-part-N.wasm.
var partRE = regexp.MustCompile(`^(.*)-part-(\d+)\.wasm$`)

// maxModule bounds one module's size (the 18 build is 113 MB).
const maxModule = 1 << 30

// ReadWasm reads the WebAssembly modules that path holds: a gzipped npm
// package (.tgz: every .wasm in it), or one .wasm file. Modules shipped in
// parts (NAME-part-0.wasm, NAME-part-1.wasm, ...) are joined in part order,
// as their loader does; a part given alone brings in its siblings from
// the same folder.
func ReadWasm(p string) ([]WasmFile, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var head [4]byte
	n, _ := io.ReadFull(f, head[:])
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	switch {
	case n >= 2 && head[0] == 0x1f && head[1] == 0x8b:
		return readPackage(p, f)
	case n == 4 && bytes.Equal(head[:], wasmMagic):
	case partRE.MatchString(filepath.Base(p)):
		// Only part 0 starts with the magic; a later part names its module.
	case n == 0:
		return nil, fmt.Errorf("%s: the file is empty (neither a WebAssembly module nor a gzipped package)", p)
	default:
		return nil, fmt.Errorf("%s: neither a WebAssembly module (it starts with % x, not 00 61 73 6d) nor a gzipped package", p, head[:n])
	}
	if m := partRE.FindStringSubmatch(filepath.Base(p)); m != nil {
		return readParts(filepath.Dir(p), m[1])
	}
	data, err := io.ReadAll(io.LimitReader(f, maxModule+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	if len(data) > maxModule {
		return nil, fmt.Errorf("%s: larger than %d bytes", p, maxModule)
	}
	return []WasmFile{{Name: filepath.Base(p), Parts: []string{p}, Data: data}}, nil
}

// readParts joins the parts of module base in dir, read straight into
// one buffer.
func readParts(dir, base string) ([]WasmFile, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var parts []part
	size := int64(0)
	for _, e := range entries {
		if m := partRE.FindStringSubmatch(e.Name()); m != nil && m[1] == base {
			k, err := strconv.Atoi(m[2])
			if err != nil || k > 1000 {
				return nil, fmt.Errorf("%s: part number of %s", dir, e.Name())
			}
			info, err := e.Info()
			if err != nil {
				return nil, err
			}
			size += info.Size()
			parts = append(parts, part{k, e.Name()})
		}
	}
	if size > maxModule {
		return nil, fmt.Errorf("%s: module %s is larger than %d bytes", dir, base, maxModule)
	}
	sort.Slice(parts, func(i, j int) bool { return parts[i].n < parts[j].n })
	w := WasmFile{Name: base + ".wasm", Data: make([]byte, 0, size)}
	for i, p := range parts {
		if p.n != i {
			return nil, fmt.Errorf("%s: module %s has parts %v: part %d is missing", dir, base, partNumbers(parts), i)
		}
		b, err := os.ReadFile(filepath.Join(dir, p.name))
		if err != nil {
			return nil, err
		}
		w.Parts = append(w.Parts, filepath.Join(dir, p.name))
		w.Data = append(w.Data, b...)
	}
	return []WasmFile{w}, nil
}

// joinParts groups files by module and joins the parts of each; whole
// modules pass through. Names are base names, where names the folder or
// package for errors.
func joinParts(files map[string][]byte, where string) ([]WasmFile, error) {
	groups := map[string][]part{}
	var out []WasmFile
	for name, b := range files {
		m := partRE.FindStringSubmatch(path.Base(name))
		if m == nil {
			out = append(out, WasmFile{Name: path.Base(name), Parts: []string{name}, Data: b})
			continue
		}
		k, err := strconv.Atoi(m[2])
		if err != nil || k > 1000 {
			return nil, fmt.Errorf("%s: part number of %s", where, name)
		}
		key := path.Join(path.Dir(name), m[1])
		groups[key] = append(groups[key], part{k, name})
	}
	for key, parts := range groups {
		sort.Slice(parts, func(i, j int) bool { return parts[i].n < parts[j].n })
		w := WasmFile{Name: path.Base(key) + ".wasm"}
		size := 0
		for _, p := range parts {
			size += len(files[p.name])
		}
		w.Data = make([]byte, 0, size)
		for i, p := range parts {
			if p.n != i {
				return nil, fmt.Errorf("%s: module %s has parts %v: part %d is missing", where, path.Base(key), partNumbers(parts), i)
			}
			w.Parts = append(w.Parts, p.name)
			w.Data = append(w.Data, files[p.name]...)
		}
		out = append(out, w)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// part is one file of a module shipped in parts.
type part struct {
	n    int
	name string
}

func partNumbers(parts []part) []int {
	var ns []int
	for _, p := range parts {
		ns = append(ns, p.n)
	}
	return ns
}

// readPackage reads every .wasm file of a gzipped tar (an npm package).
func readPackage(p string, r io.Reader) ([]WasmFile, error) {
	gz, err := gzip.NewReader(r)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", p, err)
	}
	tr := tar.NewReader(gz)
	files := map[string][]byte{}
	var total int64
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("%s: truncated or corrupt package: %w", p, err)
		}
		if h.Typeflag != tar.TypeReg || !strings.HasSuffix(h.Name, ".wasm") {
			continue
		}
		if total += h.Size; h.Size > maxModule || total > 4*maxModule {
			return nil, fmt.Errorf("%s: %s is %d bytes, too large for a module", p, h.Name, h.Size)
		}
		b := make([]byte, h.Size)
		if _, err := io.ReadFull(tr, b); err != nil {
			return nil, fmt.Errorf("%s: truncated or corrupt package in %s: %w", p, h.Name, err)
		}
		files[h.Name] = b
	}
	if len(files) == 0 {
		return nil, fmt.Errorf("%s: the package holds no .wasm module", p)
	}
	return joinParts(files, p)
}

// ModuleNets is what one module held.
type ModuleNets struct {
	Module string
	Parts  []string
	// Names are the net names the module's memory mentions.
	Names []string
	Nets  []Net
	// Failed lists net headers that gave no checked net.
	Failed []Candidate
	// Err is why the module could not be searched (malformed, threaded).
	Err error
}

// FromWasm finds the nets in one module.
func FromWasm(w WasmFile) ModuleNets {
	res := ModuleNets{Module: w.Name, Parts: w.Parts}
	m, err := ParseWasm(w.Data)
	if err != nil {
		res.Err = err
		return res
	}
	mem, base, err := m.Memory()
	if err != nil {
		res.Err = err
		return res
	}
	res.Names = NetNames(mem)
	res.Nets, res.Failed = FindNets(mem, base, res.Names)
	return res
}

// Extracted is the outcome of an extraction: per module what it held,
// and the distinct nets with the files written.
type Extracted struct {
	Modules []ModuleNets
	// Nets are the distinct nets found, by name, with where they were
	// written.
	Nets []Written
}

// Written is one net and the files it was written to.
type Written struct {
	Net
	Modules []string
	Files   []string
}

// Extract extracts the nets of path (see ReadWasm) into outDir (none if
// "") and the net cache (if cache). It fails if no net was found, naming
// what each module held; modules that cannot be searched (a threaded
// build beside a single-threaded one) are reported in the result.
func Extract(p, outDir string, cache bool) (*Extracted, error) {
	ws, err := ReadWasm(p)
	if err != nil {
		return nil, err
	}
	res := &Extracted{}
	byName := map[string]int{}
	for i := range ws {
		mn := FromWasm(ws[i])
		ws[i].Data = nil // the nets keep their bytes; let the rest go
		res.Modules = append(res.Modules, mn)
		for _, n := range mn.Nets {
			i, ok := byName[n.Name]
			if !ok {
				i = len(res.Nets)
				byName[n.Name] = i
				res.Nets = append(res.Nets, Written{Net: n})
			}
			res.Nets[i].Modules = append(res.Nets[i].Modules, mn.Module)
		}
	}
	if len(res.Nets) == 0 {
		var why []string
		for _, m := range res.Modules {
			switch {
			case m.Err != nil:
				why = append(why, fmt.Sprintf("%s: %v", m.Module, m.Err))
			case len(m.Failed) > 0:
				why = append(why, fmt.Sprintf("%s: %d net header(s), none checked: %s", m.Module, len(m.Failed), m.Failed[0].Reason))
			default:
				why = append(why, fmt.Sprintf("%s: no net header (version 0x%08X) in its data", m.Module, sfVersion))
			}
		}
		return res, fmt.Errorf("%s: no Stockfish net found:\n  %s", p, strings.Join(why, "\n  "))
	}
	sort.Slice(res.Nets, func(i, j int) bool { return res.Nets[i].Name < res.Nets[j].Name })
	for i := range res.Nets {
		w := &res.Nets[i]
		if outDir != "" {
			dst := filepath.Join(outDir, w.Name)
			if err := writeNet(dst, w.Data); err != nil {
				return res, err
			}
			w.Files = append(w.Files, dst)
		}
		if cache {
			dst, err := Store(w.Name, w.Data)
			if err != nil {
				return res, err
			}
			w.Files = append(w.Files, dst)
		}
	}
	return res, nil
}

// errNameMismatch is wrapped by every error about a net whose SHA-256 does
// not start with its name's digits.
var errNameMismatch = errors.New("SHA-256 does not match the name")
