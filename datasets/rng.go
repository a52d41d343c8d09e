package datasets

// rng is a splitmix64 generator: tiny, fast, and defined here so that game
// streams do not change with the Go release.
type rng struct{ s uint64 }

// newRNG returns the generator of one stream (a game, a shuffle pass) of a
// run with the given seed.
func newRNG(seed, stream uint64) *rng {
	return &rng{s: mix64(seed^0x6a09e667f3bcc909) ^ mix64(stream+0x3c6ef372fe94f82b)}
}

func (r *rng) next() uint64 {
	r.s += 0x9e3779b97f4a7c15
	return mix64(r.s)
}

// intn returns a uniform integer in [0, n) for n > 0 (rejection sampling, no
// modulo bias).
func (r *rng) intn(n int) int {
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

// float64 returns a uniform number in [0, 1).
func (r *rng) float64() float64 { return float64(r.next()>>11) / (1 << 53) }
