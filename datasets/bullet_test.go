package datasets

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
)

// The fixture pair made by the bulletformat crate itself (see
// testdata/bullet/README.md): "FEN | score | result" lines and the
// ChessBoard file the crate's convert_from_text wrote from them.
const (
	bulletFixtureText = "testdata/bullet/positions.txt"
	bulletFixture     = "testdata/bullet/positions.bullet"
)

// bulletTextRecords parses bulletformat's text input, "FEN | score |
// result" with score and result from White's view.
func bulletTextRecords(t testing.TB, path string) []Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var recs []Record
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		parts := strings.Split(sc.Text(), "|")
		if len(parts) != 3 {
			t.Fatalf("%s:%d: not \"FEN | score | result\"", path, n)
		}
		r, err := ParseFEN(strings.TrimSpace(parts[0]))
		if err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		score, err := strconv.ParseInt(strings.TrimSpace(parts[1]), 10, 16)
		if err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		res, err := ParseResult(strings.TrimSpace(parts[2]))
		if err != nil {
			t.Fatalf("%s:%d: %v", path, n, err)
		}
		r.Score, r.Result = int16(score), res
		recs = append(recs, r)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return recs
}

// mirrorPlacement mirrors a FEN placement top to bottom and swaps the
// colours: the board as the other side sees it.
func mirrorPlacement(p string) string {
	ranks := strings.Split(p, "/")
	for i, j := 0, len(ranks)-1; i < j; i, j = i+1, j-1 {
		ranks[i], ranks[j] = ranks[j], ranks[i]
	}
	m := []byte(strings.Join(ranks, "/"))
	for i, c := range m {
		switch {
		case c >= 'a' && c <= 'z':
			m[i] = c - 'a' + 'A'
		case c >= 'A' && c <= 'Z':
			m[i] = c - 'A' + 'a'
		}
	}
	return string(m)
}

// stmViewText is the text of the record bulletformat keeps of r: the
// position as the side to move sees it, White to move, no castling, no en
// passant, clocks 0 1, score and result from the mover's view. It works on
// the FEN string alone, not through the encoder under test.
func stmViewText(r *Record) string {
	f := strings.Fields(r.FEN())
	placement, score, res := f[0], int(r.Score), r.Result
	if f[1] == "b" {
		placement, score, res = mirrorPlacement(placement), -score, WhiteWin-res
	}
	return fmt.Sprintf("%s w - - 0 1 [%s] %d", placement, res, score)
}

func readBulletBytes(t testing.TB, b []byte, name string, o Options) ([]Record, Reader, error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(b), name, o)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var recs []Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return recs, r, nil
		}
		if err != nil {
			return recs, r, err
		}
		recs = append(recs, rec)
	}
}

