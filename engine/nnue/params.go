package nnue

// Param is one parameter tensor of a network's head as the engine holds it,
// for tools that look inside a net (nets/inspect). The feature transformer
// is not repeated here: it is Network.FTWeights, FTBias and PSQT.
type Param struct {
	// Name is the tensor's name in nnuelab's float format where the design
	// has one ("out.weight", "l1.bias", Rengar's "l1.fs"), else
	// Stockfish's layer name ("fc_0.weight").
	Name string
	// Buckets is the number of output buckets (layer stacks) the tensor
	// holds one slice of each; Out and In are one bucket's shape (In = 1
	// for biases). Values are bucket-major, then row-major, without the
	// padding the engine's kernels use.
	Buckets, Out, In int
	// Q holds the quantized values, or nil for a float tensor.
	Q []int32
	// F holds a float tensor's values (Rengar's head), or nil.
	F []float32
	// Scale is what a quantized value is multiplied by from its float
	// value: float = Q / Scale, in the design's float units (nnue.FromFloat's
	// formulas; SF12FloatScales for Stockfish's dense layers).
	Scale float64
	// Bits is the signed storage width of a quantized value: 8, 16 or 32.
	Bits int
}

// HeadParams returns copies of the head's parameter tensors in evaluation
// order, weights before biases.
func (n *Network) HeadParams() []Param {
	switch h := n.head.(type) {
	case *linearHead:
		return h.params()
	case *sf12Head:
		return h.params(n)
	case *sf15Head:
		return h.params()
	case *sf17Head:
		return h.params() // the file's weights: the transformer undoubled
	case *rengarHead:
		return h.params()
	}
	return nil
}

// unpad copies rows of in values out of a buffer with the given row stride.
func unpad(w []int8, rows, in, stride int) []int32 {
	out := make([]int32, 0, rows*in)
	for r := 0; r < rows; r++ {
		for _, v := range w[r*stride : r*stride+in] {
			out = append(out, int32(v))
		}
	}
	return out
}

func (h *linearHead) params() []Param {
	per := len(h.out[0])
	w := Param{Name: "out.weight", Buckets: len(h.out), Out: 1, In: per, Scale: float64(h.qb), Bits: 16}
	for _, row := range h.out {
		for _, v := range row {
			w.Q = append(w.Q, int32(v))
		}
	}
	b := Param{Name: "out.bias", Buckets: len(h.bias), Out: 1, In: 1, Scale: float64(h.qa * h.qb), Bits: 32,
		Q: append([]int32(nil), h.bias...)}
	if h.net.Spec.Net.Format == "leorik" {
		b.Bits = 16 // Leorik stores one int16 per bucket
	}
	return []Param{w, b}
}

func (h *sf12Head) params(n *Network) []Param {
	hw, hb, ow, ob := SF12FloatScales(n.Spec)
	in := 2 * n.Width
	return []Param{
		{Name: "l1.weight", Buckets: 1, Out: h.n1, In: in, Q: unpad(h.w1, h.n1, in, pad32(in)), Scale: hw, Bits: 8},
		{Name: "l1.bias", Buckets: 1, Out: h.n1, In: 1, Q: append([]int32(nil), h.b1...), Scale: hb, Bits: 32},
		{Name: "l2.weight", Buckets: 1, Out: h.n2, In: h.n1, Q: unpad(h.w2, h.n2, h.n1, pad32(h.n1)), Scale: hw, Bits: 8},
		{Name: "l2.bias", Buckets: 1, Out: h.n2, In: 1, Q: append([]int32(nil), h.b2...), Scale: hb, Bits: 32},
		{Name: "out.weight", Buckets: 1, Out: 1, In: h.n2, Q: unpad(h.w3, 1, h.n2, pad32(h.n2)), Scale: ow, Bits: 8},
		{Name: "out.bias", Buckets: 1, Out: 1, In: 1, Q: []int32{h.b3}, Scale: ob, Bits: 32},
	}
}

func (h *sf15Head) params() []Param {
	hw, hb, ow, ob := SF12FloatScales(h.net.Spec)
	B, w, k := len(h.stacks), h.net.Width, h.l0-1
	ps := []Param{
		{Name: "fc_0.weight", Buckets: B, Out: h.l0, In: w, Scale: hw, Bits: 8},
		{Name: "fc_0.bias", Buckets: B, Out: h.l0, In: 1, Scale: hb, Bits: 32},
		{Name: "fc_1.weight", Buckets: B, Out: h.l1, In: 2 * k, Scale: hw, Bits: 8},
		{Name: "fc_1.bias", Buckets: B, Out: h.l1, In: 1, Scale: hb, Bits: 32},
		{Name: "fc_2.weight", Buckets: B, Out: 1, In: h.l1, Scale: ow, Bits: 8},
		{Name: "fc_2.bias", Buckets: B, Out: 1, In: 1, Scale: ob, Bits: 32},
	}
	for _, st := range h.stacks {
		ps[0].Q = append(ps[0].Q, unpad(h.fileOrderW0(&st), h.l0, w, w)...)
		ps[1].Q = append(ps[1].Q, st.b0...)
		ps[2].Q = append(ps[2].Q, unpad(st.w1, h.l1, 2*k, pad32(2*k))...)
		ps[3].Q = append(ps[3].Q, st.b1...)
		ps[4].Q = append(ps[4].Q, unpad(st.w2, 1, h.l1, pad32(h.l1))...)
		ps[5].Q = append(ps[5].Q, st.b2)
	}
	return ps
}

func (h *rengarHead) params() []Param {
	var ps []Param
	mat := func(name string, m *[4][32]float32) {
		p := Param{Name: name, Buckets: 1, Out: 4, In: 32}
		for i := range m {
			p.F = append(p.F, m[i][:]...)
		}
		ps = append(ps, p)
	}
	vec := func(name string, v []float32) {
		ps = append(ps, Param{Name: name, Buckets: 1, Out: len(v), In: 1, F: append([]float32(nil), v...)})
	}
	vec("tempo.va", h.tempo[:])
	mat("l1.fs", &h.fs)
	vec("l1.fs_bias", h.bias[:])
	mat("l1.absva", &h.absva)
	mat("l1.absha", &h.absha)
	mat("l1.absra", &h.absra)
	mat("l1.va", &h.va)
	mat("l1.fsxva", &h.fsxva)
	mat("l1.haxra", &h.haxra)
	vec("l2.va", h.outVA[:])
	vec("l2.fsxva", h.outFxV[:])
	return ps
}
