package inspect

import (
	"errors"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/nnue"
)

// ActLayer is the statistics of one activation's outputs over a dataset.
// A unit is a neuron of the layer; the feature transformer's units serve
// both perspectives, so each position counts twice for them (once for the
// side-to-move accumulator, once for the other, where the head reads both).
// A design with layer stacks (Stockfish 15.1) has Buckets of Units each,
// and a position reaches only its own stack's.
type ActLayer struct {
	// Name says which output it is, e.g. "ft (pairwise product)".
	Name string
	// Units is the number of neurons per bucket, Buckets the number of
	// buckets (layer stacks), 1 for most layers.
	Units, Buckets int
	// Ceil is the activation's largest output: an output equal to it is
	// saturated. 0 when the activation has no ceiling (ReLU).
	Ceil int32
	// Symmetric marks a clamp to [-Ceil, Ceil] (Rengar's): an output at
	// either end is saturated.
	Symmetric bool
	// Outputs counts every output value seen, Zero and Saturated those
	// equal to 0 and to Ceil.
	Outputs, Zero, Saturated int64
	// Seen[u], Active[u] and AtCeil[u] count, per unit (bucket-major), the
	// outputs seen, the non-zero ones and the saturated ones.
	Seen, Active, AtCeil []int64
}

// ZeroShare returns the share of outputs that are zero.
func (l *ActLayer) ZeroShare() float64 { return share(l.Zero, l.Outputs) }

// SaturatedShare returns the share of outputs at the ceiling.
func (l *ActLayer) SaturatedShare() float64 { return share(l.Saturated, l.Outputs) }

// Dead returns the units that were reached but never non-zero.
func (l *ActLayer) Dead() []int {
	var out []int
	for u, n := range l.Seen {
		if n > 0 && l.Active[u] == 0 {
			out = append(out, u)
		}
	}
	return out
}

// AlwaysSaturated returns the units that were reached and saturated every
// time.
func (l *ActLayer) AlwaysSaturated() []int {
	var out []int
	if l.Ceil == 0 {
		return nil
	}
	for u, n := range l.Seen {
		if n > 0 && l.AtCeil[u] == n {
			out = append(out, u)
		}
	}
	return out
}

// Unreached returns how many units no position reached (the layer stacks
// of piece counts absent from the data).
func (l *ActLayer) Unreached() int {
	n := 0
	for _, s := range l.Seen {
		if s == 0 {
			n++
		}
	}
	return n
}

// UnitName names unit u: its index, prefixed by the stack when the layer
// has several ("stack 3 #7").
func (l *ActLayer) UnitName(u int) string {
	if l.Buckets > 1 {
		return fmt.Sprintf("stack %d #%d", u/l.Units, u%l.Units)
	}
	return fmt.Sprintf("%d", u)
}

