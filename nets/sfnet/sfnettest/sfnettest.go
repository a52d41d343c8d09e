// Package sfnettest gives tests Stockfish 17.1 and 18 as the npm
// packages stockfish@17.1.0 and stockfish@18.0.8 (GPL-3.0, WebAssembly
// builds by Chess.com that run under Node.js): the package files, their
// embedded nets extracted into the net cache, and the 17.1 engine run with
// node as the reference for exactness tests.
//
// The packages are not in the repository (147 and 168 MB): `make sf-npm`
// (part of `make test`) downloads them once with `npm pack` into Dir(). A
// test that needs one fails, not skips, when it is missing, saying how to
// get it: the exactness claims must not pass by being skipped.
package sfnettest

import (
	"archive/tar"
	"compress/gzip"
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/engine/uciclient"
	"github.com/nnuelab/nnuelab/nets/sfnet"

	"github.com/nnuelab/nnuelab/internal/testtier"
)

// The packages, pinned by the SHA-1 that npm pack reports (the
// registry's shasum of the tarball).
const (
	V171 = "17.1.0"
	V18  = "18.0.8"
)

var pinned = map[string]string{
	V171: "fe49c54a9fc0ed601d5d7e3108ed11c0522a414d",
	V18:  "f361d4b05f4c829a6f17da5cf18328525c5268f6",
}

var engineName = map[string]string{V171: "Stockfish 17.1", V18: "Stockfish 18"}

// Nets each package embeds (Stockfish's defaults: EvalFile, EvalFileSmall).
var Nets = map[string][]string{
	V171: {"nn-1c0000000000.nnue", "nn-37f18f62d772.nnue"},
	V18:  {"nn-c288c895ea92.nnue", "nn-37f18f62d772.nnue"},
}

// Dir is the folder the packages are kept in: $NNUELAB_NPM_CACHE, else
// nnuelab/npm in the user cache folder (where `make sf-npm` puts them).
func Dir() string {
	if d := os.Getenv("NNUELAB_NPM_CACHE"); d != "" {
		return d
	}
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "nnuelab", "npm")
	}
	return filepath.Join(os.TempDir(), "nnuelab-npm")
}

var checked sync.Map // version -> *checkOnce

type checkOnce struct {
	once sync.Once
	path string
	err  error
}

// Package returns the path of stockfish-VERSION.tgz, checked against its
// pinned SHA-1 (once per test binary). It fails t when the package is
// missing or is another file.
func Package(t testing.TB, version string) string {
	t.Helper()
	testtier.Needs(t, "npm's stockfish@"+version+" package (make sf-npm)")
	want, ok := pinned[version]
	if !ok {
		t.Fatalf("no pinned stockfish npm package %s", version)
	}
	v, _ := checked.LoadOrStore(version, &checkOnce{})
	c := v.(*checkOnce)
	c.once.Do(func() {
		c.path = filepath.Join(Dir(), "stockfish-"+version+".tgz")
		f, err := os.Open(c.path)
		if err != nil {
			c.err = fmt.Errorf("this test needs the npm package stockfish@%s (%s as WebAssembly, GPL-3.0), which is not installed: %w; "+
				"run `make sf-npm` (npm pack stockfish@%s into %s)", version, engineName[version], err, version, Dir())
			return
		}
		defer f.Close()
		h := sha1.New()
		if _, err := io.Copy(h, f); err != nil {
			c.err = err
			return
		}
		if got := hex.EncodeToString(h.Sum(nil)); got != want {
			c.err = fmt.Errorf("%s has SHA-1 %s, npm's stockfish@%s is %s: remove it and run `make sf-npm`", c.path, got, version, want)
		}
	})
	if c.err != nil {
		t.Fatal(c.err)
	}
	return c.path
}

// Unpacked returns the folder holding the unpacked package (its files
// under package/), unpacking the tarball into Dir() on first use.
func Unpacked(t testing.TB, version string) string {
	t.Helper()
	tgz := Package(t, version)
	dir := filepath.Join(Dir(), "stockfish-"+version)
	if _, err := os.Stat(filepath.Join(dir, "package", "package.json")); err == nil {
		return dir
	}
	// Unpack beside it and rename into place: another test process may be
	// doing the same.
	tmp, err := os.MkdirTemp(Dir(), ".unpack-")
	if err != nil {
		t.Fatal(err)
	}
	defer os.RemoveAll(tmp)
	if err := untar(tgz, tmp); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, dir); err != nil {
		if _, err2 := os.Stat(filepath.Join(dir, "package", "package.json")); err2 != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// untar unpacks a gzipped tarball's regular files into dir.
func untar(tgz, dir string) error {
	f, err := os.Open(tgz)
	if err != nil {
		return err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	tr := tar.NewReader(gz)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("%s: %w", tgz, err)
		}
		name := filepath.Clean(h.Name)
		if h.Typeflag != tar.TypeReg || strings.HasPrefix(name, "..") || filepath.IsAbs(name) {
			continue
		}
		dst := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		out, err := os.OpenFile(dst, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o644)
		if err != nil {
			return err
		}
		if _, err := io.Copy(out, tr); err != nil {
			out.Close()
			return err
		}
		if err := out.Close(); err != nil {
			return err
		}
	}
}

