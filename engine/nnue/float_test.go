package nnue

import (
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/board/boardtest"
)

// randomSF12Float draws float tensors for the sf12 head of spec on the
// quantization grid of SF12FloatScales (so the integer net holds exactly
// these values), in ranges that keep accumulators mostly inside the clip.
func randomSF12Float(rng *rand.Rand, features, width, n1, n2 int) []Tensor {
	u := func(n int, lim float32, step float64) []float32 {
		v := make([]float32, n)
		for i := range v {
			x := float64((2*rng.Float32() - 1) * lim)
			v[i] = float32(math.Round(x/step) * step)
		}
		return v
	}
	return []Tensor{
		{"ft.weight", []int{features, width}, u(features*width, 0.15, 1.0/127)},
		{"ft.bias", []int{width}, u(width, 0.4, 1.0/127)},
		{"l1.weight", []int{n1, 2 * width}, u(n1*2*width, 0.3, 1.0/64)},
		{"l1.bias", []int{n1}, u(n1, 0.5, 1.0/(127*64))},
		{"l2.weight", []int{n2, n1}, u(n2*n1, 1.0, 1.0/64)},
		{"l2.bias", []int{n2}, u(n2, 0.5, 1.0/(127*64))},
		{"out.weight", []int{1, n2}, u(n2, 600, 127.0/16)},
		{"out.bias", []int{1}, u(1, 100, 1.0/16)},
	}
}

// floatSF12 is the float head of FromFloat's documentation, in float64.
func floatSF12(ts []Tensor, fs *FeatureSet, p *board.Position, width, n1, n2 int) float64 {
	by := map[string][]float32{}
	for _, t := range ts {
		by[t.Name] = t.Data
	}
	x := make([]float64, 0, 2*width)
	for _, c := range []board.Color{p.SideToMove(), p.SideToMove().Other()} {
		acc := make([]float64, width)
		for j := range acc {
			acc[j] = float64(by["ft.bias"][j])
		}
		for _, f := range fs.Active(p, c, nil) {
			for j := range acc {
				acc[j] += float64(by["ft.weight"][f*width+j])
			}
		}
		for _, a := range acc {
			x = append(x, min(max(a, 0), 1))
		}
	}
	layer := func(in []float64, w, b []float32, clip bool) []float64 {
		out := make([]float64, len(b))
		for i := range out {
			s := float64(b[i])
			for j, v := range in {
				s += float64(w[i*len(in)+j]) * v
			}
			if clip {
				s = min(max(s, 0), 1)
			}
			out[i] = s
		}
		return out
	}
	h1 := layer(x, by["l1.weight"], by["l1.bias"], true)
	h2 := layer(h1, by["l2.weight"], by["l2.bias"], true)
	return layer(h2, by["out.weight"], by["out.bias"], false)[0]
}

