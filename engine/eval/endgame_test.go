package eval

import (
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
)

func endgameOf(t *testing.T, fen string) (int, EndgameKind) {
	t.Helper()
	p, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatalf("%s: %v", fen, err)
	}
	return Endgame(p)
}

// TestEndgameKinds: which material Endgame knows, and the draws it scores.
func TestEndgameKinds(t *testing.T) {
	for _, tc := range []struct {
		name, fen string
		kind      EndgameKind
		draw      bool // the score is 0
	}{
		{"start position", board.StartFEN, NotKnown, false},
		{"KRvK with a pawn", "8/8/8/4k3/8/8/P7/KR6 w - - 0 1", NotKnown, false},
		{"KQvK with a pawn for the weak side", "8/p7/8/4k3/8/8/8/KQ6 w - - 0 1", NotKnown, false},
		{"KPvK", "8/8/8/4k3/8/8/P7/K7 w - - 0 1", NotKnown, false},
		{"KQvKQ", "q7/8/8/4k3/8/8/8/KQ6 w - - 0 1", NotKnown, false},
		{"KRvKR", "r7/8/8/4k3/8/8/8/KR6 w - - 0 1", NotKnown, false},
		{"KRvKB", "b7/8/8/4k3/8/8/8/KR6 w - - 0 1", NotKnown, false},
		{"KRRvKQ", "q7/8/8/4k3/8/8/8/KRR5 w - - 0 1", NotKnown, false},
		{"KNNvK", "8/8/8/4k3/8/8/8/KNN5 w - - 0 1", KnownScore, true},
		{"KNNvK, bare king to move", "8/8/8/4k3/8/8/8/KNN5 b - - 0 1", KnownScore, true},
		{"KBvK", "8/8/8/4k3/8/8/8/KB6 w - - 0 1", KnownScore, true},
		{"KNvK", "8/8/8/4k3/8/8/8/KN6 w - - 0 1", KnownScore, true},
		{"KBBvK, bishops on one colour", "8/8/8/4k3/8/8/8/KB1B4 w - - 0 1", KnownScore, true},
		{"KBvKN", "n7/8/8/4k3/8/8/8/KB6 w - - 0 1", KnownScore, true},
		{"KBvKB", "b7/8/8/4k3/8/8/8/KB6 b - - 0 1", KnownScore, true},
		{"KvK", "8/8/8/4k3/8/8/8/K7 w - - 0 1", KnownScore, true},
		{"KQvK", "8/8/8/4k3/8/8/8/KQ6 w - - 0 1", KnownScore, false},
		{"KRvK", "8/8/8/4k3/8/8/8/KR6 b - - 0 1", KnownScore, false},
		{"KBBvK, bishops on both colours", "8/8/8/4k3/8/8/8/KBB5 w - - 0 1", KnownScore, false},
		{"KBNvK", "8/8/8/4k3/8/8/8/KBN5 w - - 0 1", KnownScore, false},
		{"KNNNvK", "8/8/8/4k3/8/8/8/KNNN4 w - - 0 1", KnownScore, false},
		{"KRNvK", "8/8/8/4k3/8/8/8/KRN5 w - - 0 1", KnownScore, false},
		{"KQvKN", "n7/8/8/4k3/8/8/8/KQ6 w - - 0 1", KnownScore, false},
		{"KQvKB", "b7/8/8/4k3/8/8/8/KQ6 b - - 0 1", KnownScore, false},
		{"KQvKR", "r7/8/8/4k3/8/8/8/KQ6 w - - 0 1", KnownScore, false},
		{"KQBvKR", "r7/8/8/4k3/8/8/8/KQB5 w - - 0 1", KnownScore, false},
		{"KRBvKR", "1r6/8/8/4k3/8/8/8/KRB5 w - - 0 1", Guided, false},
		{"KRNvKR", "1r6/8/8/4k3/8/8/8/KRN5 b - - 0 1", Guided, false},
		{"stalemate in KQvK", "7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", KnownScore, true},
	} {
		v, kind := endgameOf(t, tc.fen)
		if kind != tc.kind {
			t.Errorf("%s (%s): kind %d, want %d", tc.name, tc.fen, kind, tc.kind)
		}
		if tc.kind != NotKnown && (v == 0) != tc.draw {
			t.Errorf("%s (%s): score %d, want a draw: %v", tc.name, tc.fen, v, tc.draw)
		}
		if tc.kind == NotKnown && v != 0 {
			t.Errorf("%s (%s): score %d with nothing known, want 0", tc.name, tc.fen, v)
		}
	}
}

