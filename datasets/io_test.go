package datasets

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"hash/crc64"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
)

// readAll reads every record of a file.
func readAll(t testing.TB, path string, o Options) ([]Record, Reader, error) {
	t.Helper()
	r, err := OpenWith(path, o)
	if err != nil {
		return nil, nil, err
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

func writeAll(t testing.TB, path string, recs []Record) {
	t.Helper()
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if w.Count() != int64(len(recs)) {
		t.Fatalf("Count %d, wrote %d", w.Count(), len(recs))
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
}

func sampleRecords(t testing.TB) []Record {
	var recs []Record
	for _, l := range sampleLines(t) {
		r, err := ParseText(l)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	return recs
}

// TestConvertLossless converts the sample file text -> binary -> text.zst ->
// text and compares every line.
func TestConvertLossless(t *testing.T) {
	dir := t.TempDir()
	src, _, err := readAll(t, "testdata/sample.txt", Options{})
	if err != nil {
		t.Fatal(err)
	}
	lines := sampleLines(t)
	if len(src) != len(lines) {
		t.Fatalf("read %d records from %d lines", len(src), len(lines))
	}
	prev := src
	for _, name := range []string{"a.bin", "b.txt.zst", "c.txt", "d.bin"} {
		path := filepath.Join(dir, name)
		writeAll(t, path, prev)
		got, r, err := readAll(t, path, Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		want, _ := FormatOf(name)
		if r.Format() != want {
			t.Errorf("%s: detected %v, want %v", name, r.Format(), want)
		}
		if len(got) != len(src) {
			t.Fatalf("%s: %d records, want %d", name, len(got), len(src))
		}
		for i := range got {
			if got[i] != src[i] || got[i].Text() != lines[i] {
				t.Fatalf("%s: record %d = %q, want %q", name, i+1, got[i].Text(), lines[i])
			}
		}
		prev = got
	}
	// The text file is the sample minus its comment line.
	b, _ := os.ReadFile(filepath.Join(dir, "c.txt"))
	if want := strings.Join(lines, "\n") + "\n"; string(b) != want {
		t.Error("text output differs from the sample's lines")
	}
}

func TestEmptyAndBlockBoundaries(t *testing.T) {
	dir := t.TempDir()
	recs := sampleRecords(t)
	for len(recs) < 2*blockRecords+1 {
		recs = append(recs, recs...)
	}
	for _, n := range []int{0, 1, blockRecords - 1, blockRecords, blockRecords + 1, 2 * blockRecords} {
		path := filepath.Join(dir, "x.bin")
		writeAll(t, path, recs[:n])
		got, _, err := readAll(t, path, Options{})
		if err != nil || len(got) != n {
			t.Fatalf("n=%d: %d records, %v", n, len(got), err)
		}
		for i := range got {
			if got[i] != recs[i] {
				t.Fatalf("n=%d: record %d differs", n, i+1)
			}
		}
	}
}

func TestTextErrorsNameTheLine(t *testing.T) {
	dir := t.TempDir()
	good := "4k3/8/8/8/8/8/8/4K3 w - - 0 1 [0.5] 0"
	content := good + "\n\n# comment\n" + good + "\nnot a position\r\n" + good + "\n" + strings.Repeat("x", 10000) + "\n" + good + "\n"
	for _, name := range []string{"t.txt", "t.txt.zst"} {
		path := filepath.Join(dir, name)
		if name == "t.txt" {
			os.WriteFile(path, []byte(content), 0o644)
		} else {
			var buf bytes.Buffer
			w := newTextWriterRaw(&buf)
			w.Write([]byte(content))
			w.Close()
			os.WriteFile(path, buf.Bytes(), 0o644)
		}
		recs, _, err := readAll(t, path, Options{})
		var ee *EntryError
		if !errors.As(err, &ee) || ee.Unit != "line" || ee.N != 5 || ee.File != path || len(recs) != 2 {
			t.Fatalf("%s: got %d records and %v, want an error at line 5", name, len(recs), err)
		}
		var skipped []error
		recs, r, err := readAll(t, path, Options{SkipBad: true, OnSkip: func(e error) { skipped = append(skipped, e) }})
		if err != nil || len(recs) != 4 || r.Skipped() != 2 || len(skipped) != 2 {
			t.Fatalf("%s: skip-bad: %d records, %d skipped, %v", name, len(recs), r.Skipped(), err)
		}
		if !strings.Contains(skipped[1].Error(), "line 7: line longer") {
			t.Errorf("%s: second skip %v", name, skipped[1])
		}
	}
}

// TestTextCutLastLine: a file cut inside its last record ("... [0.5] 12x"
// cut to "... [0.5] 12") still parses as a record, so a last line without
// its newline is an error naming the line, SkipBad or not.
func TestTextCutLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cut.txt")
	good := "4k3/8/8/8/8/8/8/4K3 w - - 0 1 [0.5] 125\n"
	os.WriteFile(path, []byte(good+good[:len(good)-2]), 0o644)
	for _, o := range []Options{{}, {SkipBad: true}} {
		recs, _, err := readAll(t, path, o)
		var ee *EntryError
		if !errors.As(err, &ee) || ee.N != 2 || !strings.Contains(err.Error(), "truncated") || len(recs) != 1 {
			t.Errorf("skip %v: %d records, error %v", o.SkipBad, len(recs), err)
		}
	}
	os.WriteFile(path, []byte(good+"  "), 0o644) // trailing blanks are no record
	if recs, _, err := readAll(t, path, Options{}); err != nil || len(recs) != 1 {
		t.Errorf("trailing blanks: %d records, %v", len(recs), err)
	}
}

// packBytes returns a binary pack of the first n sample records.
func packBytes(t testing.TB, n int) ([]byte, []Record) {
	dir := t.TempDir()
	recs := sampleRecords(t)
	for len(recs) < n {
		recs = append(recs, recs...)
	}
	recs = recs[:n]
	path := filepath.Join(dir, "p.bin")
	writeAll(t, path, recs)
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return b, recs
}

func readPack(t testing.TB, b []byte, o Options) ([]Record, Reader, error) {
	r, err := NewReader(bytes.NewReader(b), "p.bin", o)
	if err != nil {
		return nil, nil, err
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

// TestTruncatedPack cuts a pack at every byte: each cut is an error naming a
// record (or the header), never a short read.
func TestTruncatedPack(t *testing.T) {
	b, recs := packBytes(t, blockRecords+300)
	for cut := 1; cut < len(b); cut++ {
		// A cut inside the magic leaves a text file; it must not parse.
		got, _, err := readPack(t, b[:cut], Options{SkipBad: cut >= 8})
		if err == nil {
			t.Fatalf("cut at %d of %d: read %d records without error", cut, len(b), len(got))
		}
		if cut >= packHeaderSize {
			var ee *EntryError
			if !errors.As(err, &ee) || ee.Unit != "record" || ee.N < 1 || ee.N > int64(len(recs))+1 {
				t.Fatalf("cut at %d: error %v does not name a record", cut, err)
			}
		}
		for i := range got {
			if got[i] != recs[i] {
				t.Fatalf("cut at %d: record %d differs", cut, i+1)
			}
		}
	}
}

// TestCorruptPack flips every byte of a pack in turn: each flip is an error
// naming a record, or (when the flip hits bits the decompressor ignores) the
// same records; never wrong ones.
func TestCorruptPack(t *testing.T) {
	b, recs := packBytes(t, 600)
	ignored := 0
	defer func() { t.Logf("%d of %d flips changed nothing the decompressor reads", ignored, len(b)) }()
	for i := range b {
		c := append([]byte(nil), b...)
		c[i] ^= 0x41
		got, _, err := readPack(t, c, Options{})
		if err == nil && len(got) != len(recs) {
			t.Fatalf("flip at byte %d of %d: %d records and no error", i, len(b), len(got))
		}
		if err == nil {
			ignored++
		}
		if err != nil && i >= packHeaderSize && !strings.Contains(err.Error(), "record") {
			t.Fatalf("flip at byte %d: error %q names no record", i, err)
		}
		for j := range got {
			if got[j] != recs[j] {
				t.Fatalf("flip at byte %d: record %d differs and no error before it", i, j+1)
			}
		}
	}
}

func TestPackHeaderErrors(t *testing.T) {
	b, _ := packBytes(t, 10)
	tests := []struct {
		name  string
		patch func([]byte)
		want  string
	}{
		{"version", func(b []byte) { b[8] = 9 }, "version 9"},
		{"record size", func(b []byte) { b[10] = 16 }, "record size 16"},
		{"reserved", func(b []byte) { b[12] = 1 }, "reserved"},
		{"count too small", func(b []byte) { b[16] = 5 }, "runs past"},
		{"count too big", func(b []byte) { b[16] = 11 }, "header says 11"},
		{"checksum", func(b []byte) { b[30] ^= 1 }, "content checksum"},
		{"magic", func(b []byte) { b[5] = 'x' }, "damaged binary pack header"},
	}
	for _, tc := range tests {
		c := append([]byte(nil), b...)
		tc.patch(c)
		_, _, err := readPack(t, c, Options{SkipBad: true})
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestPackSkipBad writes an invalid record and a block with a wrong checksum
// by hand and reads them with and without SkipBad.
func TestPackSkipBad(t *testing.T) {
	recs := sampleRecords(t)[:3]
	bad := recs[1]
	bad.Result = 7
	var buf bytes.Buffer
	if err := rawPack(&buf, [][]Record{{recs[0], bad, recs[2]}, {recs[0], recs[1]}}, 1); err != nil {
		t.Fatal(err)
	}
	_, _, err := readPack(t, buf.Bytes(), Options{})
	if err == nil || !strings.Contains(err.Error(), "record 2: bad result") {
		t.Fatalf("want a bad-result error at record 2, got %v", err)
	}
	got, r, err := readPack(t, buf.Bytes(), Options{SkipBad: true})
	if err != nil || len(got) != 2 || r.Skipped() != 3 {
		t.Fatalf("skip-bad: %d records, %d skipped, %v", len(got), r.Skipped(), err)
	}
}

func TestCreateIsAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.bin")
	w, err := Create(path)
	if err != nil {
		t.Fatal(err)
	}
	w.Write(sampleRecords(t)[0])
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatal("output visible before Close")
	}
	if err := w.Abort(); err != nil {
		t.Fatal(err)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 0 {
		t.Fatalf("Abort left %v", ents)
	}
	if _, err := Create(filepath.Join(dir, "x.dat")); err == nil {
		t.Error("unknown extension accepted")
	}
}

// newTextWriterRaw returns a zstd writer into w, for hand-made test files.
func newTextWriterRaw(w io.Writer) *zstd.Encoder {
	zw, err := zstd.NewWriter(w)
	if err != nil {
		panic(err)
	}
	return zw
}

// rawPack writes a binary pack of the given blocks to w without validating
// the records; the block numbered badCRC (0-based, -1 for none) gets a wrong
// checksum.
func rawPack(w io.Writer, blocks [][]Record, badCRC int) error {
	var body bytes.Buffer
	zw := newTextWriterRaw(&body)
	var n uint64
	var sum uint64
	for i, blk := range blocks {
		var data []byte
		for _, r := range blk {
			var b [RecordSize]byte
			r.put(&b)
			data = append(data, b[:]...)
		}
		n += uint64(len(blk))
		sum = crc64.Update(sum, crc64Table, data)
		c := crc32.Checksum(data, crc32Table)
		if i == badCRC {
			c ^= 1
		}
		zw.Write(binary.LittleEndian.AppendUint32(nil, uint32(len(blk))))
		zw.Write(data)
		zw.Write(binary.LittleEndian.AppendUint32(nil, c))
	}
	zw.Close()
	var h [packHeaderSize]byte
	copy(h[:], packMagic[:])
	binary.LittleEndian.PutUint16(h[8:], PackVersion)
	binary.LittleEndian.PutUint16(h[10:], RecordSize)
	binary.LittleEndian.PutUint64(h[16:], n)
	binary.LittleEndian.PutUint64(h[24:], sum)
	w.Write(h[:])
	_, err := w.Write(body.Bytes())
	return err
}

// TestZeroByteFile: a format whose every valid file starts with a header (a
// binary pack, a zstd frame) is an error naming the file when the file has
// no bytes at all (a write that never happened, a disk that filled), not
// an empty dataset; a valid empty file of those formats has its header and
// reads as no positions, and the formats with no header read a 0-byte
// file as no positions.
func TestZeroByteFile(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name    string
		wantErr bool
	}{
		{"empty.bin", true},
		{"empty.txt.zst", true},
		{"EMPTY.BIN", true},
		{"empty.txt", false},
		{"empty.epd", false},
		{"empty.plain", false},
		{"empty.binpack", false},
		{"empty.bullet", false},
	} {
		path := filepath.Join(dir, tc.name)
		if err := os.WriteFile(path, nil, 0o644); err != nil {
			t.Fatal(err)
		}
		got, _, err := readAll(t, path, Options{SkipBad: true})
		switch {
		case tc.wantErr && err == nil:
			t.Errorf("%s (0 bytes): %d records and no error, want an error", tc.name, len(got))
		case tc.wantErr && (!strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), "0 bytes")):
			t.Errorf("%s (0 bytes): error %q does not name the file and its size", tc.name, err)
		case !tc.wantErr && (err != nil || len(got) != 0):
			t.Errorf("%s (0 bytes): %d records, %v; want none and no error", tc.name, len(got), err)
		}
		// The streaming trainer's path: Blocks then OpenBlock.
		if bs, err := Blocks(path); err == nil {
			var berr error
			for _, b := range bs {
				r, err := OpenBlock(b, 0, Options{})
				if err != nil {
					berr = err
					break
				}
				_, berr = r.Next()
				r.Close()
				if berr == io.EOF {
					berr = nil
				}
			}
			if (berr != nil) != tc.wantErr {
				t.Errorf("%s (0 bytes) through Blocks/OpenBlock: error %v, want an error: %v", tc.name, berr, tc.wantErr)
			}
		}
		// A valid empty file of the same format has its header and reads
		// as no positions.
		valid := filepath.Join(dir, "valid-"+tc.name)
		writeAll(t, valid, nil)
		if got, _, err := readAll(t, valid, Options{}); err != nil || len(got) != 0 {
			t.Errorf("%s written empty by Create: %d records, %v; want none and no error", tc.name, len(got), err)
		}
		if st, err := os.Stat(valid); err != nil || (tc.wantErr && st.Size() == 0) {
			t.Errorf("%s written empty by Create has no header (%v)", tc.name, err)
		}
	}
}
