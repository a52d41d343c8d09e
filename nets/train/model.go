package train

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/nnue"
	"github.com/nnuelab/nnuelab/nets/train/vec"
)

// Param is one trainable tensor. Data holds the values exactly as the float
// net file stores them (the meaning nnue.FromFloat gives them); the
// optimizer keeps its moments beside them.
type Param struct {
	Name  string
	Shape []int
	Data  []float32
	// M and V are Adam's first and second moments.
	M, V []float32
	// LRMult multiplies the learning rate for this tensor: the size of the
	// tensor's natural unit (see unitsFor), so that one learning rate suits
	// every architecture and quantization.
	LRMult float32
	// Clip bounds |value| after every step: the range the architecture's
	// quantization can represent (see clipBounds).
	Clip float32
	// Decay says whether weight decay applies (not to biases).
	Decay bool
	// Grid is the quantization multiplier of a head tensor whose integer
	// form the engine uses (0: none, or kept in float). With
	// quantization-aware training, Fwd holds the values rounded to it.
	Grid float64
	// Fwd is what the forward and backward passes use: Data itself, or
	// under quantization-aware training Data rounded to the grid (the
	// gradient passes straight through to Data).
	Fwd []float32
}

// refresh recomputes Fwd when it is a rounded copy of Data: round half
// away from zero, as nnue.FromFloat quantizes.
func (p *Param) refresh() { p.refreshRange(0, len(p.Data)) }

// refreshRange is refresh on the elements [from, to).
func (p *Param) refreshRange(from, to int) {
	if len(p.Fwd) == 0 || &p.Fwd[0] == &p.Data[0] {
		return
	}
	for i := from; i < to; i++ {
		p.Fwd[i] = float32(math.Round(float64(p.Data[i])*p.Grid) / p.Grid)
	}
}

func newParam(name string, lrMult, clip float32, decay bool, shape ...int) *Param {
	n := 1
	for _, d := range shape {
		n *= d
	}
	p := &Param{Name: name, Shape: shape, Data: make([]float32, n), M: make([]float32, n), V: make([]float32, n),
		LRMult: lrMult, Clip: clip, Decay: decay}
	p.Fwd = p.Data
	return p
}

// clipBound returns the largest float32 v whose quantization
// round(v*scale) (half away from zero, as nnue.FromFloat) is at most limit
// in magnitude.
func clipBound(limit, scale float64) float32 {
	v := float32(limit / scale)
	for math.Round(float64(v)*scale) > limit {
		v = math.Nextafter32(v, 0)
	}
	return v
}

// uniform fills p with values drawn uniformly from [-lim, lim], clipped.
func (p *Param) uniform(rng *rand.Rand, lim float32) {
	for i := range p.Data {
		// float32(x*y) here and below: no FMA fusion at GOAMD64=v3 (make fma-check).
		p.Data[i] = min(max((2*float32(rng.Float32())-1)*lim, -p.Clip), p.Clip)
	}
}

// head is the part of a model after the accumulators. Implementations keep
// per-worker state in the scratch value they create, so that one head
// serves all workers.
type head interface {
	params() []*Param
	newScratch() any
	// forward returns the output in the design's internal units (the value
	// the engine's integer head approximates before truncation).
	forward(s any, us, them []float32, bucket int) float32
	// backward follows forward on the same scratch: it adds the parameter
	// gradients of dL/dout = dout into g (indexed like params()) and writes
	// the accumulator gradients to dus and dthem (dthem is nil when the
	// head reads only the side to move's accumulator).
	backward(s any, us, them []float32, bucket int, dout float32, g [][]float32, dus, dthem []float32)
	// flops is the float operations of one forward and backward pass.
	flops() float64
}

