package eval

import (
	"encoding/binary"
	"math"
	"testing"
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

// encodeKRB writes the weights in the format decodeKRB reads.
func encodeKRB(n *krbNet) []byte {
	out := make([]byte, 0, krbFileSize)
	out = append(out, krbMagic...)
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
