package datasets

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
)

// plainable reports whether a record fits .plain (ply, score).
func plainable(r Record) bool {
	_, err := stmScore(r.Score, r.SideToMove())
	return err == nil && r.Ply() <= plainMaxPly
}

// TestPlainRoundTrip writes records of every kind as .plain, reads them back
// (the same records, en passant and castling notation made canonical) and
// writes them again (the same bytes).
func TestPlainRoundTrip(t *testing.T) {
	var sample []Record
	for _, r := range sampleRecords(t) {
		if plainable(r) {
			sample = append(sample, r)
		}
	}
	tests := []struct {
		name string
		recs []Record
	}{
		{"games", bpGames(t, 201, bpGameOpts{games: 20, maxPlies: 200, gaps: true, wild: true})},
		{"chess960 games", bpGames(t, 202, bpGameOpts{games: 30, maxPlies: 150, chess960: true})},
		{"tricky positions", bpGames(t, 203, bpGameOpts{games: 2 * len(bpTricky), maxPlies: 30, starts: bpTricky})},
		{"sample positions", sample},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := encodePlain(t, tc.recs)
			if !bytes.HasPrefix(data, plainMagic) {
				t.Fatalf("output starts %q", data[:10])
			}
			got, r, err := bpDecodeAll(t, "x.plain", data, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Format() != FormatPlain {
				t.Errorf("format %v", r.Format())
			}
			bpSameRecords(t, tc.name, got, bpCanonicalAll(t, tc.recs))
			if again := encodePlain(t, got); !bytes.Equal(again, data) {
				t.Fatalf("re-encoding differs at byte %d", bpDiffAt(again, data))
			}
		})
	}
}