// Model is a trainable float32 network of an architecture: a sparse
// feature transformer (dual perspective, or side to move only) and a head.
// Its tensors are those of nnue.FromFloat, so a trained model loads into
// the engine unchanged.
type Model struct {
	Spec *archs.Spec
	fs   *nnue.FeatureSet
	// width is the accumulator width per perspective (128 for rengar's four
	// subspaces of 32).
	width int
	// both is true when the head reads both perspectives.
	both bool
	// rows is the number of feature rows of the transformer matrix: the
	// feature set's, then, when factorized, the virtual rows.
	rows int
	// factor > 0 trains a king-bucketed feature set factorized: factor
	// virtual rows, one per (piece, square) as the buckets see it, are
	// active beside every real feature of that piece and square, so that
	// what all king buckets share is learnt from every position (the
	// "HalfKP^" factorizer of Stockfish's trainers). Tensors folds each
	// virtual row into the real rows it stands beside; the engine never
	// sees them.
	factor   int
	realRows int
	fOffset  int
	fStride  int
	// folded is a factorized model's forward matrix, realRows rows: each
	// real row plus the virtual row it stands beside (foldRow), rebuilt
	// whenever the rows change (the optimizer's step, sync), so that the
	// forward pass reads one row per active feature instead of two.
	folded []float32
	// ft and ftBias are the transformer's tensors (nil for rengar, whose
	// matrix is built from the tied embeddings in tied).
	ft, ftBias *Param
	tied       *rengarTied
	head       head
	all        []*Param // every parameter: transformer first, then head
	headStart  int      // index of the first head parameter in all
}

// matrix returns the transformer matrix used in the forward pass: the
// feature rows (a factorized model's folded rows, Rengar's expanded ones).
func (m *Model) matrix() []float32 {
	switch {
	case m.tied != nil:
		return m.tied.virt
	case m.folded != nil:
		return m.folded
	}
	return m.ft.Data
}

// foldRow sets real row f of the folded matrix: the row, plus its virtual
// row if it has one (one float32 add per element, as Tensors folds).
func (m *Model) foldRow(f int) {
	W := m.width
	dst := m.folded[f*W:][:W]
	copy(dst, m.ft.Data[f*W:][:W])
	if v := m.virtual(f); v >= 0 {
		vec.Add(dst, m.ft.Data[(m.realRows+v)*W:][:W])
	}
}

// refold rebuilds a factorized model's folded matrix.
func (m *Model) refold() {
	if m.folded == nil {
		return
	}
	for f := 0; f < m.realRows; f++ {
		m.foldRow(f)
	}
}

// buckets returns the number of king buckets of a factorized model: real
// row b*fStride + fOffset + j stands beside virtual row j for each bucket
// b below it.
func (m *Model) buckets() int { return m.fs.Size() / m.fStride }

// bias returns the transformer bias, or nil.
func (m *Model) bias() []float32 {
	if m.ftBias == nil {
		return nil
	}
	return m.ftBias.Data
}

// Params returns every trainable tensor, in file order.
func (m *Model) Params() []*Param { return m.all }

// refLogit is the sigmoid scale the tensor units are computed with: 2.5/400
// per centipawn, CudAD's default.
const refLogit = 2.5 / 400

// cpPerUnit converts the design's internal units to centipawns.
func cpPerUnit(spec *archs.Spec) float64 {
	return float64(spec.Output.CPNum) / float64(spec.Output.CPDen)
}

