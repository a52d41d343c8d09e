package nnue

import (
	"fmt"
	"math"
	"math/rand/v2"

	"github.com/nnuelab/nnuelab/archs"
)

// Rengar's symmetric product-pooling network (rengar-net.md). Each piece's
// 184-entry folded index selects four 32-vectors, one per symmetry subspace
// (fs: fully symmetric, va: vertically antisymmetric, ha: horizontally
// antisymmetric, ra: antisymmetric under rotation), signed by colour and
// board half. nnuelab runs it on the shared accumulator machinery:
//
//   - The four subspaces are one 128-wide accumulator, [fs | va | ha | ra],
//     over the plain 768 features (own pieces first, vertical flip for
//     Black), whose rows are the orbit-expanded signed embeddings. Seen from
//     Black, colours swap and the board flips, which negates va and ra: the
//     side to move's accumulator is exactly the position as the side to move
//     sees it, so the output comes out from the side to move's view (it is
//     exactly minus the white-view output when Black is to move).
//   - The embeddings are held in fixed point (quant.qa, a power of two), so
//     sums are exact and order-free: incremental updates equal refreshes bit
//     for bit, and the mirror symmetries hold exactly in the integer output
//     by construction (the head is an odd or even function of each
//     antisymmetric input, and IEEE rounding is sign-symmetric).
//
// The dense part is float32 in Eigen's summation order as the spec gives it.

// rengarHead holds the float tensors after L1.
type rengarHead struct {
	qa     float32 // fixed-point multiplier of the L1 accumulators
	scale  float32 // eval_int = trunc(y * scale)
	tempo  [32]float32
	bias   [4]float32
	fs     [4][32]float32
	absva  [4][32]float32
	absha  [4][32]float32
	absra  [4][32]float32
	va     [4][32]float32
	fsxva  [4][32]float32
	haxra  [4][32]float32
	outVA  [4]float32
	outFxV [4]float32
}

// RengarWeights are Rengar's tensors in the spec's order and shapes.
type RengarWeights struct {
	PSTfs, PSTva, PSTha, PSTra [184][32]float32
	TempoVA                    [32]float32
	L1fsBias                   [4]float32
	L1fs, L1absVA, L1absHA     [4][32]float32
	L1absRA, L1va, L1fsxVA     [4][32]float32
	L1haxRA                    [4][32]float32
	L2va, L2fsxVA              [4]float32
}

const rengarClip = 127.0 / 128

// RengarIndex returns Rengar's folded index of a piece of type t (pawn 0 ...
// king 5) on square s as seen by its own side (s already flipped for Black),
// idx = OFF[t] + 4*rr + ff with OFF = -4, 24, 56, 88, 120, 152, and the
// board-half sign sh (-1 for files a-d, +1 for e-h); ok is false for pawns on
// the back ranks, which cannot occur. The trainer ties its parameters with
// the same function.
func RengarIndex(t int, s int) (idx int, sh float32, ok bool) {
	rank, file := s>>3, s&7
	rr := 7 - rank
	ff, sh := file, float32(-1)
	if file >= 4 {
		ff, sh = 7-file, 1
	}
	if t == 0 && (rr == 0 || rr == 7) {
		return 0, 0, false
	}
	off := [6]int{-4, 24, 56, 88, 120, 152}
	return off[t] + 4*rr + ff, sh, true
}

// NewRengar builds a Rengar network for spec (head type "rengar", width 32)
// from float weights; the embeddings are rounded to the spec's fixed point.
func NewRengar(spec *archs.Spec, w *RengarWeights) (*Network, error) {
	if spec.Head.Type != "rengar" {
		return nil, fmt.Errorf("arch %s is not a Rengar spec (head type %q)", spec.Name, spec.Head.Type)
	}
	if err := checkSpec(spec); err != nil {
		return nil, err
	}
	n := newNetwork(spec)
	// The accumulator is 4 subspaces x 32.
	n.Width = 128
	n.FTBias = make([]int16, 128)
	n.FTWeights = make([]int16, 768*128)
	for plane := 0; plane < 12; plane++ {
		t := plane % 6
		sv := float32(1)
		if plane >= 6 {
			sv = -1 // the opponent's piece
		}
		for s := 0; s < 64; s++ {
			// The folded index is always taken from the piece's own side:
			// an opponent's piece is flipped back out of the viewer's frame.
			own := s
			if plane >= 6 {
				own = s ^ 56
			}
			idx, sh, ok := RengarIndex(t, own)
			if !ok {
				continue
			}
			row := n.FTWeights[(plane*64+s)*128:][:128]
			for j := 0; j < 32; j++ {
				for k, v := range [4]float32{w.PSTfs[idx][j], sv * w.PSTva[idx][j], sh * w.PSTha[idx][j], sv * sh * w.PSTra[idx][j]} {
					q, err := quantize16(v, spec.Quant.QA, "rengar embedding", idx*32+j)
					if err != nil {
						return nil, err
					}
					row[32*k+j] = q
				}
			}
		}
	}
	h := &rengarHead{qa: float32(spec.Quant.QA), scale: float32(spec.Quant.Scale), tempo: w.TempoVA, bias: w.L1fsBias,
		fs: w.L1fs, absva: w.L1absVA, absha: w.L1absHA, absra: w.L1absRA, va: w.L1va, fsxva: w.L1fsxVA, haxra: w.L1haxRA,
		outVA: w.L2va, outFxV: w.L2fsxVA}
	n.head = h
	return n, nil
}

