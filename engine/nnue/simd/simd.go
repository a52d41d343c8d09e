// Package simd holds the integer kernels that NNUE inference spends its time
// in: accumulator updates on int16 vectors, the feature-transformer
// activations that turn the int16 accumulator into uint8, and the int32 dot
// products and affine layers of the head.
//
// Every kernel has two implementations with identical results on every input:
// an AVX2 one in Go assembly (amd64, chosen at run time with
// golang.org/x/sys/cpu) and a pure-Go twin used everywhere else, on CPUs
// without AVX2, and when the package is built with the purego tag. The same
// tests run both and compare their outputs exactly; Implementation reports
// which one is live.
//
// Length preconditions: int16 slices have lengths that are multiples of 16
// elements and uint8/int8 slices multiples of 32 (one 256-bit register), so
// the kernels need no scalar tail (pad with zeros); int32 slices (Affine's
// outputs and biases, the PSQT helpers) may have any length. Slices that a
// kernel combines element by element must have the same length. Breaking a precondition is a programmer
// error and panics; the checks are a few compares and never allocate, and
// neither does any kernel.
//
// Aliasing: an output may be the very same slice as an input (the usual
// in-place update dst == src), but must not partially overlap one.
//
// Integer semantics: int16 updates wrap like SIMD epi16 arithmetic, and every
// int32 result is the exact sum reduced modulo 2^32 (Go's int32 wraparound),
// which does not depend on summation order, so AVX2 and Go agree bit for bit.
package simd

// Implementation names the live kernel set: "avx2" when the assembly kernels
// run, "generic" for the pure-Go fallback.
func Implementation() string {
	if useAVX2 {
		return "avx2"
	}
	return "generic"
}

// useAVX2 selects the assembly kernels. It starts as hasAVX2 (false where
// there is no assembly) and tests in this package flip it to run the pure-Go
// twins in the same binary.
var useAVX2 = hasAVX2

// preconditionError is the panic value for a broken precondition (a programmer error).
type preconditionError string

func (e preconditionError) Error() string { return "simd: " + string(e) }

// panicPrecondition reports a broken precondition; kept out of line so the
// callers stay small enough to inline.
//
//go:noinline
func panicPrecondition(msg string) { panic(preconditionError(msg)) }

// Copy sets dst to src (len(dst) == len(src), a multiple of 16).
func Copy(dst, src []int16) {
	n := len(dst)
	if len(src) != n || n%16 != 0 {
		panicPrecondition("Copy: lengths must be equal multiples of 16")
	}
	if n == 0 {
		return
	}
	if useAVX2 {
		copyAVX2(&dst[0], &src[0], n)
		return
	}
	copy(dst, src)
}

// Add adds a to dst element-wise with int16 wraparound (dst += a), as when a
// feature becomes active. len(dst) == len(a), a multiple of 16.
func Add(dst, a []int16) {
	n := len(dst)
	if len(a) != n || n%16 != 0 {
		panicPrecondition("Add: lengths must be equal multiples of 16")
	}
	if n == 0 {
		return
	}
	if useAVX2 {
		addAVX2(&dst[0], &a[0], n)
		return
	}
	addGeneric(dst, a)
}

// Sub subtracts a from dst element-wise with int16 wraparound (dst -= a), as
// when a feature becomes inactive. len(dst) == len(a), a multiple of 16.
func Sub(dst, a []int16) {
	n := len(dst)
	if len(a) != n || n%16 != 0 {
		panicPrecondition("Sub: lengths must be equal multiples of 16")
	}
	if n == 0 {
		return
	}
	if useAVX2 {
		subAVX2(&dst[0], &a[0], n)
		return
	}
	subGeneric(dst, a)
}

// AddInt8 adds the int8 row a, sign-extended, to dst element-wise with
// int16 wraparound (dst += a), as when a threat feature (int8 weights)
// becomes active. len(dst) == len(a), a multiple of 16.
func AddInt8(dst []int16, a []int8) {
	n := len(dst)
	if len(a) != n || n%16 != 0 {
		panicPrecondition("AddInt8: lengths must be equal multiples of 16")
	}
	if n == 0 {
		return
	}
	if useAVX2 {
		addInt8AVX2(&dst[0], &a[0], n)
		return
	}
	addInt8Generic(dst, a)
}

// SubInt8 subtracts the int8 row a, sign-extended, from dst element-wise
// with int16 wraparound (dst -= a). len(dst) == len(a), a multiple of 16.
func SubInt8(dst []int16, a []int8) {
	n := len(dst)
	if len(a) != n || n%16 != 0 {
		panicPrecondition("SubInt8: lengths must be equal multiples of 16")
	}
	if n == 0 {
		return
	}
	if useAVX2 {
		subInt8AVX2(&dst[0], &a[0], n)
		return
	}
	subInt8Generic(dst, a)
}

