package nnue

import (
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"slices"
	"sync"
	"testing"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/internal/testtier"
	"github.com/nnuelab/nnuelab/nets/sfnet"
	_ "github.com/nnuelab/nnuelab/nets/sfnet/sf151" // exports Stockfish 15.1's net into the cache when missing
)

// Shared by the Stockfish tests: the reference nets, loaded once per test
// binary, and writers of small synthetic nets in both formats.

var sf12Bytes = sync.OnceValues(func() ([]byte, error) {
	f, err := os.Open("testdata/halfkp-synthetic.nnue.gz")
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, err
	}
	return io.ReadAll(gz)
})

// synthSF12Bytes returns the unzipped synthetic Stockfish 12 net.
func synthSF12Bytes(t testing.TB) []byte {
	t.Helper()
	b, err := sf12Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

var sf12Net = sync.OnceValues(func() (*Network, error) {
	b, err := sf12Bytes()
	if err != nil {
		return nil, err
	}
	spec, err := archs.Load("halfkp")
	if err != nil {
		return nil, err
	}
	return Read(spec, bytes.NewReader(b))
})

// synthSF12Net returns the synthetic Stockfish 12 net read with arch halfkp.
func synthSF12Net(t testing.TB) *Network {
	t.Helper()
	n, err := sf12Net()
	if err != nil {
		t.Fatalf("halfkp-synthetic.nnue.gz: %v", err)
	}
	return n
}

var sf15Path = sync.OnceValues(func() (string, error) {
	path, err := sfnet.Cached151()
	if err != nil {
		return "", fmt.Errorf("the sf15.1 tests need Stockfish 15.1's net (or set NNUELAB_STOCKFISH to a Stockfish 15.1 binary): %w", err)
	}
	return path, nil
})

var sf15Net = sync.OnceValues(func() (*Network, error) {
	path, err := sf15Path()
	if err != nil {
		return nil, err
	}
	spec, err := archs.Load("sf15.1")
	if err != nil {
		return nil, err
	}
	return LoadFile(spec, path)
})

// stockfishNet returns Stockfish 15.1's net, exported from the installed
// Stockfish on first use. A missing Stockfish fails the test: the
// exactness claim must not be skipped silently (make check, the fast tier,
// leaves such a test out, saying so, when the net is not cached).
func stockfishNet(t testing.TB) *Network {
	t.Helper()
	n, err := sf15Net()
	if err != nil {
		testtier.Needs(t, "Stockfish 15.1 (its net is exported from it once, then cached)")
		t.Fatal(err)
	}
	return n
}

// stockfishNetBytes returns the bytes of Stockfish 15.1's net.
func stockfishNetBytes(t testing.TB) []byte {
	t.Helper()
	path, err := sf15Path()
	if err != nil {
		testtier.Needs(t, "Stockfish 15.1 (its net is exported from it once, then cached)")
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// tinySpec is a small architecture of the given Stockfish format for fast
// reader tests: one king bucket, narrow layers.
func tinySpec(t testing.TB, format string) *archs.Spec {
	t.Helper()
	var toml string
	switch format {
	case "sf12":
		toml = `name = "halfkp-tiny"
[net]
format = "sf12"
[features]
set = "halfkp"
king_buckets = [` + zeros64() + `]
[accumulator]
width = 32
[head]
type = "sf12"
layers = [8, 8, 1]
[quant]
qa = 127
qb = 64
weight_shift = 6
output_divisor = 16
`
	case "sf15.1":
		toml = `name = "sf15-tiny"
[net]
format = "sf15.1"
[features]
set = "halfkav2_hm"
king_buckets = [` + zeros64() + `]
[accumulator]
width = 64
[head]
type = "sf15"
layers = [4, 8, 1]
output_buckets = 2
bucket_selector = "(pieces-1)/4"
psqt_buckets = 2
[quant]
qa = 127
qb = 64
weight_shift = 6
output_divisor = 16
`
	}
	spec, err := archs.Parse(format+"-tiny.toml", []byte(toml))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

func zeros64() string {
	b := make([]byte, 0, 128)
	for i := 0; i < 64; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '0')
	}
	return string(b)
}

// sfWriter writes little-endian values.
type sfWriter struct{ bytes.Buffer }

func (w *sfWriter) put(v any) {
	if err := binary.Write(&w.Buffer, binary.LittleEndian, v); err != nil {
		panic(err)
	}
}

func randInt16s(rng *rand.Rand, n, lim int) []int16 {
	v := make([]int16, n)
	for i := range v {
		v[i] = int16(rng.IntN(2*lim+1) - lim)
	}
	return v
}

func randInt32s(rng *rand.Rand, n, lim int) []int32 {
	v := make([]int32, n)
	for i := range v {
		v[i] = int32(rng.IntN(2*lim+1) - lim)
	}
	return v
}

func randInt8s(rng *rand.Rand, n, lim int) []int8 {
	v := make([]int8, n)
	for i := range v {
		v[i] = int8(rng.IntN(2*lim+1) - lim)
	}
	return v
}

// writeSynthSF writes a random net of spec's sizes in its Stockfish format
// (written from the specs' file layout tables, independently of the
// readers' code paths).
func writeSynthSF(spec *archs.Spec, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 1))
	w := spec.Accumulator.Width
	l := spec.Head.Layers
	F := spec.Features.Size()
	var out sfWriter
	desc := []byte("synthetic test net")
	if spec.Net.Format == "sf12" {
		ft := sfFeatureHash["halfkp"] ^ uint32(2*w)
		dense := sfDenseHash(w, l)
		out.put([]uint32{sfVersion12, ft ^ dense, uint32(len(desc))})
		out.put(desc)
		out.put(ft)
		out.put(randInt16s(rng, w, 64))
		out.put(randInt16s(rng, F*w, 64))
		out.put(dense)
		out.put(randInt32s(rng, l[0], 2000))
		out.put(randInt8s(rng, l[0]*pad32(2*w), 8))
		out.put(randInt32s(rng, l[1], 2000))
		out.put(randInt8s(rng, l[1]*pad32(l[0]), 32))
		out.put(randInt32s(rng, 1, 2000))
		out.put(randInt8s(rng, pad32(l[1]), 127))
		return out.Bytes()
	}
	ft := sfFeatureHash["halfkav2_hm"] ^ uint32(2*w)
	stack := sfDenseHash(w, l)
	out.put([]uint32{sfVersion15, ft ^ stack, uint32(len(desc))})
	out.put(desc)
	out.put(ft)
	out.put(randInt16s(rng, w, 200))
	out.put(randInt16s(rng, F*w, 100))
	out.put(randInt32s(rng, F*spec.Head.PSQTBuckets, 5000))
	for s := 0; s < spec.Head.OutputBuckets; s++ {
		out.put(stack)
		out.put(randInt32s(rng, l[0], 5000))
		out.put(randInt8s(rng, l[0]*w, 20))
		out.put(randInt32s(rng, l[1], 2000))
		out.put(randInt8s(rng, l[1]*pad32(2*(l[0]-1)), 60))
		out.put(randInt32s(rng, 1, 2000))
		out.put(randInt8s(rng, pad32(l[1]), 127))
	}
	return out.Bytes()
}

// scratchAccumulators recomputes both perspectives' accumulators of p.
func scratchAccumulators(n *Network, p *board.Position) (acc [2][]int16, psqt [2][]int32) {
	for c := board.White; c <= board.Black; c++ {
		acc[c] = slices.Clone(n.FTBias)
		psqt[c] = make([]int32, n.PSQTBuckets)
		for _, f := range n.Features.Active(p, c, nil) {
			for j, v := range n.row(f) {
				acc[c][j] += v
			}
			for j := 0; j < n.PSQTBuckets; j++ {
				psqt[c][j] += n.PSQT[f*n.PSQTBuckets+j]
			}
		}
	}
	return acc, psqt
}
