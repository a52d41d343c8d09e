//go:build !amd64 || !gc || purego

package vec

// Without assembly the Go twins always run.
const (
	hasAVX2   = false
	hasAVX512 = false
)

func sumRowsAVX2(dst, init, m *float32, stride, width int, idx *int32, n int) { unreachable() }
func addAVX2(dst, x *float32, n int)                                          { unreachable() }
func axpyAVX2(dst, x *float32, a float32, n int)                              { unreachable() }
func dotAVX2(x, y *float32, n int) float32                                    { unreachable(); return 0 }
func clampAVX2(dst, src *float32, lo, hi float32, n int)                      { unreachable() }
func mulAVX2(dst, x, y *float32, n int)                                       { unreachable() }
func maskScaleAVX2(dst, w, x *float32, lo, hi, a float32, n int)              { unreachable() }
func adamAVX2(p, m, v, grad *float32, h *Adam, n int)                         { unreachable() }
func fmaPeakAVX2(iters int)                                                   { unreachable() }
func fmaPeakAVX512(iters int)                                                 { unreachable() }

func unreachable() { panic("vec: assembly kernel called in a build without assembly") }
