package train

import (
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnuelab/nnuelab/archs"
)

// TestBatchHeadMatchesPerPosition checks the batched heads (sf12, Rengar)
// against their per-position forward and backward: the same outputs, parameter gradients
// and accumulator gradients, bit for bit, for chunks of every kind of size
// (one position, a partial chunk, a full one) and accumulators that cross
// both clamp bounds.
func TestBatchHeadMatchesPerPosition(t *testing.T) {
	for _, tc := range []struct {
		arch string
		n    int
	}{
		{"halfkp", 1}, {"halfkp", 7}, {"halfkp", chunkSize}, {"halfkp-128", 3}, {"halfkp-128", chunkSize},
		{"rengar", 1}, {"rengar", 5}, {"rengar", chunkSize},
	} {
		spec, err := archs.Load(tc.arch)
		if err != nil {
			t.Fatal(err)
		}
		m, err := NewModel(spec, 7)
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(uint64(tc.n), 9))
		perturb(m, rng, 0.05)
		h, ok := m.head.(batchHead)
		if !ok {
			t.Fatalf("%s: the head is not a batchHead", tc.arch)
		}
		W := m.width
		acc := randFloats(rng, tc.n*2*W, -0.5, 1.5)
		dout := randFloats(rng, tc.n, -1, 1)
		newGrads := func() [][]float32 {
			var g [][]float32
			for _, p := range m.head.params() {
				g = append(g, make([]float32, len(p.Data)))
			}
			return g
		}

		bs := m.head.newScratch()
		out := make([]float32, tc.n)
		h.forwardBatch(bs, acc, tc.n, out)
		gb, daccB := newGrads(), make([]float32, tc.n*2*W)
		h.backwardBatch(bs, acc, tc.n, dout, gb, daccB)

		s := m.head.newScratch()
		gp, daccP := newGrads(), make([]float32, tc.n*2*W)
		for p := 0; p < tc.n; p++ {
			us, them := acc[p*2*W:][:W], acc[p*2*W+W:][:W]
			if o := m.head.forward(s, us, them, 0); o != out[p] {
				t.Fatalf("%s n=%d: position %d: batched output %g, per position %g", tc.arch, tc.n, p, out[p], o)
			}
			m.head.backward(s, us, them, 0, dout[p], gp, daccP[p*2*W:][:W], daccP[p*2*W+W:][:W])
		}
		for k, p := range m.head.params() {
			for i := range gp[k] {
				if gb[k][i] != gp[k][i] {
					t.Fatalf("%s n=%d: %s[%d]: batched gradient %g, per position %g", tc.arch, tc.n, p.Name, i, gb[k][i], gp[k][i])
				}
			}
		}
		for i := range daccP {
			if daccB[i] != daccP[i] {
				t.Fatalf("%s n=%d: accumulator gradient [%d]: batched %g, per position %g", tc.arch, tc.n, i, daccB[i], daccP[i])
			}
		}
	}
}

func randFloats(rng *rand.Rand, n int, lo, hi float32) []float32 {
	v := make([]float32, n)
	for i := range v {
		v[i] = lo + (hi-lo)*rng.Float32()
	}
	return v
}

// TestRengarInputGradScalar checks Rengar's vectorized |.| (forward) and
// input gradient (through the products, |.| and clamps) against the
// element-by-element forms they replaced, bit for bit, on accumulators
// that cross the clamp bounds and hit zero (and -0) exactly.
func TestRengarInputGradScalar(t *testing.T) {
	spec, err := archs.Load("rengar")
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewModel(spec, 3)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(4, 5))
	perturb(m, rng, 0.05)
	h := m.head.(*rengarHead)
	sign := func(x float32) float32 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return 0
	}
	for _, n := range []int{1, 5, chunkSize} {
		acc := randFloats(rng, n*256, -1.5, 1.5)
		for i := 0; i < len(acc); i += 7 {
			acc[i] = 0
		}
		for i := 0; i < len(acc); i += 11 {
			acc[i] = rengarClip
		}
		for i := 3; i < len(acc); i += 13 {
			acc[i] = float32(math.Copysign(0, -1))
		}
		dout := randFloats(rng, n, -1, 1)
		s := h.newScratch().(*rengarScratch)
		h.forwardBatch(s, acc, n, make([]float32, n))
		// |act| as "if act < 0 { -act } else { act }" (-0 stays -0).
		for p := 0; p < n; p++ {
			for j := 32; j < 128; j++ {
				a := s.act[p*128+j]
				want := a
				if a < 0 {
					want = -a
				}
				if got := s.x1[p*128+j]; math.Float32bits(got) != math.Float32bits(want) {
					t.Fatalf("n=%d position %d: |%g| = %g, want %g", n, p, a, got, want)
				}
			}
		}
		var g [][]float32
		for _, p := range h.params() {
			g = append(g, make([]float32, len(p.Data)))
		}
		dacc := make([]float32, n*256)
		h.backwardBatch(s, acc, n, dout, g, dacc)
		for p := 0; p < n; p++ {
			a, pre, dx1, dx2 := s.act[p*128:][:128], s.pre[p*128:][:128], s.dx1[p*128:][:128], s.dx2[p*96:][:96]
			for j := 0; j < 32; j++ {
				F, V, H, R := a[j], a[32+j], a[64+j], a[96+j]
				dFV, dHR := dx2[32+j], dx2[64+j]
				d := [4]float32{
					dx1[j] + dFV*V,
					dx1[32+j]*sign(V) + dx2[j] + dFV*F,
					dx1[64+j]*sign(H) + dHR*R,
					dx1[96+j]*sign(R) + dHR*H,
				}
				for k, v := range d {
					if x := pre[32*k+j]; !(x > -rengarClip && x < rengarClip) {
						v = 0
					}
					if got := dacc[p*256+32*k+j]; math.Float32bits(got) != math.Float32bits(v) {
						t.Fatalf("n=%d position %d element %d: %g, element by element %g", n, p, 32*k+j, got, v)
					}
				}
			}
		}
	}
}
