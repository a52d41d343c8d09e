// Package splitmix is the random number generator of datagen's games and
// shuffle's passes: splitmix64, tiny, fast, and defined here so that game
// streams and shuffled files do not change with the Go release.
package splitmix

// RNG is one splitmix64 stream.
type RNG struct{ s uint64 }

// New returns the generator of one stream (a game, a shuffle pass) of a
// run with the given seed.
func New(seed, stream uint64) *RNG {
	return &RNG{s: Mix64(seed^0x6a09e667f3bcc909) ^ Mix64(stream+0x3c6ef372fe94f82b)}
}

func (r *RNG) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	return Mix64(r.s)
}

// Intn returns a uniform integer in [0, n) for n > 0 (rejection sampling, no
// modulo bias).
func (r *RNG) Intn(n int) int {
	if n <= 1 {
		return 0
	}
	un := uint64(n)
	limit := -un % un // (2^64 - n) mod n: values below it are rejected
	for {
		x := r.next()
		if x >= limit {
			return int(x % un)
		}
	}
}

// Float64 returns a uniform number in [0, 1).
func (r *RNG) Float64() float64 { return float64(r.next()>>11) / (1 << 53) }

// Mix64 is the splitmix64 finaliser: a bijection of 64-bit words whose
// output bits each depend on every input bit (record hashes, the
// validation split and the sampling filter use it too).
func Mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}