// TestEndgameSides: a known score is from the side to move's point of
// view, the same for both colours, and a win outranks LikelyWin or
// KnownWin as the material says.
func TestEndgameSides(t *testing.T) {
	for _, tc := range []struct {
		name           string
		white, flipped string // a position and its colour swap (mirrored ranks, other side to move)
		least          int    // the stronger side's least score
	}{
		{"KQvK", "8/8/8/4k3/8/8/8/KQ6 w - - 0 1", "kq6/8/8/8/4K3/8/8/8 b - - 0 1", KnownWin},
		{"KRvK", "8/8/2k5/8/8/8/8/KR6 b - - 0 1", "kr6/8/8/8/8/2K5/8/8 w - - 0 1", KnownWin},
		{"KBNvK", "8/8/8/4k3/8/8/8/KBN5 w - - 0 1", "kbn5/8/8/8/4K3/8/8/8 b - - 0 1", KnownWin},
		{"KQvKR", "r7/8/8/4k3/8/8/8/KQ6 w - - 0 1", "kq6/8/8/8/4K3/8/8/R7 b - - 0 1", LikelyWin},
		{"KQvKN", "n7/8/8/4k3/8/8/8/KQ6 b - - 0 1", "kq6/8/8/8/4K3/8/8/N7 w - - 0 1", KnownWin},
	} {
		w, _ := endgameOf(t, tc.white)
		b, _ := endgameOf(t, tc.flipped)
		if w != b {
			t.Errorf("%s: %d for %s but %d for its colour swap %s", tc.name, w, tc.white, b, tc.flipped)
		}
		strong := w
		if p, _ := board.ParseFEN(tc.white); p.SideToMove() == board.Black {
			strong = -w
		}
		if strong < tc.least || strong >= KnownWin && tc.least < KnownWin {
			t.Errorf("%s (%s): the stronger side scores %d, want at least %d (and below KnownWin if less)", tc.name, tc.white, strong, tc.least)
		}
	}
}