// NewModel returns a model of spec with weights drawn from seed. Head
// types linear, sf12 and rengar are trainable; sf15 is not (yet).
func NewModel(spec *archs.Spec, seed uint64, opts ...Option) (*Model, error) {
	m := &Model{Spec: spec, fs: nnue.NewFeatureSet(&spec.Features), width: spec.Accumulator.Width, both: true}
	// With threat features, their rows follow the piece-square rows
	// (nnue.FromFloat's layout).
	m.rows = spec.Features.Inputs()
	m.realRows = m.rows
	for _, o := range opts {
		o(m)
	}
	if m.factor < 0 {
		if m.fs.KingBuckets() < 2 {
			return nil, fmt.Errorf("arch %s: only a feature set with king buckets can be factorized", spec.Name)
		}
		m.fOffset, m.fStride = spec.Features.PlaneOffset, spec.Features.Stride()
		m.factor = m.fStride - m.fOffset
		m.rows += m.factor
	}
	rng := rand.New(rand.NewPCG(seed, 0x6e6e75656c6162))
	q := spec.Quant
	// The feature transformer's bound keeps the int16 accumulator (bias +
	// up to 32 rows) from wrapping as well as each weight from overflowing.
	ftClip := clipBound(math.Floor(32767.0/33), float64(q.QA))
	switch spec.Head.Type {
	case "linear":
		h, ftUnit, err := newLinearHead(spec)
		if err != nil {
			return nil, err
		}
		m.head = h
		m.both = spec.Head.Inputs == "stm+opp"
		m.ft = newParam("ft.weight", ftUnit, ftClip, true, m.rows, m.width)
		m.ftBias = newParam("ft.bias", ftUnit, ftClip, false, m.width)
		m.ft.uniform(rng, 0.1*ftUnit)
	case "sf12":
		h, err := newSF12Head(spec)
		if err != nil {
			return nil, err
		}
		m.head = h
		m.ft = newParam("ft.weight", 1, ftClip, true, m.rows, m.width)
		m.ftBias = newParam("ft.bias", 1, ftClip, false, m.width)
		m.ft.uniform(rng, 0.1)
		// Start with most of the clipped ReLU's inputs in its linear range.
		for i := range m.ftBias.Data {
			m.ftBias.Data[i] = 0.25
		}
	case "rengar":
		m.width, m.both = 128, false
		m.tied = newRengarTied(m.fs, ftClip)
		m.head = newRengarHead(spec)
	default:
		return nil, fmt.Errorf("arch %s: training head type %q is not supported (linear, sf12, rengar are)", spec.Name, spec.Head.Type)
	}
	if m.ft != nil {
		m.all = append(m.all, m.ft, m.ftBias)
	} else {
		m.all = append(m.all, m.tied.params...)
	}
	if m.factor > 0 {
		// Virtual rows start at zero: the folded net starts as an
		// unfactorized one would.
		clear(m.ft.Data[m.realRows*m.width:])
		m.folded = make([]float32, m.realRows*m.width)
	}
	m.headStart = len(m.all)
	m.all = append(m.all, m.head.params()...)
	// Head and tied parameters draw their initial values in file order.
	for _, p := range m.all[m.headStart:] {
		initHeadParam(p, rng)
	}
	if m.tied != nil {
		for _, p := range m.tied.params {
			p.uniform(rng, 0.1)
		}
		m.tied.build()
	}
	m.refold()
	return m, nil
}

// initHeadParam draws a head tensor: weights uniform in +-unit/sqrt(fan-in)
// (hidden dense layers +-1/sqrt(fan-in) whatever their unit: sf12's int8
// grid of 1/64 needs weights well above it), biases zero (the sf12 hidden
// biases a little positive, so that the clipped ReLUs start in their linear
// range).
func initHeadParam(p *Param, rng *rand.Rand) {
	fanIn := p.Shape[len(p.Shape)-1]
	switch {
	case p.Name == "l1.weight" || p.Name == "l2.weight":
		p.uniform(rng, 1/float32(math.Sqrt(float64(fanIn))))
	case !p.Decay && (p.Name == "l1.bias" || p.Name == "l2.bias"):
		for i := range p.Data {
			p.Data[i] = 0.25
		}
	case !p.Decay:
		// biases (and rengar's tempo) start at zero
	default:
		p.uniform(rng, p.LRMult/float32(math.Sqrt(float64(fanIn))))
	}
}

// SetTensors replaces the model's weights with tensors of the same names
// and shapes (a trained net or a checkpoint's values).
func (m *Model) SetTensors(ts []nnue.Tensor) error { return m.setTensors(ts, false) }

// WarmStart starts the model from a trained net's tensors (Tensors' form):
// a factorized model takes the folded transformer rows as its real rows
// and starts its virtual rows at zero, which is the same function.
func (m *Model) WarmStart(ts []nnue.Tensor) error { return m.setTensors(ts, true) }