// TestPlainMoveNotation: castling as the king's two-square move or king
// takes rook, en passant, promotions and the null move.
func TestPlainMoveNotation(t *testing.T) {
	sq := func(s string) board.Square { return board.MakeSquare(int(s[0]-'a'), int(s[1]-'1')) }
	tests := []struct {
		fen, in, out string // out: how the writer puts it
		kind         int
		to           string // the move's to square
	}{
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1", "e1g1", board.Castling, "h1"},
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1h1", "e1g1", board.Castling, "h1"},
		{"r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8c8", "e8c8", board.Castling, "a8"},
		{"r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "e8a8", "e8c8", board.Castling, "a8"},
		{"rk5r/p6p/8/8/8/8/P6P/RK5R w HAha - 0 1", "b1a1", "b1a1", board.Castling, "a1"},
		{"rk5r/p6p/8/8/8/8/P6P/RK5R w HAha - 0 1", "b1h1", "b1h1", board.Castling, "h1"},
		{"1r2k1r1/p5pp/8/8/8/8/P5PP/1R2K1R1 w GBgb - 0 1", "e1g1", "e1g1", board.Castling, "g1"},
		{"1r2k1r1/p6p/8/8/8/8/P6P/1R2K1R1 w GBgb - 0 1", "e1c1", "e1b1", board.Castling, "b1"},
		{"4k3/8/8/2KPp3/8/8/8/8 w - e6 0 2", "d5e6", "d5e6", board.EnPassant, "e6"},
		{"4k3/1P6/8/8/8/8/8/4K3 w - - 0 1", "b7b8n", "b7b8n", board.Promotion, "b8"},
		{"4k3/8/8/8/8/8/8/4K3 w - - 0 1", "e1e2", "e1e2", board.Normal, "e2"},
		{"4k3/8/8/8/8/8/8/4K3 w - - 0 1", "a9a9", "a9a9", -1, ""},
		{"4k3/8/8/8/8/8/8/4K3 w - - 0 1", "0000", "a9a9", -1, ""},
	}
	for _, tc := range tests {
		t.Run(tc.fen+" "+tc.in, func(t *testing.T) {
			rec, err := ParseFEN(tc.fen)
			if err != nil {
				t.Fatal(err)
			}
			in := fmt.Sprintf("fen %s\nmove %s\nscore 0\nply %d\nresult 0\ne\n", tc.fen, tc.in, rec.Ply())
			got, _, err := bpDecodeAll(t, "m.plain", []byte(in), Options{})
			if err != nil || len(got) != 1 {
				t.Fatalf("%d records, %v", len(got), err)
			}
			m := got[0].Move
			if tc.kind < 0 {
				if m != board.NullMove {
					t.Fatalf("move %s, want none", moveText(m))
				}
			} else if m.Kind() != tc.kind || m.To() != sq(tc.to) {
				t.Fatalf("move %s kind %d, want kind %d to %s", moveText(m), m.Kind(), tc.kind, tc.to)
			}
			out := string(encodePlain(t, got))
			if !strings.Contains(out, "\nmove "+tc.out+"\n") {
				t.Fatalf("written as\n%s\nwant move %s", out, tc.out)
			}
		})
	}
}

// TestPlainBadInput: a bad entry is an error naming the file and the line
// at fault; SkipBad skips that entry and goes on; a file ending inside an
// entry is an error either way.
func TestPlainBadInput(t *testing.T) {
	good := "fen 4k3/8/8/8/8/8/8/4K3 w - - 0 1\nmove e1e2\nscore 10\nply 0\nresult 0\ne\n"
	entry := func(fen, move, score, ply, result string) string {
		return "fen " + fen + "\nmove " + move + "\nscore " + score + "\nply " + ply + "\nresult " + result + "\ne\n"
	}
	k := "4k3/8/8/8/8/8/8/4K3 w - - 0 1"
	tests := []struct {
		name  string
		bad   string // the second entry; the first and third are good
		line  int64
		want  string
		fatal bool
	}{
		{"fen", entry("4k3/8/8 w - - 0 1", "e1e2", "0", "0", "0"), 7, "bad FEN", false},
		{"illegal move", entry(k, "e1e3", "0", "0", "0"), 8, "not legal", false},
		{"move text", entry(k, "e9e1", "0", "0", "0"), 8, "bad square", false},
		{"promotion letter", entry(k, "e1e2k", "0", "0", "0"), 8, "bad promotion", false},
		{"castling without the right", entry(k, "e1g1", "0", "0", "0"), 8, "castling without the right", false},
		{"ply", entry(k, "e1e2", "0", "5", "0"), 10, "ply 5 disagrees", false},
		{"ply range", entry(k, "e1e2", "0", "70000", "0"), 10, "bad ply", false},
		{"score", entry(k, "e1e2", "40000", "0", "0"), 9, "bad score", false},
		{"black -32768", entry("4k3/8/8/8/8/8/8/4K3 b - - 0 1", "e8e7", "-32768", "1", "0"), 9, "does not fit", false},
		{"result", entry(k, "e1e2", "0", "0", "2"), 11, "bad result", false},
		{"unknown key", "fen " + k + "\nfoo 1\nmove e1e2\nscore 0\nply 0\nresult 0\ne\n", 8, "unknown key", false},
		{"second key", "fen " + k + "\nmove e1e2\nscore 0\nscore 1\nply 0\nresult 0\ne\n", 10, "second \"score\"", false},
		{"missing key", "fen " + k + "\nmove e1e2\nply 0\nresult 0\ne\n", 11, "no \"score\" line", false},
		{"text after e", strings.Replace(entry(k, "e1e2", "0", "0", "0"), "\ne\n", "\ne x\n", 1), 12, "text after", false},
		{"long line", "fen " + strings.Repeat("x", 5000) + "\nmove e1e2\nscore 0\nply 0\nresult 0\ne\n", 7, "longer than", false},
		{"truncated", "fen " + k + "\nmove e1e2\n", 9, "truncated", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			content := good + tc.bad
			if !tc.fatal {
				content += good
			}
			_, _, err := bpDecodeAll(t, "bad.plain", []byte(content), Options{})
			var ee *EntryError
			if !errors.As(err, &ee) || ee.File != "bad.plain" || ee.Unit != "line" || ee.N != tc.line || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want line %d containing %q", err, tc.line, tc.want)
			}
			var skipped []error
			got, r, err := bpDecodeAll(t, "bad.plain", []byte(content), Options{SkipBad: true, OnSkip: func(e error) { skipped = append(skipped, e) }})
			if tc.fatal {
				if err == nil || len(got) != 1 {
					t.Fatalf("SkipBad: %d records, error %v; want 1 and the truncation error", len(got), err)
				}
				return
			}
			if err != nil || len(got) != 2 || r.Skipped() != 1 || len(skipped) != 1 {
				t.Fatalf("SkipBad: %d records, %d skipped, %v", len(got), r.Skipped(), err)
			}
		})
	}
}

