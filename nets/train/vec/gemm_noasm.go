//go:build !amd64 || !gc || purego

package vec

// Without assembly the tiles of MatMulNT and MatMulNN are never called.

func dotTile1x1AVX2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k int) {
	unreachable()
}
func dotTile1x2AVX2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k int) {
	unreachable()
}
func dotTile1x3AVX2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k int) {
	unreachable()
}
func dotTile1x4AVX2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k int) {
	unreachable()
}
func dotTile2x1AVX2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k int) {
	unreachable()
}
func dotTile2x2AVX2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k int) {
	unreachable()
}
func dotTile2x3AVX2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k int) {
	unreachable()
}
func dotTile2x4AVX2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k int) {
	unreachable()
}
func dotTile3x1AVX2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k int) {
	unreachable()
}
func dotTile3x2AVX2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k int) {
	unreachable()
}
func dotTile3x3AVX2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k int) {
	unreachable()
}
func dotTile3x4AVX2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k int) {
	unreachable()
}
func axpyTile1x1AVX2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k int, add bool) {
	unreachable()
}
func axpyTile1x2AVX2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k int, add bool) {
	unreachable()
}
func axpyTile1x3AVX2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k int, add bool) {
	unreachable()
}
func axpyTile2x1AVX2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k int, add bool) {
	unreachable()
}
func axpyTile2x2AVX2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k int, add bool) {
	unreachable()
}
func axpyTile2x3AVX2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k int, add bool) {
	unreachable()
}
func axpyTile3x1AVX2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k int, add bool) {
	unreachable()
}
func axpyTile3x2AVX2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k int, add bool) {
	unreachable()
}
func axpyTile3x3AVX2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k int, add bool) {
	unreachable()
}
func axpyTile4x1AVX2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k int, add bool) {
	unreachable()
}
func axpyTile4x2AVX2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k int, add bool) {
	unreachable()
}
func axpyTile4x3AVX2(dst *float32, ldd int, a *float32, lda int, b *float32, ldb int, k int, add bool) {
	unreachable()
}
