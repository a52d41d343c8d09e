package datasets

import (
	"math"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
)

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
