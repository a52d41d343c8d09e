package datagen

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/datasets/internal/datatest"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/syzygy"
)

func syzygyGenConfig() Config {
	cfg := testGenConfig(0)
	cfg.Book, cfg.RandomPlies, cfg.MinPly, cfg.Keep = "testdata/syzygy-book.epd", 2, 0, KeepAll
	cfg.Syzygy = datatest.TablesDir
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
	copyDir := datatest.CopyTables(t, "")
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
func wantResult(t *testing.T, tb *syzygy.Tables, p *board.Position) datasets.Result {
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
		return datasets.WhiteWin
	case syzygy.Loss:
		return datasets.BlackWin
	}
	return datasets.Draw
}

// TestDatagenSyzygyDamaged: a damaged table stops the run with an error
// naming it, never a game recorded with a wrong result.
func TestDatagenSyzygyDamaged(t *testing.T) {
	cfg := syzygyGenConfig()
	cfg.Syzygy = datatest.CopyTables(t, "KRvK.rtbw")
	cfg.Games = 12
	out := filepath.Join(t.TempDir(), "out.binpack")
	_, err := Generate(context.Background(), cfg, out, Options{})
	if err == nil || !strings.Contains(err.Error(), "KRvK.rtbw") {
		t.Fatalf("error %v, want one naming KRvK.rtbw", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("an output was written: %v", err)
	}
}