// AddSubInt8Rows folds whole lists of rows of the int8 matrix w into dst
// in one pass: dst += w[adds[0]] + ... - w[subs[0]] - ..., row r being
// w[r*len(dst) : (r+1)*len(dst)], each sign-extended, with int16
// wraparound (a ply's or a refresh's threat features). len(dst) is a
// multiple of 16 and every index selects a whole row of w.
func AddSubInt8Rows(dst []int16, w []int8, adds, subs []int32) {
	if !rowsWork("AddSubInt8Rows", len(dst), len(w), adds, subs) {
		return
	}
	if useAVX2 {
		int8RowsAVX2(&dst[0], &w[0], firstOrNil(adds), len(adds), firstOrNil(subs), len(subs), len(dst))
		return
	}
	addSubInt8RowsGeneric(dst, w, adds, subs)
}

// AddSubRows is AddSubInt8Rows for an int16 matrix (a refresh's
// piece-square features): dst += w[adds[0]] + ... - w[subs[0]] - ..., row
// r being w[r*len(dst) : (r+1)*len(dst)], with int16 wraparound, in one
// pass over dst. len(dst) is a multiple of 16 and every index selects a
// whole row of w.
func AddSubRows(dst, w []int16, adds, subs []int32) {
	if !rowsWork("AddSubRows", len(dst), len(w), adds, subs) {
		return
	}
	if useAVX2 {
		int16RowsAVX2(&dst[0], &w[0], firstOrNil(adds), len(adds), firstOrNil(subs), len(subs), len(dst))
		return
	}
	addSubRowsGeneric(dst, w, adds, subs)
}

// rowsWork checks the preconditions AddSubRows and AddSubInt8Rows share
// (n, the accumulator's length, a multiple of 16; every index a whole row
// of a matrix of wLen entries) and reports whether there is anything to do.
func rowsWork(name string, n, wLen int, adds, subs []int32) bool {
	if n%16 != 0 {
		panicPrecondition(name + ": len(dst) must be a multiple of 16")
	}
	if n == 0 || len(adds)+len(subs) == 0 {
		return false
	}
	rows := wLen / n
	checkRows(name, adds, rows)
	checkRows(name, subs, rows)
	return true
}

// checkRows panics unless every index in list selects one of rows rows.
func checkRows(name string, list []int32, rows int) {
	for _, r := range list {
		if uint(r) >= uint(rows) {
			panicPrecondition(name + ": row index out of range")
		}
	}
}

// firstOrNil returns &xs[0], or nil for an empty list (the kernels read
// nothing through it then).
func firstOrNil(xs []int32) *int32 {
	if len(xs) == 0 {
		return nil
	}
	return &xs[0]
}

// AddSub is the fused copy+update of a quiet move: dst = src + add - sub,
// reading the parent accumulator once and writing the child once. All lengths
// equal, a multiple of 16; dst may be src.
func AddSub(dst, src, add, sub []int16) {
	n := len(dst)
	if len(src) != n || len(add) != n || len(sub) != n || n%16 != 0 {
		panicPrecondition("AddSub: lengths must be equal multiples of 16")
	}
	if n == 0 {
		return
	}
	if useAVX2 {
		addSubAVX2(&dst[0], &src[0], &add[0], &sub[0], n)
		return
	}
	addSubGeneric(dst, src, add, sub)
}

// AddSubSub is the fused update of a capture: dst = src + add - sub1 - sub2.
// All lengths equal, a multiple of 16; dst may be src.
func AddSubSub(dst, src, add, sub1, sub2 []int16) {
	n := len(dst)
	if len(src) != n || len(add) != n || len(sub1) != n || len(sub2) != n || n%16 != 0 {
		panicPrecondition("AddSubSub: lengths must be equal multiples of 16")
	}
	if n == 0 {
		return
	}
	if useAVX2 {
		addSubSubAVX2(&dst[0], &src[0], &add[0], &sub1[0], &sub2[0], n)
		return
	}
	addSubSubGeneric(dst, src, add, sub1, sub2)
}

// AddAddSubSub is the fused update of castling (king and rook both move):
// dst = src + add1 + add2 - sub1 - sub2. All lengths equal, a multiple of 16;
// dst may be src.
func AddAddSubSub(dst, src, add1, add2, sub1, sub2 []int16) {
	n := len(dst)
	if len(src) != n || len(add1) != n || len(add2) != n || len(sub1) != n || len(sub2) != n || n%16 != 0 {
		panicPrecondition("AddAddSubSub: lengths must be equal multiples of 16")
	}
	if n == 0 {
		return
	}
	if useAVX2 {
		addAddSubSubAVX2(&dst[0], &src[0], &add1[0], &add2[0], &sub1[0], &sub2[0], n)
		return
	}
	addAddSubSubGeneric(dst, src, add1, add2, sub1, sub2)
}