// TestEndgameProgress: the stronger side scores more once progress is
// made: the weak king nearer the edge (a corner of the bishop's colour
// with bishop and knight), the kings nearer each other, material won.
func TestEndgameProgress(t *testing.T) {
	for _, tc := range []struct {
		name          string
		worse, better string // the stronger side is White in both
	}{
		{"KRvK: weak king in the corner, not the centre", "8/8/8/3k4/8/8/8/KR6 w - - 0 1", "k7/8/8/8/8/8/8/1R5K w - - 0 1"},
		{"KRvK: weak king on the edge, not the centre", "8/8/8/3k4/8/4K3/8/R7 b - - 0 1", "8/8/8/k7/8/4K3/8/R7 b - - 0 1"},
		{"KRvK: kings closer", "k7/8/8/8/8/8/8/1R5K w - - 0 1", "k7/8/2K5/8/8/8/8/1R6 w - - 0 1"},
		{"KQvK: weak king in the corner", "8/8/8/4k3/8/8/8/KQ6 w - - 0 1", "7k/8/8/8/8/8/8/KQ6 w - - 0 1"},
		{"KBBvK: weak king in the corner", "8/8/8/4k3/8/8/8/KBB5 w - - 0 1", "7k/8/8/8/8/8/8/KBB5 w - - 0 1"},
		{"KBNvK dark bishop (c1): the dark corner h8, not the light a8", "k7/8/8/8/8/8/8/2BNK3 w - - 0 1", "7k/8/8/8/8/8/8/2BNK3 w - - 0 1"},
		{"KBNvK light bishop (b1): the light corner a8, not the dark h8", "7k/8/8/8/8/8/8/1BN1K3 w - - 0 1", "k7/8/8/8/8/8/8/1BN1K3 w - - 0 1"},
		{"KBNvK dark bishop: from the wrong corner a8 along the edge to a1", "k7/8/8/8/8/8/8/2BNK3 w - - 0 1", "8/8/8/k7/8/8/8/2BNK3 w - - 0 1"},
		{"KBNvK: the centre is worse than the wrong corner's edge", "8/8/8/3k4/8/8/8/2BNK3 w - - 0 1", "8/k7/8/8/8/8/8/2BNK3 w - - 0 1"},
		{"KQvKR: weak king in the corner", "r7/8/8/4k3/8/8/8/KQ6 w - - 0 1", "r6k/8/8/8/8/8/8/KQ6 w - - 0 1"},
		{"KQvKR -> KQvK: the rook won", "8/8/8/4k3/8/8/8/KQ5r w - - 0 1", "8/8/8/4k3/8/8/8/KQ6 w - - 0 1"},
		{"KRNvK: the knight kept, not lost", "8/8/8/4k3/8/8/8/KR6 w - - 0 1", "8/8/8/4k3/8/8/8/KRN5 w - - 0 1"},
	} {
		worse, _ := endgameOf(t, tc.worse)
		better, _ := endgameOf(t, tc.better)
		if p, _ := board.ParseFEN(tc.worse); p.SideToMove() == board.Black {
			worse = -worse
		}
		if p, _ := board.ParseFEN(tc.better); p.SideToMove() == board.Black {
			better = -better
		}
		if better <= worse {
			t.Errorf("%s: %d for %s, not more than %d for %s", tc.name, better, tc.better, worse, tc.worse)
		}
	}
}

// TestEndgameMopUpSteps: the mop-up term has no plateau a search could
// wander on: for every placement of the kings more than a knight's move
// apart, the strong king has a step that raises the term.
func TestEndgameMopUpSteps(t *testing.T) {
	for a := board.Square(0); a < 64; a++ {
		for w := board.Square(0); w < 64; w++ {
			if a == w || board.KingAttacks(a).Has(w) {
				continue
			}
			strongGains := false
			for to := board.KingAttacks(a); to != 0; {
				if n := to.PopLSB(); n != w && !board.KingAttacks(w).Has(n) && mopUp(n, w) > mopUp(a, w) {
					strongGains = true
				}
			}
			if !strongGains && manhattan(a, w) > 2 {
				t.Errorf("strong king %s, weak king %s: no step of the strong king raises the term", a, w)
			}
		}
	}
}

// BenchmarkEndgameMiddlegame is the cost Endgame adds to every evaluation
// of a position with pawns; BenchmarkEndgameKBNvK that of one it scores.
func BenchmarkEndgameMiddlegame(b *testing.B) {
	p, err := board.ParseFEN("r1bq1rk1/pp2ppbp/2np1np1/8/3NP3/2N1BP2/PPPQ2PP/R3KB1R w KQ - 0 9")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		Endgame(p)
	}
}

func BenchmarkEndgameKBNvK(b *testing.B) {
	p, err := board.ParseFEN("8/8/8/4k3/8/8/8/KBN5 w - - 0 1")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		Endgame(p)
	}
}

