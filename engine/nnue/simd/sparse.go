package simd

import "math/bits"

// The sparse first dense layer (Stockfish since 16): the feature
// transformer's uint8 output is mostly zero, so the first affine layer
// runs over the non-zero 4-byte groups of its input only (FindNNZ), with
// its weights stored group by group (SparseWeights) so that one group's
// weights for 16 outputs are 64 consecutive bytes. The result is exactly
// Affine7's: the groups left out contribute zero, and int32 sums wrap the
// same in any order.

// SparseRows is the block of outputs the sparse layer computes at a time:
// AffineSparse7 needs len(out) to be a multiple of it.
const SparseRows = 16

// FindNNZ writes to nnz the indices c, increasing, of the 4-byte groups
// in[4c:4c+4] that are not all zero and returns how many there are: they
// are nnz[:count]. len(in) is a multiple of 32 and len(nnz) >= len(in)/4;
// the entries of nnz past count are overwritten with unspecified values.
func FindNNZ(nnz []uint16, in []uint8) int {
	n := len(in)
	if n%32 != 0 || len(nnz) < n/4 || n/4 > 1<<16 {
		panicPrecondition("FindNNZ: need len(in) a multiple of 32, at most 2^18, and len(nnz) >= len(in)/4")
	}
	if n == 0 {
		return 0
	}
	if useAVX2 {
		return findNNZAVX2(&in[0], n, &nnzLUT[0][0], &nnz[0])
	}
	return findNNZGeneric(nnz, in)
}

// nnzLUT lists, for each eight-bit mask, the positions of its set bits in
// increasing order (findNNZAVX2 adds the block's first group index).
var nnzLUT = func() (t [256][8]uint16) {
	for m := range t {
		k := 0
		for b := m; b != 0; b &= b - 1 {
			t[m][k] = uint16(bits.TrailingZeros(uint(b)))
			k++
		}
	}
	return t
}()

// SparseWeights returns the weights w of a dense layer (row-major by
// output, rows outputs of cols inputs: Affine's layout) in the layout that
// AffineSparse7 reads: per block of SparseRows outputs, per 4-byte input
// group c, the 4 weights of each output of the block in order, so that
// sparse[b*SparseRows*cols + 64c + 4o + k] = w[(b*SparseRows+o)*cols + 4c+k].
// rows is a multiple of SparseRows, cols of 32, len(w) == rows*cols.
func SparseWeights(w []int8, rows, cols int) []int8 {
	if rows%SparseRows != 0 || cols%32 != 0 || len(w) != rows*cols {
		panicPrecondition("SparseWeights: need rows a multiple of 16, cols of 32, len(w) == rows*cols")
	}
	s := make([]int8, len(w))
	for b := 0; b < rows/SparseRows; b++ {
		blk := s[b*SparseRows*cols : (b+1)*SparseRows*cols]
		for o := 0; o < SparseRows; o++ {
			row := w[(b*SparseRows+o)*cols : (b*SparseRows+o+1)*cols]
			for c := 0; c < cols/4; c++ {
				copy(blk[64*c+4*o:64*c+4*o+4], row[4*c:4*c+4])
			}
		}
	}
	return s
}

// AffineSparse7 is Affine7 over the non-zero groups of its input:
// out[i] = bias[i] + sum_j W[i][j] * in[j] where W is the dense weight
// matrix whose SparseWeights layout is w, and nnz lists groups of in, each
// at most once, among them every group that is not all zero (FindNNZ's
// output; listing zero groups too changes nothing). Inputs
// are below 128 (the clipped ReLU outputs of Stockfish's transformer),
// len(out) == len(bias) is a multiple of SparseRows, len(in) of 32,
// len(w) == len(out)*len(in), and every index in nnz is below len(in)/4
// (checked: a larger one panics).
func AffineSparse7(out []int32, in []uint8, w []int8, bias []int32, nnz []uint16) {
	rows, cols := len(out), len(in)
	if len(bias) != rows || rows%SparseRows != 0 || cols%32 != 0 || len(w) != rows*cols || len(nnz) > cols/4 {
		panicPrecondition("AffineSparse7: need len(out) == len(bias) a multiple of 16, len(in) of 32, len(w) == len(out)*len(in), len(nnz) <= len(in)/4")
	}
	if rows == 0 {
		return
	}
	if cols == 0 {
		copy(out, bias)
		return
	}
	if useAVX2 {
		var p *uint16
		if len(nnz) > 0 {
			p = &nnz[0]
		}
		for b := 0; b < rows; b += SparseRows {
			if !affineSparse16AVX2(&out[b], &in[0], &w[b*cols], &bias[b], p, len(nnz), cols/4) {
				panicPrecondition("AffineSparse7: a group index in nnz is out of range")
			}
		}
		return
	}
	affineSparseGeneric(out, in, w, bias, nnz)
}

func findNNZGeneric(nnz []uint16, in []uint8) int {
	k := 0
	for c := 0; c < len(in)/4; c++ {
		if in[4*c]|in[4*c+1]|in[4*c+2]|in[4*c+3] != 0 {
			nnz[k] = uint16(c)
			k++
		}
	}
	return k
}

func affineSparseGeneric(out []int32, in []uint8, w []int8, bias []int32, nnz []uint16) {
	cols := len(in)
	copy(out, bias)
	for b := 0; b < len(out); b += SparseRows {
		blk := w[b*cols : (b+SparseRows)*cols]
		o := out[b : b+SparseRows]
		for _, c := range nnz {
			x := in[4*int(c) : 4*int(c)+4]
			g := blk[64*int(c) : 64*int(c)+64]
			for i := range o {
				o[i] += int32(x[0])*int32(g[4*i]) + int32(x[1])*int32(g[4*i+1]) +
					int32(x[2])*int32(g[4*i+2]) + int32(x[3])*int32(g[4*i+3])
			}
		}
	}
}