// TestFromFloatSF12 checks the float sf12 head: FromFloat's integer net
// equals Stockfish 12's formulas on weights quantized by the documented
// scales (exact, with the same rounding), and follows the float formula
// within the quantization error, at the published size and at a padded one.
func TestFromFloatSF12(t *testing.T) {
	fens := boardtest.Positions()[:300]
	for _, tc := range []struct {
		name   string
		tiny   bool
		n1, n2 int
	}{
		{"tiny 32x2-8-8-1 (padded rows)", true, 8, 8},
		{"halfkp 256x2-32-32-1", false, 32, 32},
	} {
		t.Run(tc.name, func(t *testing.T) {
			spec := tinySpec(t, "sf12")
			if !tc.tiny {
				spec = mustLoad(t, "halfkp")
			}
			width := spec.Accumulator.Width
			fs := NewFeatureSet(&spec.Features)
			rng := rand.New(rand.NewPCG(7, uint64(width)))
			ts := randomSF12Float(rng, fs.Size(), width, tc.n1, tc.n2)
			n, err := FromFloat(spec, ts)
			if err != nil {
				t.Fatal(err)
			}
			h := n.head.(*sf12Head)
			hw, hb, ow, ob := SF12FloatScales(spec)
			// Quantize independently and compare with the loaded head.
			by := map[string][]float32{}
			for _, t := range ts {
				by[t.Name] = t.Data
			}
			r := func(v float32, s float64) int { return int(math.Round(float64(v) * s)) }
			for i := 0; i < tc.n1; i++ {
				for j := 0; j < 2*width; j++ {
					if got, want := int(h.w1[i*pad32(2*width)+j]), r(by["l1.weight"][i*2*width+j], hw); got != want {
						t.Fatalf("w1[%d][%d] = %d, want %d", i, j, got, want)
					}
				}
				if got, want := int(h.b1[i]), r(by["l1.bias"][i], hb); got != want {
					t.Fatalf("b1[%d] = %d, want %d", i, got, want)
				}
			}
			for i := 0; i < tc.n2; i++ {
				for j := 0; j < tc.n1; j++ {
					if got, want := int(h.w2[i*pad32(tc.n1)+j]), r(by["l2.weight"][i*tc.n1+j], hw); got != want {
						t.Fatalf("w2[%d][%d] = %d, want %d", i, j, got, want)
					}
				}
				if got, want := int(h.w3[i]), r(by["out.weight"][i], ow); got != want {
					t.Fatalf("w3[%d] = %d, want %d", i, got, want)
				}
			}
			if got, want := int(h.b3), r(by["out.bias"][0], ob); got != want {
				t.Fatalf("b3 = %d, want %d", got, want)
			}
			// On the grid the integer layers compute the float ones exactly
			// except for the floor of each >> shift (at most 1/127 of a unit
			// activation, pushed through the later layers' |weights|) and
			// the final truncating division (< 1 unit).
			e1 := 1.0 / 127
			e2 := 0.0
			for i := 0; i < tc.n2; i++ {
				s := 0.0
				for j := 0; j < tc.n1; j++ {
					s += math.Abs(float64(by["l2.weight"][i*tc.n1+j])) * e1
				}
				e2 = max(e2, s+1.0/127)
			}
			bound := 1.0
			for _, w := range by["out.weight"] {
				bound += math.Abs(float64(w)) * e2
			}
			var worst, sum float64
			for _, fen := range fens {
				p, err := board.ParseFEN(fen)
				if err != nil {
					t.Fatal(err)
				}
				got := n.Evaluate(p, nil)
				acc, _ := scratchAccumulators(n, p)
				us, them := p.SideToMove(), p.SideToMove().Other()
				if ref := refSF12(h, acc[us], acc[them]); got != ref {
					t.Fatalf("%s: Evaluate %d, reference integer formula %d", fen, got, ref)
				}
				d := math.Abs(float64(got) - floatSF12(ts, fs, p, width, tc.n1, tc.n2))
				worst = max(worst, d)
				sum += d
			}
			t.Logf("|integer - float|: max %.2f, mean %.2f internal units (bound %.1f)", worst, sum/float64(len(fens)), bound)
			if worst > bound {
				t.Fatalf("integer and float heads differ by up to %.2f internal units, bound %.1f", worst, bound)
			}
		})
	}
}

// TestFromFloatSF12Errors checks that shapes and overflows are reported
// with the tensor's name.
func TestFromFloatSF12Errors(t *testing.T) {
	spec := tinySpec(t, "sf12")
	fs := NewFeatureSet(&spec.Features)
	base := func() []Tensor {
		return randomSF12Float(rand.New(rand.NewPCG(1, 2)), fs.Size(), 32, 8, 8)
	}
	set := func(ts []Tensor, name string, f func(*Tensor)) []Tensor {
		for i := range ts {
			if ts[i].Name == name {
				f(&ts[i])
			}
		}
		return ts
	}
	for _, tc := range []struct {
		name string
		ts   []Tensor
		want string
	}{
		{"missing l2.bias", func() []Tensor {
			ts := base()
			return append(ts[:5], ts[6:]...)
		}(), `tensor "l2.bias" missing`},
		{"l1 shape", set(base(), "l1.weight", func(t *Tensor) { t.Shape = []int{16, 32}; t.Data = t.Data[:512] }), `"l1.weight" has shape [16 32]`},
		{"int8 overflow", set(base(), "l2.weight", func(t *Tensor) { t.Data[3] = 2.5 }), "l2.weight[3] = 2.5 times 64 overflows int8"},
		{"output overflow", set(base(), "out.weight", func(t *Tensor) { t.Data[0] = -1100 }), "out.weight[0] = -1100"},
		{"NaN bias", set(base(), "l1.bias", func(t *Tensor) { t.Data[1] = float32(math.NaN()) }), "l1.bias[1] = NaN"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := FromFloat(spec, tc.ts)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}