// writeBulletBytes writes records with Create to a .bullet file and returns
// its bytes.
func writeBulletBytes(t testing.TB, recs []Record) []byte {
	t.Helper()
	path := filepath.Join(t.TempDir(), "out.bullet")
	writeAll(t, path, recs)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// firstDiff names the first differing 32-byte record of two files.
func firstDiff(a, b []byte) string {
	if len(a) != len(b) {
		return fmt.Sprintf("sizes %d and %d", len(a), len(b))
	}
	for i := 0; i < len(a); i += RecordSize {
		if !bytes.Equal(a[i:i+RecordSize], b[i:i+RecordSize]) {
			return fmt.Sprintf("record %d differs:\n%x\n%x", i/RecordSize+1, a[i:i+RecordSize], b[i:i+RecordSize])
		}
	}
	return "identical"
}

// TestBulletMatchesBulletformat: from the same text the crate was given,
// nnuelab writes the crate's bytes, and reading the crate's file gives the
// side to move's view of every input position.
func TestBulletMatchesBulletformat(t *testing.T) {
	src := bulletTextRecords(t, bulletFixtureText)
	want, err := os.ReadFile(bulletFixture)
	if err != nil {
		t.Fatal(err)
	}
	if len(want) != len(src)*RecordSize {
		t.Fatalf("fixture holds %d bytes for %d positions", len(want), len(src))
	}
	black := 0
	for i := range src {
		if src[i].SideToMove() == board.Black {
			black++
		}
	}
	if black < 100 || black > len(src)-100 {
		t.Fatalf("fixture has %d Black-to-move positions of %d: both sides should be well represented", black, len(src))
	}
	if got := writeBulletBytes(t, src); !bytes.Equal(got, want) {
		t.Fatalf("nnuelab's bullet file differs from bulletformat's: %s", firstDiff(got, want))
	}
	for i := range src {
		b, err := src[i].AppendBullet(nil)
		if err != nil || !bytes.Equal(b, want[i*RecordSize:(i+1)*RecordSize]) {
			t.Fatalf("AppendBullet of position %d: %x, %v", i+1, b, err)
		}
	}
	got, r, err := readBulletBytes(t, want, bulletFixture, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Format() != FormatBullet {
		t.Fatalf("format %v", r.Format())
	}
	if len(got) != len(src) {
		t.Fatalf("read %d records, want %d", len(got), len(src))
	}
	for i := range got {
		if w := stmViewText(&src[i]); got[i].Text() != w {
			t.Fatalf("record %d: read %q, want %q (from %q)", i+1, got[i].Text(), w, src[i].Text())
		}
		if got[i].Move != board.NullMove {
			t.Fatalf("record %d: move %v", i+1, got[i].Move)
		}
	}
}

// TestBulletLayout checks the writer against records spelled out by hand
// from the documented layout (the crate writes the same bytes for these
// lines).
func TestBulletLayout(t *testing.T) {
	tests := []struct{ line, hex string }{
		// e1 K (5), e2 P (0), e8 k (13); score 50, won, ksq e1, opp_ksq e8^56 = e1.
		{"4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 [1.0] 50",
			"1010000000000010" + "050d000000000000" + "0000000000000000" + "3200" + "02" + "04" + "04" + "000000"},
		// Black to move: mirrored, g8 k -> g1 ours (5), d2 P -> d7 theirs (8),
		// b1 K -> b8 theirs (13); score -50, lost; ksq g1 = 6, opp_ksq b8^56 = b1 = 1.
		{"6k1/8/8/8/8/8/3P4/1K6 b - - 0 1 [1.0] 50",
			"4000000000000802" + "850d000000000000" + "0000000000000000" + "ceff" + "00" + "06" + "01" + "000000"},
		{"6k1/8/8/8/8/8/3P4/1K6 w - - 0 1 [0.5] -7",
			"0208000000000040" + "050d000000000000" + "0000000000000000" + "f9ff" + "01" + "01" + "06" + "000000"},
		// The start position: R N B Q K B N R = 3 1 2 4 5 2 1 3, pawns 0,
		// black pawns 8, black pieces 11 9 10 12 13 10 9 11.
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1 [0.5] 20",
			"ffff00000000ffff" + "1342253100000000" + "88888888" + "9bcaadb9" + "1400" + "01" + "04" + "04" + "000000"},
		// With Black to move the mirrored start position is the start position.
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR b KQkq - 0 1 [0.5] 20",
			"ffff00000000ffff" + "1342253100000000" + "88888888" + "9bcaadb9" + "ecff" + "01" + "04" + "04" + "000000"},
	}
	for _, tc := range tests {
		r, err := ParseText(tc.line)
		if err != nil {
			t.Fatal(err)
		}
		want, err := hex.DecodeString(tc.hex)
		if err != nil || len(want) != RecordSize {
			t.Fatalf("bad test hex %q", tc.hex)
		}
		got, err := r.AppendBullet(nil)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s:\n got %x (%v)\nwant %x", tc.line, got, err, want)
		}
	}
}

