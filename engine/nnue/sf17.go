package nnue

import (
	"bytes"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/nnue/simd"
)

// Stockfish 17.1 (spec: docs/reference/sf17.1-nnue.md). The layer stacks
// are 15.1's (sf15Head.propagate); what changed:
//
//   - the file stores the transformer's arrays LEB128-compressed, each
//     behind the magic COMPRESSED_LEB128 and its byte count;
//   - the engine doubles the transformer's weights and biases when it loads
//     them (in int16) and takes the pairwise product as
//     clamp(a,0,254)*clamp(b,0,254)/512 of the doubled accumulators;
//   - NNUE::evaluate returns psqt = tdiv(tdiv(psqt[stm][b]-psqt[opp][b], 2), 16)
//     and positional = tdiv(o2 + fwd, 16) separately, and Eval::evaluate
//     blends them, nnue = tdiv(125 psqt + 131 positional, 128), after
//     choosing between a big and a small net, then scales by the
//     complexity |psqt - positional|, the material and the 50-move counter.
//
// The accumulators here hold the file's (undoubled) sums in int16. The
// engine's doubled accumulator is int16(2a) of the true sum a, and int16
// addition is modular, so it equals int16(u << 1) of the undoubled int16
// accumulator u, wraparound included: the transform below computes exactly
// the engine's bytes from u.

// maxSF17Transformed bounds the transformed feature vector (17.1: 3072).
const maxSF17Transformed = archs.MaxSF17Transformed

// sf17Head is the head of a Stockfish 16+ net. Its Trace has PSQT =
// psqt[stm][b] - psqt[opp][b] (before the /2 and /16), Positional = o2 +
// fwd (before the /16), Layers as sf15Head, and Stockfish (the evaluation's
// steps).
type sf17Head struct {
	sf15Head
	// consts are the release's Eval::evaluate constants and WDL model
	// (head type sf17: 17.1's, sf18: 18's).
	consts *sfEvalParams
	// threats: the accumulators hold Stockfish 18's threat features too,
	// and the weights are not doubled (sf18Transform).
	threats bool
	// bounded: no accumulator of a position with at most maxPieces pieces
	// can leave [-16384, 16383] (proved at load by boundAccumulators), so
	// the transform needs no check.
	bounded bool
}

// maxPieces is the most pieces a chess position has, and the most active
// features of a perspective.
const maxPieces = 32