func (m *Model) setTensors(ts []nnue.Tensor, folded bool) error {
	by := map[string]*nnue.Tensor{}
	for i := range ts {
		by[ts[i].Name] = &ts[i]
	}
	for _, p := range m.all {
		t, ok := by[p.Name]
		if !ok {
			return fmt.Errorf("tensor %q missing", p.Name)
		}
		if folded && p == m.ft && m.factor > 0 {
			W := m.width
			if len(t.Shape) != 2 || t.Shape[0] != m.realRows || t.Shape[1] != W || len(t.Data) != m.realRows*W {
				return fmt.Errorf("tensor %q has shape %v, arch %s needs [%d %d]", p.Name, t.Shape, m.Spec.Name, m.realRows, W)
			}
			if err := finite(t); err != nil {
				return err
			}
			clear(p.Data)
			copy(p.Data, t.Data)
			continue
		}
		if fmt.Sprint(t.Shape) != fmt.Sprint(p.Shape) || len(t.Data) != len(p.Data) {
			return fmt.Errorf("tensor %q has shape %v, arch %s needs %v", p.Name, t.Shape, m.Spec.Name, p.Shape)
		}
		if err := finite(t); err != nil {
			return err
		}
		copy(p.Data, t.Data)
	}
	m.sync()
	return nil
}

func finite(t *nnue.Tensor) error {
	for i, v := range t.Data {
		if math.IsNaN(float64(v)) || math.IsInf(float64(v), 0) {
			return fmt.Errorf("tensor %q[%d] is %g", t.Name, i, v)
		}
	}
	return nil
}

// Option changes how NewModel builds a model.
type Option func(*Model)

// Factorized trains a king-bucketed feature set with virtual features
// shared by all buckets (see Model.factor); NewModel refuses it for a set
// without king buckets.
func Factorized() Option { return func(m *Model) { m.factor = -1 } }

// FactorizeFor resolves a factorizer mode for spec: "on" and "off" as
// said, "auto" on for feature sets with king buckets (HalfKP's 64,
// Koivisto's 16, Leorik's 5): their rows see a bucket's share of the data,
// and on 3.1M positions a HalfKP 128x2 net overfits from the second epoch
// unfactorized.
func FactorizeFor(spec *archs.Spec, mode string) bool {
	switch mode {
	case "on":
		return true
	case "auto":
		return spec.Features.NumKingBuckets() > 1
	}
	return false
}

// Factorized reports whether the model trains virtual features.
func (m *Model) Factorized() bool { return m.factor > 0 }

// Tensors returns the model's weights as nnue.FromFloat reads them (copies),
// with a factorized model's virtual rows folded into the real ones (and
// the sums clipped to the transformer's bound).
func (m *Model) Tensors() []nnue.Tensor {
	out := make([]nnue.Tensor, 0, len(m.all))
	for _, p := range m.all {
		t := nnue.Tensor{Name: p.Name, Shape: append([]int(nil), p.Shape...), Data: append([]float32(nil), p.Data...)}
		if p == m.ft && m.factor > 0 {
			W := m.width
			t.Shape[0] = m.realRows
			t.Data = t.Data[:m.realRows*W]
			for f := 0; f < m.realRows; f++ {
				vf := m.virtual(f)
				if vf < 0 {
					continue
				}
				row, v := t.Data[f*W:][:W], p.Data[(m.realRows+vf)*W:][:W]
				for i := range row {
					row[i] = max(-p.Clip, min(p.Clip, row[i]+v[i]))
				}
			}
		}
		out = append(out, t)
	}
	return out
}

// virtual returns the virtual row (counted from the first) of real feature
// f, or -1 for the unused slots before a bucket's planes (HalfKP's first).
func (m *Model) virtual(f int) int {
	if f >= m.fs.Size() {
		return -1 // a threat feature: no king bucket to factor out
	}
	j := f % m.fStride
	if j < m.fOffset {
		return -1
	}
	return j - m.fOffset
}

// NumParams returns the number of trainable values.
func (m *Model) NumParams() int {
	n := 0
	for _, p := range m.all {
		n += len(p.Data)
	}
	return n
}

// bucket returns the output bucket of a position with the given piece
// count, as the engine selects it.
func (m *Model) bucket(pieces int) int {
	h := &m.Spec.Head
	var b int
	switch h.BucketSelector {
	case "(pieces-1)/4":
		b = (pieces - 1) / 4
	case "(pieces-2)/4":
		b = (pieces - 2) / 4
	}
	return min(max(b, 0), h.OutputBuckets-1)
}