// TestBulletRoundTrip: bullet -> records -> bullet is byte-identical, on
// the crate's fixture and on the sample records converted to bullet.
func TestBulletRoundTrip(t *testing.T) {
	fix, err := os.ReadFile(bulletFixture)
	if err != nil {
		t.Fatal(err)
	}
	recs, _, err := readBulletBytes(t, fix, "f.bullet", Options{})
	if err != nil {
		t.Fatal(err)
	}
	if again := writeBulletBytes(t, recs); !bytes.Equal(again, fix) {
		t.Fatalf("fixture round trip: %s", firstDiff(again, fix))
	}

	src, _, err := readAll(t, "testdata/sample.txt", Options{})
	if err != nil {
		t.Fatal(err)
	}
	first := writeBulletBytes(t, src)
	if len(first) != len(src)*RecordSize {
		t.Fatalf("%d bytes for %d records", len(first), len(src))
	}
	// Through a real file with the other name bullet uses.
	path := filepath.Join(t.TempDir(), "sample.data")
	if err := os.WriteFile(path, first, 0o644); err != nil {
		t.Fatal(err)
	}
	back, r, err := readAll(t, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Format() != FormatBullet || len(back) != len(src) {
		t.Fatalf("format %v, %d records of %d", r.Format(), len(back), len(src))
	}
	for i := range back {
		if w := stmViewText(&src[i]); back[i].Text() != w {
			t.Fatalf("record %d: read %q, want %q", i+1, back[i].Text(), w)
		}
	}
	if again := writeBulletBytes(t, back); !bytes.Equal(again, first) {
		t.Fatalf("sample round trip: %s", firstDiff(again, first))
	}
}

// TestBulletSideToMoveView: Record -> bullet -> Record gives the position
// as the mover sees it, checked piece by piece.
func TestBulletSideToMoveView(t *testing.T) {
	for _, r := range sampleRecords(t) {
		b, err := r.AppendBullet(nil)
		if err != nil {
			t.Fatalf("%s: %v", r.Text(), err)
		}
		var v Record
		if err := v.UnmarshalBullet(b); err != nil {
			t.Fatalf("%s: %v", r.Text(), err)
		}
		stm := r.SideToMove()
		flip := board.Square(0)
		if stm == board.Black {
			flip = 56
		}
		if v.SideToMove() != board.White || v.CastlingRights() != 0 || v.EnPassant() != board.NoSquare ||
			v.HalfmoveClock() != 0 || v.FullmoveNumber() != 1 || v.PieceCount() != r.PieceCount() {
			t.Fatalf("%s -> %s", r.Text(), v.Text())
		}
		r.Pieces(func(p board.Piece, s board.Square) {
			want := board.MakePiece(p.Color()^stm, p.Type())
			if got := v.PieceOn(s ^ flip); got != want {
				t.Fatalf("%s -> %s: %s on %s became %s on %s", r.Text(), v.Text(), p, s, got, s^flip)
			}
		})
		score, res := int(r.Score), r.Result
		if stm == board.Black {
			score, res = -score, 2-res
		}
		if int(v.Score) != score || v.Result != res {
			t.Fatalf("%s -> %s: score/result", r.Text(), v.Text())
		}
		if _, err := v.Position(); err != nil {
			t.Fatalf("%s: %v", v.Text(), err)
		}
		if b2, _ := v.AppendBullet(nil); !bytes.Equal(b2, b) {
			t.Fatalf("%s: view re-encodes as %x, not %x", v.Text(), b2, b)
		}
	}
}

// bulletOf encodes a text line as a bullet record.
func bulletOf(t testing.TB, line string) []byte {
	t.Helper()
	r, err := ParseText(line)
	if err != nil {
		t.Fatal(err)
	}
	b, err := r.AppendBullet(nil)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// setNibble sets piece slot i of a bullet record.
func setNibble(b []byte, i int, c byte) {
	sh := 4 * uint(i&1)
	b[8+i/2] = b[8+i/2]&^(15<<sh) | c<<sh
}

// TestBulletCorrupt puts a damaged record second in a file: the reader
// names the file, record 2 and byte offset 32; SkipBad skips it alone.
func TestBulletCorrupt(t *testing.T) {
	const kpk = "4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 [1.0] 50" // slots: e1 K, e2 P, e8 k
	tests := []struct {
		name, base string
		mutate     func(b []byte)
		want       string
	}{
		{"piece type 6", kpk, func(b []byte) { setNibble(b, 1, 6) }, "bad piece code 6 in slot 1"},
		{"piece type 7 of the opponent", kpk, func(b []byte) { setNibble(b, 1, 15) }, "bad piece code 15 in slot 1"},
		{"code in an unused slot", kpk, func(b []byte) { setNibble(b, 3, 1) }, "piece code 1 in unused slot 3"},
		{"occupancy lost a square", kpk, func(b []byte) { b[7] = 0 }, "piece code 13 in unused slot 2"},
		{"occupancy gained a square", kpk, func(b []byte) { b[0] |= 1 }, "P on e1"},
		{"occupancy of 64 squares", kpk, func(b []byte) { binary.LittleEndian.PutUint64(b, ^uint64(0)) }, "64 squares"},
		{"two kings of the mover", kpk, func(b []byte) { setNibble(b, 1, 5) }, "2 white kings"},
		{"no opponent king", kpk, func(b []byte) { setNibble(b, 2, 12) }, "0 black kings"},
		{"mover's pawn on rank 1", "4k3/8/8/8/8/8/4P3/1N2K3 w - - 0 1 [0.5] 0", func(b []byte) { setNibble(b, 0, 0) }, "P on b1"},
		{"opponent's pawn on rank 8", "3qk3/8/8/8/8/8/4P3/4K3 w - - 0 1 [0.5] 0", func(b []byte) { setNibble(b, 2, 8) }, "p on d8"},
		{"nine pawns", "4k3/8/8/8/8/N7/PPPPPPPP/4K3 w - - 0 1 [0.5] 0", func(b []byte) { setNibble(b, 9, 0) }, "9 white pawns"},
		{"opponent in check", "4k3/8/8/8/8/8/4N3/4K3 w - - 0 1 [0.5] 0", func(b []byte) { setNibble(b, 1, 3) }, "is attacked"},
		{"king square byte", kpk, func(b []byte) { b[27] = 5 }, "king square byte 27 is 5"},
		{"opponent king square byte not flipped", kpk, func(b []byte) { b[28] = 60 }, "opponent king square byte 28 is 60"},
		{"result 3", kpk, func(b []byte) { b[26] = 3 }, "result byte (byte 26) is 3"},
		{"result 255", kpk, func(b []byte) { b[26] = 255 }, "result byte (byte 26) is 255"},
		{"extra byte", kpk, func(b []byte) { b[31] = 1 }, "extra bytes 29..31 are 00 00 01"},
	}
	good := bulletOf(t, "r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 3 20 [0.0] -15")
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			base := bulletOf(t, tc.base)
			var ok Record
			if err := ok.UnmarshalBullet(base); err != nil {
				t.Fatalf("base record does not decode: %v", err)
			}
			bad := append([]byte(nil), base...)
			tc.mutate(bad)
			if bytes.Equal(bad, base) {
				t.Fatal("mutation changed nothing")
			}
			var r Record
			err := r.UnmarshalBullet(bad)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("UnmarshalBullet: %v, want %q", err, tc.want)
			}
			file := slicesConcat(good, bad, good)
			recs, _, err := readBulletBytes(t, file, "bad.bullet", Options{})
			var ee *EntryError
			if !errors.As(err, &ee) || ee.File != "bad.bullet" || ee.Unit != "record" || ee.N != 2 || len(recs) != 1 {
				t.Fatalf("got %d records and %v, want an error for record 2", len(recs), err)
			}
			msg := err.Error()
			if !strings.HasPrefix(msg, "bad.bullet: record 2: at byte offset 32: ") || !strings.Contains(msg, tc.want) {
				t.Fatalf("error %q, want file, record 2, byte offset 32 and %q", msg, tc.want)
			}
			var skippedErrs []error
			recs, rd, err := readBulletBytes(t, file, "bad.bullet", Options{SkipBad: true, OnSkip: func(e error) { skippedErrs = append(skippedErrs, e) }})
			if err != nil || len(recs) != 2 || rd.Skipped() != 1 || len(skippedErrs) != 1 || skippedErrs[0].Error() != msg {
				t.Fatalf("SkipBad: %d records, skipped %d, %v, %v", len(recs), rd.Skipped(), skippedErrs, err)
			}
		})
	}
}

