// Package inspect looks inside a loaded network, whatever its design: a
// design-neutral view of its layers (the first layer's weight row of every
// feature per hidden neuron and king bucket, the factorizer's virtual rows
// where a file keeps them, every later layer's weights and biases, float and
// quantized, with the clip limits that the arch's multipliers give the
// storage types), activation statistics over a dataset (zero and saturated
// outputs, dead neurons, the sparsity a sparse affine layer would exploit),
// and the SVG figures and Markdown page of `nnuelab nets show`.
//
// Every net that engine/nnue loads can be inspected: Stockfish 12 HalfKP
// and 15.1 HalfKAv2_hm files, Koivisto's and Leorik's, nnuelab's float nets
// (chess768, Rengar and every trained design) and training checkpoints,
// whose factorized king buckets keep their virtual rows. Plugin evaluators
// cannot be inspected: the plugin protocol has no call that hands weights
// over (ErrPlugin).
package inspect

import (
	"bytes"
	"cmp"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/nnue"
	"github.com/nnuelab/nnuelab/nets"
	"github.com/nnuelab/nnuelab/nets/train"
)

// ErrPlugin is the error for a plugin evaluator: the plugin protocol
// (Describe, EvaluateBatch, Session) has no call that hands weights over, so
// no plugin net can be inspected.
var ErrPlugin = errors.New("plugin evaluators cannot be inspected: the plugin protocol (Describe, EvaluateBatch, Session) has no call that hands a net's weights over")

// Net is the design-neutral view of one loaded network.
type Net struct {
	// Name is how the net was named: a shipped net, an architecture, or
	// ARCH=FILE.
	Name    string
	Spec    *archs.Spec
	Network *nnue.Network
	// Info says which file was read (empty for a net built in memory).
	Info nets.NetInfo
	// Tensors are every parameter tensor in evaluation order: the feature
	// transformer's weights ("ft.weight", feature-major) and biases, the
	// PSQT weights where the design has them, then the head's.
	Tensors []*Tensor
	// Virtual holds the factorizer's virtual rows ([rows][width], float),
	// the part every king bucket shares, when the file keeps them (a
	// training checkpoint); nil otherwise (a trained or published net has
	// them folded into its real rows).
	Virtual *Tensor

	buckets []BucketView
}

// Tensor is one parameter tensor: its quantized values as the engine holds
// them and, when the net came from a float file, the float values they were
// quantized from (else the float values are the quantized ones divided by
// Scale).
type Tensor struct {
	Name string
	// Shape is the tensor's shape, output buckets (layer stacks) first
	// where the design has them.
	Shape []int
	// Bits is the signed storage width of the quantized values (8, 16 or
	// 32), 0 for a float-only tensor (Rengar's head).
	Bits int
	// Scale turns float values into quantized ones: q = round(f * Scale).
	Scale float64

	q16 []int16
	q32 []int32
	f   []float32
}

// Len returns the number of values.
func (t *Tensor) Len() int {
	switch {
	case t.q16 != nil:
		return len(t.q16)
	case t.q32 != nil:
		return len(t.q32)
	}
	return len(t.f)
}

// Quantized reports whether the tensor has quantized values.
func (t *Tensor) Quantized() bool { return t.Bits > 0 }

// FromFloatFile reports whether Float returns the values of a float file
// (true) or quantized values divided by Scale.
func (t *Tensor) FromFloatFile() bool { return t.f != nil }

// Q returns quantized value i (0 for a float-only tensor).
func (t *Tensor) Q(i int) int64 {
	switch {
	case t.q16 != nil:
		return int64(t.q16[i])
	case t.q32 != nil:
		return int64(t.q32[i])
	}
	return 0
}

// Float returns value i in the design's float units.
func (t *Tensor) Float(i int) float64 {
	if t.f != nil {
		return float64(t.f[i])
	}
	return float64(t.Q(i)) / t.Scale
}

