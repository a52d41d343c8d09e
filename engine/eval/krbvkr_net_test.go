package eval

import (
	"encoding/binary"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/nnuelab/nnuelab/engine/syzygy"
)

// The KRBvKR network's test helpers; the network itself is krbvkr.go.

// loadKRB returns the fitted network, read once.
func loadKRB(t *testing.T) *krbNet {
	t.Helper()
	n, err := krbLoaded()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// openKRBTables opens the committed KRBvKR tables (krbTables) for the
// length of the test.
func openKRBTables(t *testing.T) *syzygy.Tables {
	t.Helper()
	tb, err := syzygy.Open(krbTables)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tb.Close() })
	return tb
}

// newKRBNet is a network's starting point for a fit: hidden units
// (-krbvkr.hidden), small random weights drawn from rng, and hidden biases
// of 0.1 so that every unit starts active.
func newKRBNet(rng *rand.Rand) *krbNet {
	n := newKRBNetOf(*krbHiddenWidth)
	for i := range n.w1 {
		n.w1[i] = float32(rng.NormFloat64() * 0.1)
	}
	for j := range n.w2 {
		n.w2[j] = float32(rng.NormFloat64() * 0.1)
		n.b1[j] = 0.1
	}
	return n
}

// krbWon reports whether a DTZ (the stronger side's) is a win the
// fifty-move rule allows with the counter at 0.
func krbWon(dtz int16) bool { return dtz > 0 && dtz <= 100 }

// encodeKRB writes the weights in the format decodeKRB reads.
func encodeKRB(n *krbNet) []byte {
	out := make([]byte, 0, krbFileSize(n.hidden))
	out = append(out, krbMagic...)
	out = binary.LittleEndian.AppendUint32(out, uint32(n.hidden))
	put := func(v float32) { out = binary.LittleEndian.AppendUint32(out, math.Float32bits(v)) }
	for _, v := range n.w1 {
		put(v)
	}
	for _, v := range n.b1 {
		put(v)
	}
	for _, v := range n.w2 {
		put(v)
	}
	put(n.b2)
	return out
}
