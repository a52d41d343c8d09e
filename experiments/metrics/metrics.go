package metrics

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"runtime"
	"time"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/nnue"
	"github.com/nnuelab/nnuelab/engine/search"
	"github.com/nnuelab/nnuelab/experiments/data"
	"github.com/nnuelab/nnuelab/internal/cputime"
	"github.com/nnuelab/nnuelab/nets"
	"github.com/nnuelab/nnuelab/nets/train"
)

// Agreement compares a net's evaluations with Stockfish 15.1's NNUE
// evaluation of the same positions (both in centipawns, side to move).
type Agreement struct {
	N int `json:"n"`
	// Scale is the least-squares factor a in sf ≈ a·cp (fitted through
	// the origin), which absorbs the nets' different centipawn scales.
	Scale float64 `json:"scale"`
	// MAE is mean |sf − a·cp| (cp), MAEUnscaled mean |sf − cp|.
	MAE         float64 `json:"mae_cp"`
	MAEUnscaled float64 `json:"mae_unscaled_cp"`
	// Sign is the share of positions where both agree on the sign
	// (0 counting as its own sign); Corr the Pearson correlation.
	Sign float64 `json:"sign"`
	Corr float64 `json:"corr"`
}

// agreementOf computes Agreement of cp against the reference sf.
func agreementOf(cp, sf []float64) Agreement {
	var sxy, sxx float64
	for i := range cp {
		// float64(x*y) here and below: no FMA fusion at GOAMD64=v3 (make fma-check).
		sxy += float64(cp[i] * sf[i])
		sxx += float64(cp[i] * cp[i])
	}
	a := Agreement{N: len(cp), Scale: 1}
	if sxx > 0 {
		a.Scale = sxy / sxx
	}
	var mae, raw, sign float64
	for i := range cp {
		mae += math.Abs(sf[i] - float64(a.Scale*cp[i]))
		raw += math.Abs(sf[i] - cp[i])
		if sgn(cp[i]) == sgn(sf[i]) {
			sign++
		}
	}
	n := float64(len(cp))
	a.MAE, a.MAEUnscaled, a.Sign = mae/n, raw/n, sign/n
	a.Corr = pearson(cp, sf)
	return a
}

func sgn(x float64) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}

func pearson(x, y []float64) float64 {
	n := float64(len(x))
	var mx, my float64
	for i := range x {
		mx += x[i]
		my += y[i]
	}
	mx, my = mx/n, my/n
	var sxy, sxx, syy float64
	for i := range x {
		dx, dy := x[i]-mx, y[i]-my
		sxy += float64(dx * dy)
		sxx += float64(dx * dx)
		syy += float64(dy * dy)
	}
	if sxx == 0 || syy == 0 {
		return 0
	}
	return sxy / math.Sqrt(sxx*syy)
}

// netCP is the network's output for p in centipawns, side to move, without
// the truncation of Network.Centipawns (a quantization error below one
// centipawn stays visible).
func netCP(n *nnue.Network, p *board.Position) float64 {
	raw := n.Evaluate(p, nil)
	return float64(raw) * float64(n.Spec.Output.CPNum) / float64(n.Spec.Output.CPDen)
}

// stockfishReference returns Stockfish 15.1's NNUE evaluation (cp, side to
// move) of each position: from the built-in table for the built-in
// positions, else computed with the sf15.1 architecture on the net the
// installed Stockfish 15.1 exports.
func stockfishReference(posFile string, ps []data.Position) ([]float64, string, error) {
	const num, den = 100.0, 361.0 // archs/sf15.1.toml: cp = raw*100/361
	if posFile == data.BuiltinPositions {
		raw, err := data.BuiltinStockfishRaw()
		if err != nil {
			return nil, "", err
		}
		out := make([]float64, len(ps))
		for i := range ps {
			if i >= len(raw) {
				return nil, "", fmt.Errorf("built-in Stockfish table has %d entries, positions %d", len(raw), len(ps))
			}
			out[i] = float64(raw[i]) * num / den
		}
		return out, "built-in table (Stockfish 15.1, nn-ad9b42354671.nnue)", nil
	}
	spec, err := archs.Load("sf15.1")
	if err != nil {
		return nil, "", err
	}
	net, err := nets.Load(spec, "")
	if err != nil {
		return nil, "", fmt.Errorf("agreement with Stockfish 15.1 on %s needs its net: %w", posFile, err)
	}
	out := make([]float64, len(ps))
	for i, p := range ps {
		out[i] = netCP(net, p.Pos)
	}
	return out, "sf15.1 arch on Stockfish 15.1's exported net", nil
}

