package match

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/internal/zstdfile"
)

func TestReadEPD(t *testing.T) {
	in := `# comment line

rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3
4k3/8/8/8/8/8/4P3/4K3 w - - 5 40
4k3/8/8/8/8/8/4P3/4K3 b - - hmvc 7; fmvn 33; id "x";
r3k2r/8/8/8/8/8/8/R3K2R w KQkq - bm O-O;
`
	ops, err := readEPD(strings.NewReader(in), "t.epd")
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 1",
		"4k3/8/8/8/8/8/4P3/4K3 w - - 5 40",
		"4k3/8/8/8/8/8/4P3/4K3 b - - 7 33",
		"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1",
	}
	if len(ops) != len(want) {
		t.Fatalf("%d openings, want %d", len(ops), len(want))
	}
	for i, w := range want {
		p, _ := board.ParseFEN(w)
		if ops[i].fen != p.FEN() || len(ops[i].moves) != 0 || ops[i].chess960 {
			t.Errorf("opening %d = %+v, want %s", i+1, ops[i], p.FEN())
		}
	}
	for _, bad := range []struct{ text, want string }{
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq -\n\nrnbqkbnr/pppppppp w\n", "t.epd:3:"},
		{"rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNX w KQkq -\n", "t.epd:1:"},
		{"8/8/8/8/8/8/8/8 w - -\n", "t.epd:1:"},
	} {
		if _, err := readEPD(strings.NewReader(bad.text), "t.epd"); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("readEPD(%q) error = %v, want one naming %s", bad.text, err, bad.want)
		}
	}
	// Chess960 positions are recognised from Shredder-FEN castling.
	ops, err = readEPD(strings.NewReader("bqnb1rkr/pp3ppp/3ppn2/2p5/5P2/P2P4/NPP1P1PP/BQ1BNRKR w HFhf -\n"), "960.epd")
	if err != nil || !ops[0].chess960 {
		t.Errorf("Chess960 EPD: %+v, %v", ops, err)
	}
}

