package datasets

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/syzygy"
)

// tbDir is engine/syzygy's test data: the 3-4 piece tables and KRBvKR.
const tbDir = "../engine/syzygy/testdata/tables"

func syzygyGenConfig() GenConfig {
	cfg := testGenConfig(0)
	cfg.Book, cfg.RandomPlies, cfg.MinPly, cfg.Keep = "testdata/syzygy-book.epd", 2, 0, KeepAll
	cfg.Syzygy = tbDir
	cfg.WinScore = 20000 // games end in the tables, not by score
	return cfg
}

// TestDatagenSyzygy: with tables, a game ends as soon as its position is
// in them, with their result under the fifty-move rule, and every record
// carries it; the manifest's settings name the tables by checksum, not by
// where they are.
func TestDatagenSyzygy(t *testing.T) {
	cfg := syzygyGenConfig()
	book, err := readBook(cfg.Book)
	if err != nil {
		t.Fatal(err)
	}
	tb, err := openTables(&cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	if len(cfg.SyzygyTables) != 72 || !strings.HasPrefix(cfg.SyzygyTables[0], "KBBvK.rtbw:457a28e5df290b59ef4448bafad18bd3") {
		t.Fatalf("tables recorded: %d, first %q", len(cfg.SyzygyTables), cfg.SyzygyTables[0])
	}
	pl, err := newPlayer(&cfg, book)
	if err != nil {
		t.Fatal(err)
	}
	adjudicated := 0
	for g := uint64(0); g < 12; g++ {
		game, err := pl.play(context.Background(), g)
		if err != nil {
			t.Fatal(err)
		}
		if game.Termination != TermTablebase {
			continue
		}
		adjudicated++
		last := game.Records[len(game.Records)-1]
		p, err := last.Position()
		if err != nil {
			t.Fatal(err)
		}
		p.MakeMove(last.Move)
		if p.Occupied().Count() > 5 {
			t.Fatalf("game %d adjudicated with %d pieces: %s", g, p.Occupied().Count(), p.FEN())
		}
		want := wantResult(t, tb, p)
		if game.Result != want {
			t.Errorf("game %d ends %v in %s, the tables say %v", g, game.Result, p.FEN(), want)
		}
		for _, r := range game.Records[:len(game.Records)-1] {
			q, err := r.Position()
			if err != nil {
				t.Fatal(err)
			}
			if q.Occupied().Count() <= 4 {
				t.Errorf("game %d went on in %s, which the tables hold", g, q.FEN())
			}
		}
	}
	if adjudicated < 6 {
		t.Fatalf("%d of 12 games adjudicated by the tables", adjudicated)
	}

	// The settings name the tables by content: a copy elsewhere is the same run.
	a, err := settingsText(cfg)
	if err != nil {
		t.Fatal(err)
	}
	copyDir := copyTables(t, -1)
	cfg2 := syzygyGenConfig()
	cfg2.Syzygy = copyDir
	tb2, err := openTables(&cfg2)
	if err != nil {
		t.Fatal(err)
	}
	tb2.Close()
	if b, _ := settingsText(cfg2); a != b || !strings.Contains(a, "KRBvKR.rtbz:3747f83c9919d5a8e3406b25ae7e0423") {
		t.Errorf("settings differ for the same tables elsewhere, or lack them:\n%s\n%s", a, b)
	}
}

// wantResult is p's result (White's view) by the tables and its clock, worked out
// here from the distance to zeroing alone.
func wantResult(t *testing.T, tb *syzygy.Tables, p *board.Position) Result {
	t.Helper()
	d, err := tb.ProbeDTZ(p)
	if err != nil {
		t.Fatal(err)
	}
	w := syzygy.Rule50WDL(d, p.HalfmoveClock())
	if p.SideToMove() == board.Black {
		w = -w
	}
	switch w {
	case syzygy.Win:
		return WhiteWin
	case syzygy.Loss:
		return BlackWin
	}
	return Draw
}

// copyTables copies the test tables to a temporary folder, flipping a bit
// in the middle of the file with index damage (none when negative).
func copyTables(t *testing.T, damage int) string {
	t.Helper()
	dir := t.TempDir()
	ents, err := os.ReadDir(tbDir)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range ents {
		b, err := os.ReadFile(filepath.Join(tbDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if i == damage {
			b[len(b)/2] ^= 0x20
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// TestDatagenSyzygyDamaged: a damaged table stops the run with an error
// naming it, never a game recorded with a wrong result.
func TestDatagenSyzygyDamaged(t *testing.T) {
	cfg := syzygyGenConfig()
	cfg.Syzygy = copyTables(t, damagedIndex(t, "KRvK.rtbw"))
	cfg.Games = 12
	out := filepath.Join(t.TempDir(), "out.binpack")
	_, err := Generate(context.Background(), cfg, out, GenOptions{})
	if err == nil || !strings.Contains(err.Error(), "KRvK.rtbw") {
		t.Fatalf("error %v, want one naming KRvK.rtbw", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("an output was written: %v", err)
	}
}

// TestLabelSyzygy: with tables, a labelled record whose position they hold
// gets their result (here in place of a wrong one), counted in the
// manifest, and the others keep their game's; the settings name the
// tables by checksum.
func TestLabelSyzygy(t *testing.T) {
	dir := t.TempDir()
	var recs []Record
	for _, text := range []string{
		"8/8/8/4k3/8/8/8/R3K3 w - - 0 60 [0.5] 0",      // KRvK, White wins: the game said draw
		"8/8/8/4k3/8/8/8/RN2K3 b - - 7 61 [0.0] 0",     // KRNvK, Black to move loses: the game said Black won
		"8/8/8/4k3/8/8/8/4K2N w - - 0 62 [1.0] 0",      // KNvK: a draw
		"8/8/3k4/8/8/2P5/1R3K2/5B2 w - - 0 50 [1.0] 0", // 5 pieces, no table: the game's result stays
	} {
		r, err := ParseText(text)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	in := filepath.Join(dir, "in.bin")
	writeAll(t, in, recs)
	cfg := fakeEngine(t)
	cfg.Syzygy = tbDir
	out := filepath.Join(dir, "out.txt")
	m, err := Label(context.Background(), []string{in}, out, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if m.Summary.Tablebase != 3 || m.Summary.Changed != 3 || len(m.Settings.SyzygyTables) != 72 {
		t.Fatalf("summary %+v, %d tables", m.Summary, len(m.Settings.SyzygyTables))
	}
	got, _, err := readAll(t, out, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for i, want := range []Result{WhiteWin, WhiteWin, Draw, WhiteWin} {
		if got[i].Result != want {
			t.Errorf("record %d %s: result %v, want %v", i, got[i].FEN(), got[i].Result, want)
		}
	}

	// A damaged table stops the run, naming it.
	cfg.Syzygy = copyTables(t, damagedIndex(t, "KRvK.rtbw"))
	if _, err := Label(context.Background(), []string{in}, filepath.Join(dir, "out2.txt"), cfg); err == nil || !strings.Contains(err.Error(), "KRvK.rtbw") {
		t.Fatalf("damaged KRvK.rtbw: %v", err)
	}
}

// damagedIndex is the index of name among the test tables (for copyTables).
func damagedIndex(t *testing.T, name string) int {
	t.Helper()
	ents, err := os.ReadDir(tbDir)
	if err != nil {
		t.Fatal(err)
	}
	for i, e := range ents {
		if e.Name() == name {
			return i
		}
	}
	t.Fatalf("no %s in %s", name, tbDir)
	return -1
}
