package vec

import (
	"math"
	"math/rand/v2"
	"testing"
)

// gemmShapes are the (m, n, k) cases of the batched products: every tile
// shape and edge (rows and columns short of a tile, k and n with a scalar
// tail, single rows and columns) and the trainer's sf12 sizes.
var gemmShapes = []struct{ m, n, k int }{
	{1, 1, 1}, {1, 1, 8}, {1, 1, 9}, {2, 3, 16}, {3, 4, 8}, {3, 4, 24}, {4, 5, 7},
	{5, 7, 33}, {7, 9, 40}, {6, 8, 64}, {13, 17, 31}, {64, 32, 512}, {64, 32, 32},
	{32, 512, 64}, {64, 512, 32}, {32, 32, 64}, {1, 24, 3}, {4, 25, 5}, {9, 48, 2},
}

// refNT and refNN are the float64 products.
func refNT(a []float32, lda int, b []float32, ldb int, m, n, k int) []float64 {
	out := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			for p := 0; p < k; p++ {
				out[i*n+j] += float64(a[i*lda+p]) * float64(b[j*ldb+p])
			}
		}
	}
	return out
}

func refNN(a []float32, lda int, b []float32, ldb int, m, n, k int) []float64 {
	out := make([]float64, m*n)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			for p := 0; p < k; p++ {
				out[i*n+j] += float64(a[i*lda+p]) * float64(b[p*ldb+j])
			}
		}
	}
	return out
}

// checkProduct compares got (m rows at stride ld) with the reference plus
// init, to float32 rounding of sums of k terms of magnitude up to 4.
func checkProduct(t *testing.T, what string, got []float32, ld int, want []float64, init []float32, m, n, k int) {
	t.Helper()
	tol := 1e-5 * 4 * float64(k+1)
	for i := 0; i < m; i++ {
		for j := 0; j < n; j++ {
			w := want[i*n+j]
			if init != nil {
				w += float64(init[i*ld+j])
			}
			if g := float64(got[i*ld+j]); math.Abs(g-w) > tol {
				t.Fatalf("%s [%d][%d]: %g, want %g", what, i, j, g, w)
			}
		}
	}
}

func TestMatMul(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, s := range gemmShapes {
		// Strides wider than the rows, so that a kernel reading or
		// writing past a row's end shows.
		lda, ldb, ldd := s.k+3, s.k+5, s.n+2
		a, b := randVec(rng, s.m*lda, 2), randVec(rng, s.n*ldb, 2)
		sentinel := float32(12345)
		fresh := func() []float32 {
			d := make([]float32, s.m*ldd)
			for i := range d {
				d[i] = sentinel
			}
			return d
		}
		asm, gen := both(func() []float32 { d := fresh(); MatMulNT(d, ldd, a, lda, b, ldb, s.m, s.n, s.k); return d })
		want := refNT(a, lda, b, ldb, s.m, s.n, s.k)
		checkProduct(t, "MatMulNT avx2", asm, ldd, want, nil, s.m, s.n, s.k)
		checkProduct(t, "MatMulNT generic", gen, ldd, want, nil, s.m, s.n, s.k)
		for i, v := range asm {
			if i%ldd >= s.n && (v != sentinel || gen[i] != sentinel) {
				t.Fatalf("MatMulNT %v: wrote outside the rows at %d", s, i)
			}
		}

		// NN: a is m x k, b is k x n.
		ldb = s.n + 5
		b = randVec(rng, s.k*ldb, 2)
		init := randVec(rng, s.m*ldd, 2)
		want = refNN(a, lda, b, ldb, s.m, s.n, s.k)
		for _, add := range []bool{false, true} {
			asm, gen := both(func() []float32 {
				d := fresh()
				if add {
					copy(d, init)
				}
				MatMulNN(d, ldd, a, lda, b, ldb, s.m, s.n, s.k, add)
				return d
			})
			var in []float32
			if add {
				in = init
			}
			checkProduct(t, "MatMulNN avx2", asm, ldd, want, in, s.m, s.n, s.k)
			checkProduct(t, "MatMulNN generic", gen, ldd, want, in, s.m, s.n, s.k)
			for i := range asm {
				if i%ldd >= s.n && asm[i] != gen[i] {
					t.Fatalf("MatMulNN %v add=%v: wrote outside the rows at %d", s, add, i)
				}
			}
		}
	}
}

// TestMatMulNNOrder checks that the assembly adds each output's products in
// the order of p, as the Go twin does: with products that cancel exactly
// only in that order, any other order gives a different float32.
func TestMatMulNNOrder(t *testing.T) {
	// 1e8 + 1 - 1e8 = 0 in float32 in this order (1 is lost), 1 in others.
	a := []float32{1, 1, 1}
	for _, n := range []int{8, 24, 40} {
		b := make([]float32, 3*n)
		for j := 0; j < n; j++ {
			b[j], b[n+j], b[2*n+j] = 1e8, 1, -1e8
		}
		asm, gen := both(func() []float32 { d := make([]float32, n); MatMulNN(d, n, a, 3, b, n, 1, n, 3, false); return d })
		for j := range asm {
			if asm[j] != 0 || gen[j] != 0 {
				t.Fatalf("n=%d [%d]: avx2 %g, generic %g, want 0", n, j, asm[j], gen[j])
			}
		}
	}
}

func TestMatMulShortPanics(t *testing.T) {
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"NT dst", func() { MatMulNT(make([]float32, 3), 2, make([]float32, 16), 8, make([]float32, 16), 8, 2, 2, 8) }},
		{"NT a", func() { MatMulNT(make([]float32, 4), 2, make([]float32, 15), 8, make([]float32, 16), 8, 2, 2, 8) }},
		{"NT b", func() { MatMulNT(make([]float32, 4), 2, make([]float32, 16), 8, make([]float32, 8), 8, 2, 2, 8) }},
		{"NN b", func() {
			MatMulNN(make([]float32, 16), 8, make([]float32, 4), 2, make([]float32, 15), 8, 2, 8, 2, false)
		}},
		{"NN stride", func() {
			MatMulNN(make([]float32, 16), 4, make([]float32, 4), 2, make([]float32, 16), 8, 2, 8, 2, false)
		}},
	} {
		func() {
			defer func() {
				if recover() == nil {
					t.Errorf("%s: no panic", c.name)
				}
			}()
			c.f()
		}()
	}
}

// BenchmarkMatMul times the sf12 head's layer-one products for a chunk of
// 64 positions (forward NT, the two backward NN) and reports GFLOP/s.
func BenchmarkMatMul(b *testing.B) {
	rng := rand.New(rand.NewPCG(5, 6))
	x, w := randVec(rng, 64*512, 1), randVec(rng, 32*512, 1)
	d, dt := randVec(rng, 64*32, 1), randVec(rng, 32*64, 1)
	out, big := make([]float32, 64*32), make([]float32, 64*512)
	for _, c := range []struct {
		name string
		f    func()
	}{
		{"NT64x32x512", func() { MatMulNT(out, 32, x, 512, w, 512, 64, 32, 512) }},
		{"NN64x512x32", func() { MatMulNN(big, 512, d, 32, w, 512, 64, 512, 32, false) }},
		{"NN32x512x64add", func() { MatMulNN(big, 512, dt, 64, x, 512, 32, 512, 64, true) }},
	} {
		b.Run(c.name, func(b *testing.B) {
			for i := 0; i < b.N; i++ {
				c.f()
			}
			b.ReportMetric(2*64*32*512*float64(b.N)/b.Elapsed().Seconds()/1e9, "GFLOP/s")
		})
	}
}
