package vec

// Batched dense layers: the products of a batch of activations with a weight
// matrix, forward and backward, as GEMMs over the batch. The AVX2 path tiles
// the output into small blocks held in registers (internal/asmgen/gemm.go),
// so that each loaded vector feeds several fused multiply-adds; the Go twins
// compute the same sums in the same order per output element, unfused.

// MatMulNT sets dst[i*ldd+j] = sum over p < k of a[i*lda+p] * b[j*ldb+p] for
// i < m, j < n: the rows of a (inputs, one per position) times the rows of b
// (a layer's weights, one row per output neuron). Strides are in floats. A
// slice too short for its rows panics. With AVX2 each output sums its first
// k&^7 products in eight lanes, as Dot does; the rest are added after.
func MatMulNT(dst []float32, ldd int, a []float32, lda int, b []float32, ldb int, m, n, k int) {
	if m <= 0 || n <= 0 {
		return
	}
	mustFit(len(dst), m, ldd, n, "MatMulNT dst")
	mustFit(len(a), m, lda, k, "MatMulNT a")
	mustFit(len(b), n, ldb, k, "MatMulNT b")
	head := k &^ 7
	if !useAVX2 || head == 0 {
		matMulNTGo(dst, ldd, a, lda, b, ldb, m, n, 0, k, false)
		return
	}
	for i := 0; i < m; i += dotTileRows {
		r := min(dotTileRows, m-i)
		for j := 0; j < n; j += dotTileCols {
			c := min(dotTileCols, n-j)
			dotTiles[r-1][c-1](&dst[i*ldd+j], ldd, &a[i*lda], lda, &b[j*ldb], ldb, head)
		}
	}
	if head < k {
		matMulNTGo(dst, ldd, a, lda, b, ldb, m, n, head, k, true)
	}
}

// matMulNTGo sets (add: adds to) dst[i*ldd+j] the products of p in [from, to)
// in order.
func matMulNTGo(dst []float32, ldd int, a []float32, lda int, b []float32, ldb int, m, n, from, to int, add bool) {
	for i := 0; i < m; i++ {
		x := a[i*lda:][from:to]
		for j := 0; j < n; j++ {
			y := b[j*ldb:][from:to]
			var s float32
			if add {
				s = dst[i*ldd+j]
			}
			for p, v := range x {
				s += float32(v * y[p])
			}
			dst[i*ldd+j] = s
		}
	}
}

// MatMulNN sets dst[i*ldd+j] = sum over p < k of a[i*lda+p] * b[p*ldb+j], or
// adds that sum to it when add is true, for i < m, j < n: a batch of
// gradients (rows of a) times a weight matrix, or a transposed batch times
// the inputs (a weight gradient). Every output adds its k products in the
// order of p (fused with AVX2). Strides are in floats; a slice too short for
// its rows panics.
func MatMulNN(dst []float32, ldd int, a []float32, lda int, b []float32, ldb int, m, n, k int, add bool) {
	if m <= 0 || n <= 0 {
		return
	}
	mustFit(len(dst), m, ldd, n, "MatMulNN dst")
	if k <= 0 {
		if !add {
			for i := 0; i < m; i++ {
				clear(dst[i*ldd:][:n])
			}
		}
		return
	}
	mustFit(len(a), m, lda, k, "MatMulNN a")
	mustFit(len(b), k, ldb, n, "MatMulNN b")
	head := n &^ 7
	if !useAVX2 || head == 0 {
		matMulNNGo(dst, ldd, a, lda, b, ldb, m, n, k, add)
		return
	}
	for i := 0; i < m; i += axpyTileRows {
		r := min(axpyTileRows, m-i)
		for j := 0; j < head; j += 8 * axpyTileVecs {
			v := min(axpyTileVecs, (head-j)/8)
			axpyTiles[r-1][v-1](&dst[i*ldd+j], ldd, &a[i*lda], lda, &b[j], ldb, k, add)
		}
	}
	if head < n {
		matMulNNGo(dst[head:], ldd, a, lda, b[head:], ldb, m, n-head, k, add)
	}
}

func matMulNNGo(dst []float32, ldd int, a []float32, lda int, b []float32, ldb int, m, n, k int, add bool) {
	for i := 0; i < m; i++ {
		row := dst[i*ldd:][:n]
		if !add {
			clear(row)
		}
		for p, s := range a[i*lda:][:k] {
			for j, v := range b[p*ldb:][:n] {
				row[j] += float32(s * v)
			}
		}
	}
}

// mustFit panics unless rows rows of width floats at stride ld fit in n.
func mustFit(n, rows, ld, width int, what string) {
	if rows > 0 && width > 0 && (ld < width || (rows-1)*ld+width > n) {
		panic("vec." + what + ": slice too short for its rows")
	}
}

// Tile shapes: they must match internal/asmgen/gemm.go.
const (
	dotTileRows, dotTileCols   = 3, 4
	axpyTileRows, axpyTileVecs = 4, 3
)

// dotTiles[r-1][c-1] is the dot tile of r rows of a by c rows of b.
var dotTiles = [3][4]func(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k int){
	{dotTile1x1AVX2, dotTile1x2AVX2, dotTile1x3AVX2, dotTile1x4AVX2},
	{dotTile2x1AVX2, dotTile2x2AVX2, dotTile2x3AVX2, dotTile2x4AVX2},
	{dotTile3x1AVX2, dotTile3x2AVX2, dotTile3x3AVX2, dotTile3x4AVX2},
}

// axpyTiles[r-1][v-1] is the axpy tile of r rows by v vectors.
var axpyTiles = [4][3]func(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k int, add bool){
	{axpyTile1x1AVX2, axpyTile1x2AVX2, axpyTile1x3AVX2},
	{axpyTile2x1AVX2, axpyTile2x2AVX2, axpyTile2x3AVX2},
	{axpyTile3x1AVX2, axpyTile3x2AVX2, axpyTile3x3AVX2},
	{axpyTile4x1AVX2, axpyTile4x2AVX2, axpyTile4x3AVX2},
}