// RandomRengarWeights draws weights uniformly from [-limit, limit] with a
// fixed seed (for tests and untrained baselines).
func RandomRengarWeights(seed uint64, limit float32) *RengarWeights {
	rng := rand.New(rand.NewPCG(seed, seed^0x5851F42D4C957F2D))
	// float32(x*y) here and below: no FMA fusion at GOAMD64=v3 (make fma-check).
	u := func() float32 { return (2*float32(rng.Float32()) - 1) * limit }
	w := &RengarWeights{}
	for i := range w.PSTfs {
		for j := 0; j < 32; j++ {
			w.PSTfs[i][j], w.PSTva[i][j], w.PSTha[i][j], w.PSTra[i][j] = u(), u(), u(), u()
		}
	}
	for j := 0; j < 32; j++ {
		w.TempoVA[j] = u()
	}
	for i := 0; i < 4; i++ {
		w.L1fsBias[i], w.L2va[i], w.L2fsxVA[i] = u(), u(), u()
		for j := 0; j < 32; j++ {
			w.L1fs[i][j], w.L1absVA[i][j], w.L1absHA[i][j], w.L1absRA[i][j] = u(), u(), u(), u()
			w.L1va[i][j], w.L1fsxVA[i][j], w.L1haxRA[i][j] = u(), u(), u()
		}
	}
	return w
}

func clampR(x float32) float32 { return min(max(x, -rengarClip), rengarClip) }

// RengarTraceScale is the fixed point in which a Trace carries Rengar's
// float32 activations, 2^24: every float32 of [-1, 1] at or above 2^-24 in
// magnitude keeps its value exactly, and the clamp ±127/128 becomes
// ±127<<17 exactly, so statistics of zeros and saturation stay exact.
const RengarTraceScale = 1 << 24

// rengarCode is x in RengarTraceScale fixed point: exactly 0 for 0 and
// never 0 for anything else (a magnitude below 2^-25 becomes ±1).
func rengarCode(x float32) int32 {
	if x == 0 {
		return 0
	}
	c := int32(math.Round(float64(x) * RengarTraceScale))
	if c == 0 {
		if x > 0 {
			return 1
		}
		return -1
	}
	return c
}

// dot32 is a 32-term dot product in the order Eigen's 4-wide packets give:
// four lanes of pairwise sums, then (r0+r2)+(r1+r3).
func dot32(w, x *[32]float32) float32 {
	var r [4]float32
	for l := 0; l < 4; l++ {
		var q [8]float32
		for g := 0; g < 8; g++ {
			q[g] = w[4*g+l] * x[4*g+l]
		}
		r[l] = ((q[0] + q[1]) + (q[2] + q[3])) + ((q[4] + q[5]) + (q[6] + q[7]))
	}
	return (r[0] + r[2]) + (r[1] + r[3])
}

func dot4(w, x *[4]float32) float32 {
	return (float32(w[0]*x[0]) + float32(w[2]*x[2])) + (float32(w[1]*x[1]) + float32(w[3]*x[3]))
}

func (h *rengarHead) forward(us, _ []int16, _, _ []int32, _ int, tr *Trace) int32 {
	var F, V, Hh, Rr, absV, absH, absR, FV, HR [32]float32
	inv := 1 / h.qa
	for j := 0; j < 32; j++ {
		F[j] = clampR(float32(us[j]) * inv)
		V[j] = clampR(float32(float32(us[32+j])*inv) + h.tempo[j])
		Hh[j] = clampR(float32(us[64+j]) * inv)
		Rr[j] = clampR(float32(us[96+j]) * inv)
		absV[j] = float32(math.Abs(float64(V[j])))
		absH[j] = float32(math.Abs(float64(Hh[j])))
		absR[j] = float32(math.Abs(float64(Rr[j])))
		FV[j] = F[j] * V[j]
		HR[j] = Hh[j] * Rr[j]
	}
	var l2fs, l2va, prod [4]float32
	for i := 0; i < 4; i++ {
		l2fs[i] = clampR((((h.bias[i] + dot32(&h.fs[i], &F)) + dot32(&h.absva[i], &absV)) + dot32(&h.absha[i], &absH)) + dot32(&h.absra[i], &absR))
		l2va[i] = (dot32(&h.va[i], &V) + dot32(&h.fsxva[i], &FV)) + dot32(&h.haxra[i], &HR)
		prod[i] = l2fs[i] * l2va[i]
	}
	y := dot4(&h.outVA, &l2va) + dot4(&h.outFxV, &prod)
	out := int32(y * h.scale) // float-to-int conversion truncates toward zero
	if tr != nil {
		tr.Transformed = tr.Transformed[:0]
		for _, x := range [4]*[32]float32{&F, &V, &Hh, &Rr} {
			for _, v := range x {
				tr.Transformed = append(tr.Transformed, rengarCode(v))
			}
		}
		fs := make([]int, 4)
		for i, x := range l2fs {
			fs[i] = int(rengarCode(x))
		}
		tr.Layers = [][]int{fs}
		tr.Raw, tr.Positional, tr.Bucket = out, out, 0
	}
	return out
}