// ClippedReLU is the feature-transformer activation
// dst[i] = clamp(src[i], 0, max) for 0 <= max <= 255.
// len(dst) == len(src), a multiple of 32.
func ClippedReLU(dst []uint8, src []int16, max int16) {
	n := len(dst)
	if len(src) != n || n%32 != 0 {
		panicPrecondition("ClippedReLU: lengths must be equal multiples of 32")
	}
	if uint16(max) > 255 {
		panicPrecondition("ClippedReLU: max must be in [0, 255]")
	}
	if n == 0 {
		return
	}
	if useAVX2 {
		clippedReLUAVX2(&dst[0], &src[0], n, max)
		return
	}
	clippedReLUGeneric(dst, src, max)
}

// PairwiseClippedReLU is Stockfish 15.1's pairwise product activation: with
// n = len(src)/2, dst[j] = clamp(src[j],0,127) * clamp(src[j+n],0,127) >> 7
// for j < n. len(dst) == len(src)/2, a multiple of 32.
func PairwiseClippedReLU(dst []uint8, src []int16) {
	n := len(dst)
	if len(src) != 2*n || n%32 != 0 {
		panicPrecondition("PairwiseClippedReLU: len(src) must be 2*len(dst), len(dst) a multiple of 32")
	}
	if n == 0 {
		return
	}
	if useAVX2 {
		pairwiseClippedReLUAVX2(&dst[0], &src[0], n)
		return
	}
	pairwiseClippedReLUGeneric(dst, src)
}

// PairwiseClippedReLU255 is Stockfish 18's feature-transformer activation
// for its threat net: with n = len(dst),
// dst[j] = clamp(src[j], 0, 255) * clamp(src[j+n], 0, 255) >> 9 (at most
// 127). len(src) == 2*len(dst), len(dst) a multiple of 32.
func PairwiseClippedReLU255(dst []uint8, src []int16) {
	n := len(dst)
	if len(src) != 2*n || n%32 != 0 {
		panicPrecondition("PairwiseClippedReLU255: len(src) must be 2*len(dst), len(dst) a multiple of 32")
	}
	if n == 0 {
		return
	}
	if useAVX2 {
		pairwiseClippedReLU255AVX2(&dst[0], &src[0], n)
		return
	}
	pairwiseClippedReLU255Generic(dst, src)
}

// ClipShift is the clipped ReLU between Stockfish's dense layers, int32 sums
// to uint8 activations: dst[i] = clamp(src[i] >> shift, 0, ceil) with an
// arithmetic shift (a shift of 32 or more leaves the sign, as in Go).
// len(dst) == len(src), a multiple of 32; ceil in [0, 255].
func ClipShift(dst []uint8, src []int32, shift uint, ceil int32) {
	n := len(dst)
	if len(src) != n || n%32 != 0 {
		panicPrecondition("ClipShift: lengths must be equal multiples of 32")
	}
	if uint32(ceil) > 255 {
		panicPrecondition("ClipShift: ceil must be in [0, 255]")
	}
	if n == 0 {
		return
	}
	if useAVX2 {
		clipShiftAVX2(&dst[0], &src[0], n, shift, uint8(ceil))
		return
	}
	clipShiftGeneric(dst, src, shift, ceil)
}

// SqrClip16 is the activation of Stockfish's first dense layer (15.1 to
// 18) for 16 int32 sums: dst[i] = min((src[i]*src[i]) >> sqrShift, ceil)
// (the square in int64) for i < 16, then dst[off+i] = clamp(src[i] >>
// shift, 0, ceil) for i < 16, in that order, so that with off < 16 the
// second half overwrites the tail of the first (Stockfish's 15 squared
// outputs followed by 15 clipped ones: off = 15, and dst[30] is left with
// the sixteenth clipped value). len(src) == 16, len(dst) >= max(16,
// off+16), 0 <= ceil <= 255, shifts arithmetic as in Go.
func SqrClip16(dst []uint8, off int, src []int32, sqrShift, shift uint, ceil int32) {
	if len(src) != 16 || off < 0 || len(dst) < 16 || len(dst)-16 < off || uint32(ceil) > 255 {
		panicPrecondition("SqrClip16: need len(src) == 16, len(dst) >= max(16, off+16), ceil in [0, 255]")
	}
	// The kernel squares min(|v|, 65535) in 32 bits: exact below, and
	// above only where that square still reaches ceil after the shift.
	if useAVX2 && sqrShift < 32 && shift < 64 && (uint64(65535*65535)>>sqrShift) >= uint64(ceil) {
		sqrClip16AVX2(&dst[0], off, &src[0], sqrShift, shift, ceil)
		return
	}
	sqrClip16Generic(dst, off, src, sqrShift, shift, ceil)
}

