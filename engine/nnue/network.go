// Package nnue evaluates chess positions with efficiently updatable neural
// networks of any architecture that archs/ can describe: the feature
// transformer with its accumulator stack (history depth H, optional refresh
// cache), the heads of the published designs (Stockfish 12 HalfKP, Stockfish
// 15.1 HalfKAv2_hm, Koivisto, Leorik, Rengar, plain 768), and the readers of
// their net files. Each design is reproduced bit for bit; the tests compare
// against the original engines' outputs.
package nnue

import (
	"fmt"
	"os"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/internal/hugepage"
)

// Network is a loaded, quantized network: the feature transformer shared by
// both perspectives and a head. It is read-only after loading and may be
// shared by any number of evaluators.
type Network struct {
	Spec     *archs.Spec
	Features *FeatureSet
	// Width is the accumulator size per perspective.
	Width int
	// FTBias holds the accumulator biases (Width entries).
	FTBias []int16
	// FTWeights holds the feature rows, feature-major: row f is
	// FTWeights[f*Width : (f+1)*Width]. Both are in the engine's neuron
	// order, which for a Stockfish 15.1 net is not the file's (the
	// neurons are reordered at load by how often they are active, for the
	// sparse first layer); TransformerInFileOrder gives the file's.
	FTWeights []int16
	// PSQT holds PSQT weights, feature-major (PSQTBuckets per feature), or nil.
	PSQT []int32
	// PSQTBuckets is the number of PSQT columns (0 if none).
	PSQTBuckets int
	// ThreatWeights holds the threat features' rows of a Stockfish 18 net
	// (int8 weights), feature-major like FTWeights (spec features.threats;
	// threats.go). Nil otherwise: nnuelab's own nets with threats keep them
	// in FTWeights after the piece-square rows (row Size() + threat index),
	// as int16.
	ThreatWeights []int8
	// ThreatPSQT holds the threat features' PSQT weights of a Stockfish 18
	// net, feature-major, or nil.
	ThreatPSQT []int32
	// psqtAll backs ThreatPSQT and PSQT, in that order (the file's one
	// block), when the net has threats.
	psqtAll []int32
	// Small is the second, small net of a design that chooses between two
	// (Stockfish 17.1's, spec net.small; SetSmall), or nil.
	Small *Network

	head head
}

// head is the part of a network after the accumulators.
type head interface {
	// forward returns the network output in the design's internal units,
	// from the side to move's accumulator us and the other one them.
	// tr, when not nil, receives the intermediate values.
	forward(us, them []int16, psqtUs, psqtThem []int32, pieces int, tr *Trace) int32
}

// Trace is what an evaluation computed on its way, for `eval --json` and
// the UCI `eval` command.
type Trace struct {
	Bucket     int     `json:"bucket"`
	PSQT       int32   `json:"psqt"`       // PSQT difference (us - them), before any division
	Positional int32   `json:"positional"` // head output before the final division (sf15)
	Raw        int32   `json:"raw"`        // the network output in internal units, side to move
	Layers     [][]int `json:"layers,omitempty"`
	// Transformed is the feature transformer's output after its
	// activation, as the head's first layer reads it, side to move's half
	// first: sf12 clamp(acc, 0, qa) of both accumulators (2W), sf15 the
	// pairwise products (W), a linear head act(acc) of the accumulators it
	// reads (relu max(a, 0), crelu clamp(a, 0, qa), screlu clamp(a, 0,
	// qa)²), Rengar's float head its 128 clamped first-layer inputs (fs |
	// va+tempo | ha | ra of the side to move) in RengarTraceScale fixed
	// point, with its four clamped second-layer fs outputs in Layers[0].
	// Filled into the slice's own storage when it has the room, so a
	// caller that reuses a Trace does not allocate.
	Transformed []int32 `json:"-"`
	// Stockfish holds the steps of Stockfish 17.1's Eval::evaluate for
	// an sf17 head (which net, the blend, the scaling), else nil.
	Stockfish *StockfishEval `json:"stockfish,omitempty"`
}

// setTransformed copies a uint8 activation vector into tr.Transformed.
func (tr *Trace) setTransformed(x []uint8) {
	tr.Transformed = tr.Transformed[:0]
	for _, v := range x {
		tr.Transformed = append(tr.Transformed, int32(v))
	}
}

// row returns feature f's accumulator row.
func (n *Network) row(f int) []int16 { return n.FTWeights[f*n.Width : (f+1)*n.Width] }