func share(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// Activations is what a pass over a dataset measured.
type Activations struct {
	// Data names the dataset, Positions counts the positions evaluated.
	Data      string
	Positions int64
	Layers    []*ActLayer
	// GroupBytes is the size of a group of the first layer's output (4
	// bytes: 4 uint8 outputs for Stockfish's heads, 2 int16 activations
	// for a linear head); Groups counts the groups seen and NonZeroGroups
	// those with a non-zero value, which a sparse affine layer multiplies
	// (the others it skips).
	GroupBytes, GroupValues int
	Groups, NonZeroGroups   int64
}

// NonZeroGroupShare returns the share of the first layer's 4-byte groups
// that hold a non-zero value.
func (a *Activations) NonZeroGroupShare() float64 { return share(a.NonZeroGroups, a.Groups) }

// Supported reports whether activation statistics exist for the net's
// design (StatsFor).
func Supported(v *Net) bool { return StatsFor(v.Spec) == nil }

// StatsFor returns nil when Collect has activation statistics for the
// design of spec (the head types linear, sf12, sf15 and rengar), else an
// error saying which head type has none.
func StatsFor(spec *archs.Spec) error {
	switch spec.Head.Type {
	case "linear", "sf12", "sf15", "rengar":
		return nil
	}
	return fmt.Errorf("arch %s: no activation statistics for head type %q (heads with statistics: linear, sf12, sf15, rengar)", spec.Name, spec.Head.Type)
}

// layout describes how a design's Trace maps onto ActLayers.
type layout struct {
	layers []*ActLayer
	// fill adds one traced evaluation to the layers (bucket is the
	// Trace's output bucket).
	fill func(ls []*ActLayer, tr *nnue.Trace)
	// groupValues is the number of first-layer outputs per 4-byte group.
	groupValues int
}

// newLayout builds the empty statistics of v's design.
func newLayout(v *Net) (*layout, error) {
	s := v.Spec
	W := v.Network.Width
	mk := func(name string, units, buckets int, ceil int32) *ActLayer {
		n := units * buckets
		return &ActLayer{Name: name, Units: units, Buckets: buckets, Ceil: ceil,
			Seen: make([]int64, n), Active: make([]int64, n), AtCeil: make([]int64, n)}
	}
	qa := int32(s.Quant.QA)
	switch s.Head.Type {
	case "linear":
		var ceil int32
		name := "ft (" + s.Head.Activation + ")"
		switch s.Head.Activation {
		case "crelu":
			ceil = qa
		case "screlu":
			ceil = qa * qa
		}
		return &layout{layers: []*ActLayer{mk(name, W, 1, ceil)}, groupValues: 2,
			fill: func(ls []*ActLayer, tr *nnue.Trace) { ls[0].add(tr.Transformed, 0) }}, nil
	case "sf12":
		l := s.Head.Layers
		return &layout{layers: []*ActLayer{mk("ft (clipped ReLU)", W, 1, qa), mk("l1 (clipped ReLU)", l[0], 1, qa), mk("l2 (clipped ReLU)", l[1], 1, qa)},
			groupValues: 4,
			fill: func(ls []*ActLayer, tr *nnue.Trace) {
				ls[0].add(tr.Transformed, 0)
				ls[1].add(tr.Layers[1], 0)
				ls[2].add(tr.Layers[3], 0)
			}}, nil
	case "sf15":
		l, B := s.Head.Layers, s.Head.OutputBuckets
		k := l[0] - 1
		pair := (qa * qa) >> 7
		return &layout{layers: []*ActLayer{mk("ft (pairwise product)", W/2, 1, pair),
			mk("fc_0 (squared)", k, B, qa), mk("fc_0 (clipped ReLU)", k, B, qa), mk("fc_1 (clipped ReLU)", l[1], B, qa)},
			groupValues: 4,
			fill: func(ls []*ActLayer, tr *nnue.Trace) {
				ls[0].add(tr.Transformed, 0)
				ls[1].add(tr.Layers[1][:k], tr.Bucket)
				ls[2].add(tr.Layers[1][k:2*k], tr.Bucket)
				ls[3].add(tr.Layers[3], tr.Bucket)
			}}, nil
	case "rengar":
		in := mk("l1 inputs (clamp ±127/128)", 4*32, 1, rengarCeil)
		fs := mk("l2 fs (clamp ±127/128)", 4, 1, rengarCeil)
		in.Symmetric, fs.Symmetric = true, true
		// The first layer's outputs are float32: one to a 4-byte group.
		return &layout{layers: []*ActLayer{in, fs}, groupValues: 1,
			fill: func(ls []*ActLayer, tr *nnue.Trace) {
				ls[0].add(tr.Transformed, 0)
				ls[1].add(tr.Layers[0], 0)
			}}, nil
	}
	return nil, fmt.Errorf("%s: %w", v.Name, StatsFor(s))
}

// add counts one output vector of bucket b; a vector longer than the
// layer's units holds several perspectives, one after the other.
func (l *ActLayer) add(vals any, b int) {
	base := b * l.Units
	u := 0
	count := func(x int64) {
		i := base + u
		l.Seen[i]++
		if x != 0 {
			l.Active[i]++
		} else {
			l.Zero++
		}
		if l.Ceil != 0 && (x >= int64(l.Ceil) || l.Symmetric && x <= -int64(l.Ceil)) {
			l.AtCeil[i]++
			l.Saturated++
		}
		l.Outputs++
		if u++; u == l.Units {
			u = 0
		}
	}
	switch v := vals.(type) {
	case []int32:
		for _, x := range v {
			count(int64(x))
		}
	case []int:
		for _, x := range v {
			count(int64(x))
		}
	}
}

// merge adds o's counts to l.
func (l *ActLayer) merge(o *ActLayer) {
	l.Outputs += o.Outputs
	l.Zero += o.Zero
	l.Saturated += o.Saturated
	for i := range l.Seen {
		l.Seen[i] += o.Seen[i]
		l.Active[i] += o.Active[i]
		l.AtCeil[i] += o.AtCeil[i]
	}
}

// groups counts the 4-byte groups of the first layer's output.
func groups(x []int32, per int) (all, nonZero int64) {
	for i := 0; i < len(x); i += per {
		all++
		for _, v := range x[i:min(i+per, len(x))] {
			if v != 0 {
				nonZero++
				break
			}
		}
	}
	return all, nonZero
}

// Options tune Collect.
type Options struct {
	// Limit stops after that many positions (0: the whole dataset).
	Limit int64
	// Threads evaluates on that many goroutines (0: GOMAXPROCS).
	Threads int
}

// Collect evaluates every position of r with v's network (from scratch,
// traced) and returns the activation statistics; name names the dataset.
// A bad record is an error naming it.
func Collect(v *Net, r datasets.Reader, name string, o Options) (*Activations, error) {
	var read int64
	return collect(v, name, o, func(n int) ([]*board.Position, error) {
		if o.Limit > 0 {
			n = int(min(int64(n), o.Limit-read))
		}
		var batch []*board.Position
		for len(batch) < n {
			rec, err := r.Next()
			if err != nil {
				if errors.Is(err, io.EOF) {
					err = io.EOF
				}
				return batch, err
			}
			p, err := rec.Position()
			if err != nil {
				return batch, fmt.Errorf("%s: position %s: %w", name, rec.FEN(), err)
			}
			batch = append(batch, p)
			read++
		}
		if o.Limit > 0 && read >= o.Limit {
			return batch, io.EOF
		}
		return batch, nil
	})
}

// CollectPositions is Collect over positions in memory (Options.Limit
// keeps the first that many); name names them in the statistics and in
// errors. The positions are only read.
func CollectPositions(v *Net, ps []*board.Position, name string, o Options) (*Activations, error) {
	if o.Limit > 0 && int64(len(ps)) > o.Limit {
		ps = ps[:o.Limit]
	}
	next := 0
	return collect(v, name, o, func(n int) ([]*board.Position, error) {
		end := min(next+n, len(ps))
		batch := ps[next:end]
		next = end
		if next == len(ps) {
			return batch, io.EOF
		}
		return batch, nil
	})
}

// collect runs the traced evaluations on Options.Threads goroutines over
// the batches read returns (up to n positions each, io.EOF with the last).
func collect(v *Net, name string, o Options, read func(n int) ([]*board.Position, error)) (*Activations, error) {
	lay, err := newLayout(v)
	if err != nil {
		return nil, err
	}
	threads := o.Threads
	if threads <= 0 {
		threads = runtime.GOMAXPROCS(0)
	}
	type result struct {
		layers        []*ActLayer
		groups, nz, n int64
	}
	batches := make(chan []*board.Position, 2*threads)
	results := make(chan result, threads)
	errc := make(chan error, threads+1)
	var wg sync.WaitGroup
	for w := 0; w < threads; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mine, err := newLayout(v)
			if err != nil {
				errc <- err
				for range batches {
				}
				return
			}
			res := result{layers: mine.layers}
			var tr nnue.Trace
			for batch := range batches {
				for _, p := range batch {
					v.Network.Evaluate(p, &tr)
					lay.fill(res.layers, &tr)
					g, nz := groups(tr.Transformed, lay.groupValues)
					res.groups += g
					res.nz += nz
					res.n++
				}
			}
			results <- res
		}()
	}
	var readErr error
	for readErr == nil {
		var batch []*board.Position
		batch, readErr = read(256)
		if len(batch) > 0 {
			batches <- batch
		}
	}
	close(batches)
	wg.Wait()
	close(results)
	a := &Activations{Data: name, Layers: lay.layers, GroupBytes: 4, GroupValues: lay.groupValues}
	for res := range results {
		for i, l := range res.layers {
			a.Layers[i].merge(l)
		}
		a.Groups += res.groups
		a.NonZeroGroups += res.nz
		a.Positions += res.n
	}
	select {
	case err := <-errc:
		return nil, err
	default:
	}
	if readErr != io.EOF {
		return nil, readErr
	}
	if a.Positions == 0 {
		return nil, fmt.Errorf("%s: no positions", name)
	}
	return a, nil
}