func slicesConcat(parts ...[]byte) []byte {
	var out []byte
	for _, p := range parts {
		out = append(out, p...)
	}
	return out
}

// TestBulletTruncated cuts a file at every byte: a cut between records
// reads the records before it, any other cut is an error naming the
// record and its byte offset, with or without SkipBad.
func TestBulletTruncated(t *testing.T) {
	fix, err := os.ReadFile(bulletFixture)
	if err != nil {
		t.Fatal(err)
	}
	file := fix[:6*RecordSize]
	all, _, err := readBulletBytes(t, file, "t.bullet", Options{})
	if err != nil || len(all) != 6 {
		t.Fatalf("%d records, %v", len(all), err)
	}
	for cut := 0; cut <= len(file); cut++ {
		for _, skip := range []bool{false, true} {
			got, _, err := readBulletBytes(t, file[:cut], "t.bullet", Options{SkipBad: skip})
			whole := cut / RecordSize
			if len(got) != whole {
				t.Fatalf("cut %d: %d records, want %d", cut, len(got), whole)
			}
			for i := range got {
				if got[i] != all[i] {
					t.Fatalf("cut %d: record %d differs", cut, i+1)
				}
			}
			if cut%RecordSize == 0 {
				if err != nil {
					t.Fatalf("cut %d: %v", cut, err)
				}
				continue
			}
			var ee *EntryError
			want := fmt.Sprintf("t.bullet: record %d: at byte offset %d: file ends %d bytes into the record", whole+1, whole*RecordSize, cut%RecordSize)
			if !errors.As(err, &ee) || ee.N != int64(whole+1) || !strings.HasPrefix(err.Error(), want) || !strings.Contains(err.Error(), "truncated") {
				t.Fatalf("cut %d (skip %v): error %v, want %q...", cut, skip, err, want)
			}
		}
	}
}

