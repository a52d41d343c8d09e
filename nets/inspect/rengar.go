package inspect

import (
	"fmt"
	"math"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/nnue"
)

// Rengar's head (engine/nnue/rengar.go) is float32 and the engine does not
// trace it: Network.Evaluate fills only the output. rengarTracer computes
// its activations from what the network hands over (the feature set, the
// fixed-point accumulator rows and HeadParams' float tensors) in the
// engine's order of operations, and checks every position's output
// against the engine's: a trace that drifted from the engine is an error,
// not a statistic.

// rengarClip is Rengar's clamp, ±127/128; rengarScale turns an activation
// into the int32 the statistics count (2^24: every float32 of [-1, 1] at
// or above 2^-24 in magnitude keeps its value exactly, and the clamp maps
// to ±rengarCeil exactly).
const (
	rengarClip  = float32(127.0 / 128)
	rengarScale = 1 << 24
	rengarCeil  = 127 << 17 // rengarClip * rengarScale
)

// rengarCode is x as the statistics count it: exactly 0 for 0, never 0
// for anything else (a magnitude below 2^-25 counts as ±1).
func rengarCode(x float32) int32 {
	if x == 0 {
		return 0
	}
	c := int32(math.Round(float64(x) * rengarScale))
	if c == 0 {
		if x > 0 {
			return 1
		}
		return -1
	}
	return c
}

// rengarTracer holds a Rengar network's float head as HeadParams hands it
// over.
type rengarTracer struct {
	net                                  *nnue.Network
	qa, scale                            float32
	tempo                                [32]float32
	bias                                 [4]float32
	fs, absva, absha, absra, va, fv, hxr [4][32]float32
	outVA, outFxV                        [4]float32
	feats                                []int
}

func newRengarTracer(v *Net) (*rengarTracer, error) {
	n := v.Network
	if n.Width != 128 || len(n.FTBias) != 128 {
		return nil, fmt.Errorf("%s: a Rengar network has a 128-wide accumulator (4 subspaces of 32), this one %d", v.Name, n.Width)
	}
	rt := &rengarTracer{net: n, qa: float32(v.Spec.Quant.QA), scale: float32(v.Spec.Quant.Scale)}
	vecs := map[string][]float32{"tempo.va": rt.tempo[:], "l1.fs_bias": rt.bias[:], "l2.va": rt.outVA[:], "l2.fsxva": rt.outFxV[:]}
	mats := map[string]*[4][32]float32{"l1.fs": &rt.fs, "l1.absva": &rt.absva, "l1.absha": &rt.absha, "l1.absra": &rt.absra,
		"l1.va": &rt.va, "l1.fsxva": &rt.fv, "l1.haxra": &rt.hxr}
	found := 0
	for _, p := range n.HeadParams() {
		if dst, ok := vecs[p.Name]; ok && len(p.F) == len(dst) {
			copy(dst, p.F)
			found++
		} else if m, ok := mats[p.Name]; ok && len(p.F) == 4*32 {
			for i := range m {
				copy(m[i][:], p.F[32*i:32*(i+1)])
			}
			found++
		}
	}
	if found != len(vecs)+len(mats) {
		return nil, fmt.Errorf("%s: the network handed over %d of Rengar's %d head tensors", v.Name, found, len(vecs)+len(mats))
	}
	return rt, nil
}

func clampRengar(x float32) float32 { return min(max(x, -rengarClip), rengarClip) }

// dot32 and dot4 sum in the engine's (Eigen's) order, so that the output
// is the engine's bit for bit.
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
	return (w[0]*x[0] + w[2]*x[2]) + (w[1]*x[1] + w[3]*x[3])
}

// trace evaluates p: tr.Transformed gets the 128 clamped inputs of the
// first dense layer (fs | va+tempo | ha | ra of the side to move's
// accumulator, the only one Rengar reads), tr.Layers[0] the four clamped
// fs outputs of the second, tr.Raw the output; an output that differs
// from the engine's is an error naming the position.
func (rt *rengarTracer) trace(p *board.Position, tr *nnue.Trace) error {
	n := rt.net
	var acc [128]int32
	for j, b := range n.FTBias {
		acc[j] = int32(b)
	}
	rt.feats = n.Features.Active(p, p.SideToMove(), rt.feats[:0])
	for _, f := range rt.feats {
		row := n.FTWeights[f*128 : (f+1)*128]
		for j, w := range row {
			acc[j] += int32(w)
		}
	}
	// The engine's accumulator is int16 (its sums are exact there).
	var F, V, H, R, absV, absH, absR, FV, HR [32]float32
	inv := 1 / rt.qa
	for j := 0; j < 32; j++ {
		F[j] = clampRengar(float32(int16(acc[j])) * inv)
		V[j] = clampRengar(float32(int16(acc[32+j]))*inv + rt.tempo[j])
		H[j] = clampRengar(float32(int16(acc[64+j])) * inv)
		R[j] = clampRengar(float32(int16(acc[96+j])) * inv)
		absV[j] = float32(math.Abs(float64(V[j])))
		absH[j] = float32(math.Abs(float64(H[j])))
		absR[j] = float32(math.Abs(float64(R[j])))
		FV[j] = F[j] * V[j]
		HR[j] = H[j] * R[j]
	}
	var l2fs, l2va, prod [4]float32
	for i := 0; i < 4; i++ {
		l2fs[i] = clampRengar((((rt.bias[i] + dot32(&rt.fs[i], &F)) + dot32(&rt.absva[i], &absV)) + dot32(&rt.absha[i], &absH)) + dot32(&rt.absra[i], &absR))
		l2va[i] = (dot32(&rt.va[i], &V) + dot32(&rt.fv[i], &FV)) + dot32(&rt.hxr[i], &HR)
		prod[i] = l2fs[i] * l2va[i]
	}
	y := dot4(&rt.outVA, &l2va) + dot4(&rt.outFxV, &prod)
	out := int32(y * rt.scale)
	if want := n.Evaluate(p, nil); out != want {
		return fmt.Errorf("position %s: the Rengar trace gives %d, the engine %d", p.FEN(), out, want)
	}
	tr.Transformed = tr.Transformed[:0]
	for _, x := range [4]*[32]float32{&F, &V, &H, &R} {
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
	return nil
}
