package nnue

import (
	"bytes"
	"encoding/binary"
	"math"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board"
)

// The shipped nets in the headerless formats (Koivisto int16 and float,
// Leorik), damaged: every cut, trailing bytes and bad values must give an
// error that says what is wrong and where, never a panic or a short net.
var linearNets = []struct{ arch, file string }{
	{"koivisto-7.4", "../../nets/koivisto-7.4.net"},
	{"koivisto-5.13", "../../nets/koivisto-5.1.net"},
	{"leorik-3.1", "../../nets/leorik-3.1-640HL-S-5288M-Tmix-Q5-v19.nnue"},
}

func TestReadDamagedLinear(t *testing.T) {
	for _, net := range linearNets {
		spec, err := archs.Load(net.arch)
		if err != nil {
			t.Fatal(err)
		}
		good, err := os.ReadFile(net.file)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Read(spec, bytes.NewReader(good)); err != nil {
			t.Fatalf("%s: the intact net: %v", net.arch, err)
		}
		half := len(good) / 2
		// Leorik's shipped file ends in bullet padding: losing its end
		// leaves a padding that no longer completes a 64-byte block.
		lastBytes := "truncated"
		if net.arch == "leorik-3.1" {
			lastBytes = "unexpected trailing bytes"
		}
		tests := []struct {
			name string
			data []byte
			want []string
		}{
			{"empty", nil, []string{"truncated", "byte 0"}},
			{"cut in half", good[:half], []string{"truncated"}},
			{"last 2 bytes missing", good[:len(good)-2], []string{lastBytes}},
			{"3 trailing bytes", append(slices.Clone(good), 1, 2, 3), []string{"unexpected trailing bytes", "does not fit"}},
			{"a whole extra block", append(slices.Clone(good), make([]byte, 64)...), []string{"unexpected trailing bytes"}},
		}
		if net.arch == "koivisto-5.13" {
			// u64 value count, then float32 values.
			wrongCount := slices.Clone(good)
			binary.LittleEndian.PutUint64(wrongCount, binary.LittleEndian.Uint64(good)+1)
			nan := slices.Clone(good)
			binary.LittleEndian.PutUint32(nan[8+4*5:], math.Float32bits(float32(math.NaN())))
			huge := slices.Clone(good)
			binary.LittleEndian.PutUint32(huge[8:], math.Float32bits(1e6))
			tests = append(tests,
				struct {
					name string
					data []byte
					want []string
				}{"value count off by one", wrongCount, []string{"header says", "needs"}},
				struct {
					name string
					data []byte
					want []string
				}{"NaN weight", nan, []string{"feature weight[5]", "overflows int16"}},
				struct {
					name string
					data []byte
					want []string
				}{"weight too large for QA", huge, []string{"feature weight[0]", "overflows int16"}})
		}
		for _, tc := range tests {
			t.Run(net.arch+"/"+tc.name, func(t *testing.T) {
				n, err := Read(spec, bytes.NewReader(tc.data))
				if err == nil {
					t.Fatal("no error")
				}
				if n != nil {
					t.Fatal("a network returned with the error")
				}
				for _, w := range tc.want {
					if !strings.Contains(err.Error(), w) {
						t.Errorf("error %q lacks %q", err, w)
					}
				}
			})
		}
	}
}

// A Leorik file from bullet may be padded to a multiple of 64 bytes; the
// padding is accepted only when it completes such a block.
func TestReadLeorikPadding(t *testing.T) {
	spec, err := archs.Load("leorik-3.1")
	if err != nil {
		t.Fatal(err)
	}
	good, err := os.ReadFile(linearNets[2].file)
	if err != nil {
		t.Fatal(err)
	}
	// The shipped file is padded: find where the net proper ends.
	n, err := Read(spec, bytes.NewReader(good))
	if err != nil {
		t.Fatal(err)
	}
	netBytes := 2 * (len(n.FTWeights) + len(n.FTBias) + len(n.head.(*linearHead).out)*len(n.head.(*linearHead).out[0]) + len(n.head.(*linearHead).bias))
	if netBytes > len(good) || len(good)%64 != 0 {
		t.Fatalf("net of %d bytes in a file of %d", netBytes, len(good))
	}
	if _, err := Read(spec, bytes.NewReader(good[:netBytes])); err != nil {
		t.Errorf("the net without padding: %v", err)
	}
	if pad := len(good) - netBytes; pad > 1 {
		if _, err := Read(spec, bytes.NewReader(good[:len(good)-1])); err == nil {
			t.Error("padding that stops short of a 64-byte block was accepted")
		}
	}
}

