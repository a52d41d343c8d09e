package nnue

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/board/boardtest"
)

// Tests of the Stockfish 17.1 head on small synthetic nets (no Stockfish
// needed); the real nets are checked against the engine in
// sf17_real_test.go and cmd/nnuelab.

// sf17TinySpec is a small sf17 design: width w, one king bucket; with
// small set, it names sf17TinySmall as its small net.
func sf17TinySpec(t testing.TB, name string, w int, small string) *archs.Spec {
	t.Helper()
	toml := `name = "` + name + `"
[net]
format = "sf17.1"
`
	if small != "" {
		toml += `small = "` + small + `"
`
	}
	toml += `[features]
set = "halfkav2_hm"
king_buckets = [` + zeros64() + `]
[accumulator]
width = ` + itoa(w) + `
[head]
type = "sf17"
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

// leb128 appends v as signed LEB128, as Stockfish's writer does.
func leb128(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (c&0x40 == 0 && v == 0) || (c&0x40 != 0 && v == -1) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// lebBlock is a LEB128 block: magic, byte count, values.
func lebBlock[T int16 | int32](vals []T) []byte {
	var data []byte
	for _, v := range vals {
		data = leb128(data, int64(v))
	}
	b := append([]byte(nil), leb128Magic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(data)))
	return append(b, data...)
}

// writeSynthSF17 writes a random net of spec's sizes in Stockfish 17.1's
// format (from the spec's layout, not the reader's code). The
// transformer's weights are wide enough that accumulators reach the
// pairwise product's clip, and psqt large enough that the material part
// matters.
func writeSynthSF17(spec *archs.Spec, seed uint64, ftLim int) []byte {
	rng := rand.New(rand.NewPCG(seed, 17))
	w := spec.Accumulator.Width
	l := spec.Head.Layers
	F := spec.Features.Size()
	var out sfWriter
	desc := []byte("synthetic sf17 test net")
	ft := sfFeatureHash["halfkav2_hm"] ^ uint32(2*w)
	stack := sfDenseHash(w, l)
	out.put([]uint32{sfVersion15, ft ^ stack, uint32(len(desc))})
	out.put(desc)
	out.put(ft)
	out.put(lebBlock(randInt16s(rng, w, 40)))
	out.put(lebBlock(randInt16s(rng, F*w, ftLim)))
	out.put(lebBlock(randInt32s(rng, F*spec.Head.PSQTBuckets, 3000)))
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

// sf17Pair reads a synthetic big net with a synthetic small net attached.
func sf17Pair(t testing.TB, seed uint64) *Network {
	t.Helper()
	bigSpec := sf17TinySpec(t, "sf17-tiny", 128, "sf17-tiny-small")
	smallSpec := sf17TinySpec(t, "sf17-tiny-small", 64, "")
	big, err := Read(bigSpec, bytes.NewReader(writeSynthSF17(bigSpec, seed, 30)))
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

// lopsided are positions with one side far ahead in material (|simple
// eval| > 962), where Stockfish 17.1 tries the small net first.
var lopsided = []string{
	"8/kp4Q1/r4R2/p3p3/P2P4/3b2P1/1B1P3P/R1N3K1 b - - 0 31",
	"4k3/8/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1",
	"rnbqkbnr/pppppppp/8/8/8/8/8/4K3 b kq - 10 40",
	"r3k2r/8/8/8/8/8/8/4K3 w kq - 3 20",
	"4k3/8/8/8/3Q4/8/8/4K2R b K - 0 1",
}

// refSF17Final is Eval::evaluate written out from its definition on the
// trace's parts, to check sf17Evaluate's arithmetic.
func refSF17Final(p *board.Position, psqt, positional int) int {
	nnue := (125*psqt + 131*positional) / 128
	c := psqt - positional
	if c < 0 {
		c = -c
	}
	nnue -= nnue * c / 18000
	vals := map[board.PieceType]int{board.Knight: 781, board.Bishop: 825, board.Rook: 1276, board.Queen: 2538}
	material := 535 * p.ByType(board.Pawn).Count()
	for pt, v := range vals {
		material += v * p.ByType(pt).Count()
	}
	v := nnue * (77777 + material) / 77777
	v -= v * p.HalfmoveClock() / 212
	return min(max(v, -31506), 31506)
}

// TestSF17IncrementalEqualsScratch walks random search trees from the
// reference and lopsided positions with a big and a small synthetic net:
// at every node, the evaluator (two accumulator stacks, lazily updated)
// must give the from-scratch value and the same steps, for H in {1, 2,
// unlimited} and with and without the refresh cache; both nets must have
// counted, and the steps must follow Eval::evaluate's formula.
func TestSF17IncrementalEqualsScratch(t *testing.T) {
	checkIncrementalSF(t, sf17Pair(t, 1), refSF17Final, 17)
}

// checkIncrementalSF is TestSF17IncrementalEqualsScratch's walk for a
// network with an sf17 or sf18 head and a small net; ref is the release's
// Eval::evaluate formula.
func checkIncrementalSF(t *testing.T, n *Network, ref func(p *board.Position, psqt, positional int) int, seed uint64) {
	fens := append(slices.Clone(lopsided), boardtest.Positions()[:12]...)
	used := map[string]int{}
	for _, h := range []int{1, 2, 0} {
		for _, cache := range []bool{false, true} {
			rng := rand.New(rand.NewPCG(uint64(h), seed))
			ev := NewEvaluatorWith(n, h, cache)
			if ev.small == nil {
				t.Fatal("the evaluator has no evaluator for the small net")
			}
			checks := 0
			var visit func(p *board.Position, depth int)
			visit = func(p *board.Position, depth int) {
				if !p.InCheck() || rng.IntN(2) == 0 {
					var a, b Trace
					inc := ev.Raw(p, &a)
					full := n.Evaluate(p, &b)
					if inc != full || *a.Stockfish != *b.Stockfish {
						t.Fatalf("H=%d cache=%v %s: incremental %d %+v, from scratch %d %+v", h, cache, p.FEN(), inc, *a.Stockfish, full, *b.Stockfish)
					}
					if ev.Raw(p, nil) != inc {
						t.Fatalf("%s: evaluation without a trace differs", p.FEN())
					}
					s := b.Stockfish
					if want := ref(p, int(s.PSQT), int(s.Positional)); int(full) != want {
						t.Fatalf("%s: final %d, the formula gives %d (%+v)", p.FEN(), full, want, *s)
					}
					used[s.Net]++
					if s.UseSmall {
						used["tried small"]++
					}
					checks++
				}
				if depth == 0 {
					return
				}
				var ml board.MoveList
				p.GenerateLegal(&ml)
				for k := 0; k < 2 && ml.N > 0; k++ {
					if !p.InCheck() && rng.IntN(10) == 0 {
						p.MakeNullMove()
						ev.Push(&board.Delta{})
						visit(p, depth-1)
						p.UnmakeNullMove()
						ev.Pop()
						continue
					}
					m := ml.Moves[rng.IntN(ml.N)]
					p.MakeMove(m)
					ev.Push(p.LastDelta())
					visit(p, depth-1)
					p.UnmakeMove()
					ev.Pop()
				}
			}
			for _, fen := range fens {
				p, err := board.ParseFEN(fen)
				if err != nil {
					t.Fatal(err)
				}
				ev.Reset(p)
				visit(p, 5)
			}
			if checks < 500 {
				t.Fatalf("H=%d cache=%v: only %d checks", h, cache, checks)
			}
		}
	}
	t.Logf("nets whose value counted: %v", used)
	if used["small"] == 0 || used["big"] == 0 || used["tried small"] == used["small"] {
		t.Errorf("the trees did not exercise both nets and the fallback to the big one: %v", used)
	}
}

// TestSF17Transform checks the pairwise product against Stockfish 17.1's
// own arithmetic, simulated: weights and biases doubled in int16 at load,
// accumulated in int16 (wrapping), clamp to [0, 254], product / 512. Sums
// of random rows, some pushed past the int16 range, must give the bytes
// that the undoubled accumulators give through sf17Transform.
func TestSF17Transform(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 3))
	const w = 128
	for trial := 0; trial < 300; trial++ {
		lim := []int{100, 1000, 12000, 32767}[trial%4]
		var undoubled, doubled [w]int16
		for k := 0; k < 1+rng.IntN(32); k++ {
			row := randInt16s(rng, w, lim)
			for j, v := range row {
				undoubled[j] += v
				doubled[j] += v * 2 // the engine's load: int16(2w), wrapping
			}
		}
		want := make([]uint8, w/2)
		for j := range want {
			a := int32(min(max(doubled[j], 0), 254))
			b := int32(min(max(doubled[j+w/2], 0), 254))
			want[j] = uint8(uint32(a*b) / 512)
		}
		got := make([]uint8, w/2)
		sf17Transform(got, undoubled[:])
		exact := make([]uint8, w/2)
		sf17TransformExact(exact, undoubled[:])
		if !slices.Equal(got, want) || !slices.Equal(exact, want) {
			t.Fatalf("trial %d (rows up to %d): transform %v, exact path %v, engine %v", trial, lim, got, exact, want)
		}
	}
}

// TestReadLEB128 decodes values at the ends of the types' ranges, in
// blocks that span the decoder's chunks, and refuses damaged blocks.
func TestReadLEB128(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 5))
	v16 := []int16{0, 1, -1, 63, 64, -64, -65, 8191, 8192, -8192, -8193, 32767, -32768}
	for len(v16) < 1<<20 { // > 1 MiB of compressed bytes: several chunks
		v16 = append(v16, int16(rng.IntN(65536)-32768))
	}
	v32 := []int32{0, -1, 1 << 20, -(1 << 20), 2147483647, -2147483648, 123456789}
	read := func(b []byte, dst any) error {
		r := &reader{r: bufioReader(b)}
		switch d := dst.(type) {
		case []int16:
			return readLEB128(r, d, "test values")
		case []int32:
			return readLEB128(r, d, "test values")
		}
		return nil
	}
	got16 := make([]int16, len(v16))
	if err := read(lebBlock(v16), got16); err != nil || !slices.Equal(got16, v16) {
		t.Fatalf("int16 round trip: %v", err)
	}
	got32 := make([]int32, len(v32))
	if err := read(lebBlock(v32), got32); err != nil || !slices.Equal(got32, v32) {
		t.Fatalf("int32 round trip: %v (%v)", err, got32)
	}
	small := []int16{5, -300, 7000}
	good := lebBlock(small)
	count := func(b []byte, n uint32) []byte {
		c := slices.Clone(b)
		binary.LittleEndian.PutUint32(c[len(leb128Magic):], n)
		return c
	}
	long := append([]byte(nil), leb128Magic...)
	long = binary.LittleEndian.AppendUint32(long, 6)
	long = append(long, 0x80, 0x80, 0x80, 0x01, 5, 6) // a value of 4 bytes for int16
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"raw array", append([]byte("NOT_LEB128_MAGIC!"), good[17:]...), "not a LEB128 block"},
		{"count too small", count(good, 2), "claims 2 bytes for 3 values"},
		{"count too large", count(good, 10), "claims 10 bytes for 3 values"},
		{"count one short", append(count(good, uint32(len(good)-22))[:len(good)-1], 0), "ends inside value 2"},
		{"bytes left over", append(count(good, uint32(len(good)-21+2)), 1, 2), "values end after 5"},
		{"truncated", good[:len(good)-1], "truncated"},
		{"value too long", long, "does not end within 3 bytes"},
	} {
		err := read(tc.data, make([]int16, 3))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestSF17Corrupt damages a synthetic net in 17.1's format: each damage is
// refused with an error saying what and where, and a net of the other
// size or format is refused by its hashes.
func TestSF17Corrupt(t *testing.T) {
	spec := sf17TinySpec(t, "sf17-tiny", 128, "")
	smallSpec := sf17TinySpec(t, "sf17-tiny-small", 64, "")
	b := writeSynthSF17(spec, 9, 30)
	if _, err := Read(spec, bytes.NewReader(b)); err != nil {
		t.Fatal(err)
	}
	ft := 12 + int(binary.LittleEndian.Uint32(b[8:]))
	weights := ft + 4 + len(leb128Magic) + 4 + int(binary.LittleEndian.Uint32(b[ft+4+len(leb128Magic):]))
	sf15 := tinySpec(t, "sf15.1")
	runCorrupt(t, []corruptCase{
		{"wrong version", with(b, 0, 0x16), spec, []string{"version 0x7AF32F16", "byte 0"}},
		{"wrong network hash", flip(b, 4), spec, []string{"network hash", "byte 4", "HalfKAv2_hm 704 -> 128x2 -> 8 x (4 -> 8 -> 1), PSQT 8, LEB128"}},
		{"wrong FT hash", flip(b, ft), spec, []string{"feature-transformer hash", "byte " + itoa(ft)}},
		{"raw transformer", with(b, ft+4, []byte("COMPRESSED_LEB12X")...), spec, []string{"feature-transformer biases", "not a LEB128 block", "arch sf15.1"}},
		{"weights cut", b[:weights+100], spec, []string{"truncated", "feature-transformer weights"}},
		{"one trailing byte", append(slices.Clone(b), 0), spec, []string{"1 unexpected trailing bytes"}},
		{"last byte missing", b[:len(b)-1], spec, []string{"truncated", "layer stack 7 fc_2 weights"}},
		{"big net with the small arch", b, smallSpec, []string{"network hash", "HalfKAv2_hm 704 -> 64x2"}},
		{"sf17 net with an sf15 arch", writeSynthSF17(sf17TinySpec(t, "x", 64, ""), 1, 30), sf15, []string{"LEB128", "Stockfish 16", "arch sf17.1"}},
	})
}

// TestSF17NoAlloc checks that evaluating without a trace, big and small
// net, does not allocate.
func TestSF17NoAlloc(t *testing.T) {
	n := sf17Pair(t, 4)
	for _, fen := range []string{board.StartFEN, lopsided[0]} {
		p, _ := board.ParseFEN(fen)
		ev := NewEvaluator(n)
		ev.Reset(p)
		ev.Raw(p, nil)
		if a := testing.AllocsPerRun(100, func() { ev.Raw(p, nil) }); a != 0 {
			t.Errorf("%s: %v allocations per evaluation", fen, a)
		}
	}
}

func bufioReader(b []byte) *bufio.Reader { return bufio.NewReaderSize(bytes.NewReader(b), 1<<16) }

// TestSF17Bounded checks the load-time proof that the accumulators stay in
// [-16384, 16383]: it holds for small weights and fails for weights that
// can reach the bound, and a net that fails it evaluates through the
// checked transform as the engine would, accumulators doubled in int16
// (simulated here from scratch) included.
func TestSF17Bounded(t *testing.T) {
	spec := sf17TinySpec(t, "sf17-tiny", 128, "")
	for _, tc := range []struct {
		lim     int
		bounded bool
	}{{30, true}, {400, true}, {3000, false}} {
		n, err := Read(spec, bytes.NewReader(writeSynthSF17(spec, uint64(tc.lim), tc.lim)))
		if err != nil {
			t.Fatal(err)
		}
		h := n.head.(*sf17Head)
		if h.bounded != tc.bounded {
			t.Fatalf("weights up to %d: bounded %v, want %v", tc.lim, h.bounded, tc.bounded)
		}
		wrapped := 0
		for _, fen := range boardtest.Positions()[:300] {
			p, _ := board.ParseFEN(fen)
			// The engine: weights and biases doubled in int16, summed in int16.
			var acc2 [2][]int16
			for c := board.White; c <= board.Black; c++ {
				acc2[c] = make([]int16, n.Width)
				sum := make([]int, n.Width) // the true sums, undoubled
				for j, b := range n.FTBias {
					acc2[c][j] = b * 2
					sum[j] = int(b)
				}
				for _, f := range n.Features.Active(p, c, nil) {
					for j, w := range n.row(f) {
						acc2[c][j] += w * 2
						sum[j] += int(w)
					}
				}
				for _, v := range sum {
					if v < -16384 || v > 16383 {
						wrapped++
					}
				}
			}
			us, them := p.SideToMove(), p.SideToMove().Other()
			x := make([]uint8, n.Width)
			for k, a := range [][]int16{acc2[us], acc2[them]} {
				for j := 0; j < n.Width/2; j++ {
					x[k*n.Width/2+j] = uint8(uint32(int32(min(max(a[j], 0), 254))*int32(min(max(a[j+n.Width/2], 0), 254))) / 512)
				}
			}
			_, psqt := n.scratchAccumulators(p, board.NoSquare)
			b := n.outputBucket(p.Occupied().Count())
			want := sf17Blend((psqt[us][b]-psqt[them][b])/2/16, h.propagate(x, b, nil)/16)
			if got := h.forward(scratchPair(n, p)); got != want {
				t.Fatalf("weights up to %d, %s: %d, the engine's arithmetic gives %d", tc.lim, fen, got, want)
			}
		}
		t.Logf("weights up to %d: bounded %v, %d accumulator entries wrapped in the engine's doubled int16", tc.lim, h.bounded, wrapped)
		if tc.bounded != (wrapped == 0) {
			t.Errorf("weights up to %d: %d entries wrapped, yet bounded is %v", tc.lim, wrapped, tc.bounded)
		}
	}
}

// scratchPair returns the forward arguments of p from scratch.
func scratchPair(n *Network, p *board.Position) ([]int16, []int16, []int32, []int32, int, *Trace) {
	acc, psqt := n.scratchAccumulators(p, board.NoSquare)
	us, them := p.SideToMove(), p.SideToMove().Other()
	return acc[us], acc[them], psqt[us], psqt[them], p.Occupied().Count(), nil
}
