package match

import (
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
)

func playUCI(t *testing.T, fen string, moves string) *board.Position {
	t.Helper()
	p, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatalf("%s: %v", fen, err)
	}
	for _, s := range strings.Fields(moves) {
		m, err := p.ParseUCIMove(s)
		if err != nil {
			t.Fatalf("%s in %s: %v", s, p.FEN(), err)
		}
		p.MakeMove(m)
	}
	return p
}

func TestJudge(t *testing.T) {
	tests := []struct {
		name   string
		fen    string
		moves  string
		result result
		reason string
	}{
		{"fool's mate", board.StartFEN, "f2f3 e7e5 g2g4 d8h4", blackWins, "Black mates"},
		{"back-rank mate", "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1", "a1a8", whiteWins, "White mates"},
		{"stalemate", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", "", draw, "Draw by stalemate"},
		{"threefold", board.StartFEN, "g1f3 g8f6 f3g1 f6g8 g1f3 g8f6 f3g1 f6g8", draw, "Draw by 3-fold repetition"},
		{"twofold is not a draw", board.StartFEN, "g1f3 g8f6 f3g1 f6g8", noResult, ""},
		{"threefold away from the start", "4k3/8/8/8/8/8/4P3/R3K3 w - - 10 40", "a1a2 e8d8 a2a1 d8e8 a1a2 e8d8 a2a1 d8e8", draw, "Draw by 3-fold repetition"},
		{"fifty moves", "8/8/4k3/8/8/3K4/R7/8 w - - 99 80", "a2a3", draw, "Draw by fifty moves rule"},
		{"99 plies is not fifty moves", "8/8/4k3/8/8/3K4/R7/8 w - - 98 80", "a2a3", noResult, ""},
		{"mate on the hundredth ply stands", "7k/8/6K1/8/8/8/8/R7 w - - 99 80", "a1a8", whiteWins, "White mates"},
		{"KvK after a capture", "8/8/4k3/8/8/3K4/3r4/8 w - - 0 1", "d3d2", draw, "Draw by insufficient mating material"},
		{"KNvK", "8/8/4k3/8/8/3K4/8/3n4 w - - 0 1", "", draw, "Draw by insufficient mating material"},
		{"KBvKB same colour", "8/8/3bk3/8/8/3K4/1B6/8 w - - 0 1", "", draw, "Draw by insufficient mating material"},
		{"KBvKB opposite colours goes on", "8/8/2b1k3/8/8/3K4/1B6/8 w - - 0 1", "", noResult, ""},
		{"start position", board.StartFEN, "", noResult, ""},
	}
	for _, tt := range tests {
		p := playUCI(t, tt.fen, tt.moves)
		r, reason, over := judge(p)
		if r != tt.result || reason != tt.reason || over != (tt.result != noResult) {
			t.Errorf("%s: judge = %v, %q, %v; want %v, %q", tt.name, r, reason, over, tt.result, tt.reason)
		}
	}
}

func TestBareKing(t *testing.T) {
	p := playUCI(t, "8/8/4k3/8/8/3K4/R7/8 w - - 0 1", "")
	if !bareKing(p, board.Black) || bareKing(p, board.White) {
		t.Error("bareKing wrong for KRvK")
	}
}

// step is one move fed to the adjudicator.
type step struct {
	cp         int
	mate       int
	none       bool // no score reported
	irrev      bool // capture or pawn move
	wantResult result
}

func TestAdjudicator(t *testing.T) {
	cp := func(v int) step { return step{cp: v} }
	end := func(s step, r result) step { s.wantResult = r; return s }
	tests := []struct {
		name   string
		adj    adjudicator
		steps  []step // White moves first
		reason string
	}{
		{"draw after 2 moves each in band, from move 2", adjudicator{draw: DrawRule{MoveNumber: 2, MoveCount: 2, Score: 10}},
			[]step{cp(5), cp(-5), cp(10), end(cp(-10), draw)}, "Draw by adjudication"},
		{"draw waits for the move number", adjudicator{draw: DrawRule{MoveNumber: 3, MoveCount: 1, Score: 10}},
			[]step{cp(0), cp(0), cp(0), cp(0), cp(0), end(cp(0), draw)}, "Draw by adjudication"},
		{"a score out of the band restarts the count", adjudicator{draw: DrawRule{MoveNumber: 0, MoveCount: 2, Score: 10}},
			[]step{cp(0), cp(0), cp(0), cp(11), cp(0), cp(0), cp(0), end(cp(0), draw)}, "Draw by adjudication"},
		{"a capture restarts the count", adjudicator{draw: DrawRule{MoveNumber: 0, MoveCount: 2, Score: 10}},
			[]step{cp(0), cp(0), cp(0), {irrev: true}, cp(0), cp(0), cp(0), end(cp(0), draw)}, "Draw by adjudication"},
		{"a missing score restarts the count", adjudicator{draw: DrawRule{MoveNumber: 0, MoveCount: 1, Score: 10}},
			[]step{cp(0), {none: true}, cp(0), end(cp(0), draw)}, "Draw by adjudication"},
		{"mate scores are not draws", adjudicator{draw: DrawRule{MoveCount: 1, Score: 10}},
			[]step{cp(0), {mate: 5}, {mate: -4}, cp(3)}, ""},
		{"two-sided resign", adjudicator{resign: ResignRule{MoveCount: 2, Score: 600, TwoSided: true}},
			[]step{cp(700), cp(-700), cp(650), end(cp(-600), whiteWins)}, "White wins by adjudication"},
		{"two-sided needs the winner to agree", adjudicator{resign: ResignRule{MoveCount: 2, Score: 600, TwoSided: true}},
			[]step{cp(500), cp(-700), cp(500), cp(-700), cp(500), cp(-900)}, ""},
		{"two-sided, the winner agrees last", adjudicator{resign: ResignRule{MoveCount: 2, Score: 600, TwoSided: true}},
			[]step{cp(-700), cp(0), cp(-700), cp(700), cp(-800), end(step{mate: 3}, blackWins)}, "Black wins by adjudication"},
		{"one-sided resign", adjudicator{resign: ResignRule{MoveCount: 2, Score: 600}},
			[]step{cp(0), {mate: -6}, cp(0), end(cp(-601), whiteWins)}, "White wins by adjudication"},
		{"an interrupted streak does not resign", adjudicator{resign: ResignRule{MoveCount: 2, Score: 600}},
			[]step{cp(0), cp(-700), cp(0), cp(-100), cp(0), cp(-700)}, ""},
		{"max moves", adjudicator{maxMoves: 3},
			[]step{cp(0), cp(0), cp(0), cp(0), cp(0), end(cp(0), draw)}, "Draw by adjudication: maximum number of moves"},
	}
	for _, tt := range tests {
		a := tt.adj
		c := board.White
		ended := false
		for i, s := range tt.steps {
			sc := engineScore{CP: s.cp, Valid: !s.none}
			if s.mate != 0 {
				sc = engineScore{Mate: s.mate, IsMate: true, Valid: true}
			}
			r, reason, over := a.update(c, sc, !s.irrev, i+1)
			if r != s.wantResult || over != (s.wantResult != noResult) {
				t.Errorf("%s: ply %d: update = %v, %q; want %v", tt.name, i+1, r, reason, s.wantResult)
				break
			}
			if over {
				ended = true
				if reason != tt.reason {
					t.Errorf("%s: reason %q, want %q", tt.name, reason, tt.reason)
				}
			}
			c = c.Other()
		}
		if !ended && tt.reason != "" {
			t.Errorf("%s: never adjudicated", tt.name)
		}
	}
}

func TestScore(t *testing.T) {
	tests := []struct {
		s     engineScore
		str   string
		value int
	}{
		{engineScore{CP: 31, Valid: true}, "+0.31", 31},
		{engineScore{CP: -150, Valid: true}, "-1.50", -150},
		{engineScore{CP: 0, Valid: true}, "+0.00", 0},
		{engineScore{CP: -5, Valid: true}, "-0.05", -5},
		{engineScore{Mate: 5, IsMate: true, Valid: true}, "+M5", 99995},
		{engineScore{Mate: -3, IsMate: true, Valid: true}, "-M3", -99997},
		{engineScore{Mate: 0, IsMate: true, Valid: true}, "-M0", -100000},
		{engineScore{}, "", 0},
	}
	for _, tt := range tests {
		if got := tt.s.String(); got != tt.str {
			t.Errorf("%+v.String() = %q, want %q", tt.s, got, tt.str)
		}
		if got := tt.s.value(); got != tt.value {
			t.Errorf("%+v.value() = %d, want %d", tt.s, got, tt.value)
		}
	}
}
