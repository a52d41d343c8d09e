//go:build !unix

package vec

func cpuSeconds() float64 { return 0 }