// boundAccumulators proves, if it can, that no accumulator entry of n ever
// leaves [-16384, 16383] (so that the engine's doubled int16 accumulator
// never wraps and the 15.1 kernel is exact): a perspective's features all
// lie in the rows of its king bucket, at most maxPieces of them, so
//
//	|acc[j]| <= |bias[j]| + T,  T = the sum of the maxPieces largest |W[f][j]| over the bucket's rows
//
// and for any threshold t, T <= (the sum of the |W[f][j]| above t) +
// maxPieces * t, which one pass over the rows gives for two thresholds;
// the neurons that this cheaper bound leaves in doubt get T itself.
// Stockfish 17.1's nets pass (big: T + |bias| at most 14,428). The buckets
// are shared out among GOMAXPROCS goroutines.
func boundAccumulators(n *Network) bool {
	buckets := n.Features.KingBuckets()
	stride := n.Features.Size() / buckets
	W := n.Width
	const limit = 16383
	thresholds := [2]int32{96, 192}
	var bad atomic.Bool
	var wg sync.WaitGroup
	next := make(chan int, buckets)
	for kb := 0; kb < buckets; kb++ {
		next <- kb
	}
	close(next)
	for w := 0; w < runtime.GOMAXPROCS(0); w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			above := make([][2]int32, W) // per neuron, the sum of |W[f][j]| above each threshold
			col := make([]int32, stride)
			for kb := range next {
				if bad.Load() {
					return
				}
				clear(above)
				for f := kb * stride; f < (kb+1)*stride; f++ {
					for j, w := range n.row(f) {
						v := int32(w)
						if v < 0 {
							v = -v
						}
						if v > thresholds[0] {
							above[j][0] += v
							if v > thresholds[1] {
								above[j][1] += v
							}
						}
					}
				}
				for j := range above {
					b := int32(n.FTBias[j])
					if b < 0 {
						b = -b
					}
					if b+min(above[j][0]+maxPieces*thresholds[0], above[j][1]+maxPieces*thresholds[1]) <= limit {
						continue
					}
					for i := range col {
						v := int32(n.FTWeights[(kb*stride+i)*W+j])
						if v < 0 {
							v = -v
						}
						col[i] = v
					}
					slices.Sort(col)
					t := b
					for _, v := range col[max(0, len(col)-maxPieces):] {
						t += v
					}
					if t > limit {
						bad.Store(true)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	return !bad.Load()
}

// sf17Transform writes the pairwise products of one perspective's
// accumulator acc (len(dst) = len(acc)/2) as the engine computes them from
// its doubled accumulator. Where every entry lies in [-16384, 16383]
// doubling changes nothing but the scale, and the products are 15.1's (the
// simd kernel); entries beyond wrap in the engine's int16 and take the
// exact path.
func sf17Transform(dst []uint8, acc []int16) {
	for _, v := range acc {
		if v < -16384 || v > 16383 {
			sf17TransformExact(dst, acc)
			return
		}
	}
	simd.PairwiseClippedReLU(dst, acc)
}

// sf17TransformExact is the engine's formula on int16(2u).
func sf17TransformExact(dst []uint8, acc []int16) {
	half := len(acc) / 2
	for j := range dst {
		a := int32(min(max(acc[j]<<1, 0), 254))
		b := int32(min(max(acc[j+half]<<1, 0), 254))
		dst[j] = uint8(uint32(a*b) / 512)
	}
}

// eval returns NNUE::evaluate's two parts, psqt and positional, each
// divided by the output scale, in internal units from the side to move's
// view.
func (h *sf17Head) eval(us, them []int16, psqtUs, psqtThem []int32, pieces int, tr *Trace) (psqt, positional int32) {
	var sc sfScratch
	return h.evalScratch(&sc, us, them, psqtUs, psqtThem, pieces, tr)
}

// evalScratch is eval with the working memory sc.
func (h *sf17Head) evalScratch(sc *sfScratch, us, them []int16, psqtUs, psqtThem []int32, pieces int, tr *Trace) (psqt, positional int32) {
	return h.evalBucketScratch(sc, us, them, psqtUs, psqtThem, pieces, h.net.outputBucket(pieces), tr)
}

// evalBucket is eval with PSQT bucket and layer stack b (Stockfish's
// trace evaluates every bucket).
func (h *sf17Head) evalBucket(us, them []int16, psqtUs, psqtThem []int32, pieces, b int, tr *Trace) (psqt, positional int32) {
	var sc sfScratch
	return h.evalBucketScratch(&sc, us, them, psqtUs, psqtThem, pieces, b, tr)
}

// evalBucketScratch is evalBucket with the working memory sc.
func (h *sf17Head) evalBucketScratch(sc *sfScratch, us, them []int16, psqtUs, psqtThem []int32, pieces, b int, tr *Trace) (psqt, positional int32) {
	w := len(us)
	in := sc.x[:w]
	if h.threats {
		sf18Transform(in[:w/2], us)
		sf18Transform(in[w/2:], them)
	} else if h.bounded && pieces <= maxPieces {
		simd.PairwiseClippedReLU(in[:w/2], us)
		simd.PairwiseClippedReLU(in[w/2:], them)
	} else {
		sf17Transform(in[:w/2], us)
		sf17Transform(in[w/2:], them)
	}
	d := psqtUs[b] - psqtThem[b]
	out := h.propagateScratch(sc, in, b, tr)
	psqt, positional = d/2/h.div, out/h.div
	if tr != nil {
		tr.Bucket = b
		tr.PSQT = d
		tr.Positional = out
		tr.Raw = sf17Blend(psqt, positional)
		tr.setTransformed(in)
	}
	return psqt, positional
}

// sf17Blend is Eval::evaluate's first step: tdiv(125 psqt + 131 positional, 128)
// (the same in 17.1 and 18).
func sf17Blend(psqt, positional int32) int32 { return (125*psqt + 131*positional) / 128 }

// forward implements head: the blend of one net, before the position's
// scaling (Network.Evaluate and Evaluator.Raw apply Eval::evaluate).
func (h *sf17Head) forward(us, them []int16, psqtUs, psqtThem []int32, pieces int, tr *Trace) int32 {
	return sf17Blend(h.eval(us, them, psqtUs, psqtThem, pieces, tr))
}

// StockfishEval is what Stockfish 17.1's or 18's Eval::evaluate computed
// on the way (Trace.Stockfish), in internal units from the side to move's
// view. The constants named below are 17.1's; 18's are in sfEval18.
type StockfishEval struct {
	// SimpleEval is the material balance 208 pawns + non-pawn material,
	// side to move minus the other side; UseSmall is |SimpleEval| > 962
	// with a small net at hand.
	SimpleEval int32 `json:"simple_eval"`
	UseSmall   bool  `json:"use_small"`
	// Small* are the small net's parts and blend when it was evaluated.
	SmallPSQT       int32 `json:"small_psqt,omitempty"`
	SmallPositional int32 `json:"small_positional,omitempty"`
	SmallNNUE       int32 `json:"small_nnue,omitempty"`
	// Net is the net whose value counts: "big" or "small" (a design with
	// one net: "big" whatever its size).
	Net string `json:"net"`
	// PSQT and Positional are that net's parts (psqt/16, layers/16), NNUE
	// their blend tdiv(125 psqt + 131 positional, 128).
	PSQT       int32 `json:"psqt"`
	Positional int32 `json:"positional"`
	NNUE       int32 `json:"nnue"`
	// Complexity is |PSQT - Positional|; Damped is NNUE - tdiv(NNUE *
	// Complexity, 18000).
	Complexity int32 `json:"complexity"`
	Damped     int32 `json:"damped"`
	// Material is 535 pawns + non-pawn material of both sides; Scaled is
	// tdiv(Damped * (77777 + Material), 77777) (optimism 0).
	Material int32 `json:"material"`
	Scaled   int32 `json:"scaled"`
	// Rule50 is the half-move clock; Final is Scaled - tdiv(Scaled *
	// Rule50, 212), clamped to the tablebase range: Eval::evaluate.
	Rule50 int32 `json:"rule50"`
	Final  int32 `json:"final"`
}

// Stockfish 17.1's piece values (types.h) and evaluation constants.
const (
	sfPawnValue   = 208
	sfKnightValue = 781
	sfBishopValue = 825
	sfRookValue   = 1276
	sfQueenValue  = 2538
	// sfValueTBWin is VALUE_TB_WIN_IN_MAX_PLY: 32000 - 246 - 1 - 246.
	sfValueTBWin = 31507
)

// nonPawnMaterial is Position::non_pawn_material(c).
func nonPawnMaterial(p *board.Position, c board.Color) int32 {
	return int32(sfKnightValue*p.Pieces(c, board.Knight).Count() + sfBishopValue*p.Pieces(c, board.Bishop).Count() +
		sfRookValue*p.Pieces(c, board.Rook).Count() + sfQueenValue*p.Pieces(c, board.Queen).Count())
}

// SF17SimpleEval is Eval::simple_eval(pos, side to move).
func SF17SimpleEval(p *board.Position) int32 {
	us, them := p.SideToMove(), p.SideToMove().Other()
	return int32(sfPawnValue*(p.Pieces(us, board.Pawn).Count()-p.Pieces(them, board.Pawn).Count())) +
		nonPawnMaterial(p, us) - nonPawnMaterial(p, them)
}

// netRunner evaluates one net of a design on the current position: from
// scratch (Network.Evaluate) or from an evaluator's accumulators.
type netRunner interface {
	runNet(n *Network, p *board.Position, tr *Trace) (psqt, positional int32)
}

// scratchRunner runs a net from scratch.
type scratchRunner struct{}

func (scratchRunner) runNet(n *Network, p *board.Position, tr *Trace) (int32, int32) {
	acc, psqt := n.scratchAccumulators(p, board.NoSquare)
	us, them := p.SideToMove(), p.SideToMove().Other()
	return n.head.(*sf17Head).eval(acc[us], acc[them], psqt[us], psqt[them], p.Occupied().Count(), tr)
}

// runNet implements netRunner on the evaluator's accumulators (n is its
// net or the small net's).
func (e *Evaluator) runNet(n *Network, p *board.Position, tr *Trace) (int32, int32) {
	if n != e.net {
		return e.small.runNet(n, p, tr)
	}
	e.computeAll(p)
	en := &e.stack[e.top]
	us, them := p.SideToMove(), p.SideToMove().Other()
	return e.net.head.(*sf17Head).evalScratch(e.scratch(), en.acc[us], en.acc[them], en.psqt[us], en.psqt[them], en.pieces, tr)
}

// sf17Evaluate is Stockfish 17.1's (head sf17) or 18's (head sf18)
// Eval::evaluate with optimism 0 (the static evaluation outside search):
// the small net where |simple eval| > 962 and the net has one (n.Small),
// the big one instead if the small net's blend is below 236 (18: 277) in
// absolute value; then the complexity damping, the material scaling, the
// 50-move damping and the clamp, with the release's constants (sfEvalParams). tr, when not nil, gets the big net's trace (or the small
// net's when its value counts) and the steps in tr.Stockfish.
func sf17Evaluate(n *Network, p *board.Position, tr *Trace, run netRunner) int32 {
	k := n.head.(*sf17Head).consts
	var se StockfishEval
	se.SimpleEval = SF17SimpleEval(p)
	se.UseSmall = n.Small != nil && abs32(se.SimpleEval) > k.smallAbove
	se.Net = "big"
	var psqt, positional, nnue int32
	if se.UseSmall {
		psqt, positional = run.runNet(n.Small, p, tr)
		nnue = sf17Blend(psqt, positional)
		se.SmallPSQT, se.SmallPositional, se.SmallNNUE = psqt, positional, nnue
		se.Net = "small"
	}
	if !se.UseSmall || abs32(nnue) < k.bigBelow {
		psqt, positional = run.runNet(n, p, tr)
		nnue = sf17Blend(psqt, positional)
		se.Net = "big"
	}
	se.PSQT, se.Positional, se.NNUE = psqt, positional, nnue
	se.Complexity = abs32(psqt - positional)
	se.Damped = nnue - nnue*se.Complexity/k.complexityDiv
	se.Material = k.pawnMaterial*int32(p.ByType(board.Pawn).Count()) + nonPawnMaterial(p, board.White) + nonPawnMaterial(p, board.Black)
	// int32 products, as the engine's int arithmetic.
	se.Scaled = se.Damped * (k.materialBase + se.Material) / k.materialBase
	se.Rule50 = int32(p.HalfmoveClock())
	v := se.Scaled - se.Scaled*se.Rule50/k.rule50Div
	se.Final = min(max(v, -sfValueTBWin+1), sfValueTBWin-1)
	if tr != nil {
		steps := se // a copy, so that se itself stays on the stack
		tr.Raw = se.Final
		tr.Stockfish = &steps
	}
	return se.Final
}

func abs32(v int32) int32 {
	if v < 0 {
		return -v
	}
	return v
}

// scratchAccumulators computes both perspectives' accumulators of p from
// scratch, leaving out the piece on skip (board.NoSquare: none), as
// Stockfish's trace does to value a piece.
func (n *Network) scratchAccumulators(p *board.Position, skip board.Square) (acc [2][]int16, psqt [2][]int32) {
	for c := board.White; c <= board.Black; c++ {
		acc[c] = append([]int16(nil), n.FTBias...)
		if n.PSQTBuckets > 0 {
			psqt[c] = make([]int32, n.PSQTBuckets)
		}
		v := n.Features.view(c, p.King(c))
		for occ := p.Occupied(); occ != 0; {
			sq := occ.PopLSB()
			if sq == skip {
				continue
			}
			if f := n.Features.index(v, c, p.PieceOn(sq), sq); f >= 0 {
				addRow(acc[c], n.row(f))
				if n.PSQTBuckets > 0 {
					addRow32(psqt[c], n.psqtRow(f))
				}
			}
		}
	}
	if n.Features.threats {
		mb := mailboxOf(p, skip)
		ths := mb.threats(nil)
		for c := board.White; c <= board.Black; c++ {
			n.addThreats(acc[c], psqt[c], n.Features.view(c, p.King(c)).tv, ths, nil)
		}
	}
	return acc, psqt
}

// SetSmall attaches the small net that an sf17 design with net.small
// chooses where Stockfish 17.1 does; its architecture must be the one
// that net.small names.
func (n *Network) SetSmall(small *Network) error {
	if _, ok := n.head.(*sf17Head); !ok {
		return fmt.Errorf("arch %s: only an sf17 or sf18 head takes a small net", n.Spec.Name)
	}
	if n.Spec.Net.Small == "" || small.Spec.Name != n.Spec.Net.Small {
		return fmt.Errorf("arch %s takes a small net of arch %q, not %s", n.Spec.Name, n.Spec.Net.Small, small.Spec.Name)
	}
	if _, ok := small.head.(*sf17Head); !ok || small.Small != nil {
		return fmt.Errorf("arch %s: the small net (arch %s) must be a single sf17 or sf18 net", n.Spec.Name, small.Spec.Name)
	}
	n.Small = small
	return nil
}

// sf17Shape describes the architecture a spec gives a Stockfish 17.1
// file, for errors.
func sf17Shape(spec *archs.Spec) string {
	l := spec.Head.Layers
	in := fmt.Sprintf("HalfKAv2_hm %d", spec.Features.Size())
	if t := spec.Features.ThreatSize(); t > 0 {
		in += fmt.Sprintf(" + Full_Threats %d", t)
	}
	return fmt.Sprintf("%s -> %dx2 -> %d x (%d -> %d -> 1), PSQT %d, LEB128", in,
		spec.Accumulator.Width, spec.Head.OutputBuckets, l[0], l[1], spec.Head.PSQTBuckets)
}

// readSF17 reads a Stockfish 16/17 .nnue file (format sf17.1): the header
// (version, whole-network hash, description), the feature transformer
// (hash, then biases, weights and PSQT weights, each a LEB128 block: the
// magic COMPRESSED_LEB128, a u32 byte count, the signed LEB128 values) and
// the layer stacks as in 15.1. The hashes are 15.1's scheme. Stockfish
// 18's big net (format sf18, features with threats) holds after the
// biases the threat weights, raw int8, then the piece-square weights, then
// one LEB128 block with the threat features' PSQT weights followed by the
// piece-square ones; its transformer hash is Full_Threats' 0x8F234CB8 ^ 2 L1.
func readSF17(spec *archs.Spec, r *reader) (*Network, error) {
	if spec.Head.Type != "sf17" && spec.Head.Type != "sf18" {
		return nil, fmt.Errorf("net format %s needs head type \"sf17\" or \"sf18\", arch %s has %q", spec.Net.Format, spec.Name, spec.Head.Type)
	}
	fh, err := checkSFFeatures(spec, "halfkav2_hm")
	if err != nil {
		return nil, err
	}
	threats := spec.Features.ThreatSize() > 0
	if threats != (spec.Net.Format == "sf18") {
		return nil, fmt.Errorf("net format %s and features.threats %q do not go together in arch %s: Stockfish 18's big net (format sf18) has threat features, 16/17's (sf17.1) none", spec.Net.Format, spec.Features.Threats, spec.Name)
	}
	if threats {
		fh = fullThreatsHash
	}
	if err := checkSpec(spec); err != nil {
		return nil, err
	}
	w, layers, q := spec.Accumulator.Width, spec.Head.Layers, spec.Quant
	l0, l1 := layers[0], layers[1]
	ftHash := sfFTHash(fh, w)
	stackHash := sfDenseHash(w, layers)
	desc, err := readSFHeader(spec, r, sfVersion15, ftHash^stackHash, sf17Shape(spec))
	if err != nil {
		return nil, err
	}
	if err := expectHash(r, "feature-transformer hash", ftHash); err != nil {
		return nil, err
	}
	n := newNetwork(spec)
	if err := readLEB128(r, n.FTBias, "feature-transformer biases"); err != nil {
		return nil, err
	}
	if threats {
		if err := r.int8sDirect(n.ThreatWeights, "threat weights (int8)"); err != nil {
			return nil, err
		}
	}
	if err := readLEB128(r, n.FTWeights, "feature-transformer weights"); err != nil {
		return nil, err
	}
	if threats {
		// One block: the threat features' PSQT weights, then the others'.
		if err := readLEB128(r, n.psqtAll, "PSQT weights (threat features, then piece-square features)"); err != nil {
			return nil, err
		}
	} else if err := readLEB128(r, n.PSQT, "PSQT weights"); err != nil {
		return nil, err
	}
	params := &sfEval171
	if spec.Head.Type == "sf18" {
		params = &sfEval18
	}
	h := &sf17Head{consts: params, threats: threats, sf15Head: sf15Head{
		net: n, l0: l0, l1: l1,
		qa: int32(q.QA), shift: uint(q.WeightShift), sqrShift: uint(2*q.WeightShift + 7),
		div: int32(q.OutputDivisor), skipNum: int32(600 * q.OutputDivisor), skipDen: int32(q.QA << q.WeightShift),
		stacks: make([]sf15Stack, spec.Head.OutputBuckets),
		desc:   desc,
	}}
	if err := h.readStacks(r, stackHash, w); err != nil {
		return nil, err
	}
	if !threats {
		h.bounded = boundAccumulators(n)
	}
	n.head = h
	return n, nil
}

// leb128Magic precedes each LEB128-compressed array of a Stockfish 16+ net.
var leb128Magic = []byte("COMPRESSED_LEB128")

// readLEB128 reads one LEB128 block into dst: the magic, the u32 count of
// compressed bytes, then len(dst) signed LEB128 values, which must use up
// exactly that count (the engine asserts it). Values are decoded as the
// engine does: 7 bits a byte, at most as many bytes as the type's width
// allows, sign-extended from the last byte, truncated to the type.
func readLEB128[T int16 | int32](r *reader, dst []T, what string) error {
	at := r.off
	magic, err := r.bytes(len(leb128Magic), what+" (LEB128 block)")
	if err != nil {
		return err
	}
	if !bytes.Equal(magic, leb128Magic) {
		return fmt.Errorf("%s at byte %d: not a LEB128 block (no %q): a Stockfish 15.1-style raw net? (arch sf15.1 reads those)", what, at, leb128Magic)
	}
	count, err := r.u32(what + " (LEB128 byte count)")
	if err != nil {
		return err
	}
	var zero T
	bits := uint(8 * sizeOf(zero))
	maxBytes := (bits + 6) / 7
	if uint64(count) < uint64(len(dst)) || uint64(count) > uint64(len(dst))*uint64(maxBytes) {
		return fmt.Errorf("%s at byte %d: the LEB128 block claims %d bytes for %d values (%d..%d possible): corrupt", what, at, count, len(dst), len(dst), uint64(len(dst))*uint64(maxBytes))
	}
	start := r.off
	// Decode chunk by chunk (a corrupt count cannot size an allocation);
	// a value cut by a chunk's end is carried to the next.
	chunk := make([]byte, 1<<20)
	have, left, i := 0, int64(count), 0
	for i < len(dst) {
		if left == 0 {
			if have > 0 {
				return fmt.Errorf("%s: its LEB128 block (%d bytes from byte %d) ends inside value %d of %d", what, count, start, i, len(dst))
			}
			return fmt.Errorf("%s: its LEB128 block (%d bytes from byte %d) holds only %d of %d values", what, count, start, i, len(dst))
		}
		n := int(min(int64(len(chunk)-have), left))
		if _, err := io.ReadFull(r.r, chunk[have:have+n]); err != nil {
			r.off = start
			return r.truncated(fmt.Sprintf("%s (a LEB128 block of %d bytes)", what, count), err)
		}
		r.off += int64(n)
		left -= int64(n)
		data := chunk[:have+n]
		p := 0
		// A value starting at p is complete if it ends before len(data),
		// which is sure while maxBytes bytes remain, or at the block's end.
		for i < len(dst) && (p+int(maxBytes) <= len(data) || left == 0 && p < len(data)) {
			if c := data[p]; c < 0x80 {
				// One byte: 7 bits, sign-extended from bit 6.
				dst[i] = T(int8(c<<1) >> 1)
				p++
				i++
				continue
			}
			var v int64
			var shift uint
			for {
				if p >= len(data) {
					return fmt.Errorf("%s: its LEB128 block (%d bytes from byte %d) ends inside value %d of %d", what, count, start, i, len(dst))
				}
				c := data[p]
				p++
				v |= int64(c&0x7f) << shift
				shift += 7
				if c&0x80 == 0 {
					if shift < bits && c&0x40 != 0 {
						v |= -1 << shift
					}
					break
				}
				if shift >= bits {
					return fmt.Errorf("%s: value %d at byte %d does not end within %d bytes: corrupt LEB128", what, i, r.off-int64(len(data)-p)-1, maxBytes)
				}
			}
			dst[i] = T(v)
			i++
		}
		have = copy(chunk, data[p:])
	}
	if used := int64(count) - left - int64(have); used != int64(count) {
		return fmt.Errorf("%s: the LEB128 block claims %d bytes from byte %d, its %d values end after %d", what, count, start, len(dst), used)
	}
	return nil
}

func sizeOf[T int16 | int32](T) int {
	var z T
	switch any(z).(type) {
	case int16:
		return 2
	}
	return 4
}

// sfWinRateA is the a(material) of Stockfish 17.1's WDL model
// (win_rate_params): the Value that is one pawn, 100 cp, at that material.
func sfWinRateA(p *board.Position) float64 { return winRateA(p, sfEval171.wdlA) }

// winRateA is win_rate_params' a(material) with the polynomial as.
func winRateA(p *board.Position, as [4]float64) float64 {
	material := p.ByType(board.Pawn).Count() + 3*p.ByType(board.Knight).Count() + 3*p.ByType(board.Bishop).Count() +
		5*p.ByType(board.Rook).Count() + 9*p.ByType(board.Queen).Count()
	m := float64(min(max(material, 17), 78)) / 58.0
	// Explicit conversions keep each product rounded (no fused
	// multiply-add), as the engine's build computes it.
	a := float64(float64(float64(float64(float64(as[0]*m)+as[1])*m)+as[2]) * m)
	return a + as[3]
}

// SF17ToCP is Stockfish 17.1's UCIEngine::to_cp: round(100 v / a) with a
// from the WDL model at p's material, half away from zero.
func SF17ToCP(v int32, p *board.Position) int {
	return int(math.Round(float64(100*v) / sfWinRateA(p)))
}
