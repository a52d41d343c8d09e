package simd

// Pure-Go twins of the assembly kernels. They are compiled on every platform:
// they are the fallback where there is no assembly, and the tests compare the
// assembly against them. Callers have checked the lengths; each twin reslices
// its inputs to len(dst) first so the compiler drops the bounds checks in the
// loops.

func addGeneric(dst, a []int16) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] += a[i]
	}
}

func subGeneric(dst, a []int16) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] -= a[i]
	}
}

func addInt8Generic(dst []int16, a []int8) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] += int16(a[i])
	}
}

func subInt8Generic(dst []int16, a []int8) {
	a = a[:len(dst)]
	for i := range dst {
		dst[i] -= int16(a[i])
	}
}

func addSubInt8RowsGeneric(dst []int16, w []int8, adds, subs []int32) {
	n := len(dst)
	for _, r := range adds {
		addInt8Generic(dst, w[int(r)*n:int(r+1)*n])
	}
	for _, r := range subs {
		subInt8Generic(dst, w[int(r)*n:int(r+1)*n])
	}
}

func addSubRowsGeneric(dst, w []int16, adds, subs []int32) {
	n := len(dst)
	for _, r := range adds {
		addGeneric(dst, w[int(r)*n:int(r+1)*n])
	}
	for _, r := range subs {
		subGeneric(dst, w[int(r)*n:int(r+1)*n])
	}
}

func addSubGeneric(dst, src, add, sub []int16) {
	n := len(dst)
	src, add, sub = src[:n], add[:n], sub[:n]
	for i := range dst {
		dst[i] = src[i] + add[i] - sub[i]
	}
}

func addSubSubGeneric(dst, src, add, sub1, sub2 []int16) {
	n := len(dst)
	src, add, sub1, sub2 = src[:n], add[:n], sub1[:n], sub2[:n]
	for i := range dst {
		dst[i] = src[i] + add[i] - sub1[i] - sub2[i]
	}
}

func addAddSubSubGeneric(dst, src, add1, add2, sub1, sub2 []int16) {
	n := len(dst)
	src, add1, add2, sub1, sub2 = src[:n], add1[:n], add2[:n], sub1[:n], sub2[:n]
	for i := range dst {
		dst[i] = src[i] + add1[i] + add2[i] - sub1[i] - sub2[i]
	}
}

func clippedReLUGeneric(dst []uint8, src []int16, max int16) {
	src = src[:len(dst)]
	for i, v := range src {
		v = min(v, max)
		v = max0(v)
		dst[i] = uint8(v)
	}
}

// max0 is max(v, 0), spelled out so that it reads like the kernels' clamp.
func max0(v int16) int16 {
	if v < 0 {
		return 0
	}
	return v
}

func pairwiseClippedReLUGeneric(dst []uint8, src []int16) {
	n := len(dst)
	lo, hi := src[:n], src[n:2*n]
	for j := range dst {
		a := int32(max0(min(lo[j], 127)))
		b := int32(max0(min(hi[j], 127)))
		dst[j] = uint8((a * b) >> 7)
	}
}

func pairwiseClippedReLU255Generic(dst []uint8, src []int16) {
	n := len(dst)
	lo, hi := src[:n], src[n:2*n]
	for j := range dst {
		a := uint32(max0(min(lo[j], 255)))
		b := uint32(max0(min(hi[j], 255)))
		dst[j] = uint8((a * b) >> 9)
	}
}

func clipShiftGeneric(dst []uint8, src []int32, shift uint, ceil int32) {
	src = src[:len(dst)]
	for i, v := range src {
		dst[i] = uint8(min(max(v>>shift, 0), ceil))
	}
}

func sqrClip16Generic(dst []uint8, off int, src []int32, sqrShift, shift uint, ceil int32) {
	src = src[:16]
	for i, v := range src {
		dst[i] = uint8(min((int64(v)*int64(v))>>sqrShift, int64(ceil)))
	}
	for i, v := range src {
		dst[off+i] = uint8(min(max(v>>shift, 0), ceil))
	}
}

func dotUint8Int8Generic(a []uint8, w []int8) int32 {
	w = w[:len(a)]
	var sum int32
	for i, x := range a {
		sum += int32(x) * int32(w[i])
	}
	return sum
}

func affineGeneric(out []int32, in []uint8, w []int8, bias []int32) {
	cols := len(in)
	bias = bias[:len(out)]
	for i := range out {
		out[i] = bias[i] + dotUint8Int8Generic(in, w[i*cols:(i+1)*cols])
	}
}

func dotReLUGeneric(acc, w []int16) int32 {
	w = w[:len(acc)]
	var sum int32
	for i, v := range acc {
		sum += int32(max0(v)) * int32(w[i])
	}
	return sum
}

func dotClippedReLUGeneric(acc, w []int16, max int16) int32 {
	w = w[:len(acc)]
	var sum int32
	for i, v := range acc {
		sum += int32(max0(min(v, max))) * int32(w[i])
	}
	return sum
}

func dotSquaredClippedReLUGeneric(acc, w []int16, max int16) int32 {
	w = w[:len(acc)]
	var sum int32
	for i, v := range acc {
		c := int32(max0(min(v, max)))
		sum += c * c * int32(w[i])
	}
	return sum
}