// QLimit returns the largest magnitude the storage type holds symmetrically
// (127, 32767, 2^31-1): a quantized value at ±QLimit (or at the type's
// minimum) sits at the clip. 0 for a float-only tensor.
func (t *Tensor) QLimit() int64 {
	if t.Bits == 0 {
		return 0
	}
	return int64(1)<<(t.Bits-1) - 1
}

// Limit returns the clip limit in float units, QLimit / Scale: the largest
// float value the arch's multiplier lets the storage type hold. 0 for a
// float-only tensor.
func (t *Tensor) Limit() float64 {
	if t.Bits == 0 {
		return 0
	}
	return float64(t.QLimit()) / t.Scale
}

// TensorStats summarizes a tensor's values.
type TensorStats struct {
	N                   int
	Min, Max, Mean, Std float64 // float units
	AbsMean             float64
	QMin, QMax          int64 // quantized (0 for a float-only tensor)
	// AtClip is the share of quantized values at the storage type's limit
	// (±QLimit or the minimum).
	AtClip float64
	// AtMax is the share of values whose magnitude is the tensor's
	// largest (quantized, or float for a float-only tensor): a clip the
	// trainer applied shows here as a pile at ±max. 0 for a tensor of
	// fewer than 8 values or all zeros.
	AtMax float64
	// Zero is the share of values that are exactly zero (quantized, or
	// float for a float-only tensor), Negative the share below zero.
	Zero, Negative float64
}

// Stats computes the tensor's summary.
func (t *Tensor) Stats() TensorStats {
	s := TensorStats{N: t.Len(), Min: math.Inf(1), Max: math.Inf(-1)}
	if s.N == 0 {
		return TensorStats{}
	}
	s.QMin, s.QMax = math.MaxInt64, math.MinInt64
	lim := t.QLimit()
	var sum, sum2, abs float64
	var clip, zero, neg int
	for i := 0; i < s.N; i++ {
		f := t.Float(i)
		if f < 0 {
			neg++
		}
		s.Min, s.Max = min(s.Min, f), max(s.Max, f)
		sum += f
		// float64(x*y) here and below: no FMA fusion at GOAMD64=v3 (make fma-check).
		sum2 += float64(f * f)
		abs += math.Abs(f)
		if t.Quantized() {
			q := t.Q(i)
			s.QMin, s.QMax = min(s.QMin, q), max(s.QMax, q)
			if q >= lim || q <= -lim {
				clip++
			}
			if q == 0 {
				zero++
			}
		} else if f == 0 {
			zero++
		}
	}
	if !t.Quantized() {
		s.QMin, s.QMax = 0, 0
	}
	if s.N >= 8 && (s.Max != 0 || s.Min != 0) {
		var top float64
		if t.Quantized() {
			top = float64(max(s.QMax, -s.QMin))
		} else {
			top = max(s.Max, -s.Min)
		}
		at := 0
		for i := 0; i < s.N; i++ {
			v := t.Float(i)
			if t.Quantized() {
				v = float64(t.Q(i))
			}
			if math.Abs(v) == top {
				at++
			}
		}
		s.AtMax = float64(at) / float64(s.N)
	}
	n := float64(s.N)
	s.Mean, s.AbsMean = sum/n, abs/n
	s.Std = math.Sqrt(max(0, sum2/n-float64(s.Mean*s.Mean)))
	s.AtClip, s.Zero, s.Negative = float64(clip)/n, float64(zero)/n, float64(neg)/n
	return s
}

// Load loads what name selects, as `nnuelab eval --arch` does: a shipped
// net by its name (nets list), an architecture with its shipped net (sf15.1:
// the installed Stockfish's, exported once), or with file when file is not
// "". A file may also be an nnuelab training checkpoint (*.ckpt), whose
// factorized king buckets are folded as the trainer exports them and whose
// virtual rows are kept in Net.Virtual. A name "plugin:..." is ErrPlugin.
func Load(name, file string) (*Net, error) {
	if strings.HasPrefix(name, "plugin:") {
		return nil, fmt.Errorf("%s: %w", name, ErrPlugin)
	}
	label := name
	if file != "" {
		label = name + "=" + file
		if ck, err := loadCheckpoint(name, file); ck != nil || err != nil {
			if ck != nil {
				ck.Name = label
			}
			return ck, err
		}
	}
	spec, n, info, err := nets.LoadNamed(name, file)
	if err != nil {
		return nil, err
	}
	floats, err := floatTensors(info)
	if err != nil {
		return nil, err
	}
	v, err := New(label, spec, n, floats)
	if err != nil {
		return nil, err
	}
	v.Info = info
	return v, nil
}

