package board

import (
	"errors"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board/boardtest"
)

// TestFENRoundTrip parses and prints every reference position and every
// perft position (standard and Chess960) and expects the input back.
func TestFENRoundTrip(t *testing.T) {
	fens := boardtest.Positions()
	if len(fens) != 3000 {
		t.Fatalf("positions.epd: %d lines, want 3000", len(fens))
	}
	for _, path := range []string{"testdata/perft.tsv", "testdata/perft960.tsv"} {
		for _, r := range readPerft(t, path) {
			fens = append(fens, r.fen)
		}
	}
	for _, fen := range fens {
		p, err := ParseFEN(fen)
		if err != nil {
			t.Errorf("ParseFEN(%q): %v", fen, err)
			continue
		}
		if got := p.FEN(); got != fen {
			t.Errorf("round trip:\n got %s\nwant %s", got, fen)
		}
	}
}

func TestFENErrors(t *testing.T) {
	tests := []struct {
		name, fen, field, found string
	}{
		{"empty", "", "piece placement", "empty"},
		{"not a fen", "not a fen", "piece placement", `"not"`},
		{"bad letter", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq - 0 1", "piece placement", `"X"`},
		{"nine files", "rnbqkbnr/ppppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "piece placement", "more than 8"},
		{"nine files by digits", "rnbqkbnr/pppppppp/81/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "piece placement", "more than 8"},
		{"seven files", "rnbqkbnr/ppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "piece placement", "7 in rank 7"},
		{"seven ranks", "rnbqkbnr/pppppppp/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "piece placement", "7 rank(s)"},
		{"two white kings", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBKKBNR w kq - 0 1", "piece placement", "2"},
		{"no black king", "rnbqqbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQ - 0 1", "piece placement", "none"},
		{"pawn on rank 8", "rnbqkbnP/pppppppp/8/8/8/8/PPPPPPP1/RNBQKBNR w KQq - 0 1", "piece placement", "P on h8"},
		{"pawn on rank 1", "rnbqkbnr/ppppppp1/8/8/8/8/PPPPPPPP/RNBQKBNp w KQkq - 0 1", "piece placement", "p on h1"},
		{"nine pawns", "rnbqkbnr/pppppppp/8/8/8/P7/PPPPPPPP/RNBQKBN1 w Qkq - 0 1", "piece placement", "9"},
		{"side x", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR x KQkq - 0 1", "side to move", `"x"`},
		{"side missing", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR", "side to move", "nothing"},
		{"castling letter", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkx - 0 1", "castling", `"x"`},
		{"castling without rook", "rnbqkbn1/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", "castling", "none"},
		{"castling shredder no rook", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkc - 0 1", "castling", "b"},
		{"castling king moved", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQ1BNR w KQkq - 0 1", "piece placement", "none"},
		{"castling repeated", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KKkq - 0 1", "castling", "repeats"},
		{"castling missing", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w", "castling", "nothing"},
		{"ep bad square", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e9 0 1", "en passant", `"e9"`},
		{"ep wrong rank", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e4 0 1", "en passant", `"e4"`},
		{"ep no pawn", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq e3 0 1", "en passant", "no such pawn move"},
		{"ep missing", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq", "en passant", "nothing"},
		{"negative halfmove", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - -1 1", "halfmove clock", `"-1"`},
		{"text halfmove", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - x 1", "halfmove clock", `"x"`},
		{"negative fullmove", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 -3", "fullmove number", `"-3"`},
		{"text fullmove", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 one", "fullmove number", `"one"`},
		{"opponent in check", "4k3/8/8/8/8/8/4R3/4K3 w - - 0 1", "side to move", "e8 is attacked"},
		{"extra fields", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 foo", "position", "extra text"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseFEN(tc.fen)
			var fe *FENError
			if !errors.As(err, &fe) {
				t.Fatalf("ParseFEN(%q) = %v, want a *FENError", tc.fen, err)
			}
			if fe.Field != tc.field || !strings.Contains(fe.Found, tc.found) {
				t.Errorf("ParseFEN(%q):\n got field %q found %q\nwant field %q found containing %q", tc.fen, fe.Field, fe.Found, tc.field, tc.found)
			}
			if strings.Contains(err.Error(), "\n") {
				t.Errorf("error is not one line: %q", err)
			}
		})
	}
}

func TestFENAccepts(t *testing.T) {
	tests := []struct{ in, out string }{
		// EPD: clocks omitted.
		{"4k3/8/8/8/8/8/8/4K3 w - -", "4k3/8/8/8/8/8/8/4K3 w - - 0 1"},
		// EPD operations after the four fields.
		{"4k3/8/8/8/8/8/8/4K3 w - - bm Kd2; id \"x\";", "4k3/8/8/8/8/8/8/4K3 w - - 0 1"},
		// An en-passant square no pawn can use is dropped, as Stockfish does.
		{"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"},
		// X-FEN: an inner rook needs its file letter.
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/1R2KR1R w Kkq - 0 1", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/1R2KR1R w Kkq - 0 1"},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/1R2KR1R w Fkq - 0 1", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/1R2KR1R w Fkq - 0 1"},
		// Shredder-FEN stays Shredder-FEN.
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w HAha - 0 1"},
	}
	for _, tc := range tests {
		p, err := ParseFEN(tc.in)
		if err != nil {
			t.Errorf("ParseFEN(%q): %v", tc.in, err)
			continue
		}
		if got := p.FEN(); got != tc.out {
			t.Errorf("ParseFEN(%q).FEN() = %q, want %q", tc.in, got, tc.out)
		}
	}
}

// FuzzParseFEN checks that no input panics and that every accepted FEN
// prints to a FEN that parses back to the same position and key. The seed
// corpus (below and in testdata/fuzz/FuzzParseFEN) runs as a regression test
// in every `go test`.
func FuzzParseFEN(f *testing.F) {
	for _, s := range []string{
		StartFEN,
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		"qrnbnkbr/pppppppp/8/8/8/8/PPPPPPPP/QRNBNKBR w HBhb - 0 1",
		"rnbqkbnr/pp1pp1p1/2p5/2P2p1p/3P4/1P6/P3PPPP/RNBQKBNR b KQkq - 0 4",
		"8/8/8/8/8/8/8/8 w - - 0 1",
		"k7/8/8/8/8/8/8/7K w - - 99999999999999999999 1",
		"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq e3",
		"////////",
		"9/8/8/8/8/8/8/8 w - - 0 1",
		"\x00\xff",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, fen string) {
		p, err := ParseFEN(fen)
		if err != nil {
			var fe *FENError
			if !errors.As(err, &fe) {
				t.Fatalf("error is not a *FENError: %v", err)
			}
			return
		}
		out := p.FEN()
		q, err := ParseFEN(out)
		if err != nil {
			t.Fatalf("printed FEN %q of %q does not parse: %v", out, fen, err)
		}
		if q.FEN() != out || q.Key() != p.Key() {
			t.Fatalf("re-parse of %q differs: %q key %x vs %x", out, q.FEN(), q.Key(), p.Key())
		}
		// The move generator must cope with whatever the parser accepts.
		var ml MoveList
		p.GenerateLegal(&ml)
		if ml.N != p.CountLegal() {
			t.Fatalf("%s: %d moves generated, %d counted", out, ml.N, p.CountLegal())
		}
	})
}

func TestTransformed(t *testing.T) {
	p, _ := ParseFEN("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
	tests := []struct {
		name string
		f    func(Square) Square
		swap bool
		want string
	}{
		{"horizontal", func(s Square) Square { return s ^ 7 }, false, "r2k3r/1bpqpp1p/1pnp2nb/3NP3/3P2p1/p1Q2N2/PPPBBPPP/R2K3R w - - 0 1"},
		{"vertical, colours swapped", func(s Square) Square { return s ^ 56 }, true, "r3k2r/pppbbppp/2n2q1P/1P2p3/3pn3/BN2PNP1/P1PPQPB1/R3K2R b - - 0 1"},
		{"rotation, colours swapped", func(s Square) Square { return s ^ 63 }, true, "r2k3r/pppbbppp/P1q2n2/3p2P1/3np3/1PNP2NB/1BPQPP1P/R2K3R b - - 0 1"},
	}
	for _, tc := range tests {
		q, err := p.Transformed(tc.f, tc.swap)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if q.FEN() != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, q.FEN(), tc.want)
		}
	}
}

// TestSetFEN reads every reference position into one reused Position (a bad
// FEN in between) and expects what ParseFEN gives: FEN, key, and the same
// moves.
func TestSetFEN(t *testing.T) {
	var p Position
	for i, fen := range boardtest.Positions() {
		if i%100 == 7 {
			if err := p.SetFEN("4k3/8/8/8/8/8/8/4X3 w - - 0 1"); err == nil {
				t.Fatal("SetFEN accepted a bad FEN")
			}
		}
		if err := p.SetFEN(fen); err != nil {
			t.Fatalf("%s: %v", fen, err)
		}
		q, err := ParseFEN(fen)
		if err != nil {
			t.Fatal(err)
		}
		if p.FEN() != q.FEN() || p.Key() != q.Key() || p.Ply() != 0 {
			t.Fatalf("%s: SetFEN gives %q key %x ply %d, ParseFEN %q key %x", fen, p.FEN(), p.Key(), p.Ply(), q.FEN(), q.Key())
		}
		if got, want := p.CountLegal(), q.CountLegal(); got != want {
			t.Fatalf("%s: %d legal moves after SetFEN, %d after ParseFEN", fen, got, want)
		}
	}
}

// TestFENFields writes a board held outside a Position and reads it back.
func TestFENFields(t *testing.T) {
	p, err := ParseFEN("1r1rk2r/8/8/8/8/8/8/1R1RK2R w KDkd - 0 1")
	if err != nil {
		t.Fatal(err)
	}
	var sq [64]Piece
	for s := range sq {
		sq[s] = p.PieceOn(Square(s))
	}
	f := FENFields{Board: &sq, Side: White, EnPassant: NoSquare, Halfmove: 3, Fullmove: 9}
	for i, right := range []uint8{WhiteOO, WhiteOOO, BlackOO, BlackOOO} {
		f.Castling[i] = p.CastlingRook(right)
	}
	if got, want := f.String(), "1r1rk2r/8/8/8/8/8/8/1R1RK2R w KDkd - 3 9"; got != want {
		t.Fatalf("FEN %q, want %q", got, want)
	}
	f.Shredder = true
	if got, want := f.String(), "1r1rk2r/8/8/8/8/8/8/1R1RK2R w HDhd - 3 9"; got != want {
		t.Fatalf("Shredder-FEN %q, want %q", got, want)
	}
}
