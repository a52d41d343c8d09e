package datasets

import (
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/engine/board"
)

// TestKeepAllChainsAndFilters plays the same games keeping every position
// and keeping only the quiet ones: the full record is a chain (each record's
// move leads to the next record's position), and DefaultFilter applied to it
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
		var kept []Record
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
			if DefaultFilter.Keep(r) {
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

func TestFilterKeep(t *testing.T) {
	rec := func(line, move string) Record {
		t.Helper()
		r, err := ParseText(line)
		if err != nil {
			t.Fatal(err)
		}
		if move != "" {
			p, err := r.Position()
			if err != nil {
				t.Fatal(err)
			}
			if r.Move, err = p.ParseUCIMove(move); err != nil {
				t.Fatal(err)
			}
		}
		return r
	}
	quietMid := "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 12 [0.5] 20"
	capture := "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 12 [0.5] 20"
	check := "rnb1kbnr/pppp1ppp/8/4p3/5PPq/8/PPPPP2P/RNBQKBNR w KQkq - 1 12 [0.0] -900"
	tests := []struct {
		name string
		r    Record
		f    Filter
		keep bool
	}{
		{"quiet move passes", rec(quietMid, "f1c4"), DefaultFilter, true},
		{"unknown move passes", rec(quietMid, ""), DefaultFilter, true},
		{"capture dropped", rec(capture, "f3e5"), DefaultFilter, false},
		{"capture kept without skip-noisy", rec(capture, "f3e5"), Filter{MinPly: 16}, true},
		{"in check dropped", rec(check, ""), DefaultFilter, false},
		{"in check kept without skip-check", rec(check, ""), Filter{SkipNoisy: true}, true},
		{"early ply dropped", rec("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3 [0.5] 20", ""), DefaultFilter, false},
		{"mate score dropped", rec("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 12 [1.0] 30900", ""), DefaultFilter, false},
		{"no-score value dropped", rec("r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 12 [1.0] -32002", ""), DefaultFilter, false},
		{"zero filter keeps all", rec(check, ""), Filter{}, true},
		{"promotion dropped", rec("8/4P1k1/8/8/8/8/6K1/8 w - - 0 40 [1.0] 800", "e7e8q"), DefaultFilter, false},
		{"castling is quiet", rec("r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 20 [0.5] 0", "e1g1"), DefaultFilter, true},
	}
	for _, tc := range tests {
		if got := tc.f.Keep(&tc.r); got != tc.keep {
			t.Errorf("%s: Keep = %v, want %v", tc.name, got, tc.keep)
		}
	}
}

func TestParseFilter(t *testing.T) {
	good := map[string]*Filter{
		"none":                                  nil,
		"default":                               &DefaultFilter,
		"min-ply=8":                             {MinPly: 8},
		"skip-check,skip-noisy":                 {SkipCheck: true, SkipNoisy: true},
		"max-score=3000, min-ply=0, skip-check": {MaxScore: 3000, SkipCheck: true},
		"default,one-in=4":                      {MinPly: 16, SkipCheck: true, SkipNoisy: true, MaxScore: 30000, OneIn: 4},
		"min-ply=8,default":                     &DefaultFilter,
		"default,min-ply=8":                     {MinPly: 8, SkipCheck: true, SkipNoisy: true, MaxScore: 30000},
		"one-in=1":                              {OneIn: 1},
	}
	for s, want := range good {
		got, err := ParseFilter(s)
		if err != nil {
			t.Errorf("%q: %v", s, err)
			continue
		}
		if (got == nil) != (want == nil) || got != nil && *got != *want {
			t.Errorf("%q: got %+v, want %+v", s, got, want)
		}
	}
	for _, s := range []string{"", "min-ply", "min-ply=-1", "max-score=x", "skip-check=1", "skip-all", "one-in=0", "one-in", "default=1", "one-in=-2"} {
		if _, err := ParseFilter(s); err == nil {
			t.Errorf("%q: no error", s)
		}
	}
}

// TestFilterOneIn: one-in=N keeps about one position in N (within four
// standard deviations), the same ones on every call, every position for
// N = 1.
func TestFilterOneIn(t *testing.T) {
	p := board.StartPosition()
	var recs []Record
	// Positions of a long random-ish walk: distinct boards from one game.
	for i := 0; len(recs) < 4000 && i < 20000; i++ {
		var ml board.MoveList
		p.GenerateLegal(&ml)
		if ml.N == 0 || p.HalfmoveClock() > 90 {
			p = board.StartPosition()
			continue
		}
		p.MakeMove(ml.Moves[(i*7919)%ml.N])
		r, err := ParseText(p.FEN() + " [0.5] 0")
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	for _, n := range []int{1, 2, 4, 16} {
		f := Filter{OneIn: n}
		kept := 0
		for i := range recs {
			k := f.Keep(&recs[i])
			if k != f.Keep(&recs[i]) {
				t.Fatalf("one-in=%d: Keep changes between calls", n)
			}
			if k {
				kept++
			}
		}
		want := float64(len(recs)) / float64(n)
		if n == 1 && kept != len(recs) || math.Abs(float64(kept)-want) > 4*math.Sqrt(want) {
			t.Errorf("one-in=%d: kept %d of %d, want about %.0f", n, kept, len(recs), want)
		}
	}
}

// TestPartLine: datagen's and label's work files keep the move beside the
// text line, castling (Chess960 too) and promotions included.
func TestPartLine(t *testing.T) {
	tests := []struct{ line, move string }{
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 20 [0.5] 0", "e1g1"},
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 20 [0.5] 0", "e1c1"},
		{"8/4P1k1/8/8/8/8/6K1/8 w - - 0 40 [1.0] 800", "e7e8n"},
		{"nrbbqkrn/pppppppp/8/8/8/8/PPPPPPPP/NRBBQKRN w GBgb - 0 1 [0.5] 10", "a1b3"},
		{"4k3/8/8/8/8/8/8/1R3KR1 w GB - 0 30 [0.5] 0", "f1g1"},
		{"4k3/8/8/8/8/8/8/1R3KR1 w GB - 0 30 [0.5] 0", "f1b1"},
		{"r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3 [0.5] 20", ""},
	}
	for _, tc := range tests {
		r, err := ParseText(tc.line)
		if err != nil {
			t.Fatal(err)
		}
		if tc.move != "" {
			p, _ := r.Position()
			if r.Move, err = p.ParseUCIMove(tc.move); err != nil {
				t.Fatal(err)
			}
		}
		line := partLine(&r)
		back, err := parsePartLine(line)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if back != r {
			t.Errorf("%q read back as %q (move %v, want %v)", line, partLine(&back), back.Move, r.Move)
		}
		if tc.move == "" && line != tc.line {
			t.Errorf("no move: %q, want the text line %q", line, tc.line)
		}
	}
	for _, bad := range []string{
		"8/4P1k1/8/8/8/8/6K1/8 w - - 0 40 [1.0] 800 e7e6",
		"8/4P1k1/8/8/8/8/6K1/8 w - - 0 40 [1.0] 800 zz",
	} {
		if _, err := parsePartLine(bad); err == nil || !strings.Contains(err.Error(), "not legal") {
			t.Errorf("%q: error %v", bad, err)
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
