// Package nets holds nnuelab's shipped networks (embedded in the binary and
// listed in manifest.toml with their architecture, hash, source and
// license) and makes every architecture of archs/ available to the engine
// under its name: `setoption name Arch value koivisto-7.4` loads the
// shipped net, `EvalFile` any other file of the architecture's format.
package nets

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/eval"
	"github.com/nnuelab/nnuelab/engine/nnue"
	"github.com/nnuelab/nnuelab/internal/configerr"
	"github.com/nnuelab/nnuelab/nets/sfnet"
)

//go:embed manifest.toml *.net *.nnue *.zst
var files embed.FS

// Entry is one shipped network. Nets trained by nnuelab also say how: the
// dataset, the command, the epochs and the final losses, so that the line
// alone is enough to retrain the net and check it.
type Entry struct {
	File    string `toml:"file"`
	Arch    string `toml:"arch"`
	SHA256  string `toml:"sha256"`
	Source  string `toml:"source"`
	License string `toml:"license"`
	// LicenseFile names the licence text shipped beside a third-party
	// net (nets/LICENSE-*.txt, embedded; Entry.Notice returns it).
	LicenseFile string `toml:"license_file,omitempty"`

	Dataset   string  `toml:"dataset,omitempty"`
	Command   string  `toml:"command,omitempty"`
	Epochs    int     `toml:"epochs,omitempty"`
	TrainLoss float64 `toml:"train_loss,omitempty"`
	ValLoss   float64 `toml:"val_loss,omitempty"`
}

// Manifest returns the shipped networks.
func Manifest() ([]Entry, error) {
	data, err := files.ReadFile("manifest.toml")
	if err != nil {
		return nil, err
	}
	var m struct {
		Net []Entry `toml:"net"`
	}
	if _, err := configerr.DecodeTOML("nets/manifest.toml", data, &m, nil); err != nil {
		return nil, err
	}
	return m.Net, nil
}

// Default returns the shipped net of an architecture, or nil.
func Default(archName string) (*Entry, error) {
	m, err := Manifest()
	if err != nil {
		return nil, err
	}
	for i := range m {
		if m[i].Arch == archName {
			return &m[i], nil
		}
	}
	return nil, nil
}

// Bytes returns the shipped net's file as embedded in the binary, checked
// against its SHA-256 (to write a copy of it, e.g. as a warm start).
func (e *Entry) Bytes() ([]byte, error) {
	data, err := files.ReadFile(e.File)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != e.SHA256 {
		return nil, fmt.Errorf("shipped net %s: SHA-256 %s, manifest says %s", e.File, got, e.SHA256)
	}
	return data, nil
}

// Load builds the network of spec from file, or from the architecture's
// shipped net when file is "".
func Load(spec *archs.Spec, file string) (*nnue.Network, error) {
	n, _, err := LoadInfo(spec, file)
	return n, err
}

// NetInfo says which network file a load read.
type NetInfo struct {
	// File is the path given, the path of Stockfish's cached export, or,
	// for a shipped net, its name in nets/ (see Shipped).
	File string
	// SHA256 is the SHA-256 (hex) of the file's bytes as they were read.
	SHA256 string
	// Shipped is true for a net embedded in the binary, whose hash was
	// checked against nets/manifest.toml.
	Shipped bool
}

// LoadInfo is Load, also saying which file it read and that file's
// SHA-256, computed over the very bytes the network was built from.
func LoadInfo(spec *archs.Spec, file string) (*nnue.Network, NetInfo, error) {
	return loadInfo(spec, file, LoadOptions{})
}

func loadInfo(spec *archs.Spec, file string, o LoadOptions) (*nnue.Network, NetInfo, error) {
	if file != "" {
		n, info, err := loadFile(spec, file, o)
		return withSmall(spec, n, info, err)
	}
	d, err := Default(spec.Name)
	if err != nil {
		return nil, NetInfo{}, err
	}
	if d == nil && spec.Net.Name != "" {
		n, info, err := loadNamed(spec)
		return withSmall(spec, n, info, err)
	}
	if d == nil && spec.Net.Format == "sf15.1" {
		// Stockfish 15.1's own net is not ours to ship, but the installed
		// Stockfish writes it (export_net); the export is cached by hash.
		if path, err := sfnet.Cached151(); err == nil {
			return loadFile(spec, path, LoadOptions{})
		}
	}
	if d == nil {
		hint := "give a net file of format " + spec.Net.Format + " (UCI: setoption name EvalFile; CLI: --net)"
		if spec.Net.Format == "sf15.1" {
			hint += " (Stockfish 15.1 writes its own with the command: export_net FILE)"
		}
		return nil, NetInfo{}, fmt.Errorf("architecture %s ships no network: %s", spec.Name, hint)
	}
	return loadShipped(spec, d)
}

