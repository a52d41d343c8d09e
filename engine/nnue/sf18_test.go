package nnue

import (
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board"
)

// Tests of Stockfish 18's big-net format and head on small synthetic nets
// (HalfKAv2_hm with one king bucket plus the 79,856 threat features, 64
// wide); the real nets are checked against the engine in sf18_real_test.go
// and cmd/nnuelab.

// sf18TinySpec is a small sf18 design of width w with threats and the
// small net small (an sf17TinySpec design), if any.
func sf18TinySpec(t testing.TB, name string, w int, small string) *archs.Spec {
	t.Helper()
	toml := `name = "` + name + `"
[net]
format = "sf18"
`
	if small != "" {
		toml += `small = "` + small + `"
`
	}
	toml += `[features]
set = "halfkav2_hm"
threats = "full"
king_buckets = [` + zeros64() + `]
[accumulator]
width = ` + itoa(w) + `
[head]
type = "sf18"
layers = [4, 8, 1]
output_buckets = 8
bucket_selector = "(pieces-1)/4"
psqt_buckets = 8
[quant]
qa = 127
qb = 64
weight_shift = 6
output_divisor = 16
`
	spec, err := archs.Parse(name+".toml", []byte(toml))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// writeSynthSF18 writes a random net of spec's sizes in Stockfish 18's
// big-net layout (from docs/reference/sf18-nnue.md, not the reader's
// code): header, Full_Threats' transformer hash, biases (LEB128), threat
// weights (raw int8), piece-square weights (LEB128), one LEB128 block of
// PSQT weights (threat features first), the layer stacks.
func writeSynthSF18(spec *archs.Spec, seed uint64) []byte {
	rng := rand.New(rand.NewPCG(seed, 18))
	w := spec.Accumulator.Width
	l := spec.Head.Layers
	F, T, pb := spec.Features.Size(), spec.Features.ThreatSize(), spec.Head.PSQTBuckets
	var out sfWriter
	desc := []byte("synthetic sf18 test net")
	ft := uint32(0x8F234CB8) ^ uint32(2*w)
	stack := sfDenseHash(w, l)
	out.put([]uint32{sfVersion15, ft ^ stack, uint32(len(desc))})
	out.put(desc)
	out.put(ft)
	out.put(lebBlock(randInt16s(rng, w, 60)))
	out.put(randInt8s(rng, T*w, 40))
	out.put(lebBlock(randInt16s(rng, F*w, 40)))
	out.put(lebBlock(randInt32s(rng, (T+F)*pb, 3000)))
	for s := 0; s < spec.Head.OutputBuckets; s++ {
		out.put(stack)
		out.put(randInt32s(rng, l[0], 5000))
		out.put(randInt8s(rng, l[0]*w, 30))
		out.put(randInt32s(rng, l[1], 2000))
		out.put(randInt8s(rng, l[1]*pad32(2*(l[0]-1)), 60))
		out.put(randInt32s(rng, 1, 2000))
		out.put(randInt8s(rng, pad32(l[1]), 127))
	}
	return out.Bytes()
}

// sf18Pair reads a synthetic sf18 big net with a synthetic 17.1-format
// small net attached.
func sf18Pair(t testing.TB, seed uint64) *Network {
	t.Helper()
	bigSpec := sf18TinySpec(t, "sf18-tiny", 64, "sf17-tiny-small")
	smallSpec := sf17TinySpec(t, "sf17-tiny-small", 64, "")
	big, err := Read(bigSpec, bytes.NewReader(writeSynthSF18(bigSpec, seed)))
	if err != nil {
		t.Fatal(err)
	}
	small, err := Read(smallSpec, bytes.NewReader(writeSynthSF17(smallSpec, seed+1, 30)))
	if err != nil {
		t.Fatal(err)
	}
	if err := big.SetSmall(small); err != nil {
		t.Fatal(err)
	}
	return big
}

// refSF18Final is Stockfish 18's Eval::evaluate written out from its
// definition on the trace's parts.
func refSF18Final(p *board.Position, psqt, positional int) int {
	nnue := (125*psqt + 131*positional) / 128
	c := psqt - positional
	if c < 0 {
		c = -c
	}
	nnue -= nnue * c / 18236
	vals := map[board.PieceType]int{board.Knight: 781, board.Bishop: 825, board.Rook: 1276, board.Queen: 2538}
	material := 534 * p.ByType(board.Pawn).Count()
	for pt, v := range vals {
		material += v * p.ByType(pt).Count()
	}
	v := nnue * (77871 + material) / 77871
	v -= v * p.HalfmoveClock() / 199
	return min(max(v, -31506), 31506)
}

// TestSF18IncrementalEqualsScratch walks random search trees with a
// synthetic sf18 pair: at every node the evaluator, whose big-net
// accumulators follow the threats move by move, gives the from-scratch
// value and steps (18's constants).
func TestSF18IncrementalEqualsScratch(t *testing.T) {
	checkIncrementalSF(t, sf18Pair(t, 1), refSF18Final, 18)
}

// TestSF18Transform checks the threat net's pairwise product against
// Stockfish 18's arithmetic: the piece-square and threat accumulators
// added in int16 (wrapping, as the AVX2 build does), clamped to [0, 255],
// the product divided by 512.
func TestSF18Transform(t *testing.T) {
	rng := rand.New(rand.NewPCG(18, 3))
	const w = 128
	for trial := 0; trial < 300; trial++ {
		lim := []int{100, 300, 2000, 32767}[trial%4]
		psq := randInt16s(rng, w, lim)
		thr := randInt16s(rng, w, lim)
		sum := make([]int16, w)
		for j := range sum {
			sum[j] = psq[j] + thr[j]
		}
		want := make([]uint8, w/2)
		for j := range want {
			a := int32(min(max(int16(psq[j]+thr[j]), 0), 255))
			b := int32(min(max(int16(psq[j+w/2]+thr[j+w/2]), 0), 255))
			want[j] = uint8(uint32(a*b) / 512)
		}
		got := make([]uint8, w/2)
		sf18Transform(got, sum)
		if !slices.Equal(got, want) {
			t.Fatalf("trial %d: %v, want %v", trial, got, want)
		}
	}
}

// TestSF18Corrupt damages a synthetic sf18 net: each damage is refused
// with an error saying what and where; a 17.1 net is refused by the sf18
// arch and the other way round.
func TestSF18Corrupt(t *testing.T) {
	spec := sf18TinySpec(t, "sf18-tiny", 64, "")
	b := writeSynthSF18(spec, 9)
	if _, err := Read(spec, bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	ft := 12 + int(binary.LittleEndian.Uint32(b[8:]))
	threats := ft + 4 + len(leb128Magic) + 4 + int(binary.LittleEndian.Uint32(b[ft+4+len(leb128Magic):]))
	sf17 := sf17TinySpec(t, "sf17-tiny", 64, "")
	runCorrupt(t, []corruptCase{
		{"wrong network hash", flip(b, 4), spec, []string{"network hash", "byte 4", "HalfKAv2_hm 704 + Full_Threats 79856 -> 64x2 -> 8 x (4 -> 8 -> 1), PSQT 8, LEB128"}},
		{"wrong FT hash", flip(b, ft), spec, []string{"feature-transformer hash", "byte " + itoa(ft), "0x8F234C38"}},
		{"threat weights cut", b[:threats+1000], spec, []string{"truncated", "threat weights (int8)", "byte " + itoa(threats)}},
		{"PSQT block cut", b[:len(b)-8*600-10] /* 8 stacks of 600 bytes at width 64 */, spec, []string{"truncated", "PSQT weights (threat features, then piece-square features)"}},
		{"last byte missing", b[:len(b)-1], spec, []string{"truncated", "layer stack 7 fc_2 weights"}},
		{"sf18 net with an sf17 arch", b, sf17, []string{"network hash", "HalfKAv2_hm 704 -> 64x2"}},
		{"sf17 net with an sf18 arch", writeSynthSF17(sf17, 1, 30), spec, []string{"network hash", "Full_Threats 79856"}},
	})
}

// TestSF18NoAlloc checks that evaluating an sf18 net (threat updates
// included) without a trace does not allocate once the evaluator's
// buffers have grown.
func TestSF18NoAlloc(t *testing.T) {
	n := sf18Pair(t, 4)
	p, _ := board.ParseFEN("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
	ev := NewEvaluator(n)
	var ml board.MoveList
	p.GenerateLegal(&ml)
	step := func() {
		for _, m := range ml.Moves[:ml.N] {
			p.MakeMove(m)
			ev.Push(p.LastDelta())
			ev.Raw(p, nil)
			p.UnmakeMove()
			ev.Pop()
		}
	}
	ev.Reset(p)
	step()
	if a := testing.AllocsPerRun(20, step); a != 0 {
		t.Errorf("%v allocations per %d moves evaluated", a, ml.N)
	}
}
