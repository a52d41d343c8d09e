package datasets

import (
	"bufio"
	"os"
	"strings"
	"testing"
	"unsafe"

	"github.com/nnuelab/nnuelab/engine/board"
)

// sampleLines returns the non-comment lines of testdata/sample.txt.
func sampleLines(t testing.TB) []string {
	t.Helper()
	f, err := os.Open("testdata/sample.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := sc.Text(); l != "" && l[0] != '#' {
			lines = append(lines, l)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return lines
}

func TestParseTextCanonical(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"standard", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 [0.5] 17", ""},
		{"four-field FEN gets clocks", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - [1.0] 3", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 [1.0] 3"},
		{"short wdl forms", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 [1] -3", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 [1.0] -3"},
		{"half as 1/2", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 [1/2] 0", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 [0.5] 0"},
		{"extra spaces and CR-less", "  4k3/8/8/8/8/8/8/4K3   b - - 0 1 [0]   +5 ", "4k3/8/8/8/8/8/8/4K3 b - - 0 1 [0.0] 5"},
		{"fullmove 0 reads as 1", "4k3/8/8/8/8/8/8/4K3 w - - 0 0 [0.5] 0", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 [0.5] 0"},
		{"chess960 X-FEN", "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w KQkq - 0 1 [0.5] 12", ""},
		{"chess960 Shredder", "bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1 [1.0] -5", ""},
		{"X-FEN inner rook", "1r1rk2r/8/8/8/8/8/8/1R1RK2R w KDkd - 0 1 [0.5] 0", ""},
		{"inner rook only is Shredder", "1r1rk3/8/8/8/8/8/8/1R1RK3 w Dd - 0 1 [0.5] 0", ""},
		{"X-FEN with letter for outermost becomes K", "4k3/8/8/8/8/8/8/4K2R w H - 0 1 [0.5] 0", "4k3/8/8/8/8/8/8/4K2R w H - 0 1 [0.5] 0"},
		{"en passant kept even when no pawn can take", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1 [0.5] 30", ""},
		{"limits", "4k3/8/8/8/8/8/8/4K3 w - - 255 65535 [0.5] -32768", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := ParseText(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			want := tc.want
			if want == "" {
				want = tc.in
			}
			if got := r.Text(); got != want {
				t.Fatalf("Text() = %q, want %q", got, want)
			}
			r2, err := ParseText(r.Text())
			if err != nil || r2 != r {
				t.Fatalf("reparse: %v, %+v != %+v", err, r2, r)
			}
		})
	}
}

func TestParseTextErrors(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"empty", "", "found 0 fields"},
		{"no result", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 17", "in brackets"},
		{"result without brackets", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 0.5 17", "in brackets"},
		{"bad result", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 [0.7] 17", "bad result"},
		{"bad score", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 [0.5] 17.5", "bad score"},
		{"score too big", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 [0.5] 40000", "bad score"},
		{"too many fields", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 x [0.5] 17 9", "fields"},
		{"five FEN fields", "4k3/8/8/8/8/8/8/4K3 w - - 0 [0.5] 17", "4 or 6 fields"},
		{"seven ranks", "4k3/8/8/8/8/8/4K3 w - - 0 1 [0.5] 17", "8 ranks"},
		{"bad piece", "4k3/8/8/8/8/8/8/4X3 w - - 0 1 [0.5] 17", "\"X\""},
		{"nine files", "4k3/8/8/8/8/8/8/4K4 w - - 0 1 [0.5] 17", "files"},
		{"no king", "8/8/8/8/8/8/8/4K3 w - - 0 1 [0.5] 17", "one black king"},
		{"two kings", "4k3/8/8/8/8/8/8/3KK3 w - - 0 1 [0.5] 17", "one white king"},
		{"pawn on rank 1", "4k3/8/8/8/8/8/8/P3K3 w - - 0 1 [0.5] 17", "P on a1"},
		{"side not to move in check", "4k3/8/8/8/8/8/8/4R1K1 w - - 0 1 [0.5] 17", "attacked"},
		{"bad side", "4k3/8/8/8/8/8/8/4K3 x - - 0 1 [0.5] 17", "side to move"},
		{"castling without rook", "4k3/8/8/8/8/8/8/4K3 w K - 0 1 [0.5] 17", "a white rook on the back rank for \"K\""},
		{"castling king off back rank", "4k3/8/8/8/8/8/4K3/7R w K - 0 1 [0.5] 17", "back rank"},
		{"castling junk", "4k3/8/8/8/8/8/8/4K2R w Z - 0 1 [0.5] 17", "castling"},
		{"castling twice", "4k3/8/8/8/8/8/8/4K2R w KK - 0 1 [0.5] 17", "repeats a right"},
		{"ep wrong rank", "4k3/8/8/8/4P3/8/8/4K3 b - e4 0 1 [0.5] 17", "rank 3"},
		{"ep no pawn", "4k3/8/8/8/8/8/8/4K3 b - e3 0 1 [0.5] 17", "double push"},
		{"ep junk", "4k3/8/8/8/8/8/8/4K3 b - e9 0 1 [0.5] 17", "en passant"},
		{"halfmove too big", "4k3/8/8/8/8/8/8/4K3 w - - 256 1 [0.5] 17", "halfmove"},
		{"fullmove too big", "4k3/8/8/8/8/8/8/4K3 w - - 0 65536 [0.5] 17", "fullmove"},
		{"too many pawns", "4k3/8/8/8/8/PPPPPPPP/PPPPPPPP/4K3 w - - 0 1 [0.5] 17", "pawns"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseText(tc.in)
			if err == nil {
				t.Fatalf("ParseText(%q) succeeded", tc.in)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

// TestRecordMatchesBoard checks every accessor against board.Position on the
// sample file.
func TestRecordMatchesBoard(t *testing.T) {
	for i, line := range sampleLines(t) {
		r, err := ParseText(line)
		if err != nil {
			t.Fatalf("line %d: %v", i+1, err)
		}
		if got := r.Text(); got != line {
			t.Fatalf("line %d: Text() = %q, want %q", i+1, got, line)
		}
		p, err := r.Position()
		if err != nil {
			t.Fatalf("line %d: Position: %v", i+1, err)
		}
		fen := line[:strings.Index(line, " [")]
		bp, err := board.ParseFEN(fen)
		if err != nil {
			t.Fatalf("line %d: board rejects %q: %v", i+1, fen, err)
		}
		if p.FEN() != bp.FEN() || p.Key() != bp.Key() {
			t.Fatalf("line %d: position %q != %q", i+1, p.FEN(), bp.FEN())
		}
		n := 0
		r.Pieces(func(pc board.Piece, s board.Square) {
			n++
			if bp.PieceOn(s) != pc {
				t.Fatalf("line %d: Pieces says %v on %v, board %v", i+1, pc, s, bp.PieceOn(s))
			}
			if r.PieceOn(s) != pc {
				t.Fatalf("line %d: PieceOn(%v) = %v, want %v", i+1, s, r.PieceOn(s), pc)
			}
		})
		if n != bp.Occupied().Count() || r.Occupied() != bp.Occupied() || r.PieceCount() != n {
			t.Fatalf("line %d: %d pieces, board has %d", i+1, n, bp.Occupied().Count())
		}
		if r.SideToMove() != bp.SideToMove() || r.CastlingRights() != bp.CastlingRights() ||
			r.King(board.White) != bp.King(board.White) || r.King(board.Black) != bp.King(board.Black) ||
			r.HalfmoveClock() != bp.HalfmoveClock() || r.FullmoveNumber() != bp.FullmoveNumber() {
			t.Fatalf("line %d: accessors differ from board", i+1)
		}
		if bp.EnPassant() != board.NoSquare && r.EnPassant() != bp.EnPassant() {
			t.Fatalf("line %d: en passant %v, board %v", i+1, r.EnPassant(), bp.EnPassant())
		}
		fr, err := FromPosition(bp, int(r.Score), r.Result)
		if err != nil {
			t.Fatalf("line %d: FromPosition: %v", i+1, err)
		}
		if fr.BoardHash() != r.BoardHash() {
			t.Fatalf("line %d: FromPosition hash differs", i+1)
		}
		if r.EnPassant() == bp.EnPassant() && fr != r {
			t.Fatalf("line %d: FromPosition = %q, want %q", i+1, fr.Text(), r.Text())
		}
	}
}

func TestBoardHash(t *testing.T) {
	mustHash := func(line string) uint64 {
		r, err := ParseText(line)
		if err != nil {
			t.Fatal(err)
		}
		return r.BoardHash()
	}
	tests := []struct {
		name  string
		a, b  string
		equal bool
	}{
		{"clocks, score and result ignored", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 [0.5] 0", "4k3/8/8/8/8/8/8/4K3 w - - 9 30 [1.0] 50", true},
		{"side to move counts", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 [0.5] 0", "4k3/8/8/8/8/8/8/4K3 b - - 0 1 [0.5] 0", false},
		{"castling counts", "4k3/8/8/8/8/8/8/4K2R w K - 0 1 [0.5] 0", "4k3/8/8/8/8/8/8/4K2R w - - 0 1 [0.5] 0", false},
		{"castling notation ignored", "4k3/8/8/8/8/8/8/4K2R w K - 0 1 [0.5] 0", "4k3/8/8/8/8/8/8/4K2R w H - 0 1 [0.5] 0", true},
		{"useless en passant ignored", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1 [0.5] 0", "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1 [0.5] 0", true},
		{"capturable en passant counts", "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3 [0.5] 0", "rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 3 [0.5] 0", false},
		{"pieces count", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 [0.5] 0", "4k3/8/8/8/8/8/8/3K4 w - - 0 1 [0.5] 0", false},
	}
	for _, tc := range tests {
		if got := mustHash(tc.a) == mustHash(tc.b); got != tc.equal {
			t.Errorf("%s: equal = %v, want %v", tc.name, got, tc.equal)
		}
	}
}

func TestBinaryRoundTrip(t *testing.T) {
	for i, line := range sampleLines(t) {
		r, err := ParseText(line)
		if err != nil {
			t.Fatal(err)
		}
		b, err := r.MarshalBinary()
		if err != nil || len(b) != RecordSize {
			t.Fatalf("line %d: MarshalBinary: %v, %d bytes", i+1, err, len(b))
		}
		var r2 Record
		if err := r2.UnmarshalBinary(b); err != nil {
			t.Fatalf("line %d: UnmarshalBinary: %v", i+1, err)
		}
		if r2 != r || r2.Text() != line {
			t.Fatalf("line %d: binary round trip gives %q", i+1, r2.Text())
		}
	}
}

func TestUnmarshalBinaryErrors(t *testing.T) {
	r, err := ParseText("r3k2r/8/8/8/4p3/8/3P4/R3K2R w KQkq - 0 1 [0.5] 17")
	if err != nil {
		t.Fatal(err)
	}
	good, _ := r.MarshalBinary()
	tests := []struct {
		name  string
		patch func(b []byte) []byte
		want  string
	}{
		{"short", func(b []byte) []byte { return b[:31] }, "31 bytes"},
		{"unknown flag", func(b []byte) []byte { b[24] |= 0x80; return b }, "flag"},
		{"bad ep byte", func(b []byte) []byte { b[25] = 200; return b }, "en-passant byte"},
		{"ep square without pawn", func(b []byte) []byte { b[25] = uint8(board.MakeSquare(0, 5)); return b }, "double pawn push"},
		{"bad result", func(b []byte) []byte { b[31] = 3; return b }, "result"},
		{"fullmove zero", func(b []byte) []byte { b[27], b[28] = 0, 0; return b }, "fullmove"},
		{"bad piece code", func(b []byte) []byte { b[8] = 0xff; return b }, "piece code"},
		{"junk in unused slot", func(b []byte) []byte { b[23] = 1; return b }, "unused slot"},
		{"extra occupancy bit", func(b []byte) []byte { b[4] |= 1; return b }, ""},
		{"shredder without castling", func(b []byte) []byte {
			k, _ := ParseText("4k3/8/8/8/8/8/8/4K3 w - - 0 1 [0.5] 0")
			kb, _ := k.MarshalBinary()
			kb[24] |= 2
			return kb
		}, "Shredder"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b := tc.patch(append([]byte(nil), good...))
			var x Record
			err := x.UnmarshalBinary(b)
			if err == nil {
				t.Fatalf("accepted %x", b)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %q does not mention %q", err, tc.want)
			}
		})
	}
}

func TestResult(t *testing.T) {
	for _, tc := range []struct {
		r    Result
		wdl  float32
		text string
	}{{BlackWin, 0, "0.0"}, {Draw, 0.5, "0.5"}, {WhiteWin, 1, "1.0"}} {
		if tc.r.WDL() != tc.wdl || tc.r.String() != tc.text {
			t.Errorf("%d: WDL %v String %q", tc.r, tc.r.WDL(), tc.r.String())
		}
		if p, err := ParseResult(tc.text); err != nil || p != tc.r {
			t.Errorf("ParseResult(%q) = %v, %v", tc.text, p, err)
		}
	}
	if Result(3).Valid() {
		t.Error("Result(3) valid")
	}
}

func TestPly(t *testing.T) {
	for _, tc := range []struct {
		fen string
		ply int
	}{
		{board.StartFEN, 0},
		{"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1", 1},
		{"4k3/8/8/8/8/8/8/4K3 w - - 0 17", 32},
	} {
		r, err := ParseFEN(tc.fen)
		if err != nil {
			t.Fatal(err)
		}
		if r.Ply() != tc.ply {
			t.Errorf("%s: ply %d, want %d", tc.fen, r.Ply(), tc.ply)
		}
	}
}

// TestRecordSize keeps a Record at 40 bytes of memory (the 32 bytes of the
// binary record and the move, padded to the bitboard's alignment): trainers
// hold hundreds of millions, so growing it is a decision, not an accident.
func TestRecordSize(t *testing.T) {
	if s := unsafe.Sizeof(Record{}); s != RecordSize+8 {
		t.Fatalf("Record takes %d bytes, want %d", s, RecordSize+8)
	}
}

// BenchmarkParseText parses the sample lines (the text reader's inner loop).
func BenchmarkParseText(b *testing.B) {
	lines := sampleLines(b)
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		if _, err := ParseText(lines[i%len(lines)]); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkText writes the sample records back as text.
func BenchmarkText(b *testing.B) {
	var recs []Record
	for _, l := range sampleLines(b) {
		r, _ := ParseText(l)
		recs = append(recs, r)
	}
	b.ReportAllocs()
	for i := 0; b.Loop(); i++ {
		_ = recs[i%len(recs)].Text()
	}
}