// damage is the fuzzers' edit of a net file: patch written at offset at
// (if inside), then a cut to cut bytes (0: none, else modulo the length),
// then extra appended.
func damage(base []byte, at uint32, patch []byte, cut uint32, extra []byte) []byte {
	b := slices.Clone(base)
	if int(at) < len(b) {
		copy(b[at:], patch)
	}
	if cut > 0 {
		b = b[:int(cut)%(len(b)+1)]
	}
	return append(b, extra...)
}

// readDamaged reads a damaged net: nil when Read rejects it, and a failure
// when Read returns a network together with an error.
func readDamaged(t *testing.T, spec *archs.Spec, b []byte) *Network {
	n, err := Read(spec, bytes.NewReader(b))
	if err != nil {
		if n != nil {
			t.Fatal("a network and an error")
		}
		return nil
	}
	return n
}

// FuzzReadLinear edits the shipped Koivisto 7.4 net (bytes written at an
// offset, a cut, bytes appended): the reader must return an error or a
// network that evaluates without panicking.
func FuzzReadLinear(f *testing.F) {
	spec, err := archs.Load("koivisto-7.4")
	if err != nil {
		f.Fatal(err)
	}
	base, err := os.ReadFile(linearNets[0].file)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(uint32(0), []byte{}, uint32(0), []byte{})
	f.Add(uint32(0), []byte{0xFF, 0x7F}, uint32(0), []byte{})
	f.Add(uint32(len(base)-4), []byte{0xFF, 0xFF, 0xFF, 0x7F}, uint32(0), []byte{}) // largest output bias
	f.Add(uint32(0), []byte{}, uint32(len(base)/3), []byte{})
	f.Add(uint32(0), []byte{}, uint32(0), []byte{0})
	p, _ := board.ParseFEN("8/kp4Q1/r4R2/p3p3/P2P4/3b2P1/1B1P3P/R1N3K1 b - - 0 31")
	pos := []*board.Position{board.StartPosition(), p}
	f.Fuzz(func(t *testing.T, at uint32, patch []byte, cut uint32, extra []byte) {
		n := readDamaged(t, spec, damage(base, at, patch, cut, extra))
		if n == nil {
			return
		}
		for _, p := range pos {
			ev := NewEvaluator(n)
			ev.Reset(p)
			ev.Evaluate(p)
		}
	})
}

// TestReadZstd: a zstd-compressed net (as nnuelab ships its exported nets)
// reads into the same network as the plain file, and a damaged stream is
// an error.
func TestReadZstd(t *testing.T) {
	spec, err := archs.Load("koivisto-7.4")
	if err != nil {
		t.Fatal(err)
	}
	plain, err := os.ReadFile("../../nets/koivisto-7.4.net")
	if err != nil {
		t.Fatal(err)
	}
	enc, err := zstd.NewWriter(nil)
	if err != nil {
		t.Fatal(err)
	}
	packed := enc.EncodeAll(plain, nil)
	a, err := Read(spec, bytes.NewReader(plain))
	if err != nil {
		t.Fatal(err)
	}
	b, err := Read(spec, bytes.NewReader(packed))
	if err != nil {
		t.Fatalf("compressed: %v", err)
	}
	if !slices.Equal(a.FTWeights, b.FTWeights) || !slices.Equal(a.FTBias, b.FTBias) {
		t.Fatal("the compressed net's transformer differs")
	}
	p, _ := board.ParseFEN("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3")
	if ea, eb := a.Evaluate(p, nil), b.Evaluate(p, nil); ea != eb {
		t.Fatalf("evaluations %d and %d", ea, eb)
	}
	for _, cut := range []int{4, len(packed) / 2, len(packed) - 1} {
		if n := readDamaged(t, spec, packed[:cut]); n != nil {
			t.Errorf("compressed net cut to %d of %d bytes read without an error", cut, len(packed))
		}
	}
}