// QuantError compares the quantized network with the float network it was
// quantized from (cp, side to move).
type QuantError struct {
	N    int     `json:"n"`
	Mean float64 `json:"mean_cp"`
	Max  float64 `json:"max_cp"`
	// Bias is the mean signed difference quantized − float.
	Bias float64 `json:"bias_cp"`
}

// floatNet is a net's float tensors and how its trainer evaluated them.
type floatNet struct {
	tensors []nnue.Tensor
	// qat: the head was trained through its rounding (train.Model.SetQAT),
	// so the float net that was trained and validated rounds the head's
	// tensors to their grid. Its unrounded values are only the optimizer's
	// state, and comparing the engine with them would charge to quantization
	// what the trainer chose to ignore (the straight-through estimator never
	// pulls a weight back towards its grid point).
	qat bool
}

// floatTensors returns the float tensors of a net whose file keeps them:
// nnuelab's float format (with its training config's QAT setting), and
// Koivisto 5.x float nets. It returns nil (with the reason) for nets stored
// quantized.
func floatTensors(spec *archs.Spec, path string) (fn *floatNet, why string, err error) {
	if path == "" {
		if spec.Net.Format == "koivisto-float" {
			return nil, "the shipped float net is embedded; give its file as net = \"...\" to compare float and quantized", nil
		}
		return nil, fmt.Sprintf("net format %s stores quantized weights: no float reference", spec.Net.Format), nil
	}
	switch spec.Net.Format {
	case "nnuelab", "float":
		f, err := os.Open(path)
		if err != nil {
			return nil, "", err
		}
		defer f.Close()
		h, ts, err := nets.ReadFloat(f)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", path, err)
		}
		qat, err := trainedQAT(spec, h)
		if err != nil {
			return nil, "", fmt.Errorf("%s: %w", path, err)
		}
		return &floatNet{tensors: ts, qat: qat}, "", nil
	case "koivisto-float":
		ts, err := readKoivistoFloat(spec, path)
		if err != nil {
			return nil, "", err
		}
		return &floatNet{tensors: ts}, "", nil
	}
	return nil, fmt.Sprintf("net format %s stores quantized weights: no float reference", spec.Net.Format), nil
}

// trainedQAT reads from a float net's header whether nnuelab's trainer ran
// it with quantization-aware training. A net without a training config
// (written by other tools) was not.
func trainedQAT(spec *archs.Spec, h *nets.Header) (bool, error) {
	js, ok := h.Training["config"]
	if !ok {
		return false, nil
	}
	var cfg struct {
		QAT string `json:"qat"`
	}
	if err := json.Unmarshal([]byte(js), &cfg); err != nil {
		return false, fmt.Errorf("header [training] config: %w", err)
	}
	if cfg.QAT == "" {
		return false, nil
	}
	return train.QATFor(spec, cfg.QAT), nil
}

// readKoivistoFloat reads a Koivisto 5.x float net (u64 value count, then
// float32 feature weights, feature biases, output weights, output bias;
// docs/reference/koivisto-net.md section 4) as the tensors
// nnue.FromFloat and the trainer's model take.
func readKoivistoFloat(spec *archs.Spec, path string) ([]nnue.Tensor, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReader(f)
	features, width := spec.Features.Size(), spec.Accumulator.Width
	inputs := 1
	if spec.Head.Inputs == "stm+opp" {
		inputs = 2
	}
	var count uint64
	if err := binary.Read(r, binary.LittleEndian, &count); err != nil {
		return nil, fmt.Errorf("%s: value count: %w", path, err)
	}
	want := uint64(features*width + width + inputs*width + 1)
	if count != want {
		return nil, fmt.Errorf("%s: header says %d values, architecture %s needs %d", path, count, spec.Name, want)
	}
	read := func(name string, shape ...int) (nnue.Tensor, error) {
		n := 1
		for _, s := range shape {
			n *= s
		}
		t := nnue.Tensor{Name: name, Shape: shape, Data: make([]float32, n)}
		if err := binary.Read(r, binary.LittleEndian, t.Data); err != nil {
			return t, fmt.Errorf("%s: %s: %w", path, name, err)
		}
		return t, nil
	}
	var ts []nnue.Tensor
	for _, s := range []struct {
		name  string
		shape []int
	}{{"ft.weight", []int{features, width}}, {"ft.bias", []int{width}}, {"out.weight", []int{1, inputs * width}}, {"out.bias", []int{1}}} {
		t, err := read(s.name, s.shape...)
		if err != nil {
			return nil, err
		}
		ts = append(ts, t)
	}
	if _, err := r.ReadByte(); err != io.EOF {
		return nil, fmt.Errorf("%s: trailing bytes after the output bias", path)
	}
	return ts, nil
}

