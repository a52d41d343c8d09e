//go:build !unix

package train

// cpuSeconds is unknown here (0): only wall-clock rates are reported.
func cpuSeconds() float64 { return 0 }
