package vec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// both runs f with the assembly kernels (where available) and with the Go
// twins, returning the two results.
func both[T any](f func() T) (asm, gen T) {
	saved := useAVX2
	defer func() { useAVX2 = saved }()
	useAVX2 = hasAVX2
	asm = f()
	useAVX2 = false
	gen = f()
	return asm, gen
}

func randVec(rng *rand.Rand, n int, lim float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = (2*rng.Float32() - 1) * lim
	}
	return v
}

// close reports whether a and b agree to float32 rounding of sums of
// terms no larger than scale.
func closeTo(a, b, scale float32) bool {
	return math.Abs(float64(a-b)) <= 1e-5*float64(scale)+1e-30
}

func closeVecs(t *testing.T, what string, a, b []float32, scale float32) {
	t.Helper()
	if len(a) != len(b) {
		t.Fatalf("%s: lengths %d and %d", what, len(a), len(b))
	}
	for i := range a {
		if !closeTo(a[i], b[i], scale) {
			t.Fatalf("%s[%d]: avx2 %g, generic %g", what, i, a[i], b[i])
		}
	}
}

// negZero is -0.0 (a literal -0.0 is +0 in Go).
var negZero = float32(math.Copysign(0, -1))

var lengths = []int{0, 1, 7, 8, 9, 31, 32, 33, 64, 100, 256, 257, 640, 1280}

func TestKernelsAgree(t *testing.T) {
	if !hasAVX2 {
		t.Skip("no AVX2/FMA: only the Go twins exist")
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, n := range lengths {
		x, y, w := randVec(rng, n, 2), randVec(rng, n, 2), randVec(rng, n, 3)
		// Activation inputs hit the clip bounds exactly now and then.
		for i := 0; i < n; i += 5 {
			x[i] = []float32{0, 1, negZero, 1.5, -1}[i%5]
		}
		a, g := both(func() []float32 { d := append([]float32(nil), y...); Add(d, x); return d })
		closeVecs(t, "Add", a, g, 4)
		a, g = both(func() []float32 { d := append([]float32(nil), y...); Axpy(d, x, 0.37); return d })
		closeVecs(t, "Axpy", a, g, 4)
		da, dg := both(func() float32 { return Dot(x, y) })
		if !closeTo(da, dg, 4*float32(n)) {
			t.Fatalf("Dot n=%d: avx2 %g, generic %g", n, da, dg)
		}
		a, g = both(func() []float32 { d := make([]float32, n); Clamp(d, x, 0, 1); return d })
		closeVecs(t, "Clamp", a, g, 0)
		a, g = both(func() []float32 { d := make([]float32, n); Clamp(d, x, 0, float32(math.Inf(1))); return d })
		closeVecs(t, "Clamp relu", a, g, 0)
		a, g = both(func() []float32 { d := make([]float32, n); Mul(d, x, y); return d })
		closeVecs(t, "Mul", a, g, 0)
		a, g = both(func() []float32 { d := make([]float32, n); MaskScale(d, w, x, 0, 1, -1.5); return d })
		closeVecs(t, "MaskScale", a, g, 0)
		for i := range a {
			if in := x[i] > 0 && x[i] < 1; (a[i] != 0) != (in && w[i] != 0) {
				t.Fatalf("MaskScale[%d]: x=%g w=%g gives %g", i, x[i], w[i], a[i])
			}
		}
		for _, decoupled := range []bool{true, false} {
			h := AdamStep(3, 0.01, 0.9, 0.999, 1e-8, 0.01, decoupled, 1.5)
			run := func(grad []float32) func() [3][]float32 {
				return func() [3][]float32 {
					p := append([]float32(nil), x...)
					m := append([]float32(nil), y...)
					v := make([]float32, n)
					for i := range v {
						v[i] = y[i] * y[i] / 4
					}
					AdamUpdate(p, m, v, grad, &h)
					return [3][]float32{p, m, v}
				}
			}
			for _, grad := range [][]float32{w, nil} {
				ra, rg := both(run(grad))
				for k, name := range []string{"p", "m", "v"} {
					closeVecs(t, "Adam "+name, ra[k], rg[k], 10)
				}
			}
		}
	}
}

func TestSumRows(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, width := range []int{8, 24, 32, 64, 96, 256, 640, 13} {
		const rows, stride = 50, 700
		m := randVec(rng, rows*stride, 1)
		idx := []int32{3, 0, 49, 3, 17}
		init := randVec(rng, width, 1)
		for _, in := range [][]float32{init, nil} {
			a, g := both(func() []float32 {
				d := make([]float32, width)
				SumRows(d, in, m, stride, idx)
				return d
			})
			closeVecs(t, "SumRows", a, g, 6)
			// Against a plain loop in float64.
			for j := 0; j < width; j++ {
				var s float64
				if in != nil {
					s = float64(in[j])
				}
				for _, i := range idx {
					s += float64(m[int(i)*stride+j])
				}
				if !closeTo(a[j], float32(s), 6) {
					t.Fatalf("width %d col %d: %g, want %g", width, j, a[j], s)
				}
			}
		}
	}
	// Empty index list: dst = init.
	d := make([]float32, 16)
	init := randVec(rng, 16, 1)
	SumRows(d, init, nil, 16, nil)
	closeVecs(t, "SumRows empty", d, init, 0)
}

func TestPanics(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    func()
	}{
		{"SumRows out of range", func() { SumRows(make([]float32, 8), nil, make([]float32, 16), 8, []int32{2}) }},
		{"SumRows negative", func() { SumRows(make([]float32, 8), nil, make([]float32, 16), 8, []int32{-1}) }},
		{"Axpy lengths", func() { Axpy(make([]float32, 8), make([]float32, 9), 1) }},
		{"Dot lengths", func() { Dot(make([]float32, 8), make([]float32, 16)) }},
		{"Adam lengths", func() { AdamUpdate(make([]float32, 8), make([]float32, 8), make([]float32, 7), nil, &Adam{}) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Fatal("no panic")
				}
			}()
			tc.f()
		})
	}
}