// quantErrorOf evaluates positions with the float model as it was trained
// and with the quantized network.
func quantErrorOf(spec *archs.Spec, net *nnue.Network, fn *floatNet, ps []data.Position) (*QuantError, error) {
	model, err := train.NewModel(spec, 1)
	if err != nil {
		return nil, err
	}
	if err := model.SetTensors(fn.tensors); err != nil {
		return nil, err
	}
	model.SetQAT(fn.qat)
	per := float64(spec.Output.CPNum) / float64(spec.Output.CPDen)
	q := &QuantError{N: len(ps)}
	for _, p := range ps {
		rec, err := datasets.ParseFEN(p.FEN)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", p.Line, err)
		}
		fl := float64(float64(model.Evaluate(&rec)) * per)
		d := netCP(net, p.Pos) - fl
		q.Mean += math.Abs(d)
		q.Bias += d
		q.Max = math.Max(q.Max, math.Abs(d))
	}
	q.Mean /= float64(len(ps))
	q.Bias /= float64(len(ps))
	return q, nil
}

// LossJSON is a loss as val_loss's records (their detail "loss") and the
// measure tasks' keys write it: lower-case keys, the form every committed
// result and key holds, whereas nets/train's Loss keeps its field names
// in the trained nets' keys.
type LossJSON struct {
	Kind   string  `json:"kind"`
	Power  float64 `json:"power"`
	Scale  float64 `json:"scale"`
	Lambda float64 `json:"lambda"`
}

// LossJSONOf returns l in that form (its schedule, LambdaEnd, is
// training's alone).
func LossJSONOf(l train.Loss) LossJSON {
	return LossJSON{Kind: l.Kind, Power: l.Power, Scale: l.Scale, Lambda: l.Lambda}
}

// ValLoss is the loss of the engine's (quantized) network on validation
// positions.
type ValLoss struct {
	N    int     `json:"n"`
	Loss float64 `json:"loss"`
}

// lossOf is the manifest's loss for a network output of cp centipawns
// (side to move) on a position with White-view score and result:
// nets/train's Loss.Of, the formula training uses.
func lossOf(l train.Loss, cp float64, rec *datasets.Record) float64 {
	score := float64(rec.Score)
	wdl := float64(rec.Result.WDL())
	if rec.SideToMove() == board.Black {
		score, wdl = -score, 1-wdl
	}
	loss, _ := l.Of(l.Scale*cp, score, wdl)
	return loss
}

// valLossOf reads the validation files (up to limit positions) and averages
// the loss of the network's evaluations.
func valLossOf(l train.Loss, net *nnue.Network, files []string, limit int) (*ValLoss, error) {
	v := &ValLoss{}
	for _, name := range files {
		f, err := data.Open(name)
		if err != nil {
			return nil, err
		}
		err = valLossFile(l, net, f, name, limit, v)
		f.Close()
		if err != nil {
			return nil, err
		}
	}
	if v.N == 0 {
		return nil, fmt.Errorf("no validation positions in %v", files)
	}
	v.Loss /= float64(v.N)
	return v, nil
}

// valLossFile adds the losses of the positions of one validation file,
// open as f, to v (until v holds limit positions, 0 = no limit).
func valLossFile(l train.Loss, net *nnue.Network, f io.Reader, name string, limit int, v *ValLoss) error {
	r, err := datasets.NewReader(f, name, datasets.Options{})
	if err != nil {
		return err
	}
	if limit != 0 && v.N >= limit {
		return r.Close()
	}
	for rec, err := range datasets.ScanReader(r).All() {
		if err != nil {
			return err
		}
		p, err := rec.Position()
		if err != nil {
			return fmt.Errorf("%s: %w", name, err)
		}
		v.Loss += lossOf(l, netCP(net, p), &rec)
		if v.N++; limit != 0 && v.N >= limit {
			break
		}
	}
	return nil
}