// TestQueenRookProgress: each term of the queen-against-rook progress
// points the way the tables' distances do, the other distances held equal
// (the test checks that each pair differs only in the one it is about):
// the defending king on the edge rather than in the centre, in a corner
// rather than the middle of an edge, the attacking king close rather than
// far, and the rook cut off from its king rather than next to it.
func TestQueenRookProgress(t *testing.T) {
	type placement struct{ strongKing, weakKing, queen, rook string }
	for _, tc := range []struct {
		name          string
		worse, better placement
		same          [3]bool // the pair's kings', rook's and queen's distances must be equal
	}{
		{"defending king on the edge, not in the centre",
			placement{"d6", "d4", "h8", "d1"}, placement{"d3", "d1", "h5", "a1"}, [3]bool{true, true, true}},
		{"defending king in the corner, not the middle of the edge",
			placement{"d3", "d1", "h5", "a1"}, placement{"c3", "a1", "e5", "d1"}, [3]bool{true, true, true}},
		{"kings close, not far",
			placement{"f6", "a1", "e5", "d1"}, placement{"c2", "a1", "e5", "d1"}, [3]bool{false, true, true}},
		{"rook cut off from its king, not next to it",
			placement{"c3", "a1", "e5", "b2"}, placement{"c3", "a1", "e5", "h2"}, [3]bool{true, false, true}},
		{"rook cut off from its king, not two squares away",
			placement{"c3", "a1", "e5", "c1"}, placement{"c3", "a1", "e5", "e1"}, [3]bool{true, false, true}},
	} {
		sq := func(name string) board.Square {
			s, ok := board.ParseSquare(name)
			if !ok {
				t.Fatalf("%s: %q is not a square", tc.name, name)
			}
			return s
		}
		dist := func(p placement) [3]int {
			w := sq(p.weakKing)
			return [3]int{chebyshev(sq(p.strongKing), w), chebyshev(sq(p.rook), w), chebyshev(sq(p.queen), w)}
		}
		dw, db := dist(tc.worse), dist(tc.better)
		for i, same := range tc.same {
			if same && dw[i] != db[i] {
				t.Fatalf("%s: the pair differs in distance %d (%d, %d), not only in what it tests", tc.name, i, dw[i], db[i])
			}
		}
		score := func(p placement) int {
			return queenRookProgress(sq(p.strongKing), sq(p.weakKing), sq(p.queen), sq(p.rook))
		}
		if w, b := score(tc.worse), score(tc.better); b <= w {
			t.Errorf("%s: %d for %+v, not more than %d for %+v", tc.name, b, tc.better, w, tc.worse)
		}
	}
}

// TestQueenRookRange: every placement of queen against rook scores
// between LikelyWin and KnownWin for the stronger side, so that winning
// the rook (a known win) always beats any progress and the score stays a
// likely win.
func TestQueenRookRange(t *testing.T) {
	lo, hi := 1<<30, -(1 << 30)
	for k := board.Square(0); k < 64; k++ {
		for w := board.Square(0); w < 64; w++ {
			for _, q := range []board.Square{0, 9, 27, 63} {
				for _, r := range []board.Square{7, 18, 36, 56} {
					v := queenRookProgress(k, w, q, r)
					lo, hi = min(lo, v), max(hi, v)
				}
			}
		}
	}
	const base = LikelyWin + 900 - 500
	if base+lo <= LikelyWin || base+hi >= KnownWin {
		t.Errorf("queen against rook scores %d..%d, want within (%d, %d)", base+lo, base+hi, LikelyWin, KnownWin)
	}
}

