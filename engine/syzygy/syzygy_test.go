package syzygy

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
)

// tableDir makes a directory of symbolic links to the committed tables,
// all but those named in skip (file names such as "KRvKN.rtbw").
func tableDir(t *testing.T, skip ...string) string {
	t.Helper()
	src, err := filepath.Abs(tablesDir)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	files, err := filepath.Glob(filepath.Join(src, "*.rtb[wz]"))
	if err != nil {
		t.Fatal(err)
	}
next:
	for _, f := range files {
		for _, s := range skip {
			if filepath.Base(f) == s {
				continue next
			}
		}
		if err := os.Symlink(f, filepath.Join(dir, filepath.Base(f))); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func mustFEN(t *testing.T, fen string) *board.Position {
	t.Helper()
	p, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatalf("%s: %v", fen, err)
	}
	return p
}

func openTables(t *testing.T, dirs ...string) *Tables {
	t.Helper()
	tables, err := Open(dirs...)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tables.Close() })
	return tables
}

// TestKnownPositions: hand-picked positions of every kind, with the
// values fathom.linux gives them (its WDL and signed DTZ; the first is
// python-chess's documentation example).
func TestKnownPositions(t *testing.T) {
	tables := openTables(t, tablesDir)
	cases := []struct {
		what string
		fen  string
		wdl  WDL
		dtz  int
	}{
		{"KBNvK", "8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1", Loss, -53},
		{"two kings", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", Draw, 0},
		{"KQvK", "4k3/8/8/8/8/8/8/3QK3 b - - 0 1", Loss, -16},
		{"checkmated", "k7/1Q6/1K6/8/8/8/8/8 b - - 0 1", Loss, -1},
		{"stalemate", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", Draw, 0},
		{"checkmated by a guarded queen", "8/8/8/8/8/2k5/1q6/K7 w - - 0 1", Loss, -1},
		{"mate in one", "1k6/8/1K6/8/8/8/8/7Q w - - 0 1", Win, 1},
		{"KRvK", "8/8/8/8/8/8/8/k1K4R b - - 0 1", Loss, -4},
		{"KRvK, rook at home", "6k1/8/8/8/8/8/8/R3K3 w - - 0 1", Win, 21},
		{"en passant", "8/8/4k3/8/3pP3/8/8/4K3 b - e3 0 1", Draw, 0},
		{"capture of the bishop", "1r6/8/8/3k4/8/8/1B6/5RK1 b - - 0 1", Draw, 0},
	}
	for _, c := range cases {
		p := mustFEN(t, c.fen)
		if w, err := tables.ProbeWDL(p); err != nil || w != c.wdl {
			t.Errorf("%s (%s): ProbeWDL = %v, %v; want %v", c.what, c.fen, w, err, c.wdl)
		}
		if d, err := tables.ProbeDTZ(p); err != nil || d != c.dtz {
			t.Errorf("%s (%s): ProbeDTZ = %d, %v; want %d", c.what, c.fen, d, err, c.dtz)
		}
	}
}

// TestRule50WDL: the fifty-move rule's boundary, as Fathom's root probe
// draws it (dtz + clock <= 100 keeps the result).
func TestRule50WDL(t *testing.T) {
	cases := []struct {
		dtz, clock int
		want       WDL
	}{
		{0, 0, Draw}, {0, 99, Draw},
		{1, 0, Win}, {1, 99, Win}, {1, 100, CursedWin},
		{60, 40, Win}, {60, 41, CursedWin}, {100, 0, Win}, {101, 0, CursedWin},
		{-1, 0, Loss}, {-60, 40, Loss}, {-60, 41, BlessedLoss}, {-101, 0, BlessedLoss},
	}
	for _, c := range cases {
		if got := Rule50WDL(c.dtz, c.clock); got != c.want {
			t.Errorf("Rule50WDL(%d, %d) = %v, want %v", c.dtz, c.clock, got, c.want)
		}
	}
	names := map[WDL]string{Loss: "loss", BlessedLoss: "blessed-loss", Draw: "draw", CursedWin: "cursed-win", Win: "win", 3: "WDL(3)"}
	for w, s := range names {
		if w.String() != s {
			t.Errorf("WDL(%d).String() = %q, want %q", int(w), w.String(), s)
		}
	}
}

// TestRefused: positions the tables cannot answer give typed errors.
func TestRefused(t *testing.T) {
	tables := openTables(t, tablesDir)
	onlyKQvK := t.TempDir()
	abs, _ := filepath.Abs(filepath.Join(tablesDir, "KQvK.rtbw"))
	if err := os.Symlink(abs, filepath.Join(onlyKQvK, "KQvK.rtbw")); err != nil {
		t.Fatal(err)
	}
	noKRvKR := tableDir(t, "KRvKR.rtbw")
	cases := []struct {
		what    string
		tables  *Tables
		fen     string
		dtz     bool
		is      error  // errors.Is
		missing string // a *MissingError for this table
	}{
		{"castling rights", tables, "r3k3/8/8/8/8/8/8/4K3 b q - 0 1", false, ErrCastling, ""},
		{"castling rights (DTZ)", tables, "4k3/8/8/8/8/8/8/4K2R w K - 0 1", true, ErrCastling, ""},
		{"nine pieces", tables, "4k3/pppp4/8/8/8/8/PPP5/4K3 w - - 0 1", false, ErrTooManyPieces, ""},
		{"six pieces, tables of five", tables, "4k3/pp6/8/8/8/8/PP6/4K3 w - - 0 1", false, ErrTooManyPieces, ""},
		{"no table", tables, "4k3/3q4/8/8/8/8/8/Q1R1K3 w - - 0 1", false, nil, "KQRvKQ"},
		{"no table, colours swapped", tables, "2r1k3/q7/8/8/8/8/8/3QK3 w - - 0 1", false, nil, "KQRvKQ"},
		{"no table, name order", tables, "4k3/8/3b4/8/8/8/8/2RNK3 w - - 0 1", false, nil, "KRNvKB"},
		{"no DTZ table", openTables(t, onlyKQvK), "4k3/8/8/8/8/8/8/3QK3 b - - 0 1", true, nil, "KQvK"},
		{"a capture leads to a missing table", openTables(t, noKRvKR), "1r6/8/8/3k4/8/8/1B6/5RK1 b - - 0 1", false, nil, "KRvKR"},
	}
	for _, c := range cases {
		p := mustFEN(t, c.fen)
		var err error
		if c.dtz {
			_, err = c.tables.ProbeDTZ(p)
		} else {
			_, err = c.tables.ProbeWDL(p)
		}
		if c.is != nil && !errors.Is(err, c.is) {
			t.Errorf("%s: error %v, want %v", c.what, err, c.is)
		}
		if c.missing != "" {
			var me *MissingError
			if !errors.As(err, &me) || me.Table != c.missing || me.DTZ != c.dtz || !strings.Contains(err.Error(), c.missing) {
				t.Errorf("%s: error %v, want a missing %s (DTZ %v)", c.what, err, c.missing, c.dtz)
			}
		}
	}
	// The WDL table alone still answers WDL.
	if w, err := openTables(t, onlyKQvK).ProbeWDL(mustFEN(t, "4k3/8/8/8/8/8/8/3QK3 b - - 0 1")); err != nil || w != Loss {
		t.Errorf("KQvK with its WDL table only: %v, %v", w, err)
	}
}

// TestOpen: what Open finds, and what it refuses.
func TestOpen(t *testing.T) {
	if _, err := Open(filepath.Join(t.TempDir(), "nowhere")); err == nil || !strings.Contains(err.Error(), "nowhere") {
		t.Errorf("Open of a missing directory: %v", err)
	}

	empty := openTables(t, t.TempDir())
	if empty.MaxPieces() != 0 || len(empty.Files()) != 0 {
		t.Errorf("empty directory: MaxPieces %d, files %v", empty.MaxPieces(), empty.Files())
	}
	if w, err := empty.ProbeWDL(mustFEN(t, "4k3/8/8/8/8/8/8/4K3 w - - 0 1")); err != nil || w != Draw {
		t.Errorf("two kings without tables: %v, %v", w, err)
	}
	if _, err := empty.ProbeWDL(mustFEN(t, "4k3/8/8/8/8/8/8/3QK3 b - - 0 1")); !errors.Is(err, ErrTooManyPieces) {
		t.Errorf("KQvK without tables: %v", err)
	}

	// Files that are not tables are passed over; of two copies of a
	// table the first directory's is used.
	a, b := t.TempDir(), t.TempDir()
	src, _ := filepath.Abs(tablesDir)
	for _, f := range []string{"KQvK.rtbw", "KQvK.rtbz", "KRvK.rtbw"} {
		if err := os.Symlink(filepath.Join(src, f), filepath.Join(a, f)); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range []string{"KQvK.rtbw", "KRBvKR.rtbw"} {
		if err := os.Symlink(filepath.Join(src, f), filepath.Join(b, f)); err != nil {
			t.Fatal(err)
		}
	}
	for _, junk := range []string{"README", "KXvK.rtbw", "KQvK.rtbw.part", "KvK.rtbw", "notes.rtbz"} {
		if err := os.WriteFile(filepath.Join(a, junk), []byte("junk"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Mkdir(filepath.Join(a, "KNvK.rtbw"), 0o755); err != nil {
		t.Fatal(err)
	}
	tables := openTables(t, a, "", b)
	want := []string{filepath.Join(a, "KQvK.rtbw"), filepath.Join(a, "KQvK.rtbz"), filepath.Join(a, "KRvK.rtbw"), filepath.Join(b, "KRBvKR.rtbw")}
	if got := tables.Files(); strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("Files() = %v, want %v", got, want)
	}
	if tables.MaxPieces() != 5 {
		t.Errorf("MaxPieces() = %d, want 5", tables.MaxPieces())
	}
}

// TestClose: probes after Close fail with ErrClosed, without touching the
// unmapped files.
func TestClose(t *testing.T) {
	tables, err := Open(tablesDir)
	if err != nil {
		t.Fatal(err)
	}
	p := mustFEN(t, "8/2K5/4B3/3N4/8/8/4k3/8 b - - 0 1")
	if _, err := tables.ProbeDTZ(p); err != nil {
		t.Fatal(err)
	}
	if err := tables.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := tables.ProbeWDL(p); !errors.Is(err, ErrClosed) {
		t.Errorf("ProbeWDL after Close: %v", err)
	}
	if _, err := tables.ProbeDTZ(mustFEN(t, "4k3/8/8/8/8/8/8/3QK3 b - - 0 1")); !errors.Is(err, ErrClosed) {
		t.Errorf("ProbeDTZ of a table never loaded, after Close: %v", err)
	}
}

// TestConcurrentProbes: goroutines probing fresh tables at once (so that
// they race to load the same files) get what one goroutine gets.
func TestConcurrentProbes(t *testing.T) {
	sample := fullSample(t, true)
	serial := openTables(t, tablesDir)
	type result struct {
		w WDL
		d int
	}
	want := make([]result, len(sample))
	for i, s := range sample {
		w, err := serial.ProbeWDL(s.pos)
		if err != nil {
			t.Fatal(err)
		}
		d, err := serial.ProbeDTZ(s.pos)
		if err != nil {
			t.Fatal(err)
		}
		want[i] = result{w, d}
	}
	shared := openTables(t, tablesDir)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A board.Position is not safe to share; the tables are.
			for k := range sample {
				i := (k*7 + g*len(sample)/8) % len(sample)
				p := sample[i].pos.Copy()
				w, err := shared.ProbeWDL(p)
				if err == nil && w != want[i].w {
					err = errors.New(sample[i].fen + ": WDL differs under concurrency")
				}
				if err == nil && g%2 == 0 {
					var d int
					if d, err = shared.ProbeDTZ(p); err == nil && d != want[i].d {
						err = errors.New(sample[i].fen + ": DTZ differs under concurrency")
					}
				}
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}