// TestPlainTruncated cuts a .plain file at every byte: a cut inside an
// entry is an error naming a line; a cut at an entry's end is a shorter
// valid file.
func TestPlainTruncated(t *testing.T) {
	recs := bpGames(t, 211, bpGameOpts{games: 2, maxPlies: 6})
	data := encodePlain(t, recs)
	for cut := len(plainMagic); cut < len(data); cut++ {
		got, _, err := bpDecodeAll(t, "cut.plain", data[:cut], Options{SkipBad: true})
		atEnd := bytes.HasSuffix(data[:cut], []byte("\ne\n"))
		if atEnd {
			if err != nil {
				t.Fatalf("cut at %d, after an entry: %v", cut, err)
			}
		} else {
			var ee *EntryError
			if !errors.As(err, &ee) || ee.Unit != "line" || !strings.Contains(err.Error(), "truncated") {
				t.Fatalf("cut at %d: %d records, error %v", cut, len(got), err)
			}
		}
		bpSameRecords(t, fmt.Sprintf("cut at %d", cut), got, bpCanonicalAll(t, recs)[:len(got)])
	}
}

// FuzzPlain: any text read as .plain gives records and io.EOF or an error
// naming the file and a line, never a panic; records are valid with legal
// moves; a file read without error writes back to text that reads as the
// same records and writes back to itself.
func FuzzPlain(f *testing.F) {
	f.Add(encodePlain(f, bpGames(f, 221, bpGameOpts{games: 1, maxPlies: 8})))
	f.Add(encodePlain(f, bpGames(f, 222, bpGameOpts{games: 1, maxPlies: 8, chess960: true})))
	f.Add(encodePlain(f, bpGames(f, 223, bpGameOpts{games: 2, maxPlies: 4, starts: bpTricky})))
	f.Add([]byte("fen 4k3/8/8/8/8/8/8/4K3 w - - 0 1\nmove a9a9\nscore -5\nply 0\nresult 1\ne\n"))
	f.Add([]byte("fen r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1\n\nresult -1\nply 0\nmove e1h1\nscore 7\ne\nfen"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, skip := range []bool{false, true} {
			rd, _ := newPlainReader(bufio.NewReader(bytes.NewReader(data)), "fuzz.plain", Options{SkipBad: skip})
			var recs []Record
			var err error
			for {
				var rec Record
				if rec, err = rd.Next(); err != nil {
					break
				}
				if e := rec.validate(); e != nil {
					t.Fatalf("record %d invalid: %v", len(recs)+1, e)
				}
				if rec.Move != board.NullMove {
					if p, _ := rec.Position(); !p.IsLegal(rec.Move) {
						t.Fatalf("record %d: illegal move %s", len(recs)+1, moveText(rec.Move))
					}
				}
				if recs = append(recs, rec); len(recs) > len(data) {
					t.Fatalf("%d records from %d bytes", len(recs), len(data))
				}
			}
			if err != io.EOF {
				var ee *EntryError
				if !errors.As(err, &ee) || ee.File != "fuzz.plain" || ee.Unit != "line" {
					t.Fatalf("error %q names no file and line", err)
				}
				continue
			}
			b1 := encodePlain(t, recs)
			again, _, err := bpDecodeAll(t, "again.plain", b1, Options{})
			if len(recs) > 0 && err != nil {
				t.Fatal(err)
			}
			bpSameRecords(t, "re-read", again, recs)
			if b2 := encodePlain(t, again); !bytes.Equal(b1, b2) {
				t.Fatal("re-encoding is not stable")
			}
		}
	})
}