// TestBulletWriterErrors: what the writer refuses, and that it is atomic.
func TestBulletWriterErrors(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "w.bullet")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	minBlack, _ := ParseText("4k3/8/8/8/8/8/8/4K3 b - - 0 1 [0.0] -32768")
	if err := w.Write(minBlack); err == nil || !strings.Contains(err.Error(), "does not fit an int16") {
		t.Fatalf("score -32768 with Black to move: %v", err)
	}
	if err := w.Write(Record{}); err == nil {
		t.Fatal("zero record written")
	}
	minWhite, _ := ParseText("4k3/8/8/8/8/8/8/4K3 w - - 0 1 [0.0] -32768")
	if err := w.Write(minWhite); err != nil {
		t.Fatal(err)
	}
	if w.Count() != 1 {
		t.Fatalf("count %d", w.Count())
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("file visible before Close: %v", err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil || len(b) != RecordSize || int16(binary.LittleEndian.Uint16(b[24:])) != -32768 {
		t.Fatalf("%x, %v", b, err)
	}
	w, err = Create(filepath.Join(dir, "aborted.data"))
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Write(minWhite); err != nil {
		t.Fatal(err)
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Fatalf("abort left files: %v", ents)
	}
	// An empty bullet file is zero records.
	empty := filepath.Join(dir, "empty.bullet")
	writeAll(t, empty, nil)
	if recs, _, err := readAll(t, empty, Options{}); err != nil || len(recs) != 0 {
		t.Fatalf("empty: %d, %v", len(recs), err)
	}
	var r Record
	if err := r.UnmarshalBullet(b[:31]); err == nil {
		t.Fatal("31 bytes decoded")
	}
}

// FuzzBullet: any file content read as bulletformat gives records that
// re-encode to their own 32 bytes, are legal positions, and equal the
// colour-mirrored Black-to-move position's encoding; the reader ends with
// io.EOF exactly when the size is a multiple of 32 and every record is
// good. Seeds: testdata/fuzz/FuzzBullet.
func FuzzBullet(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		bad := -1 // first bad record
		for i := 0; i+RecordSize <= len(data); i += RecordSize {
			chunk := data[i : i+RecordSize]
			var r Record
			if err := r.UnmarshalBullet(chunk); err != nil {
				if bad < 0 {
					bad = i / RecordSize
				}
				continue
			}
			checkBulletRecord(t, &r, chunk)
		}
		for _, skip := range []bool{false, true} {
			recs, rd, err := readBulletBytes(t, data, "fuzz.bullet", Options{SkipBad: skip})
			whole := len(data) / RecordSize
			switch {
			case !skip && bad >= 0:
				var ee *EntryError
				if !errors.As(err, &ee) || ee.N != int64(bad+1) || len(recs) != bad {
					t.Fatalf("first bad record %d: read %d, %v", bad+1, len(recs), err)
				}
			case len(data)%RecordSize != 0:
				var ee *EntryError
				if !errors.As(err, &ee) || ee.N != int64(whole+1) || !strings.Contains(err.Error(), "truncated") {
					t.Fatalf("size %d: %v", len(data), err)
				}
			case err != nil:
				t.Fatalf("size %d: %v", len(data), err)
			}
			if skip && int64(len(recs))+rd.Skipped() != int64(whole) {
				t.Fatalf("%d records + %d skipped of %d", len(recs), rd.Skipped(), whole)
			}
		}
	})
}