// floatTensors returns the float tensors of the file a load read, when it
// is an nnuelab float net, else nil.
func floatTensors(info nets.NetInfo) ([]nnue.Tensor, error) {
	var r io.Reader
	if info.Shipped {
		m, err := nets.Manifest()
		if err != nil {
			return nil, err
		}
		for i := range m {
			if m[i].File == info.File {
				data, err := m[i].Bytes()
				if err != nil {
					return nil, err
				}
				r = bytes.NewReader(data)
			}
		}
	} else if info.File != "" {
		f, err := os.Open(info.File)
		if err != nil {
			return nil, err
		}
		defer f.Close()
		r = f
	}
	if r == nil {
		return nil, nil
	}
	var magic [len(nets.Magic)]byte
	if _, err := io.ReadFull(r, magic[:]); err != nil || string(magic[:]) != nets.Magic {
		return nil, nil
	}
	_, ts, err := nets.ReadFloat(io.MultiReader(bytes.NewReader(magic[:]), r))
	if err != nil {
		return nil, fmt.Errorf("net %s: %w", info.File, err)
	}
	return ts, nil
}

// archOf returns the architecture that name selects: a shipped net's or
// name itself.
func archOf(name string) (*archs.Spec, error) {
	if m, err := nets.Manifest(); err == nil {
		for _, e := range m {
			if e.Name() == name && !builtin(name) {
				return archs.Load(e.Arch)
			}
		}
	}
	return archs.Load(name)
}

func builtin(name string) bool {
	for _, a := range archs.Builtin() {
		if a == name {
			return true
		}
	}
	return false
}

// loadCheckpoint loads file when it is an nnuelab training checkpoint, and
// returns nil, nil when it is not one.
func loadCheckpoint(name, file string) (*Net, error) {
	f, err := os.Open(file)
	if err != nil {
		return nil, fmt.Errorf("net %s: %w", file, err)
	}
	defer f.Close()
	var magic [len(nets.Magic)]byte
	if _, err := io.ReadFull(f, magic[:]); err != nil || string(magic[:]) != nets.Magic {
		return nil, nil
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		return nil, err
	}
	h, ts, err := nets.ReadFloat(f)
	if err != nil {
		return nil, fmt.Errorf("net %s: %w", file, err)
	}
	if h.Training["kind"] != "checkpoint" {
		return nil, nil
	}
	spec, err := archOf(name)
	if err != nil {
		return nil, err
	}
	if h.Arch != spec.Name {
		return nil, fmt.Errorf("checkpoint %s was trained for architecture %q, not %q", file, h.Arch, spec.Name)
	}
	var weights []nnue.Tensor
	var ft *nnue.Tensor
	for i := range ts {
		if strings.HasPrefix(ts[i].Name, "adam.") {
			continue
		}
		weights = append(weights, ts[i])
		if ts[i].Name == "ft.weight" {
			ft = &ts[i]
		}
	}
	real := spec.Features.Size()
	var opts []train.Option
	factorized := ft != nil && len(ft.Shape) == 2 && ft.Shape[0] > real
	if factorized {
		opts = append(opts, train.Factorized())
	}
	m, err := train.NewModel(spec, 0, opts...)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", file, err)
	}
	if err := m.SetTensors(weights); err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", file, err)
	}
	folded := m.Tensors()
	n, err := nnue.FromFloat(spec, folded)
	if err != nil {
		return nil, fmt.Errorf("checkpoint %s: %w", file, err)
	}
	v, err := New(name, spec, n, folded)
	if err != nil {
		return nil, err
	}
	v.Info = nets.NetInfo{File: file}
	if factorized {
		w := ft.Shape[1]
		v.Virtual = &Tensor{Name: "ft.virtual", Shape: []int{ft.Shape[0] - real, w},
			f: append([]float32(nil), ft.Data[real*w:]...)}
	}
	return v, nil
}

