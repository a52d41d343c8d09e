package nnue

import (
	"bytes"
	"encoding/binary"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board"
)

// corruptCase is one damaged or mismatched net and what its error must say.
type corruptCase struct {
	name   string
	data   []byte
	spec   *archs.Spec
	substr []string // all must appear in the error
}

func runCorrupt(t *testing.T, cases []corruptCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			n, err := Read(tc.spec, bytes.NewReader(tc.data))
			if err == nil {
				t.Fatalf("no error (got a network of arch %s)", n.Spec.Name)
			}
			t.Log(err)
			for _, s := range tc.substr {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error %q does not mention %q", err, s)
				}
			}
		})
	}
}

// with returns a copy of b with data written at off.
func with(b []byte, off int, data ...byte) []byte {
	c := slices.Clone(b)
	copy(c[off:], data)
	return c
}

// flip returns a copy of b with one bit of byte off inverted.
func flip(b []byte, off int) []byte { return with(b, off, b[off]^0x10) }

func mustLoad(t testing.TB, name string) *archs.Spec {
	t.Helper()
	s, err := archs.Load(name)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestSF12Corrupt feeds damaged copies of the synthetic Stockfish 12 net:
// every one is refused with an error that says what and where.
func TestSF12Corrupt(t *testing.T) {
	b := synthSF12Bytes(t)
	if len(b) != 21022697 {
		t.Fatalf("synthetic net is %d bytes, want 21022697", len(b))
	}
	kp, sf15 := mustLoad(t, "halfkp"), mustLoad(t, "sf15.1")
	wide, err := kp.Override("accumulator.width=512")
	if err != nil {
		t.Fatal(err)
	}
	// The format's head type is an architecture rule (archs): an override
	// cannot break it, a spec changed after parsing is refused on reading.
	if _, err := kp.Override(`head.type="linear"`, `head.activation="relu"`); err == nil || !strings.Contains(err.Error(), "needs head type sf12") {
		t.Fatalf("an sf12-format arch overridden to a linear head: error %v", err)
	}
	linear := *kp
	linear.Head.Type, linear.Head.Activation = "linear", "relu"
	hugeDesc := with(b, 8, 0xF0, 0xFF, 0xFF, 0xFF)
	runCorrupt(t, []corruptCase{
		{"empty", nil, kp, []string{"truncated", "version", "byte 0"}},
		{"truncated in the header", b[:10], kp, []string{"truncated", "description length", "byte 8"}},
		{"truncated in the description", b[:100], kp, []string{"truncated", "description (177 bytes)", "byte 12"}},
		{"truncated in the FT weights", b[:5000], kp, []string{"truncated", "feature-transformer weights", "byte 705"}},
		{"truncated before the dense hash", b[:21004993], kp, []string{"truncated", "dense-part hash", "byte 21004993"}},
		{"last byte missing", b[:len(b)-1], kp, []string{"truncated", "output weights", "byte 21022665"}},
		{"one trailing byte", append(slices.Clone(b), 0), kp, []string{"1 unexpected trailing bytes", "byte 21022697"}},
		{"wrong version", flip(b, 1), kp, []string{"version 0x7AF33F16", "byte 0", "not a Stockfish .nnue file", "0x7AF32F16"}},
		{"wrong network hash", flip(b, 4), kp, []string{"network hash", "byte 4", "0x3E5AA6EE", "HalfKP 41024 -> 256x2 -> 32 -> 32 -> 1"}},
		{"wrong FT hash", flip(b, 190), kp, []string{"feature-transformer hash", "byte 189", "0x5D69D7B8"}},
		{"wrong dense hash", flip(b, 21004993), kp, []string{"dense-part hash", "byte 21004993", "0x63337156"}},
		{"description length too long", with(b, 8, 178), kp, []string{"feature-transformer hash", "byte 190"}},
		{"description length 4 GB", hugeDesc, kp, []string{"truncated", "description (4294967280 bytes)", "byte 12"}},
		{"sf12 net with arch sf15.1", b, sf15, []string{"version 0x7AF32F16", "Stockfish 12 HalfKP net (use arch halfkp)", "sf15.1"}},
		{"sf12 net with a wider arch", b, wide, []string{"network hash", "HalfKP 41024 -> 512x2"}},
		{"sf12 format with a linear head", b, &linear, []string{"head type", "linear"}},
	})
}

// TestSF12Description checks that, as in Stockfish, the description is not
// checked: a net with another description of another length loads and
// evaluates the same.
func TestSF12Description(t *testing.T) {
	b := synthSF12Bytes(t)
	desc := []byte("a shorter description")
	var c bytes.Buffer
	c.Write(b[:8])
	binary.Write(&c, binary.LittleEndian, uint32(len(desc)))
	c.Write(desc)
	c.Write(b[12+177:])
	n, err := Read(mustLoad(t, "halfkp"), &c)
	if err != nil {
		t.Fatal(err)
	}
	if got := n.head.(*sf12Head).desc; got != string(desc) {
		t.Errorf("description %q, want %q", got, desc)
	}
	orig := synthSF12Net(t)
	for _, row := range readTSV(t, "halfkp-synthetic-evals.tsv")[:50] {
		p, _ := board.ParseFEN(row["fen"])
		if a, b := n.Evaluate(p, nil), orig.Evaluate(p, nil); a != b {
			t.Fatalf("%s: %d with the new description, %d with the old", row["fen"], a, b)
		}
	}
}

// TestSF15Corrupt damages a small synthetic net in Stockfish 15.1's format
// (no Stockfish needed) and checks the real net against the wrong arch and
// with a byte too many or too few.
func TestSF15Corrupt(t *testing.T) {
	spec := tinySpec(t, "sf15.1")
	b := writeSynthSF(spec, 1)
	if _, err := Read(spec, bytes.NewReader(b)); err != nil {
		t.Fatalf("the intact synthetic net: %v", err)
	}
	w, F := spec.Accumulator.Width, spec.Features.Size()
	descLen := int(binary.LittleEndian.Uint32(b[8:]))
	ft := 12 + descLen
	psqt := ft + 4 + 2*w + 2*F*w
	stack1 := psqt + 4*F*2 + (len(b)-psqt-4*F*2)/2
	kp := mustLoad(t, "halfkp")
	runCorrupt(t, []corruptCase{
		{"wrong version", with(b, 0, 0x16), spec, []string{"version 0x7AF32F16", "byte 0", "use arch halfkp"}},
		{"wrong FT hash", flip(b, ft), spec, []string{"feature-transformer hash", "byte " + itoa(ft)}},
		{"truncated in the PSQT weights", b[:psqt+10], spec, []string{"truncated", "PSQT weights", "byte " + itoa(psqt)}},
		{"wrong hash of stack 1", flip(b, stack1), spec, []string{"layer stack 1 hash", "byte " + itoa(stack1), "0x"}},
		{"truncated in stack 1", b[:stack1+100], spec, []string{"truncated", "layer stack 1 fc_0 weights"}},
		{"one trailing byte", append(slices.Clone(b), 7), spec, []string{"1 unexpected trailing bytes"}},
		{"LEB128 transformer", with(b, ft+4, []byte("COMPRESSED_LEB128")...), spec, []string{"LEB128", "Stockfish 16"}},
		{"sf15 net with arch halfkp", b, kp, []string{"version 0x7AF32F20", "use arch sf15.1", "halfkp"}},
	})

	// The real net: Stockfish must be installed.
	real := stockfishNetBytes(t)
	sf15 := mustLoad(t, "sf15.1")
	runCorrupt(t, []corruptCase{
		{"real net with arch halfkp", real, kp, []string{"version 0x7AF32F20", "use arch sf15.1"}},
		{"real net, last byte missing", real[:len(real)-1], sf15, []string{"truncated", "layer stack 7 fc_2 weights"}},
		{"real net, one trailing byte", append(slices.Clone(real), 0), sf15, []string{"1 unexpected trailing bytes", "byte 47001499"}},
		{"real net, wrong network hash", flip(real, 5), sf15, []string{"network hash", "byte 4", "0x1C102EF2"}},
		{"real net, wrong stack 3 hash", flip(real, 46860379+3*17640), sf15, []string{"layer stack 3 hash", "byte 46913299", "0x63336A4A"}},
	})
}

func itoa(i int) string { return strconv.Itoa(i) }

// refSF12 and refSF15 are the specs' formulas written out with plain loops
// over the loaded weights, to check the heads at sizes other than the
// published ones (padding, other layer widths, other bucket counts).
func refSF12(h *sf12Head, us, them []int16) int32 {
	x := make([]int, 0, 2*len(us))
	for _, a := range append(slices.Clone(us), them...) {
		x = append(x, min(max(int(a), 0), 127))
	}
	layer := func(in []int, w []int8, b []int32) []int {
		stride := len(w) / len(b)
		out := make([]int, len(b))
		for i := range out {
			s := int(b[i])
			for j, v := range in {
				s += int(w[i*stride+j]) * v
			}
			out[i] = s
		}
		return out
	}
	act := func(v []int) []int {
		o := make([]int, len(v))
		for i, s := range v {
			o[i] = min(max(s>>6, 0), 127)
		}
		return o
	}
	h1 := act(layer(x, h.w1, h.b1))
	h2 := act(layer(h1, h.w2, h.b2))
	out := layer(h2, h.w3, []int32{h.b3})[0]
	return int32(out / 16)
}

func refSF15(h *sf15Head, us, them []int16, psqtUs, psqtThem []int32, b int) int32 {
	var x []int
	for _, acc := range [][]int16{us, them} {
		half := len(acc) / 2
		for j := 0; j < half; j++ {
			x = append(x, min(max(int(acc[j]), 0), 127)*min(max(int(acc[j+half]), 0), 127)/128)
		}
	}
	st := &h.stacks[b]
	layer := func(in []int, w []int8, bias []int32) []int {
		stride := len(w) / len(bias)
		out := make([]int, len(bias))
		for i := range out {
			s := int(bias[i])
			for j, v := range in {
				s += int(w[i*stride+j]) * v
			}
			out[i] = s
		}
		return out
	}
	o0 := layer(x, st.w0, st.b0)
	k := len(o0) - 1
	in1 := make([]int, 2*k)
	for i := 0; i < k; i++ {
		in1[i] = min(o0[i]*o0[i]>>19, 127)
		in1[k+i] = min(max(o0[i]>>6, 0), 127)
	}
	o1 := layer(in1, st.w1, st.b1)
	in2 := make([]int, len(o1))
	for i, v := range o1 {
		in2[i] = min(max(v>>6, 0), 127)
	}
	o2 := layer(in2, st.w2, []int32{st.b2})[0]
	fwd := o0[k] * 9600 / 8128
	psqt := int(psqtUs[b] - psqtThem[b])
	return int32((psqt/2 + o2 + fwd) / 16)
}

// TestStockfishHeadsOtherSizes runs small synthetic nets of both formats
// (sizes from the spec, not the published ones) against the reference
// loops on the reference positions.
func TestStockfishHeadsOtherSizes(t *testing.T) {
	rows := readTSV(t, "sf15.1-nnue-evals.tsv")
	for _, format := range []string{"sf12", "sf15.1"} {
		spec := tinySpec(t, format)
		n, err := Read(spec, bytes.NewReader(writeSynthSF(spec, 2)))
		if err != nil {
			t.Fatalf("%s: %v", format, err)
		}
		ev := NewEvaluator(n)
		signs := [2]int{}
		for _, row := range rows[:500] {
			p, _ := board.ParseFEN(row["fen"])
			acc, psqt := scratchAccumulators(n, p)
			us, them := p.SideToMove(), p.SideToMove().Other()
			var want int32
			if format == "sf12" {
				want = refSF12(n.head.(*sf12Head), acc[us], acc[them])
			} else {
				want = refSF15(n.head.(*sf15Head), acc[us], acc[them], psqt[us], psqt[them], n.outputBucket(p.Occupied().Count()))
			}
			got := n.Evaluate(p, nil)
			ev.Reset(p)
			if inc := ev.Raw(p, nil); got != want || inc != want {
				t.Fatalf("%s %s: head %d, incremental %d, reference loops %d", format, row["fen"], got, inc, want)
			}
			if want > 0 {
				signs[1]++
			} else if want < 0 {
				signs[0]++
			}
		}
		if signs[0] < 50 || signs[1] < 50 {
			t.Errorf("%s: the synthetic net is degenerate (%d negative, %d positive outputs)", format, signs[0], signs[1])
		}
	}
}

// TestStockfishHeadLimits checks that a spec changed after parsing to be
// too large for a Stockfish head's stack buffers, or with a quantization
// its format fixes otherwise, is refused by name (archs' rules, which the
// readers apply again) before any byte is read, and that the tiny specs
// the other tests use pass the same checks.
func TestStockfishHeadLimits(t *testing.T) {
	if err := checkSpec(tinySpec(t, "sf12")); err != nil {
		t.Fatalf("tiny sf12 spec refused: %v", err)
	}
	if err := checkSpec(tinySpec(t, "sf15.1")); err != nil {
		t.Fatalf("tiny sf15.1 spec refused: %v", err)
	}
	cases := []struct {
		format, name string
		edit         func(*archs.Spec)
		want         string
	}{
		{"sf12", "width", func(s *archs.Spec) { s.Accumulator.Width = maxSFTransformed }, "accumulator widths up to 1024"},
		{"sf12", "layer", func(s *archs.Spec) { s.Head.Layers[1] = maxSFDense + 1 }, "hidden layers up to 128"},
		{"sf12", "qa", func(s *archs.Spec) { s.Quant.QA = 256 }, "quant.qa <= 255"},
		{"sf15.1", "width", func(s *archs.Spec) { s.Accumulator.Width = 96 }, "multiple of 64 up to 2048, got 96"},
		{"sf15.1", "fc_1 input", func(s *archs.Spec) { s.Head.Layers[0] = 66 }, "fc_1 input 2*(fc_0-1)"},
		{"sf15.1", "qa", func(s *archs.Spec) { s.Quant.QA = 255 }, "sf15 head needs quant.qa = 127"},
		{"sf15.1", "weight shift", func(s *archs.Spec) { s.Quant.WeightShift = 13 }, "sf15 head needs quant.weight_shift <= 12, got 13"},
	}
	for _, c := range cases {
		spec := tinySpec(t, c.format)
		c.edit(spec)
		_, err := Read(spec, bytes.NewReader(nil))
		if err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), spec.Name) {
			t.Errorf("%s %s: got error %v, want one naming %s and saying %q", c.format, c.name, err, spec.Name, c.want)
		}
	}
}