// TestAdamReference checks one Adam step against the textbook formulas in
// float64.
func TestAdamReference(t *testing.T) {
	const lr, b1, b2, eps, wd = 0.001, 0.9, 0.999, 1e-8, 0.01
	p, m, v, g := []float32{0.5, -0.2, 3}, []float32{0.1, 0, -0.3}, []float32{0.01, 0, 0.2}, []float32{0.3, -0.01, 2}
	for _, decoupled := range []bool{true, false} {
		pp, mm, vv := append([]float32(nil), p...), append([]float32(nil), m...), append([]float32(nil), v...)
		h := AdamStep(5, lr, b1, b2, eps, wd, decoupled, 2)
		AdamUpdate(pp, mm, vv, g, &h)
		for i := range p {
			gi := float64(g[i])
			if !decoupled {
				gi += wd * float64(p[i])
			}
			mi := b1*float64(m[i]) + (1-b1)*gi
			vi := b2*float64(v[i]) + (1-b2)*gi*gi
			mh, vh := mi/(1-math.Pow(b1, 5)), vi/(1-math.Pow(b2, 5))
			pi := float64(p[i]) - lr*mh/(math.Sqrt(vh)+eps)
			if decoupled {
				pi -= lr * wd * float64(p[i])
			}
			pi = math.Max(-2, math.Min(2, pi))
			if math.Abs(pi-float64(pp[i])) > 1e-6 || math.Abs(mi-float64(mm[i])) > 1e-6 || math.Abs(vi-float64(vv[i])) > 1e-6 {
				t.Fatalf("decoupled=%v elem %d: got p=%g m=%g v=%g, want %g %g %g", decoupled, i, pp[i], mm[i], vv[i], pi, mi, vi)
			}
		}
	}
}
