package simd

// The PSQT accumulator of Stockfish-style nets is a handful of int32 lanes
// (8 buckets), too short for a vector kernel's call overhead to pay off, so
// these are plain Go on every platform; the compiler drops their bounds
// checks after the reslice. They accept any length (all slices equal) and
// wrap like int32.

// AddInt32 adds a to dst element-wise (dst += a). len(a) == len(dst).
func AddInt32(dst, a []int32) {
	if len(a) != len(dst) {
		panicPrecondition("AddInt32: lengths must be equal")
	}
	a = a[:len(dst)]
	for i := range dst {
		dst[i] += a[i]
	}
}

// SubInt32 subtracts a from dst element-wise (dst -= a). len(a) == len(dst).
func SubInt32(dst, a []int32) {
	if len(a) != len(dst) {
		panicPrecondition("SubInt32: lengths must be equal")
	}
	a = a[:len(dst)]
	for i := range dst {
		dst[i] -= a[i]
	}
}

// AddSubInt32 is the int32 twin of AddSub: dst = src + add - sub.
func AddSubInt32(dst, src, add, sub []int32) {
	n := len(dst)
	if len(src) != n || len(add) != n || len(sub) != n {
		panicPrecondition("AddSubInt32: lengths must be equal")
	}
	src, add, sub = src[:n], add[:n], sub[:n]
	for i := range dst {
		dst[i] = src[i] + add[i] - sub[i]
	}
}

// AddSubSubInt32 is the int32 twin of AddSubSub: dst = src + add - sub1 - sub2.
func AddSubSubInt32(dst, src, add, sub1, sub2 []int32) {
	n := len(dst)
	if len(src) != n || len(add) != n || len(sub1) != n || len(sub2) != n {
		panicPrecondition("AddSubSubInt32: lengths must be equal")
	}
	src, add, sub1, sub2 = src[:n], add[:n], sub1[:n], sub2[:n]
	for i := range dst {
		dst[i] = src[i] + add[i] - sub1[i] - sub2[i]
	}
}

// AddAddSubSubInt32 is the int32 twin of AddAddSubSub:
// dst = src + add1 + add2 - sub1 - sub2.
func AddAddSubSubInt32(dst, src, add1, add2, sub1, sub2 []int32) {
	n := len(dst)
	if len(src) != n || len(add1) != n || len(add2) != n || len(sub1) != n || len(sub2) != n {
		panicPrecondition("AddAddSubSubInt32: lengths must be equal")
	}
	src, add1, add2, sub1, sub2 = src[:n], add1[:n], add2[:n], sub1[:n], sub2[:n]
	for i := range dst {
		dst[i] = src[i] + add1[i] + add2[i] - sub1[i] - sub2[i]
	}
}

// PrefetchRows asks the CPU to start loading the first cache line of each
// of the rows rows of w, row r starting at w[r*width] (a PSQT row of 8
// int32s is one half line), so that a read of them a little later finds
// them in cache. It is a hint: it changes nothing, never faults, checks
// no index and does nothing without assembly.
func PrefetchRows(w []int32, rows []int32, width int) {
	if !useAVX2 || len(rows) == 0 || len(w) == 0 {
		return
	}
	prefetchRowsAVX2(&w[0], &rows[0], len(rows), 4*width)
}