// loadShipped builds spec's network from the embedded net d.
func loadShipped(spec *archs.Spec, d *Entry) (*nnue.Network, NetInfo, error) {
	data, err := files.ReadFile(d.File)
	if err != nil {
		return nil, NetInfo{}, err
	}
	if err := checkShipped(d, data); err != nil {
		return nil, NetInfo{}, err
	}
	info := NetInfo{File: d.File, SHA256: strings.ToLower(d.SHA256), Shipped: true}
	if bytes.HasPrefix(data, []byte(Magic)) {
		n, err := readFloatNet(spec, bytes.NewReader(data), "shipped "+d.File)
		return n, info, err
	}
	n, err := nnue.Read(spec, bytes.NewReader(data))
	if err != nil {
		return nil, NetInfo{}, fmt.Errorf("shipped net %s: %w", d.File, err)
	}
	return n, info, nil
}

// loadFile builds a network from a file of spec's format (or an nnuelab
// float net, recognised by its magic, whatever the architecture's
// published format) and hashes the bytes it reads.
func loadFile(spec *archs.Spec, path string, o LoadOptions) (*nnue.Network, NetInfo, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, NetInfo{}, fmt.Errorf("net %s: %w", path, err)
	}
	defer f.Close()
	h := sha256.New()
	in := bufio.NewReaderSize(io.TeeReader(f, h), 1<<16)
	var n *nnue.Network
	if head, _ := in.Peek(len(Magic)); spec.Net.Format == "nnuelab" || spec.Net.Format == "float" || string(head) == Magic {
		n, err = readFloatNet(spec, in, path)
	} else if n, err = nnue.Read(spec, in); err != nil {
		err = fmt.Errorf("net %s (arch %s): %w", path, spec.Name, err)
	}
	if err != nil {
		return nil, NetInfo{}, err
	}
	// The hash covers the whole file, also bytes the reader left unread.
	if _, err := io.Copy(io.Discard, in); err != nil {
		return nil, NetInfo{}, fmt.Errorf("net %s: %w", path, err)
	}
	sum := hex.EncodeToString(h.Sum(nil))
	if err := checkStockfishName(path, sum); err != nil && !o.AnyName {
		return nil, NetInfo{}, err
	}
	return n, NetInfo{File: path, SHA256: sum}, nil
}

// checkStockfishName checks a net file named as Stockfish names its nets,
// nn-<the first 12 hex digits of its SHA-256>.nnue, against sum, the
// SHA-256 (hex) of its bytes: a file under another net's name is a damaged
// copy or the wrong net, never silently loaded. Other names pass.
func checkStockfishName(path, sum string) error {
	name := filepath.Base(path)
	if !sfnet.ValidName(name) || strings.HasPrefix(sum, name[3:15]) {
		return nil
	}
	return fmt.Errorf("net %s is named for a net whose SHA-256 starts with %s, but its SHA-256 is %s (its name would be nn-%s.nnue): a damaged copy or another net under this name",
		path, name[3:15], sum, sum[:12])
}

// shippedChecks holds the outcome of checking each embedded net against
// its manifest hash, by file name: embedded bytes cannot change, so each
// net is hashed once per process however often it is loaded.
var shippedChecks sync.Map // string -> *shippedCheck

type shippedCheck struct {
	once sync.Once
	err  error
}

// checkShipped checks the embedded bytes of d against d.SHA256, once per
// process per net.
func checkShipped(d *Entry, data []byte) error {
	v, _ := shippedChecks.LoadOrStore(d.File, &shippedCheck{})
	c := v.(*shippedCheck)
	c.once.Do(func() { c.err = verifyNet(d.File, data, d.SHA256) })
	return c.err
}

// verifyNet checks that data, the bytes of the shipped net name, have the
// SHA-256 want (hex, from nets/manifest.toml). A koivisto .net or leorik
// .nnue file carries no checksum of its own, so this is what catches a
// corrupted (bit-flipped, truncated) copy.
func verifyNet(name string, data []byte, want string) error {
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != strings.ToLower(want) {
		return fmt.Errorf("shipped net %s is corrupt: its SHA-256 is %s, nets/manifest.toml says %s", name, got, want)
	}
	return nil
}

