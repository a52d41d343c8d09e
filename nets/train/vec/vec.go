// Package vec holds the float32 kernels that nnuelab's trainer spends its
// time in: summing feature rows into accumulators (and gradient rows into
// weight gradients), dot products and axpy for the heads, the batched dense
// products over a chunk of positions (MatMulNT, MatMulNN; gemm.go), the
// activation helpers and the Adam update.
//
// Every kernel has an AVX2+FMA implementation in Go assembly (amd64, chosen
// at run time with golang.org/x/sys/cpu) and a pure-Go twin used elsewhere,
// on CPUs without AVX2/FMA and under the purego build tag. The twins agree up
// to float32 rounding (the assembly fuses multiply-adds and sums in eight
// lanes), not bit for bit; a given binary on a given CPU is deterministic.
//
// Slices combined element by element must have the same length; breaking
// that is a programmer error and panics. No kernel allocates.
package vec

import "math"

// Implementation names the live kernel set: "avx2" or "generic".
func Implementation() string {
	if useAVX2 {
		return "avx2"
	}
	return "generic"
}

// useAVX2 selects the assembly kernels; tests flip it to run the Go twins.
var useAVX2 = hasAVX2

func mustLen(n, m int, what string) {
	if n != m {
		panic("vec." + what + ": slice lengths differ")
	}
}

// SumRows sets dst = init + sum over k of the row m[idx[k]*stride:][:len(dst)]
// (init nil: zero). It is the accumulator of a sparse input (rows of the
// feature matrix) and the gather of a weight gradient (rows of the
// accumulator gradients). Rows are added in the order of idx. An index whose
// row lies outside m panics.
func SumRows(dst, init, m []float32, stride int, idx []int32) {
	w := len(dst)
	if init != nil {
		mustLen(len(init), w, "SumRows")
	}
	for _, i := range idx {
		if i < 0 || int(i)*stride+w > len(m) {
			panic("vec.SumRows: row index out of range")
		}
	}
	head := w &^ 7
	if useAVX2 && head > 0 && len(idx) > 0 {
		var ip *float32
		if init != nil {
			ip = &init[0]
		}
		sumRowsAVX2(&dst[0], ip, &m[0], stride, head, &idx[0], len(idx))
		sumRowsGo(dst[head:], sub(init, head), m[head:], stride, idx)
		return
	}
	sumRowsGo(dst, init, m, stride, idx)
}

func sub(s []float32, from int) []float32 {
	if s == nil {
		return nil
	}
	return s[from:]
}

func sumRowsGo(dst, init, m []float32, stride int, idx []int32) {
	if init != nil {
		copy(dst, init)
	} else {
		clear(dst)
	}
	for _, i := range idx {
		row := m[int(i)*stride:][:len(dst)]
		for j, v := range row {
			dst[j] += v
		}
	}
}

// Add sets dst += x.
func Add(dst, x []float32) {
	mustLen(len(x), len(dst), "Add")
	head := len(dst) &^ 7
	if useAVX2 && head > 0 {
		addAVX2(&dst[0], &x[0], head)
		dst, x = dst[head:], x[head:]
	}
	for i, v := range x {
		dst[i] += v
	}
}

// Axpy sets dst += a*x.
func Axpy(dst, x []float32, a float32) {
	mustLen(len(x), len(dst), "Axpy")
	head := len(dst) &^ 7
	if useAVX2 && head > 0 {
		axpyAVX2(&dst[0], &x[0], a, head)
		dst, x = dst[head:], x[head:]
	}
	for i, v := range x {
		dst[i] += float32(a * v)
	}
}

// Dot returns the sum of x[i]*y[i].
func Dot(x, y []float32) float32 {
	mustLen(len(y), len(x), "Dot")
	head := len(x) &^ 7
	var s float32
	if useAVX2 && head > 0 {
		s = dotAVX2(&x[0], &y[0], head)
		x, y = x[head:], y[head:]
	}
	for i, v := range x {
		s += float32(v * y[i])
	}
	return s
}

// Clamp sets dst = min(max(src, lo), hi) (hi may be +Inf for a ReLU).
func Clamp(dst, src []float32, lo, hi float32) {
	mustLen(len(src), len(dst), "Clamp")
	head := len(dst) &^ 7
	if useAVX2 && head > 0 {
		clampAVX2(&dst[0], &src[0], lo, hi, head)
		dst, src = dst[head:], src[head:]
	}
	for i, v := range src {
		dst[i] = min(max(v, lo), hi)
	}
}

// Mul sets dst = x*y element-wise (dst may be x or y).
func Mul(dst, x, y []float32) {
	mustLen(len(x), len(dst), "Mul")
	mustLen(len(y), len(dst), "Mul")
	head := len(dst) &^ 7
	if useAVX2 && head > 0 {
		mulAVX2(&dst[0], &x[0], &y[0], head)
		dst, x, y = dst[head:], x[head:], y[head:]
	}
	for i := range dst {
		dst[i] = x[i] * y[i]
	}
}

