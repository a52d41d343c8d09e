package label

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/datasets/internal/datatest"
)

// TestLabelSyzygy: with tables, a labelled record whose position they hold
// gets their result (here in place of a wrong one), counted in the
// manifest, and the others keep their game's; the settings name the
// tables by checksum.
func TestLabelSyzygy(t *testing.T) {
	dir := t.TempDir()
	var recs []datasets.Record
	for _, text := range []string{
		"8/8/8/4k3/8/8/8/R3K3 w - - 0 60 [0.5] 0",      // KRvK, White wins: the game said draw
		"8/8/8/4k3/8/8/8/RN2K3 b - - 7 61 [0.0] 0",     // KRNvK, Black to move loses: the game said Black won
		"8/8/8/4k3/8/8/8/4K2N w - - 0 62 [1.0] 0",      // KNvK: a draw
		"8/8/3k4/8/8/2P5/1R3K2/5B2 w - - 0 50 [1.0] 0", // 5 pieces, no table: the game's result stays
	} {
		r, err := datasets.ParseText(text)
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	in := filepath.Join(dir, "in.bin")
	writeAll(t, in, recs)
	cfg := fakeEngine(t)
	cfg.Syzygy = datatest.TablesDir
	out := filepath.Join(dir, "out.txt")
	m, err := Run(context.Background(), []string{in}, out, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if m.Summary.Tablebase != 3 || m.Summary.Changed != 3 || len(m.Settings.SyzygyTables) != 72 {
		t.Fatalf("summary %+v, %d tables", m.Summary, len(m.Settings.SyzygyTables))
	}
	got := readAll(t, out)
	for i, want := range []datasets.Result{datasets.WhiteWin, datasets.WhiteWin, datasets.Draw, datasets.WhiteWin} {
		if got[i].Result != want {
			t.Errorf("record %d %s: result %v, want %v", i, got[i].FEN(), got[i].Result, want)
		}
	}

	// A damaged table stops the run, naming it.
	cfg.Syzygy = datatest.CopyTables(t, "KRvK.rtbw")
	if _, err := Run(context.Background(), []string{in}, filepath.Join(dir, "out2.txt"), cfg); err == nil || !strings.Contains(err.Error(), "KRvK.rtbw") {
		t.Fatalf("damaged KRvK.rtbw: %v", err)
	}
}