// TestStockfishNoAlloc checks that evaluating through both heads does not
// allocate.
func TestStockfishNoAlloc(t *testing.T) {
	sf15 := tinySpec(t, "sf15.1")
	n15, err := Read(sf15, bytes.NewReader(writeSynthSF(sf15, 3)))
	if err != nil {
		t.Fatal(err)
	}
	p, _ := board.ParseFEN("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
	for _, n := range []*Network{synthSF12Net(t), n15} {
		ev := NewEvaluator(n)
		ev.Reset(p)
		ev.Raw(p, nil)
		if a := testing.AllocsPerRun(100, func() { ev.Raw(p, nil) }); a != 0 {
			t.Errorf("%s: %v allocations per evaluation", n.Spec.Name, a)
		}
	}
}

// FuzzReadSF12 reads damaged copies of a small Stockfish 12 net: the edit
// (bytes written at an offset, a cut, bytes appended) must give an error
// or a usable network, never a panic.
func FuzzReadSF12(f *testing.F) {
	spec := tinySpec(f, "sf12")
	base := writeSynthSF(spec, 4)
	if _, err := Read(spec, bytes.NewReader(base)); err != nil {
		f.Fatal(err)
	}
	f.Add(uint32(0), []byte{}, uint32(0), []byte{})                       // intact
	f.Add(uint32(0), []byte{0x17}, uint32(0), []byte{})                   // version
	f.Add(uint32(4), []byte{0, 0, 0, 0}, uint32(0), []byte{})             // whole hash
	f.Add(uint32(8), []byte{0xFF, 0xFF, 0xFF, 0xFF}, uint32(0), []byte{}) // huge description
	f.Add(uint32(8), []byte{0, 0, 0, 0}, uint32(0), []byte{})             // empty description
	f.Add(uint32(30), []byte{1}, uint32(0), []byte{})                     // FT hash
	f.Add(uint32(0), []byte{}, uint32(1000), []byte{})                    // truncated in the FT
	f.Add(uint32(0), []byte{}, uint32(len(base)-1), []byte{})             // last byte missing
	f.Add(uint32(0), []byte{}, uint32(0), []byte{0})                      // trailing byte
	f.Add(uint32(len(base)-40), []byte{0x80, 0x80, 0x7F}, uint32(0), []byte{})
	pos := []*board.Position{board.StartPosition()}
	p, _ := board.ParseFEN("8/kp4Q1/r4R2/p3p3/P2P4/3b2P1/1B1P3P/R1N3K1 b - - 0 31")
	pos = append(pos, p)
	f.Fuzz(func(t *testing.T, at uint32, patch []byte, cut uint32, extra []byte) {
		n := readDamaged(t, spec, damage(base, at, patch, cut, extra))
		if n == nil {
			return
		}
		for _, p := range pos {
			var tr Trace
			n.Evaluate(p, &tr)
		}
	})
}