// New builds the view of a network; floats, when not nil, are the float
// tensors it was quantized from (nnue.FromFloat's names), whose values then
// stand beside the quantized ones. A float tensor whose size does not match
// the network's is an error.
func New(name string, spec *archs.Spec, n *nnue.Network, floats []nnue.Tensor) (*Net, error) {
	if n == nil || spec == nil {
		return nil, fmt.Errorf("%s: no network", name)
	}
	byName := map[string][]float32{}
	for _, t := range floats {
		byName[t.Name] = t.Data
	}
	v := &Net{Name: name, Spec: spec, Network: n}
	qa := float64(spec.Quant.QA)
	add := func(t *Tensor) error {
		if f, ok := byName[t.Name]; ok {
			if len(f) != t.Len() {
				return fmt.Errorf("%s: float tensor %q has %d values, the network's has %d", name, t.Name, len(f), t.Len())
			}
			if t.Bits == 0 {
				t.f = append([]float32(nil), f...)
			} else {
				t.f = f
			}
		}
		v.Tensors = append(v.Tensors, t)
		return nil
	}
	rows := len(n.FTWeights) / max(n.Width, 1)
	ftW, ftB := n.TransformerInFileOrder()
	if err := add(&Tensor{Name: "ft.weight", Shape: []int{rows, n.Width}, Bits: 16, Scale: qa, q16: ftW}); err != nil {
		return nil, err
	}
	if err := add(&Tensor{Name: "ft.bias", Shape: []int{n.Width}, Bits: 16, Scale: qa, q16: ftB}); err != nil {
		return nil, err
	}
	if n.PSQTBuckets > 0 {
		// raw = (psqt/2 + positional) / output_divisor: a PSQT weight is in
		// the output's internal units times 2*divisor.
		sc := float64(2 * max(spec.Quant.OutputDivisor, 1))
		if err := add(&Tensor{Name: "psqt", Shape: []int{rows, n.PSQTBuckets}, Bits: 32, Scale: sc, q32: n.PSQT}); err != nil {
			return nil, err
		}
	}
	for _, p := range n.HeadParams() {
		t := &Tensor{Name: p.Name, Shape: []int{p.Out, p.In}, Bits: p.Bits, Scale: p.Scale, q32: p.Q, f: p.F}
		if p.In == 1 {
			t.Shape = []int{p.Out}
		}
		if p.Buckets > 1 {
			t.Shape = append([]int{p.Buckets}, t.Shape...)
		}
		if p.Q == nil {
			t.Bits, t.Scale = 0, 1
		}
		if err := add(t); err != nil {
			return nil, err
		}
	}
	v.buckets = bucketViews(n.Features, spec)
	return v, nil
}

// Tensor returns the tensor called name, or nil.
func (v *Net) Tensor(name string) *Tensor {
	for _, t := range v.Tensors {
		if t.Name == name {
			return t
		}
	}
	return nil
}

// File returns a short name of the file the net was read from, for
// captions: "shipped NAME", the path, or "in memory".
func (v *Net) File() string {
	switch {
	case v.Info.Shipped:
		return "shipped " + v.Info.File
	case v.Info.File != "":
		return v.Info.File
	}
	return "in memory"
}