// Shares counts how a search's evaluations got their accumulators, per
// perspective update: from the accumulator d plies back (Served[d-1] for d
// = 1.. up to MaxDepth, the rest in Deeper), or by a refresh.
type Shares struct {
	Nodes     uint64   `json:"nodes"`
	Updates   uint64   `json:"updates"`
	Served    []uint64 `json:"served"` // d = 1..len
	Deeper    uint64   `json:"deeper"` // d > len(Served)
	Refreshes uint64   `json:"refreshes"`
	CacheHits uint64   `json:"cache_hits"`
}

// ShareDepth is how many distances Shares lists one by one.
const ShareDepth = 8

// SearchPositions picks n positions spread evenly over ps.
func SearchPositions(ps []data.Position, n int) []data.Position {
	if n >= len(ps) {
		return ps
	}
	out := make([]data.Position, n)
	for i := range out {
		out[i] = ps[i*len(ps)/n]
	}
	return out
}

// historyShares searches each position to a node budget with the
// variant's evaluator (its history depth and refresh cache) and returns
// the evaluator's counters over all searches, and over the searches whose
// root is not in check (the search does not evaluate a root in check, which
// changes where accumulators come from). Searches are deterministic, so the
// shares are too.
func historyShares(ctx context.Context, net *nnue.Network, ps []data.Position, nodes int) (all, quiet *Shares, err error) {
	ev := nnue.NewEvaluator(net)
	tt, err := search.NewTT(16)
	if err != nil {
		return nil, nil, err
	}
	s := search.New(ev, tt)
	var total, quietNodes uint64
	var quietStats nnue.Stats
	for _, p := range ps {
		tt.Clear()
		s.Clear()
		before := ev.Stats()
		res := s.Search(ctx, p.Pos, search.Limits{Nodes: uint64(nodes)}, nil)
		total += res.Nodes
		if err := ctx.Err(); err != nil {
			return nil, nil, err
		}
		if !p.Pos.InCheck() {
			after := ev.Stats()
			for d := range after.Served {
				quietStats.Served[d] += after.Served[d] - before.Served[d]
			}
			quietStats.Refreshes += after.Refreshes - before.Refreshes
			quietStats.CacheHits += after.CacheHits - before.CacheHits
			quietNodes += res.Nodes
		}
	}
	return sharesOf(ev.Stats(), total), sharesOf(quietStats, quietNodes), nil
}

func sharesOf(st nnue.Stats, nodes uint64) *Shares {
	sh := &Shares{Nodes: nodes, Served: make([]uint64, ShareDepth), Refreshes: st.Refreshes, CacheHits: st.CacheHits}
	for d := 1; d < len(st.Served); d++ {
		if d <= ShareDepth {
			sh.Served[d-1] = st.Served[d]
		} else {
			sh.Deeper += st.Served[d]
		}
		sh.Updates += st.Served[d]
	}
	sh.Updates += st.Refreshes
	return sh
}

// trace is the evaluator calls of a search, recorded once and replayed on
// every variant so that each does exactly the same work.
type trace struct {
	ops   []traceOp
	snaps []board.Position
	Evals int `json:"-" toml:"-"`
}

type traceOp struct {
	kind  uint8 // opReset, opPush, opPop, opEval
	snap  int32
	want  int32
	delta board.Delta
}

const (
	opReset = iota
	opPush
	opPop
	opEval
)

// recorder is an eval.Evaluator that records the calls it forwards.
type recorder struct {
	ev *nnue.Evaluator
	tr *trace
}

func (r *recorder) Reset(p *board.Position) {
	r.tr.snaps = append(r.tr.snaps, *p)
	r.tr.ops = append(r.tr.ops, traceOp{kind: opReset, snap: int32(len(r.tr.snaps) - 1)})
	r.ev.Reset(p)
}

func (r *recorder) Push(d *board.Delta) {
	r.tr.ops = append(r.tr.ops, traceOp{kind: opPush, delta: *d})
	r.ev.Push(d)
}

func (r *recorder) Pop() {
	r.tr.ops = append(r.tr.ops, traceOp{kind: opPop})
	r.ev.Pop()
}

func (r *recorder) Evaluate(p *board.Position) int {
	v := r.ev.Evaluate(p)
	// The snapshot keeps what an evaluation reads (pieces, kings, side to
	// move); replay checks that the base evaluates it the same.
	r.tr.snaps = append(r.tr.snaps, *p)
	r.tr.ops = append(r.tr.ops, traceOp{kind: opEval, snap: int32(len(r.tr.snaps) - 1), want: int32(v)})
	r.tr.Evals++
	return v
}

