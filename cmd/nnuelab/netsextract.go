package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/nnue"
	"github.com/nnuelab/nnuelab/internal/fsutil"
	"github.com/nnuelab/nnuelab/nets/sfnet"
)

const netsExtractSynopsis = `nets extract PACKAGE.tgz|FILE.wasm [--out DIR] [--no-cache] [--json]

  Pulls the nets out of a WebAssembly build of Stockfish: an npm package
  (npm pack stockfish@17.1.0 gives stockfish-17.1.0.tgz; every module in
  it, parts joined) or one .wasm module (a NAME-part-N.wasm brings in its
  sibling parts). Each net is found by its header in the data section laid
  out as memory and cut where its SHA-256 starts with the digits of a
  name nn-<12 hex>.nnue that the module holds, so every net written is
  checked. The nets go into nnuelab's net cache (where archs sf17.1,
  sf17.1-small and sf18 find theirs: stockfish@17.1.0 and @18.0.8) and,
  with --out, into DIR.`

const netsFetchSynopsis = `nets fetch NAME... [--server URL] [--out DIR] [--arch ARCH]

  Downloads Stockfish nets by name (nn-<12 hex>.nnue) from Stockfish's
  public net server (` + sfnet.DefaultServer + `/api/nn/NAME), checks each
  against its name and keeps it in nnuelab's net cache (and, with --out, in
  DIR). --arch also loads each net with that architecture.`

// runNetsExtract implements `nnuelab nets extract`.
func runNetsExtract(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("nets extract", netsExtractSynopsis, stderr)
	out := fs.String("out", "", "also write the nets into this folder")
	noCache := fs.Bool("no-cache", false, "do not put the nets into the net cache (needs --out)")
	asJSON := fs.Bool("json", false, "print the result as JSON")
	files, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(files) != 1 {
		return usageErrorf(fs, "nets extract: give one package (.tgz) or .wasm file")
	}
	if *noCache && *out == "" {
		return fmt.Errorf("nets extract: --no-cache needs --out (else the nets go nowhere)")
	}
	start := time.Now()
	res, err := sfnet.Extract(files[0], *out, !*noCache)
	if err != nil {
		return err
	}
	took := time.Since(start)
	if *asJSON {
		type netJSON struct {
			Name        string   `json:"name"`
			Bytes       int      `json:"bytes"`
			SHA256      string   `json:"sha256"`
			Shape       string   `json:"shape"`
			Description string   `json:"description"`
			Modules     []string `json:"modules"`
			Files       []string `json:"files"`
		}
		type moduleJSON struct {
			Module string   `json:"module"`
			Parts  []string `json:"parts"`
			Names  []string `json:"names"`
			Nets   []string `json:"nets"`
			Error  string   `json:"error,omitempty"`
		}
		var o struct {
			Source  string       `json:"source"`
			Seconds float64      `json:"seconds"`
			Nets    []netJSON    `json:"nets"`
			Modules []moduleJSON `json:"modules"`
		}
		o.Source, o.Seconds = files[0], took.Seconds()
		for _, n := range res.Nets {
			o.Nets = append(o.Nets, netJSON{n.Name, len(n.Data), n.SHA256, n.Shape, n.Description, n.Modules, n.Files})
		}
		for _, m := range res.Modules {
			mj := moduleJSON{Module: m.Module, Parts: m.Parts, Names: m.Names}
			for _, n := range m.Nets {
				mj.Nets = append(mj.Nets, n.Name)
			}
			if m.Err != nil {
				mj.Error = m.Err.Error()
			}
			o.Modules = append(o.Modules, mj)
		}
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(o)
	}
	for _, m := range res.Modules {
		switch {
		case m.Err != nil:
			fmt.Fprintf(stderr, "# %s: skipped: %v\n", m.Module, m.Err)
		case len(m.Nets) == 0:
			fmt.Fprintf(stderr, "# %s: no net\n", m.Module)
		}
		for _, c := range m.Failed {
			fmt.Fprintf(stderr, "# %s: a net header at memory byte %d gave no checked net: %s\n", m.Module, c.Offset, c.Reason)
		}
	}
	for _, n := range res.Nets {
		fmt.Fprintf(stdout, "%s\t%d bytes\tsha256 %s\t%s\tfrom %s\n", n.Name, len(n.Data), n.SHA256, n.Shape, strings.Join(n.Modules, ", "))
		for _, f := range n.Files {
			fmt.Fprintf(stdout, "  %s\n", f)
		}
	}
	fmt.Fprintf(stderr, "# %d nets from %s in %.1fs (each checked: its SHA-256 starts with its name)\n", len(res.Nets), files[0], took.Seconds())
	return nil
}

// runNetsFetch implements `nnuelab nets fetch`.
func runNetsFetch(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("nets fetch", netsFetchSynopsis, stderr)
	server := fs.String("server", sfnet.DefaultServer, "net server: GET SERVER/api/nn/NAME")
	out := fs.String("out", "", "also copy the nets into this folder")
	archName := fs.String("arch", "", "load each net with this architecture, to check that it fits")
	names, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if len(names) == 0 {
		return usageErrorf(fs, "nets fetch: give a net name (nn-<12 hex>.nnue)")
	}
	var spec *archs.Spec
	if *archName != "" {
		if spec, err = archs.Load(*archName); err != nil {
			return err
		}
	}
	for _, name := range names {
		p, err := sfnet.Fetch(context.Background(), *server, name)
		if err != nil {
			return err
		}
		if spec != nil {
			if _, err := nnue.LoadFile(spec, p); err != nil {
				return fmt.Errorf("%w (the net is cached but does not fit arch %s)", err, spec.Name)
			}
		}
		fmt.Fprintln(stdout, p)
		if *out != "" {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			dst := filepath.Join(*out, name)
			if err := os.MkdirAll(*out, 0o755); err != nil {
				return err
			}
			if err := fsutil.WriteFileAtomic(dst, data, 0o644); err != nil {
				return err
			}
			fmt.Fprintln(stdout, dst)
		}
	}
	return nil
}