// MaskScale sets dst[i] = a*w[i] where lo < x[i] < hi and 0 elsewhere: the
// backward pass of a clipped activation (hi = +Inf for a ReLU).
func MaskScale(dst, w, x []float32, lo, hi, a float32) {
	mustLen(len(w), len(dst), "MaskScale")
	mustLen(len(x), len(dst), "MaskScale")
	head := len(dst) &^ 7
	if useAVX2 && head > 0 {
		maskScaleAVX2(&dst[0], &w[0], &x[0], lo, hi, a, head)
		dst, w, x = dst[head:], w[head:], x[head:]
	}
	for i, v := range x {
		if v > lo && v < hi {
			dst[i] = a * w[i]
		} else {
			dst[i] = 0
		}
	}
}

// Adam holds the per-step constants of one Adam/AdamW update, as
// AdamStep computes them.
type Adam struct {
	B1, OneMinusB1 float32 // first-moment decay beta1 and 1-beta1
	B2, OneMinusB2 float32 // second-moment decay beta2 and 1-beta2
	A1             float32 // lr / (1 - beta1^t)
	C2             float32 // 1 / sqrt(1 - beta2^t)
	Eps            float32
	Decay          float32 // 1 - lr*wd for decoupled decay (AdamW), else 1
	L2             float32 // wd for L2-coupled decay (Adam), else 0
	Clip           float32 // |p| is clipped to Clip after the step
	NegClip        float32 // -Clip
	_              float32
}

// AdamStep returns the constants of step t (1-based) for learning rate lr
// (already multiplied by the tensor's rate multiplier), weight decay wd
// (decoupled when decoupled is true) and clip bound clip.
func AdamStep(t int, lr, beta1, beta2, eps, wd float64, decoupled bool, clip float32) Adam {
	a := Adam{
		B1: float32(beta1), OneMinusB1: float32(1 - beta1),
		B2: float32(beta2), OneMinusB2: float32(1 - beta2),
		A1:    float32(lr / (1 - math.Pow(beta1, float64(t)))),
		C2:    float32(1 / math.Sqrt(1-math.Pow(beta2, float64(t)))),
		Eps:   float32(eps),
		Decay: 1, Clip: clip, NegClip: -clip,
	}
	if decoupled {
		a.Decay = float32(1 - float64(lr*wd))
	} else {
		a.L2 = float32(wd)
	}
	return a
}

// zeros stands in for a zero gradient (read only, so shared safely).
var zeros [4096]float32

// AdamUpdate applies one Adam step to parameters p with moments m and v and
// gradient g (nil: zero):
//
//	g' = g + L2*p
//	m  = B1*m + (1-B1)*g'
//	v  = B2*v + (1-B2)*g'^2
//	p  = clamp(Decay*p - A1*m / (C2*sqrt(v) + Eps), -Clip, Clip)
func AdamUpdate(p, m, v, g []float32, h *Adam) {
	mustLen(len(m), len(p), "AdamUpdate")
	mustLen(len(v), len(p), "AdamUpdate")
	if g == nil {
		for len(p) > 0 {
			n := min(len(p), len(zeros))
			AdamUpdate(p[:n], m[:n], v[:n], zeros[:n], h)
			p, m, v = p[n:], m[n:], v[n:]
		}
		return
	}
	mustLen(len(g), len(p), "AdamUpdate")
	head := len(p) &^ 7
	if useAVX2 && head > 0 {
		adamAVX2(&p[0], &m[0], &v[0], &g[0], h, head)
		p, m, v, g = p[head:], m[head:], v[head:], g[head:]
	}
	adamGo(p, m, v, g, h)
}

func adamGo(p, m, v, g []float32, h *Adam) {
	for i := range p {
		gi := g[i] + float32(h.L2*p[i])
		// float32(x*y) here and below: no FMA fusion at GOAMD64=v3 (make fma-check).
		m[i] = float32(h.B1*m[i]) + float32(h.OneMinusB1*gi)
		v[i] = float32(h.B2*v[i]) + float32(h.OneMinusB2*gi*gi)
		den := float32(h.C2*float32(math.Sqrt(float64(v[i])))) + h.Eps
		p[i] = min(max(float32(h.Decay*p[i])-float32(h.A1*m[i]/den), h.NegClip), h.Clip)
	}
}

// FMAPeak runs iters iterations of 12 independent vector FMA chains (AVX2:
// 8 lanes; AVX-512 when wide is true and the CPU has it: 16 lanes) and
// returns the number of float operations done (2 per lane per FMA), or 0
// if that instruction set is not available. It measures the machine's peak
// float32 rate for the throughput report.
func FMAPeak(iters int, wide bool) float64 {
	switch {
	case wide && hasAVX512:
		fmaPeakAVX512(iters)
		return float64(float64(iters)*12*16) * 2
	case !wide && hasAVX2:
		fmaPeakAVX2(iters)
		return float64(float64(iters)*12*8) * 2
	}
	return 0
}