// factory returns the eval factory of an architecture name or TOML path.
func factory(name string) eval.Factory {
	return func(file string) (eval.Evaluator, error) {
		spec, err := archs.Load(name)
		if err != nil {
			return nil, err
		}
		n, err := Load(spec, file)
		if err != nil {
			return nil, err
		}
		return &explained{nnue.NewEvaluator(n)}, nil
	}
}

// explained adds the UCI `eval` breakdown to the NNUE evaluator.
type explained struct{ *nnue.Evaluator }

// Clone returns an evaluator of the same network for another search
// thread (eval.Cloner).
func (e *explained) Clone() eval.Evaluator { return &explained{e.Evaluator.Clone()} }

// Explain prints the network's internals for the position.
func (e *explained) Explain(p *board.Position) string {
	return nnue.Explain(e.Network(), p)
}

// Name is the name a shipped net is selected by (UCI Arch, --arch): its
// file name without the extensions, e.g. "chess768-first".
func (e *Entry) Name() string {
	n := e.File
	for _, ext := range []string{".zst", ".nnue", ".net"} {
		n = strings.TrimSuffix(n, ext)
	}
	return n
}

// LoadNamed loads what a name selects: an architecture (a name from archs/
// or a .toml path) with file or its shipped net, or a shipped net by its
// own name (Entry.Name) with its architecture.
func LoadNamed(name, file string) (*archs.Spec, *nnue.Network, NetInfo, error) {
	return LoadNamedWith(name, file, LoadOptions{})
}

// LoadOptions relax the checks of a net file's load.
type LoadOptions struct {
	// AnyName loads a file named like a Stockfish net, nn-<12 hex
	// digits>.nnue, whose SHA-256 does not start with those digits
	// (otherwise an error: a file under a name that is not its own is
	// taken to be another net, or a damaged copy).
	AnyName bool
}

// LoadNamedWith is LoadNamed with options.
func LoadNamedWith(name, file string, o LoadOptions) (*archs.Spec, *nnue.Network, NetInfo, error) {
	var shipped *Entry
	if m, err := Manifest(); err == nil && !isBuiltinArch(name) {
		for i := range m {
			if m[i].Name() == name {
				shipped = &m[i]
			}
		}
	}
	archName := name
	if shipped != nil {
		archName = shipped.Arch
	}
	spec, err := archs.Load(archName)
	if err != nil {
		return nil, nil, NetInfo{}, err
	}
	var n *nnue.Network
	var info NetInfo
	if shipped != nil && file == "" {
		n, info, err = loadShipped(spec, shipped)
	} else {
		n, info, err = loadInfo(spec, file, o)
	}
	return spec, n, info, err
}

func isBuiltinArch(name string) bool {
	for _, a := range archs.Builtin() {
		if a == name {
			return true
		}
	}
	return false
}

// netFactory returns the eval factory of a shipped net: its architecture
// with that net (or with the file given instead).
func netFactory(e Entry) eval.Factory {
	return func(file string) (eval.Evaluator, error) {
		spec, err := archs.Load(e.Arch)
		if err != nil {
			return nil, err
		}
		var n *nnue.Network
		if file != "" {
			n, err = Load(spec, file)
		} else {
			n, _, err = loadShipped(spec, &e)
		}
		if err != nil {
			return nil, err
		}
		return &explained{nnue.NewEvaluator(n)}, nil
	}
}

func init() {
	for _, name := range archs.Builtin() {
		if _, err := archs.Load(name); err == nil {
			eval.Register(name, factory(name))
		}
	}
	// Every shipped net is also selectable by its own name, so that an
	// architecture's other nets (a newer generation, say) can be played
	// without a file; a name equal to an architecture's stays the arch.
	if m, err := Manifest(); err == nil {
		for _, e := range m {
			if name := e.Name(); !isBuiltinArch(name) {
				eval.Register(name, netFactory(e))
			}
		}
	}
	eval.RegisterResolver(func(name string) (eval.Factory, bool) {
		if !strings.HasSuffix(name, ".toml") {
			return nil, false
		}
		if _, err := os.Stat(filepath.Clean(name)); err != nil {
			return nil, false
		}
		return factory(name), true
	})
}
