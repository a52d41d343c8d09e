// Package nets holds nnuelab's shipped networks (embedded in the binary and
// listed in manifest.toml with their architecture, hash, source and
// license) and makes every architecture of archs/ available to the engine
// under its name: `setoption name Arch value koivisto-7.4` loads the
// shipped net, `EvalFile` any other file of the architecture's format.
package nets

import (
	"bytes"
	"crypto/sha256"
	"embed"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	arch "github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/eval"
	"github.com/nnuelab/nnuelab/engine/nnue"
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
	md, err := toml.Decode(string(data), &m)
	if err != nil {
		return nil, fmt.Errorf("nets/manifest.toml: %w", err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		return nil, fmt.Errorf("nets/manifest.toml: unknown key %q", und[0].String())
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

// Load builds the network of spec from file, or from the architecture's
// shipped net when file is "".
func Load(spec *arch.Spec, file string) (*nnue.Network, error) {
	if file != "" {
		// A net trained by nnuelab is float, whatever the architecture's
		// published format: recognise it by its magic.
		if spec.Net.Format == "nnuelab" || spec.Net.Format == "float" || isFloatNet(file) {
			return LoadFloat(spec, file)
		}
		return nnue.LoadFile(spec, file)
	}
	d, err := Default(spec.Name)
	if err != nil {
		return nil, err
	}
	if d == nil && spec.Net.Format == "sf15.1" {
		// Stockfish 15.1's own net is not ours to ship, but the installed
		// Stockfish writes it (export_net); the export is cached by hash.
		if path, err := nnue.CachedStockfishNet(nnue.DefaultStockfishPath()); err == nil {
			return nnue.LoadFile(spec, path)
		}
	}
	if d == nil {
		hint := "give a net file of format " + spec.Net.Format + " (UCI: setoption name EvalFile; CLI: --net)"
		if spec.Net.Format == "sf15.1" {
			hint += " (Stockfish 15.1 writes its own with the command: export_net FILE)"
		}
		return nil, fmt.Errorf("architecture %s ships no network: %s", spec.Name, hint)
	}
	data, err := files.ReadFile(d.File)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	if got := hex.EncodeToString(sum[:]); got != d.SHA256 {
		return nil, fmt.Errorf("shipped net %s: SHA-256 %s, manifest says %s", d.File, got, d.SHA256)
	}
	if bytes.HasPrefix(data, []byte(Magic)) {
		return readFloatNet(spec, bytes.NewReader(data), "shipped "+d.File)
	}
	n, err := nnue.Read(spec, bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("shipped net %s: %w", d.File, err)
	}
	return n, nil
}

// factory returns the eval factory of an architecture name or TOML path.
func factory(name string) eval.Factory {
	return func(file string) (eval.Evaluator, error) {
		spec, err := arch.Load(name)
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

// Explain prints the network's internals for the position.
func (e *explained) Explain(p *board.Position) string {
	return nnue.Explain(e.Network(), p)
}

func init() {
	for _, name := range arch.Builtin() {
		if _, err := arch.Load(name); err == nil {
			eval.Register(name, factory(name))
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

// isFloatNet reports whether file starts with the float net magic.
func isFloatNet(file string) bool {
	f, err := os.Open(file)
	if err != nil {
		return false
	}
	defer f.Close()
	var b [len(Magic)]byte
	n, _ := io.ReadFull(f, b[:])
	return n == len(Magic) && string(b[:]) == Magic
}