func TestReadPGNOpenings(t *testing.T) {
	in := `[Event "one"]
[Site "?"]

1. e4 e5 {a comment} 2. Nf3 (2. f4 exf4 (2... d5) 3. Nf3) 2... Nc6 $1 3.Bb5 a6!? ; rest of line
4. Ba4 * 

[Event "two"]
[FEN "4k3/8/8/8/8/8/4P3/4K3 b - - 0 30"]
[SetUp "1"]

30... Kd7 31. e4 Ke6 1/2-1/2
% escape-free comment line is not used here
[Event "three"]

1. d4 d5 2. c4 0-1
`
	ops, err := readPGNOpenings(strings.NewReader(in), "o.pgn", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(ops) != 3 {
		t.Fatalf("%d openings, want 3", len(ops))
	}
	wantMoves := []string{"e2e4 e7e5 g1f3 b8c6 f1b5 a7a6 b5a4", "e8d7 e2e4 d7e6", "d2d4 d7d5 c2c4"}
	for i, w := range wantMoves {
		if got := strings.Join(ops[i].moves, " "); got != w {
			t.Errorf("opening %d moves %q, want %q", i+1, got, w)
		}
	}
	if ops[1].fen != "4k3/8/8/8/8/8/4P3/4K3 b - - 0 30" {
		t.Errorf("FEN tag: %s", ops[1].fen)
	}
	// plies limits the book.
	ops, err = readPGNOpenings(strings.NewReader(in), "o.pgn", 2)
	if err != nil || strings.Join(ops[0].moves, " ") != "e2e4 e7e5" {
		t.Errorf("plies=2: %v, %v", ops[0].moves, err)
	}
	// position() replays the book from the root.
	p, moves, err := ops[0].position()
	if err != nil || len(moves) != 2 || p.FEN() != board.StartFEN {
		t.Errorf("position() = %v, %d moves, %v", p.FEN(), len(moves), err)
	}

	for _, bad := range []struct{ text, want string }{
		{"[Event \"x\"]\n\n1. e4 e5\n2. Ke3 *\n", "o.pgn:4: move \"Ke3\""},
		{"[Event \"x\"\n1. e4 *\n", "o.pgn:1: tag pair"},
		{"1. e4 {never closed\n", "o.pgn:1: comment never closed"},
		{"1. e4 ) e5 *", "without '('"},
		{"[FEN \"8/8/8 w - -\"]\n1. e4 *", "FEN tag"},
	} {
		if _, err := readPGNOpenings(strings.NewReader(bad.text), "o.pgn", 0); err == nil || !strings.Contains(err.Error(), bad.want) {
			t.Errorf("readPGNOpenings(%q) error = %v, want %q", bad.text, err, bad.want)
		}
	}
}

func TestOpeningOrder(t *testing.T) {
	ops := make([]opening, 5)
	for i := range ops {
		ops[i].fen = string(rune('a' + i))
	}
	seq := func(o *openingOrder, n int) string {
		var s []string
		for range n {
			s = append(s, o.take().fen)
		}
		return strings.Join(s, "")
	}
	if got := seq(newOpeningOrder(ops, &OpeningsConfig{Order: "sequential"}, 0), 7); got != "abcdeab" {
		t.Errorf("sequential = %s", got)
	}
	if got := seq(newOpeningOrder(ops, &OpeningsConfig{Order: "sequential", Start: 4}, 0), 4); got != "deab" {
		t.Errorf("sequential from 4 = %s", got)
	}
	r1 := seq(newOpeningOrder(ops, &OpeningsConfig{Order: "random"}, 7), 10)
	r2 := seq(newOpeningOrder(ops, &OpeningsConfig{Order: "random"}, 7), 10)
	r3 := seq(newOpeningOrder(ops, &OpeningsConfig{Order: "random"}, 8), 10)
	if r1 != r2 {
		t.Errorf("same seed, different orders: %s, %s", r1, r2)
	}
	if r1 == r3 {
		t.Errorf("seeds 7 and 8 gave the same order %s", r1)
	}
	// A random order from a later start is the same sequence, skipped to
	// it, across the end of a cycle too (a ladder's chunks rely on it).
	for _, start := range []int{1, 2, 4, 7} {
		if got := seq(newOpeningOrder(ops, &OpeningsConfig{Order: "random", Start: start}, 7), 11-start); got != r1[start-1:] {
			t.Errorf("random from %d = %s, want %s", start, got, r1[start-1:])
		}
	}
	for _, cycle := range []string{r1[:5], r1[5:]} {
		for _, c := range "abcde" {
			if strings.Count(cycle, string(c)) != 1 {
				t.Errorf("random cycle %s is not a permutation", cycle)
			}
		}
	}
}

func TestLoadOpenings(t *testing.T) {
	ops, err := loadOpenings(&OpeningsConfig{})
	if err != nil || len(ops) != 1 || ops[0].fen != board.StartFEN {
		t.Errorf("no file: %v, %v", ops, err)
	}
	ops, err = loadOpenings(&OpeningsConfig{File: "testdata/openings.epd", Format: "epd"})
	if err != nil || len(ops) != 12 {
		t.Errorf("testdata/openings.epd: %d openings, %v", len(ops), err)
	}
	if _, err := loadOpenings(&OpeningsConfig{File: "testdata/openings.epd", Format: "epd", Start: 13}); err == nil {
		t.Error("start beyond the file accepted")
	}
	if _, err := loadOpenings(&OpeningsConfig{File: "testdata/none.epd", Format: "epd"}); err == nil {
		t.Error("missing file accepted")
	}
	empty := filepath.Join(t.TempDir(), "empty.pgn")
	os.WriteFile(empty, []byte("\n"), 0o644)
	if _, err := loadOpenings(&OpeningsConfig{File: empty, Format: "pgn"}); err == nil || !strings.Contains(err.Error(), "no positions") {
		t.Errorf("empty file: %v", err)
	}
}

// failingReader yields text, then an error.
type failingReader struct {
	text string
	err  error
}

func (f *failingReader) Read(p []byte) (int, error) {
	if f.text == "" {
		return 0, f.err
	}
	n := copy(p, f.text)
	f.text = f.text[n:]
	return n, nil
}

// TestReadPGNReadError: a reader that fails (a damaged compressed file)
// is an error, never the games read before it passing for the whole file.
func TestReadPGNReadError(t *testing.T) {
	games := "[Event \"x\"]\n\n1. e4 e5 1-0\n\n[Event \"y\"]\n\n1. d4 {a comment"
	zerr := &zstdfile.Error{File: "g.pgn.zst", Offset: 40, Size: 30, Err: io.ErrUnexpectedEOF}
	for _, tc := range []struct {
		name string
		err  error
		want string
	}{
		{"damaged zstd file", zerr, "g.pgn.zst: damaged zstd file"},
		{"other read error", errors.New("disk on fire"), "g.pgn:7: disk on fire"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := readPGN(&failingReader{games, tc.err}, "g.pgn")
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, tc.err) {
				t.Errorf("error %v, want %q", err, tc.want)
			}
			if _, err := ReadClockUse(&failingReader{games, tc.err}, "g.pgn"); err == nil {
				t.Error("ReadClockUse: no error")
			}
		})
	}
}
