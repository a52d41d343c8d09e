package datasets

import (
	"bytes"
	"io"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
)

// FuzzParseText: any line either fails or gives a record that prints back
// to a line parsing to the same record, converts to a board.Position with
// the same FEN (en passant aside), and survives the binary round trip.
// Seeds: testdata/fuzz/FuzzParseText plus the sample lines.
func FuzzParseText(f *testing.F) {
	for _, l := range sampleLines(f)[:60] {
		f.Add(l)
	}
	for _, l := range []string{
		"", "[0.5] 0", "4k3/8/8/8/8/8/8/4K3 w - - 0 1 [0.5] 0",
		"bqnbrkrn/pppppppp/8/8/8/8/PPPPPPPP/BQNBRKRN w GEge - 0 1 [1.0] -5",
		"1r1rk2r/8/8/8/8/8/8/1R1RK2R w KDkd - 0 1 [0.5] 0",
		"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1 [0.5] 30",
	} {
		f.Add(l)
	}
	f.Fuzz(func(t *testing.T, line string) {
		r, err := ParseText(line)
		if err != nil {
			return
		}
		text := r.Text()
		r2, err := ParseText(text)
		if err != nil || r2 != r || r2.Text() != text {
			t.Fatalf("%q -> %q does not reparse: %v", line, text, err)
		}
		p, err := r.Position()
		if err != nil {
			t.Fatalf("%q: accepted but board rejects %q: %v", line, r.FEN(), err)
		}
		if r.EnPassant() == p.EnPassant() && p.FEN() != r.FEN() {
			t.Fatalf("%q: board FEN %q, record FEN %q", line, p.FEN(), r.FEN())
		}
		if p.CastlingRights() != r.CastlingRights() || p.SideToMove() != r.SideToMove() {
			t.Fatalf("%q: castling/side differ from the board", line)
		}
		b, _ := r.MarshalBinary()
		var r3 Record
		if err := r3.UnmarshalBinary(b); err != nil || r3 != r {
			t.Fatalf("%q: binary round trip: %v", line, err)
		}
	})
}

// FuzzUnmarshalBinary: any 32 bytes either fail or decode to a record that
// encodes to the same bytes, whose FEN the board accepts and whose text
// parses back to it.
func FuzzUnmarshalBinary(f *testing.F) {
	for _, l := range sampleLines(f)[:40] {
		r, _ := ParseText(l)
		b, _ := r.MarshalBinary()
		f.Add(b)
	}
	f.Add(make([]byte, RecordSize))
	f.Fuzz(func(t *testing.T, b []byte) {
		var r Record
		if err := r.UnmarshalBinary(b); err != nil {
			return
		}
		again, _ := r.MarshalBinary()
		if !bytes.Equal(again, b) {
			t.Fatalf("%x re-encodes as %x", b, again)
		}
		if _, err := board.ParseFEN(r.FEN()); err != nil {
			t.Fatalf("%x decodes to %q, which the board rejects: %v", b, r.FEN(), err)
		}
		r2, err := ParseText(r.Text())
		if err != nil || r2 != r {
			t.Fatalf("%x: text %q does not parse back: %v", b, r.Text(), err)
		}
	})
}

// FuzzReader: any file content makes the reader return records and end
// with io.EOF or an error, never panic or loop; records it returns are
// valid.
func FuzzReader(f *testing.F) {
	pack, _ := packBytes(f, 20)
	f.Add(pack)
	f.Add(pack[:len(pack)/2])
	f.Add([]byte(strings.Join(sampleLines(f)[:5], "\n")))
	zst := newTextWriterRaw(io.Discard)
	zst.Close()
	f.Add([]byte{0x28, 0xb5, 0x2f, 0xfd, 0, 0})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, skip := range []bool{false, true} {
			r, err := NewReader(bytes.NewReader(data), "fuzz", Options{SkipBad: skip})
			if err != nil {
				continue
			}
			for n := 0; ; n++ {
				rec, err := r.Next()
				if err != nil {
					break
				}
				if err := rec.validate(); err != nil {
					t.Fatalf("record %d invalid: %v", n+1, err)
				}
				if n > len(data) {
					t.Fatalf("%d records from %d bytes", n, len(data))
				}
			}
			r.Close()
		}
	})
}

// FuzzParseFilter: any filter string gives a filter that passes Check, nil
// ("none"), or an error; never a panic. Seeds: the forms the docs give.
func FuzzParseFilter(f *testing.F) {
	for _, s := range []string{"none", "default", "default,one-in=4", "min-ply=16,max-score=30000,skip-check,skip-noisy",
		"one-in=0", "one-in=", "min-ply=-1", ",", "default=1", "one-in=99999999999999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		flt, err := ParseFilter(s)
		if err != nil || flt == nil {
			return
		}
		if err := flt.Check(); err != nil {
			t.Fatalf("%q parsed to %+v, which Check refuses: %v", s, *flt, err)
		}
	})
}