// checkBulletRecord checks a record decoded from the 32 bytes b.
func checkBulletRecord(t *testing.T, r *Record, b []byte) {
	if err := r.validate(); err != nil {
		t.Fatalf("%x decodes to an invalid record: %v", b, err)
	}
	again, err := r.AppendBullet(nil)
	if err != nil || !bytes.Equal(again, b) {
		t.Fatalf("%x re-encodes as %x (%v)", b, again, err)
	}
	if r.SideToMove() != board.White || r.CastlingRights() != 0 || r.EnPassant() != board.NoSquare {
		t.Fatalf("%x: %s is not a plain White-to-move record", b, r.Text())
	}
	if _, err := r.Position(); err != nil {
		t.Fatalf("%x: board rejects %s: %v", b, r.FEN(), err)
	}
	if r2, err := ParseText(r.Text()); err != nil || r2 != *r {
		t.Fatalf("%x: text %q does not parse back: %v", b, r.Text(), err)
	}
	if r.Score == MinScore {
		return // its mirror's White-view score, +32768, is no int16
	}
	f := strings.Fields(r.FEN())
	mirror := fmt.Sprintf("%s b - - 0 1 [%s] %d", mirrorPlacement(f[0]), WhiteWin-r.Result, -int(r.Score))
	m, err := ParseText(mirror)
	if err != nil {
		t.Fatalf("%x: mirror %q: %v", b, mirror, err)
	}
	if mb, err := m.AppendBullet(nil); err != nil || !bytes.Equal(mb, b) {
		t.Fatalf("%x: mirror %q encodes as %x (%v)", b, mirror, mb, err)
	}
}

// BenchmarkBulletRead reads the fixture (1,184 records, repeated) from
// memory, validating every record.
func BenchmarkBulletRead(b *testing.B) {
	fix, err := os.ReadFile(bulletFixture)
	if err != nil {
		b.Fatal(err)
	}
	data := bytes.Repeat(fix, 8)
	n := len(data) / RecordSize
	b.SetBytes(int64(len(data)))
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		r, err := NewReader(bytes.NewReader(data), "bench.bullet", Options{})
		if err != nil {
			b.Fatal(err)
		}
		got := 0
		for {
			_, err := r.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			got++
		}
		if got != n {
			b.Fatalf("%d records, want %d", got, n)
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "positions/s")
}
