package nets

import (
	"errors"
	"fmt"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/nnue"
	"github.com/nnuelab/nnuelab/nets/sfnet"
)

// Stockfish's own nets (arch net.name, e.g. sf17.1's nn-1c0000000000.nnue)
// are not nnuelab's to ship: they come from the net cache, where `nnuelab
// nets extract` (out of a WebAssembly build) and `nets fetch` (from
// Stockfish's net server) put them, checked against their names.

// loadNamed loads the net spec.Net.Name from the net cache.
func loadNamed(spec *archs.Spec) (*nnue.Network, NetInfo, error) {
	p, err := sfnet.Cached(spec.Net.Name)
	if err != nil {
		if errors.Is(err, sfnet.ErrNotCached) {
			return nil, NetInfo{}, fmt.Errorf("architecture %s uses Stockfish's net %s, which is not in the net cache (%s): get it with `nnuelab nets extract PACKAGE.tgz` "+
				"from a WebAssembly build that embeds it (npm pack stockfish@17.1.0 gives the package) or `nnuelab nets fetch %s` (Stockfish's net server)",
				spec.Name, spec.Net.Name, sfnet.CacheDir(), spec.Net.Name)
		}
		return nil, NetInfo{}, fmt.Errorf("architecture %s: %w", spec.Name, err)
	}
	return loadFile(spec, p, LoadOptions{})
}

// withSmall attaches the small net of a design that has one (net.small):
// its architecture's net from the cache.
func withSmall(spec *archs.Spec, n *nnue.Network, info NetInfo, err error) (*nnue.Network, NetInfo, error) {
	if err != nil || spec.Net.Small == "" {
		return n, info, err
	}
	ss, err := archs.Load(spec.Net.Small)
	if err != nil {
		return nil, NetInfo{}, fmt.Errorf("architecture %s: its small net's: %w", spec.Name, err)
	}
	if ss.Net.Small != "" {
		return nil, NetInfo{}, fmt.Errorf("architecture %s: its small net's architecture %s has a small net itself", spec.Name, ss.Name)
	}
	sn, _, err := LoadInfo(ss, "")
	if err != nil {
		return nil, NetInfo{}, fmt.Errorf("architecture %s needs its small net: %w", spec.Name, err)
	}
	if err := n.SetSmall(sn); err != nil {
		return nil, NetInfo{}, err
	}
	return n, info, nil
}