var netsOnce sync.Map // version -> *checkOnce

// CachedNets makes sure the nets of the package are in the net cache,
// extracting them from the package once if any is missing, and returns
// their paths by name.
func CachedNets(t testing.TB, version string) map[string]string {
	t.Helper()
	paths := map[string]string{}
	missing := false
	for _, name := range Nets[version] {
		p, err := sfnet.Cached(name)
		if err != nil {
			missing = true
			break
		}
		paths[name] = p
	}
	if !missing {
		return paths
	}
	tgz := Package(t, version)
	v, _ := netsOnce.LoadOrStore(version, &checkOnce{})
	c := v.(*checkOnce)
	c.once.Do(func() {
		start := time.Now()
		_, c.err = sfnet.Extract(tgz, "", true)
		t.Logf("extracted the nets of stockfish@%s into the net cache in %v", version, time.Since(start).Round(time.Millisecond))
	})
	if c.err != nil {
		t.Fatal(c.err)
	}
	for _, name := range Nets[version] {
		p, err := sfnet.Cached(name)
		if err != nil {
			t.Fatalf("stockfish@%s: %v after extracting", version, err)
		}
		paths[name] = p
	}
	return paths
}

// Engine is the package's single-threaded WebAssembly engine under node.
type Engine struct {
	e *uciclient.Engine
	// Name is the engine's "id name".
	Name string
}

// scripts are the engines' loaders in each package.
var scripts = map[string]string{
	V171: "package/src/stockfish-17.1-single-a496a04.js",
	V18:  "package/bin/stockfish-18-single.js",
}

// StartEngine starts the package's engine with node and waits for uciok;
// it is stopped when the test ends. A missing node fails the test.
func StartEngine(t testing.TB, version string) *Engine {
	testtier.Needs(t, "Node.js (Stockfish as WebAssembly runs under node)")
	t.Helper()
	dir := Unpacked(t, version)
	node, err := exec.LookPath("node")
	if err != nil {
		t.Fatalf("the reference engine of stockfish@%s runs under Node.js, which is not installed: %v", version, err)
	}
	script := filepath.Join(dir, scripts[version])
	ue, err := uciclient.Start(uciclient.Config{Path: node, Args: []string{script}, Dir: filepath.Dir(script)})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ue.Quit(10 * time.Second) })
	if err := ue.Handshake(context.Background(), time.Now().Add(time.Minute)); err != nil {
		t.Fatalf("stockfish@%s under node: waiting for uciok: %v", version, ue.Explain(err))
	}
	return &Engine{e: ue, Name: ue.Name}
}

// until sends the command lines and returns the lines the engine prints
// (as printed) before the first one equal to token.
func (e *Engine) until(cmds []string, token string, timeout time.Duration) ([]string, error) {
	var lines []string
	if err := e.e.Send(cmds...); err != nil {
		return nil, e.e.Explain(err)
	}
	deadline := time.Now().Add(timeout)
	for {
		l, err := e.e.ReadLine(context.Background(), deadline)
		switch {
		case errors.Is(err, uciclient.ErrExited):
			return lines, fmt.Errorf("the engine exited before %q (its last lines: %q; %s)", token, tail(lines), e.e.Describe(err))
		case errors.Is(err, uciclient.ErrTimeout):
			return lines, fmt.Errorf("no %q after %v (last lines: %q)", token, timeout, tail(lines))
		case err != nil:
			return lines, err
		}
		if l.Text == token {
			return lines, nil
		}
		lines = append(lines, l.Raw)
	}
}

func tail(l []string) []string {
	if len(l) > 5 {
		return l[len(l)-5:]
	}
	return l
}

// Eval sets the position and returns what the engine's eval command
// prints, from the line " NNUE derived piece values:" to the "Final
// evaluation" line (each line with its newline), or that one line when
// the side to move is in check.
func (e *Engine) Eval(fen string) (string, error) {
	lines, err := e.until([]string{"position fen " + fen, "eval", "isready"}, "readyok", 2*time.Minute)
	if err != nil {
		return "", fmt.Errorf("eval of %s: %w", fen, err)
	}
	var b strings.Builder
	on := false
	for _, l := range lines {
		if strings.HasPrefix(l, " NNUE derived piece values:") || strings.HasPrefix(l, "Final evaluation: none") {
			on = true
		}
		if on {
			b.WriteString(l)
			b.WriteByte('\n')
		}
		if strings.HasPrefix(l, "Final evaluation") {
			return b.String(), nil
		}
	}
	return "", fmt.Errorf("eval of %s: no \"Final evaluation\" line in %q", fen, lines)
}