// TestRookBishopEdge: what rook and bishop against rook adds to the
// mop-up term, by placement of the kings (the bishop's colour given).
func TestRookBishopEdge(t *testing.T) {
	for _, tc := range []struct {
		name                  string
		strongKing, weakKing  string
		darkBishop            bool
		edge, opposition, own bool // the terms that apply
	}{
		{"defending king a square from the edge", "e5", "e7", true, false, false, false},
		{"in the centre", "e3", "e5", true, false, false, false},
		{"on the edge, light square, dark bishop", "a1", "e8", true, true, false, false},
		{"on the edge, light square, light bishop", "a1", "e8", false, true, false, true},
		{"opposition from below", "e6", "e8", false, true, true, true},
		{"opposition in from the h-file", "f4", "h4", false, true, true, false},
		{"opposition in from a corner", "a3", "a1", true, true, true, true},
		{"two squares along the edge is not opposition", "g8", "e8", false, true, false, true},
		{"a knight's move is not opposition", "d6", "e8", false, true, false, true},
	} {
		sq := func(name string) board.Square {
			s, ok := board.ParseSquare(name)
			if !ok {
				t.Fatalf("%s: %q is not a square", tc.name, name)
			}
			return s
		}
		want := 0
		if tc.edge {
			want += rbEdge
		}
		if tc.opposition {
			want += rbOpposition
		}
		if tc.own {
			want += rbColour
		}
		if got := rookBishopEdge(sq(tc.strongKing), sq(tc.weakKing), tc.darkBishop); got != want {
			t.Errorf("%s (kings %s, %s): %d, want %d", tc.name, tc.strongKing, tc.weakKing, got, want)
		}
	}
	// The hand-made term (Endgame's fallback): the attacking king moved
	// from a knight's move away into opposition scores more.
	d6, e6, e8 := board.MakeSquare(3, 5), board.MakeSquare(4, 5), board.MakeSquare(4, 7)
	worse := mopUp(d6, e8) + rookBishopEdge(d6, e8, true)
	better := mopUp(e6, e8) + rookBishopEdge(e6, e8, true)
	if better <= worse+rbOpposition/2 {
		t.Errorf("opposition (kings e6, e8): %d, not well above %d (kings d6, e8)", better, worse)
	}
}

// TestEndgameRookBishopRook: Endgame scores rook and bishop against rook
// by the fitted network (rookBishopRook), added to the evaluator's score
// (Guided), from the side to move's point of view and alike for both
// colours; rook and knight against rook keeps the mop-up term.
func TestEndgameRookBishopRook(t *testing.T) {
	for _, tc := range []struct {
		fen, swapped string // a position and its colour swap (mirrored ranks, other side to move)
		strong       board.Color
	}{
		{"5B2/5R2/k7/3K4/r7/8/8/8 w - - 0 1", "8/8/8/R7/3k4/K7/5r2/5b2 b - - 0 1", board.White},
		{"8/8/2r5/5K2/8/8/RB6/7k b - - 0 1", "7K/rb6/8/8/5k2/2R5/8/8 w - - 0 1", board.White},
		{"8/6r1/8/8/8/5k2/7K/1b1R4 b - - 0 1", "1B1r4/7k/5K2/8/8/8/6R1/8 w - - 0 1", board.Black},
	} {
		p, err := board.ParseFEN(tc.fen)
		if err != nil {
			t.Fatal(err)
		}
		v, kind := Endgame(p)
		if kind != Guided {
			t.Fatalf("%s: kind %d, want Guided", tc.fen, kind)
		}
		net, ok := rookBishopRook(p, tc.strong)
		if !ok {
			t.Fatalf("the embedded network %s does not decode", krbWeightsFile)
		}
		if p.SideToMove() != tc.strong {
			net = -net
		}
		if v != net {
			t.Errorf("%s: Endgame %d, want the network's %d", tc.fen, v, net)
		}
		if w, _ := endgameOf(t, tc.swapped); w != v {
			t.Errorf("%s: %d, but %d for its colour swap %s", tc.fen, v, w, tc.swapped)
		}
	}
	// Rook and knight: the mop-up term alone.
	p, err := board.ParseFEN("8/8/8/4k3/8/8/1r6/KRN5 w - - 0 1")
	if err != nil {
		t.Fatal(err)
	}
	if v, kind := Endgame(p); kind != Guided || v != mopUp(p.King(board.White), p.King(board.Black)) {
		t.Errorf("KRNvKR: %d (kind %d), want the mop-up term %d, Guided", v, kind, mopUp(p.King(board.White), p.King(board.Black)))
	}
}
