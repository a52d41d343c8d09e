package sdk

import (
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/plugins/sdk/pluginpb"
)

var testFENs = []string{
	"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
	"4k3/1P6/8/3pP3/8/8/6p1/4K2R w K d6 0 40",
	"rnbqkbnr/pp1ppppp/8/2p5/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
}

func TestFENRoundTrip(t *testing.T) {
	for _, fen := range testFENs {
		b, err := ParseFEN(fen)
		if err != nil {
			t.Fatal(err)
		}
		if got := b.FEN(); got != fen {
			t.Errorf("FEN(ParseFEN(%q)) = %q", fen, got)
		}
		var buf [PackedSize]byte
		b.Pack(buf[:])
		u, err := Unpack(buf[:])
		if err != nil {
			t.Fatal(err)
		}
		if u != b {
			t.Errorf("%s: Unpack(Pack) = %s", fen, u.FEN())
		}
	}
}

func TestParseFENErrors(t *testing.T) {
	for _, fen := range []string{
		"",
		"8/8/8/8/8/8/8/8 w - - 0 1",
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP w KQkq - 0 1",
		"rnbqkbnr/pppppppp/9/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
		"rnbqkbnrr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1",
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQxq - 0 1",
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1",
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1",
		"rnbqkbnr/ppppxppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1",
	} {
		if _, err := ParseFEN(fen); err == nil {
			t.Errorf("ParseFEN(%q) succeeded", fen)
		}
	}
	// Shredder-FEN castling letters.
	b, err := ParseFEN("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1")
	if err != nil || b.Castling != WhiteOO|WhiteOOO|BlackOO|BlackOOO {
		t.Errorf("HAha: %v, castling %b", err, b.Castling)
	}
}

func TestUnpackErrors(t *testing.T) {
	b, _ := ParseFEN(testFENs[0])
	var good [PackedSize]byte
	b.Pack(good[:])
	for name, mutate := range map[string]func(p []byte) []byte{
		"short":    func(p []byte) []byte { return p[:PackedSize-1] },
		"nibble":   func(p []byte) []byte { p[5] = 0xd0; return p },
		"flags":    func(p []byte) []byte { p[32] = 0x40; return p },
		"ep":       func(p []byte) []byte { p[33] = 65; return p },
		"no error": nil,
	} {
		p := append([]byte(nil), good[:]...)
		if mutate == nil {
			if _, err := Unpack(p); err != nil {
				t.Errorf("%s: %v", name, err)
			}
			continue
		}
		if _, err := Unpack(mutate(p)); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
}

func TestApply(t *testing.T) {
	start, _ := ParseFEN(testFENs[0])
	for _, c := range []struct {
		name  string
		delta *pluginpb.Delta
		want  string // FEN after, "" for an error
	}{
		{"e2e4", &pluginpb.Delta{Removed: []byte{0, 12}, Added: []byte{0, 28}},
			"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"},
		{"Nf3", &pluginpb.Delta{Removed: []byte{1, 6}, Added: []byte{1, 21}},
			"rnbqkbnr/pppppppp/8/8/8/5N2/PPPPPPPP/RNBQKB1R b KQkq - 1 1"},
		{"rook leaves h1", &pluginpb.Delta{Removed: []byte{3, 7}},
			"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN1 b Qkq - 0 1"},
		{"null move", &pluginpb.Delta{}, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1"},
		{"piece not there", &pluginpb.Delta{Removed: []byte{0, 20}}, ""},
		{"square taken", &pluginpb.Delta{Added: []byte{0, 8}}, ""},
		{"odd length", &pluginpb.Delta{Removed: []byte{0}}, ""},
		{"three pieces", &pluginpb.Delta{Removed: []byte{0, 8, 0, 9, 0, 10}}, ""},
		{"bad piece", &pluginpb.Delta{Added: []byte{12, 30}}, ""},
	} {
		b := start
		d, err := DeltaFromProto(c.delta)
		if err == nil {
			err = b.Apply(&d)
		}
		switch {
		case c.want == "" && err == nil:
			t.Errorf("%s: no error", c.name)
		case c.want != "" && err != nil:
			t.Errorf("%s: %v", c.name, err)
		case c.want != "" && b.FEN() != c.want:
			t.Errorf("%s: %s, want %s", c.name, b.FEN(), c.want)
		}
		if err == nil {
			if p := d.Proto(); string(p.Removed) != string(c.delta.Removed) || string(p.Added) != string(c.delta.Added) {
				t.Errorf("%s: Proto() = %v", c.name, p)
			}
		}
	}
}

func TestBoardsAndStack(t *testing.T) {
	var packed []byte
	for _, f := range testFENs {
		b, _ := ParseFEN(f)
		var buf [PackedSize]byte
		b.Pack(buf[:])
		packed = append(packed, buf[:]...)
	}
	a, err := Boards(testFENs, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := Boards(nil, packed, nil)
	if err != nil {
		t.Fatal(err)
	}
	for i := range a {
		if a[i] != b[i] {
			t.Errorf("position %d: FEN and packed differ", i)
		}
	}
	for _, bad := range []struct {
		fens   []string
		packed []byte
	}{{testFENs, packed}, {nil, packed[:3]}, {[]string{"x"}, nil}} {
		if _, err := Boards(bad.fens, bad.packed, nil); err == nil {
			t.Errorf("Boards(%d fens, %d bytes) succeeded", len(bad.fens), len(bad.packed))
		}
	}
	s := &BoardStack{Score: func(b *Board) (float32, error) { return float32(strings.Count(b.FEN(), "P")), nil }}
	if err := s.Pop(); err == nil {
		t.Error("pop before new game")
	}
	_ = s.NewGame(&a[0])
	d := Delta{Removed: [2]PieceSquare{{WhitePawn, 12}}, NRemoved: 1}
	if err := s.Push(&d); err != nil {
		t.Fatal(err)
	}
	if v, _ := s.Eval(); v != 7 {
		t.Errorf("after removing a pawn: %v pawns", v)
	}
	if err := s.Push(&d); err == nil {
		t.Error("removing the same pawn twice succeeded")
	}
	if v, _ := s.Eval(); v != 7 {
		t.Errorf("a failed push must leave the stack as it was: %v", v)
	}
}

func BenchmarkUnpack(b *testing.B) {
	bd, _ := ParseFEN(testFENs[1])
	var buf [PackedSize]byte
	bd.Pack(buf[:])
	for b.Loop() {
		if _, err := Unpack(buf[:]); err != nil {
			b.Fatal(err)
		}
	}
}