// psqtRow returns feature f's PSQT weights.
func (n *Network) psqtRow(f int) []int32 {
	return n.PSQT[f*n.PSQTBuckets : (f+1)*n.PSQTBuckets]
}

// outputBucket selects the output bucket (layer stack) from the piece count.
func (n *Network) outputBucket(pieces int) int {
	var b int
	switch n.Spec.Head.BucketSelector {
	case "(pieces-1)/4":
		b = (pieces - 1) / 4
	case "(pieces-2)/4":
		b = (pieces - 2) / 4
	}
	if b < 0 {
		b = 0
	}
	if b >= n.Spec.Head.OutputBuckets {
		b = n.Spec.Head.OutputBuckets - 1
	}
	return b
}

// Centipawns converts a raw output (internal units) to centipawns, truncating.
func (n *Network) Centipawns(raw int32) int {
	return int(int64(raw) * int64(n.Spec.Output.CPNum) / int64(n.Spec.Output.CPDen))
}

// CentipawnsAt converts a raw output of p to centipawns: Centipawns, or
// for an sf17 or sf18 head that Stockfish release's to_cp, whose scale
// depends on the material (SF17ToCP for 17.1).
func (n *Network) CentipawnsAt(raw int32, p *board.Position) int {
	if h, ok := n.head.(*sf17Head); ok {
		return h.consts.toCP(raw, p)
	}
	return n.Centipawns(raw)
}

// newNetwork allocates the feature transformer of a spec.
func newNetwork(spec *archs.Spec) *Network {
	fs := NewFeatureSet(&spec.Features)
	n := &Network{Spec: spec, Features: fs, Width: spec.Accumulator.Width, PSQTBuckets: spec.Head.PSQTBuckets}
	n.FTBias = make([]int16, n.Width)
	if t := spec.Features.ThreatSize(); t > 0 && spec.Net.Format != "sf18" {
		// nnuelab's own nets: the threat rows follow the piece-square ones.
		n.FTWeights = hugepage.Make[int16]((fs.Size() + t) * n.Width)
		if n.PSQTBuckets > 0 {
			n.PSQT = make([]int32, (fs.Size()+t)*n.PSQTBuckets)
		}
		return n
	}
	// The weight tables are read a few random rows at a time, all through
	// the search: huge pages spare those reads most of their TLB misses.
	n.FTWeights = hugepage.Make[int16](fs.Size() * n.Width)
	if t := spec.Features.ThreatSize(); t > 0 {
		n.ThreatWeights = hugepage.Make[int8](t * n.Width)
		n.psqtAll = make([]int32, (t+fs.Size())*n.PSQTBuckets)
		n.ThreatPSQT, n.PSQT = n.psqtAll[:t*n.PSQTBuckets], n.psqtAll[t*n.PSQTBuckets:]
		return n
	}
	if n.PSQTBuckets > 0 {
		n.PSQT = make([]int32, fs.Size()*n.PSQTBuckets)
	}
	return n
}

// LoadFile reads the network file at path in the format the spec names.
func LoadFile(spec *archs.Spec, path string) (*Network, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("net %s: %w", path, err)
	}
	defer f.Close()
	n, err := Read(spec, f)
	if err != nil {
		return nil, fmt.Errorf("net %s (arch %s): %w", path, spec.Name, err)
	}
	return n, nil
}

// Evaluate computes the network output for p from scratch: the reference
// path that the incremental evaluator must equal. It returns the raw output
// in internal units from the side to move's point of view.
func (n *Network) Evaluate(p *board.Position, tr *Trace) int32 {
	if _, ok := n.head.(*sf17Head); ok {
		return sf17Evaluate(n, p, tr, scratchRunner{})
	}
	var acc [2][]int16
	var psqt [2][]int32
	var feats []int
	for c := board.White; c <= board.Black; c++ {
		acc[c] = append([]int16(nil), n.FTBias...)
		if n.PSQTBuckets > 0 {
			psqt[c] = make([]int32, n.PSQTBuckets)
		}
		feats = n.Features.Active(p, c, feats[:0])
		for _, f := range feats {
			addRow(acc[c], n.row(f))
			if n.PSQTBuckets > 0 {
				addRow32(psqt[c], n.psqtRow(f))
			}
		}
		if n.Features.threats {
			mb := mailboxOf(p, board.NoSquare)
			n.addThreats(acc[c], psqt[c], n.Features.view(c, p.King(c)).tv, mb.threats(nil), nil)
		}
	}
	us, them := p.SideToMove(), p.SideToMove().Other()
	return n.head.forward(acc[us], acc[them], psqt[us], psqt[them], p.Occupied().Count(), tr)
}