// Slug returns a file-name-safe form of the net's name.
func (v *Net) Slug() string {
	name := v.Name
	if a, f, ok := strings.Cut(name, "="); ok {
		base := filepath.Base(f)
		for _, ext := range []string{".zst", ".nnue", ".net", ".ckpt", ".bin"} {
			base = strings.TrimSuffix(base, ext)
		}
		name = a + "-" + base
	}
	var b strings.Builder
	for _, r := range name {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '.', r == '-', r == '_':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	return b.String()
}

// planes are the twelve piece planes of a board figure, as White (the
// perspective shown) sees them: own pieces, then the opponent's.
var planes = [12]board.Piece{
	board.MakePiece(board.White, board.Pawn), board.MakePiece(board.White, board.Knight),
	board.MakePiece(board.White, board.Bishop), board.MakePiece(board.White, board.Rook),
	board.MakePiece(board.White, board.Queen), board.MakePiece(board.White, board.King),
	board.MakePiece(board.Black, board.Pawn), board.MakePiece(board.Black, board.Knight),
	board.MakePiece(board.Black, board.Bishop), board.MakePiece(board.Black, board.Rook),
	board.MakePiece(board.Black, board.Queen), board.MakePiece(board.Black, board.King),
}

// planeName returns "own pawn" ... "their king" for plane i of planes.
func planeName(i int) string {
	names := [6]string{"pawn", "knight", "bishop", "rook", "queen", "king"}
	if i < 6 {
		return "own " + names[i]
	}
	return "their " + names[i-6]
}

// BucketView is one king bucket as a board figure shows it: the bucket's
// features seen from White with the own king on King, a square of the
// bucket on the unmirrored side.
type BucketView struct {
	Bucket int
	King   board.Square
	// Squares is how many own-king squares (of 64, before mirroring) map
	// to the bucket.
	Squares int
	// index[plane][sq] is the feature of planes[plane] on sq, or -1 when it
	// is not a feature or cannot occur in this view (a pawn on the first or
	// last rank, the own king outside the bucket).
	index [12][64]int32
}

// Feature returns the feature index of plane p on square sq, or -1.
func (b *BucketView) Feature(p int, sq board.Square) int { return int(b.index[p][sq]) }

// bucketViews returns one view per king bucket, in bucket order.
func bucketViews(fs *nnue.FeatureSet, spec *archs.Spec) []BucketView {
	stride := spec.Features.Stride()
	probe := board.MakePiece(board.White, board.Knight)
	type group struct {
		king    board.Square
		minIdx  int
		squares int
	}
	groups := map[int]*group{}
	for k := board.Square(0); k < 64; k++ {
		i := fs.Index(board.White, k, probe, 0)
		if i < 0 {
			continue
		}
		b := i / stride
		g := groups[b]
		if g == nil {
			g = &group{king: k, minIdx: i}
			groups[b] = g
		}
		g.squares++
		// The unmirrored view puts a1 at the lowest index of its plane.
		if i < g.minIdx {
			g.king, g.minIdx = k, i
		}
	}
	var views []BucketView
	for b := 0; b < fs.KingBuckets(); b++ {
		g := groups[b]
		if g == nil {
			continue
		}
		bv := BucketView{Bucket: b, King: g.king, Squares: g.squares}
		bv.refill(fs, g.king)
		views = append(views, bv)
	}
	return views
}

// Buckets returns the king-bucket views of the first layer (one for a
// design without king buckets).
func (v *Net) Buckets() []BucketView { return v.buckets }

// ShownBuckets returns the bucket views a board figure shows: all of them
// up to max, else the buckets of the own king on e1, g1, c1 and e4 (the
// start, both castled squares and a centralized king).
func (v *Net) ShownBuckets(maxShown int) []BucketView {
	if len(v.buckets) <= maxShown {
		return v.buckets
	}
	var out []BucketView
	seen := map[int]bool{}
	limit := min(maxShown, 4)
	for _, k := range []board.Square{4, 6, 2, 28, 3, 27} { // e1 g1 c1 e4, then d1 d4 if some share a bucket
		for _, b := range v.buckets {
			if b.Bucket != v.bucketOf(k) || seen[b.Bucket] || len(out) == limit {
				continue
			}
			seen[b.Bucket] = true
			b.King = k
			b.refill(v.Network.Features, k)
			out = append(out, b)
		}
	}
	return out
}

// bucketOf returns the king bucket of the own king on k (White's view).
func (v *Net) bucketOf(k board.Square) int {
	i := v.Network.Features.Index(board.White, k, board.MakePiece(board.White, board.Knight), 0)
	return i / v.Spec.Features.Stride()
}

// refill recomputes a view's indices for the own king on k (a square of the
// same bucket, possibly mirrored: the figure then shows the real board).
func (b *BucketView) refill(fs *nnue.FeatureSet, k board.Square) {
	probe := board.MakePiece(board.White, board.Knight)
	ownKing := board.MakePiece(board.White, board.King)
	view := fs.Index(board.White, k, probe, 0)
	for p, pc := range planes {
		for sq := board.Square(0); sq < 64; sq++ {
			i := fs.Index(board.White, k, pc, sq)
			switch {
			case pc.Type() == board.Pawn && (sq.Rank() == 0 || sq.Rank() == 7):
				i = -1
			case pc == ownKing && fs.Index(board.White, sq, probe, 0) != view:
				i = -1 // the own king on sq is in another bucket or mirror half
			}
			b.index[p][sq] = int32(i)
		}
	}
}

// Neuron is a hidden neuron of the first layer with the norm of its weights.
type Neuron struct {
	Index int
	// Norm is the L2 norm of the neuron's weights over every feature, in
	// float units.
	Norm float64
}

// NeuronName names accumulator neuron j: its index, or Rengar's subspace
// and index ("va 3").
func (v *Net) NeuronName(j int) string {
	if v.Spec.Head.Type == "rengar" && v.Network.Width == 128 {
		return fmt.Sprintf("%s %d", [4]string{"fs", "va", "ha", "ra"}[j/32], j%32)
	}
	return fmt.Sprintf("%d", j)
}

// Neurons returns every first-layer neuron with its weight norm, strongest
// first (ties by index).
func (v *Net) Neurons() []Neuron {
	ft := v.Tensor("ft.weight")
	w := v.Network.Width
	sums := make([]float64, w)
	for i, n := 0, ft.Len(); i < n; i++ {
		f := ft.Float(i)
		sums[i%w] += float64(f * f)
	}
	out := make([]Neuron, w)
	for j := range out {
		out[j] = Neuron{j, math.Sqrt(sums[j])}
	}
	sortNeurons(out)
	return out
}

func sortNeurons(ns []Neuron) {
	slices.SortFunc(ns, func(a, b Neuron) int {
		if c := cmp.Compare(b.Norm, a.Norm); c != 0 {
			return c
		}
		return cmp.Compare(a.Index, b.Index)
	})
}

// Board returns neuron j's first-layer weights (float units) in view b:
// [plane][square], with ok false where there is no feature.
func (v *Net) Board(b *BucketView, j int) (w [12][64]float64, ok [12][64]bool) {
	ft := v.Tensor("ft.weight")
	width := v.Network.Width
	for p := range planes {
		for sq := 0; sq < 64; sq++ {
			if f := b.index[p][sq]; f >= 0 {
				w[p][sq], ok[p][sq] = ft.Float(int(f)*width+j), true
			}
		}
	}
	return w, ok
}

// VirtualBoard returns neuron j's virtual (factorizer) weights in view b,
// or ok all false without virtual rows.
func (v *Net) VirtualBoard(b *BucketView, j int) (w [12][64]float64, ok [12][64]bool) {
	if v.Virtual == nil {
		return w, ok
	}
	stride, off := v.Spec.Features.Stride(), v.Spec.Features.PlaneOffset
	width := v.Network.Width
	for p := range planes {
		for sq := 0; sq < 64; sq++ {
			if f := b.index[p][sq]; f >= 0 {
				r := int(f)%stride - off
				if r >= 0 && r < v.Virtual.Shape[0] {
					w[p][sq], ok[p][sq] = v.Virtual.Float(r*width+j), true
				}
			}
		}
	}
	return w, ok
}

// planeWeight is the weight mass of one piece plane.
type planeWeight struct {
	Plane int
	// MeanAbs is the mean |weight| of the plane's features over every
	// neuron and king bucket (float units).
	MeanAbs float64
	// Share is the plane's part of the sum of |weight| over all planes.
	Share float64
}

// planeWeights returns the first layer's weight mass per piece plane, over
// every king bucket and neuron (a feature shared by two planes, as the
// merged king plane of HalfKAv2, counts for both).
func (v *Net) planeWeights() []planeWeight {
	rowAbs := v.rowAbs()
	out := make([]planeWeight, 12)
	var total float64
	for p := range out {
		var sum float64
		n := 0
		for bi := range v.buckets {
			for sq := 0; sq < 64; sq++ {
				if f := v.buckets[bi].index[p][sq]; f >= 0 {
					sum += rowAbs[f]
					n++
				}
			}
		}
		out[p].Plane = p
		if n > 0 {
			out[p].MeanAbs = sum / float64(n*v.Network.Width)
		}
		total += sum
		out[p].Share = sum
	}
	for p := range out {
		if total > 0 {
			out[p].Share /= total
		}
	}
	return out
}

// rowAbs returns the sum of |weight| of every feature row.
func (v *Net) rowAbs() []float64 {
	ft := v.Tensor("ft.weight")
	w := v.Network.Width
	rows := ft.Len() / w
	out := make([]float64, rows)
	for f := 0; f < rows; f++ {
		var s float64
		for j := 0; j < w; j++ {
			s += math.Abs(ft.Float(f*w + j))
		}
		out[f] = s
	}
	return out
}

// Feature is a first-layer feature with the norm of its weight row.
type Feature struct {
	Index  int
	Bucket int
	// King is the own king's square of the bucket's view the feature was
	// found in (see BucketView).
	King   board.Square
	Plane  int
	Square board.Square
	// Merged is true for a king plane that both kings share (HalfKAv2).
	Merged bool
	// Bucketed is true when the design has king buckets.
	Bucketed bool
	// Norm is the L2 norm of the feature's row over every neuron (float
	// units).
	Norm float64
}

// String describes the feature, e.g. "own queen d1 (bucket 0, own king
// e1)"; a merged king plane's feature is "a king on ...".
func (f Feature) String() string {
	name := planeName(f.Plane) + " on"
	if f.Merged {
		name = "a king (merged plane) on"
	}
	if !f.Bucketed {
		return fmt.Sprintf("%s %s", name, f.Square)
	}
	return fmt.Sprintf("%s %s (bucket %d, own king %s)", name, f.Square, f.Bucket, f.King)
}

// TopFeatures returns the k features with the largest weight rows (as
// seen from White in each bucket's unmirrored view).
func (v *Net) TopFeatures(k int) []Feature {
	ft := v.Tensor("ft.weight")
	w := v.Network.Width
	var all []Feature
	seen := map[int32]bool{}
	for bi := range v.buckets {
		b := &v.buckets[bi]
		for p := range planes {
			for sq := 0; sq < 64; sq++ {
				f := b.index[p][sq]
				if f < 0 || seen[f] {
					continue
				}
				seen[f] = true
				var s float64
				for j := 0; j < w; j++ {
					x := ft.Float(int(f)*w + j)
					s += float64(x * x)
				}
				merged := v.Spec.Features.Kings == "merged" && planes[p].Type() == board.King
				all = append(all, Feature{Index: int(f), Bucket: b.Bucket, King: b.King, Plane: p, Square: board.Square(sq), Merged: merged, Bucketed: len(v.buckets) > 1, Norm: math.Sqrt(s)})
			}
		}
	}
	slices.SortFunc(all, func(a, b Feature) int {
		if c := cmp.Compare(b.Norm, a.Norm); c != 0 {
			return c
		}
		return cmp.Compare(a.Index, b.Index)
	})
	return all[:min(k, len(all))]
}