// recordTrace searches the positions with the network's evaluator and
// records its calls.
func recordTrace(ctx context.Context, net *nnue.Network, ps []data.Position, nodes int) (*trace, error) {
	tr := &trace{}
	rec := &recorder{ev: nnue.NewEvaluator(net), tr: tr}
	tt, err := search.NewTT(16)
	if err != nil {
		return nil, err
	}
	s := search.New(rec, tt)
	for _, p := range ps {
		tt.Clear()
		s.Clear()
		s.Search(ctx, p.Pos, search.Limits{Nodes: uint64(nodes)}, nil)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
	}
	return tr, nil
}

// replay runs the trace on each evaluator of evs in turn (fresh ones, so
// that every pass does the work of one search) and returns the
// evaluations per second of thread CPU time (wall time where the OS has
// no thread clock) and the time the passes took, timed as one span. check
// makes a differing evaluation an error (the base must reproduce the
// recording exactly).
func replay(evs []*nnue.Evaluator, tr *trace, check bool) (float64, time.Duration, error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	start := cputime.Thread()
	bad := -1
	for _, ev := range evs {
		for i := range tr.ops {
			op := &tr.ops[i]
			switch op.kind {
			case opReset:
				ev.Reset(&tr.snaps[op.snap])
			case opPush:
				ev.Push(&op.delta)
			case opPop:
				ev.Pop()
			case opEval:
				if v := ev.Evaluate(&tr.snaps[op.snap]); v != int(op.want) && bad < 0 {
					bad = i
				}
			}
		}
	}
	el := cputime.Thread() - start
	if check && bad >= 0 {
		return 0, el, fmt.Errorf("replay: evaluation %d differs from the recorded search (%s)", bad, tr.snaps[tr.ops[bad].snap].FEN())
	}
	if el <= 0 {
		el = time.Nanosecond
	}
	return float64(tr.Evals*len(evs)) / el.Seconds(), el, nil
}

// A speed round (one variant's replays of the trace) lasts at least
// minSpeedRound of CPU time and at least roundSteps steps of the clock
// that times it, so that a round's ratio resolves the code, not the
// clock: a clock advancing in 4 ms ticks over a 28 ms round can only give
// ratios of 6/7, 1 and 7/6. A bench round sums runs to last roundSteps
// steps of the process clock.
const (
	MinSpeedRound    = 250 * time.Millisecond
	roundSteps       = 200
	maxSpeedReps     = 1000
	maxBenchRuns     = 20                     // bench runs a round at most
	resolutionBudget = 250 * time.Millisecond // clockResolution's wall-time budget
)

// speedRoundTarget is the least duration of a round timed by a clock of
// this resolution.
func speedRoundTarget(resolution time.Duration) time.Duration {
	return max(MinSpeedRound, roundSteps*resolution)
}

// clockResolution reads the clock in a tight loop and returns the
// smallest step it made (0: it never moved within the time budget). For a
// clock counting nanoseconds that is about the cost of one reading, an
// upper bound of its resolution; for one counting ticks, the tick.
func clockResolution(read func() time.Duration) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const steps = 64
	var best time.Duration
	last, seen, start := read(), 0, time.Now()
	for seen < steps && time.Since(start) < resolutionBudget {
		v := read()
		if d := v - last; d > 0 {
			if best == 0 || d < best {
				best = d
			}
			seen++
			last = v
		}
	}
	return best
}

// calibrateReps returns how many passes of the trace a round needs to
// last target: pass(reps) times that many passes. It multiplies the
// passes until a span is long enough to measure (20 clock steps), then
// scales it up to the target with a 10% margin.
func calibrateReps(pass func(reps int) time.Duration, target, resolution time.Duration) int {
	reps := 1
	for {
		el := pass(reps)
		if el >= target || reps >= maxSpeedReps {
			return reps
		}
		if el > 0 && el >= 20*resolution {
			n := int(math.Ceil(float64(reps) * 1.1 * float64(target) / float64(el)))
			return min(max(n, reps+1), maxSpeedReps)
		}
		reps = min(reps*4, maxSpeedReps)
	}
}

// ProcessClock names the clock bench_nps is timed by: the bench process's
// CPU time as wait4 reports it (its rusage).
const ProcessClock = "process CPU time (rusage)"

// MinMax returns the smallest and the largest of xs (+Inf, -Inf for none):
// the min..max interval speed records quote over rounds.
func MinMax(xs []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range xs {
		lo, hi = math.Min(lo, x), math.Max(hi, x)
	}
	return
}