// DotUint8Int8 returns sum a[i]*w[i] as an exact int32 (no intermediate
// saturation, whatever the inputs). len(a) == len(w), a multiple of 32.
func DotUint8Int8(a []uint8, w []int8) int32 {
	n := len(a)
	if len(w) != n || n%32 != 0 {
		panicPrecondition("DotUint8Int8: lengths must be equal multiples of 32")
	}
	if n == 0 {
		return 0
	}
	if useAVX2 {
		return dotUint8Int8AVX2(&a[0], &w[0], n)
	}
	return dotUint8Int8Generic(a, w)
}

// Affine is a dense layer with uint8 inputs and int8 weights stored
// row-major by output: out[i] = bias[i] + sum_j w[i*len(in)+j] * in[j],
// exact with int32 wraparound. len(in) is a multiple of 32 (pad the input and
// the rows with zeros), len(bias) == len(out) (any length) and
// len(w) == len(out)*len(in).
func Affine(out []int32, in []uint8, w []int8, bias []int32) {
	if !affineWork("Affine", out, in, w, bias) {
		return
	}
	if useAVX2 {
		affineAVX2(&out[0], &in[0], &w[0], &bias[0], len(out), len(in))
		return
	}
	affineGeneric(out, in, w, bias)
}

// affineWork checks the dense-layer preconditions shared by Affine and
// Affine7 and handles the empty shapes, reporting whether a kernel still
// has work to do.
func affineWork(name string, out []int32, in []uint8, w []int8, bias []int32) bool {
	rows, cols := len(out), len(in)
	if len(bias) != rows || cols%32 != 0 || len(w) != rows*cols {
		panicPrecondition(name + ": need len(in)%32 == 0, len(bias) == len(out), len(w) == len(out)*len(in)")
	}
	if rows == 0 {
		return false
	}
	if cols == 0 {
		copy(out, bias)
		return false
	}
	return true
}

// Affine7 is Affine for inputs that are all below 128, the outputs of a
// clipped ReLU with a ceiling of at most 127 (Stockfish's dense layers):
// the AVX2 path then needs one multiply per 32 bytes instead of three. The
// result is that of Affine; an input of 128 or more breaks the precondition
// and gives an unspecified result on the AVX2 path (the caller guarantees
// the ceiling; the tests hold both paths to Affine on valid inputs).
func Affine7(out []int32, in []uint8, w []int8, bias []int32) {
	if !affineWork("Affine7", out, in, w, bias) {
		return
	}
	if useAVX2 {
		affine7AVX2(&out[0], &in[0], &w[0], &bias[0], len(out), len(in))
		return
	}
	affineGeneric(out, in, w, bias)
}

// DotReLU returns sum max(acc[i], 0) * w[i] in int32 with wraparound, as
// for a ReLU output layer read straight from the accumulator.
// len(acc) == len(w), a multiple of 16.
func DotReLU(acc, w []int16) int32 {
	n := len(acc)
	if len(w) != n || n%16 != 0 {
		panicPrecondition("DotReLU: lengths must be equal multiples of 16")
	}
	if n == 0 {
		return 0
	}
	if useAVX2 {
		return dotReLUAVX2(&acc[0], &w[0], n)
	}
	return dotReLUGeneric(acc, w)
}

// DotClippedReLU returns sum clamp(acc[i], 0, max) * w[i] in int32 with
// wraparound (max >= 0). len(acc) == len(w), a multiple of 16.
func DotClippedReLU(acc, w []int16, max int16) int32 {
	n := len(acc)
	if len(w) != n || n%16 != 0 {
		panicPrecondition("DotClippedReLU: lengths must be equal multiples of 16")
	}
	if max < 0 {
		panicPrecondition("DotClippedReLU: max must be >= 0")
	}
	if n == 0 {
		return 0
	}
	if useAVX2 {
		return dotClippedReLUAVX2(&acc[0], &w[0], n, max)
	}
	return dotClippedReLUGeneric(acc, w, max)
}

// DotSquaredClippedReLU returns sum clamp(acc[i], 0, max)^2 * w[i] in int32
// with wraparound, the SCReLU output layer (Leorik, bullet-style nets);
// 0 <= max <= 255 so that the square fits 16 unsigned bits.
// len(acc) == len(w), a multiple of 16.
func DotSquaredClippedReLU(acc, w []int16, max int16) int32 {
	n := len(acc)
	if len(w) != n || n%16 != 0 {
		panicPrecondition("DotSquaredClippedReLU: lengths must be equal multiples of 16")
	}
	if uint16(max) > 255 {
		panicPrecondition("DotSquaredClippedReLU: max must be in [0, 255]")
	}
	if n == 0 {
		return 0
	}
	if useAVX2 {
		return dotSquaredClippedReLUAVX2(&acc[0], &w[0], n, max)
	}
	return dotSquaredClippedReLUGeneric(acc, w, max)
}
