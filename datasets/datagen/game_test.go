package datagen

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/internal/cputime"
)

// TestKeepAllChainsAndFilters plays the same games keeping every position
// and keeping only the quiet ones: the full record is a chain (each record's
// move leads to the next record's position), and datasets.DefaultFilter applied to it
// gives exactly what datagen keeps itself.
func TestKeepAllChainsAndFilters(t *testing.T) {
	quiet := testGenConfig(0)
	all := quiet
	all.Keep = KeepAll
	pq, err := newPlayer(&quiet, nil)
	if err != nil {
		t.Fatal(err)
	}
	pa, err := newPlayer(&all, nil)
	if err != nil {
		t.Fatal(err)
	}
	for g := uint64(0); g < 4; g++ {
		gq, err := pq.play(context.Background(), g)
		if err != nil {
			t.Fatal(err)
		}
		ga, err := pa.play(context.Background(), g)
		if err != nil {
			t.Fatal(err)
		}
		if len(ga.Records) != ga.Plies-quiet.RandomPlies {
			t.Errorf("game %d: %d records for %d searched plies", g, len(ga.Records), ga.Plies-quiet.RandomPlies)
		}
		var kept []datasets.Record
		for i := range ga.Records {
			r := &ga.Records[i]
			if r.Move == board.NullMove {
				t.Fatalf("game %d record %d has no move", g, i)
			}
			if i+1 < len(ga.Records) {
				p, err := r.Position()
				if err != nil {
					t.Fatal(err)
				}
				p.MakeMove(r.Move)
				next := ga.Records[i+1]
				if got, want := p.FEN(), next.FEN(); got != want {
					t.Fatalf("game %d record %d: %s after %v is %s, next record %s", g, i, r.FEN(), r.Move, got, want)
				}
			}
			if datasets.DefaultFilter.Keep(r) {
				kept = append(kept, *r)
			}
		}
		if len(kept) != len(gq.Records) {
			t.Fatalf("game %d: filter keeps %d of %d, datagen's quiet mode %d", g, len(kept), len(ga.Records), len(gq.Records))
		}
		for i := range kept {
			if kept[i] != gq.Records[i] {
				t.Fatalf("game %d quiet record %d: filtered %s, datagen %s", g, i, kept[i].Text(), gq.Records[i].Text())
			}
		}
	}
}

// TestCheckGameFile: a damaged game file in datagen's parts folder is
// reported with its own name and line before it is packed.
func TestCheckGameFile(t *testing.T) {
	good := "# game 3 plies 40 result 0.5 termination repetition\n" +
		"4k3/8/8/8/8/8/8/1R3KR1 w GB - 0 30 [0.5] 0 f1g1\n" +
		"r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3 [0.5] 20\n"
	if n, err := checkGameFile("g.txt", []byte(good)); err != nil || n != 2 {
		t.Fatalf("good file: %d positions, %v", n, err)
	}
	if n, err := checkGameFile("g.txt", []byte("# game 4 plies 12 result 1.0 termination checkmate\n")); err != nil || n != 0 {
		t.Fatalf("a game without recorded positions: %d, %v", n, err)
	}
	for _, tc := range []struct{ name, data, want string }{
		{"truncated", good[:len(good)-5], "line 1: the file does not end with a newline"},
		{"empty", "", "truncated"},
		{"no header", good[strings.Index(good, "\n")+1:], "line 1: no game header"},
		{"bad record", strings.Replace(good, "[0.5] 20", "[0.5] 2x", 1), "line 3:"},
		{"illegal move", strings.Replace(good, "f1g1", "f1f8", 1), "line 2: move"},
		{"second header", good + "# game 4 plies 1 result 1.0 termination checkmate\n", "line 4: a blank or second header"},
	} {
		_, err := checkGameFile("parts/g-00000003.txt", []byte(tc.data))
		if err == nil || !strings.Contains(err.Error(), "parts/g-00000003.txt") || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want the file name and %q", tc.name, err, tc.want)
		}
	}
}

// TestSearchTimeout: a search that does not end stops the game with an
// error naming the position instead of hanging the run.
func TestSearchTimeout(t *testing.T) {
	old := searchTimeout
	searchTimeout = time.Millisecond
	defer func() { searchTimeout = old }()
	cfg := testGenConfig(0)
	cfg.Nodes = 0
	cfg.Depth = 60 // far more than a millisecond
	pl, err := newPlayer(&cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, err = pl.play(context.Background(), 0)
	if err == nil || !strings.Contains(err.Error(), "did not end within") || !strings.Contains(err.Error(), "game 0") {
		t.Fatalf("error %v", err)
	}
}

// TestSearchWatchCPU: the watchdog counts CPU time, not wall time, so a
// process that is stopped or starved (here: idle) is not taken for a hung
// search, while one that burns its budget is stopped.
func TestSearchWatchCPU(t *testing.T) {
	if cputime.Process() == 0 {
		t.Fatal("no process CPU clock on this system: the watchdog would fall back to wall time")
	}
	old := searchTimeout
	searchTimeout = 100 * time.Millisecond
	defer func() { searchTimeout = old }()
	ctx, cancel := searchWatch(context.Background())
	defer cancel()
	time.Sleep(3 * searchTimeout) // idle: wall time passes, CPU time barely
	if ctx.Err() != nil {
		t.Fatal("the watchdog fired on wall time while the process was idle")
	}
	deadline := time.Now().Add(time.Minute)
	x := 0
	for ctx.Err() == nil && time.Now().Before(deadline) {
		x++ // burn CPU
	}
	if ctx.Err() == nil {
		t.Fatalf("the watchdog did not fire after a minute of CPU (%d)", x)
	}
}