// features appends the active features of perspective c in r to dst: the
// engine's own indices (nnue.FeatureSet.Index), so a trained row means the
// same to the engine; with threat features, also the rows of the threats
// on the board (nnue.FeatureSet.AppendThreats: Size() + threat index). A
// factorized model's virtual features are not listed: each is active
// exactly where its real feature is, and the folded matrix (forward) and
// the virtual rows' gradient (the sum of their real rows' gradients,
// engine.virtualGrads) account for them.
func (m *Model) features(r *datasets.Record, c board.Color, dst []int32) []int32 {
	ksq := r.King(c)
	v := m.fs.View(c, ksq)
	r.Pieces(func(p board.Piece, s board.Square) {
		if i := v.Index(p, s); i >= 0 {
			dst = append(dst, int32(i))
		}
	})
	if m.fs.Threats() {
		var tb nnue.ThreatBoard
		tb.Clear()
		r.Pieces(func(p board.Piece, s board.Square) { tb.Put(p, s) })
		dst = m.fs.AppendThreats(&tb, c, ksq, dst)
	}
	return dst
}

// evalScratch is what one evaluation needs.
type evalScratch struct {
	us, them []float32
	feats    []int32
	head     any
}

func (m *Model) newEvalScratch() *evalScratch {
	return &evalScratch{us: make([]float32, m.width), them: make([]float32, m.width), feats: make([]int32, 0, 32), head: m.head.newScratch()}
}

// evaluate is the float forward pass of one position into s: the output in
// internal units from the side to move's view.
func (m *Model) evaluate(r *datasets.Record, s *evalScratch) float32 {
	stm := r.SideToMove()
	s.feats = m.features(r, stm, s.feats[:0])
	vec.SumRows(s.us, m.bias(), m.matrix(), m.width, s.feats)
	var them []float32
	if m.both {
		s.feats = m.features(r, stm.Other(), s.feats[:0])
		vec.SumRows(s.them, m.bias(), m.matrix(), m.width, s.feats)
		them = s.them
	}
	return m.head.forward(s.head, s.us, them, m.bucket(r.PieceCount()))
}

// Evaluate returns the model's float output for r in the design's internal
// units from the side to move's view: what the engine's quantized network
// computes up to rounding. It allocates; the trainer uses its own scratch.
func (m *Model) Evaluate(r *datasets.Record) float32 {
	return m.evaluate(r, m.newEvalScratch())
}

// flopsPerStep is the optimizer's work per step: about 12 operations per
// parameter for Adam with clipping.
func (m *Model) flopsPerStep() float64 { return float64(12 * float64(m.NumParams())) }

// sync rebuilds what depends on the parameters outside the optimizer's
// step (Rengar's expanded matrix, a factorized model's folded one, the
// rounded copies of quantization-aware training) after the tensors were changed directly.
func (m *Model) sync() {
	if m.tied != nil {
		m.tied.build()
	}
	m.refold()
	for _, p := range m.all {
		p.refresh()
	}
}

// SetQAT turns quantization-aware training of the head on or off: the
// head's quantized tensors (Param.Grid) are used rounded to their grid in
// the forward pass, as the engine's integer head will hold them, and their
// gradient goes straight through to the float values (the straight-through
// estimator). The float values stay the trained tensors; nnue.FromFloat
// rounds them to exactly what the forward pass used.
func (m *Model) SetQAT(on bool) {
	for _, p := range m.all[m.headStart:] {
		switch {
		case on && p.Grid > 0:
			p.Fwd = make([]float32, len(p.Data))
			p.refresh()
		default:
			p.Fwd = p.Data
		}
	}
}

// QAT reports whether quantization-aware training is on.
func (m *Model) QAT() bool {
	for _, p := range m.all[m.headStart:] {
		if len(p.Fwd) > 0 && &p.Fwd[0] != &p.Data[0] {
			return true
		}
	}
	return false
}
