package nnue

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/board/boardtest"
)

// bruteThreatFeatures lists perspective c's active threat features of p
// the slow way: every ordered pair of occupied squares, asking the board
// whether the first piece attacks the second.
func bruteThreatFeatures(p *board.Position, c board.Color) []int {
	var out []int
	occ := p.Occupied()
	for a := board.Square(0); a < 64; a++ {
		x := p.PieceOn(a)
		if x == board.NoPiece {
			continue
		}
		for b := board.Square(0); b < 64; b++ {
			y := p.PieceOn(b)
			if y == board.NoPiece || a == b || !board.Attacks(x.Type(), x.Color(), a, occ).Has(b) {
				continue
			}
			if f := ThreatIndex(c, p.King(c), x, a, y, b); f >= 0 {
				out = append(out, f)
			}
		}
	}
	slices.Sort(out)
	return out
}

// TestThreatIndex checks Full_Threats' index against its definition: the
// table sizes add up to 79,856; every feature pair gets its own index in
// range; the pairs that are not features (a pawn attacking a bishop, a
// bishop or rook attacking a queen, a king attacking a queen or king, the
// second half of a mutual same-type pair) get -1; and a few indices worked
// out by hand.
func TestThreatIndex(t *testing.T) {
	if threatTab.size != ThreatFeatures {
		t.Fatalf("threat tables hold %d features, want %d", threatTab.size, ThreatFeatures)
	}
	seen := make([]bool, ThreatFeatures)
	count := 0
	v := threatViewOf(board.White, board.E1^4) // a1..d1 king: no mirror
	for x := board.Piece(0); x < 12; x++ {
		for a := board.Square(0); a < 64; a++ {
			if x.Type() == board.Pawn && (a.Rank() == 0 || a.Rank() == 7) {
				continue
			}
			for att := emptyAttacks(x, a); att != 0; {
				b := att.PopLSB()
				for y := board.Piece(0); y < 12; y++ {
					f := threatIndex(v, mkThreat(x, y, a, b))
					if f < 0 {
						continue
					}
					if f >= ThreatFeatures || seen[f] {
						t.Fatalf("%v%v attacks %v%v: index %d out of range or taken", x, a, y, b, f)
					}
					seen[f] = true
					count++
				}
			}
		}
	}
	t.Logf("%d distinct feature pairs", count)
	sq := func(s string) board.Square {
		return board.MakeSquare(int(s[0]-'a'), int(s[1]-'1'))
	}
	wp, wb, wr, wq, wk := wPawn, wBishop, wRook, wQueen, wKing
	bp, bn, bq := bPawn, bKnight, bQueen
	for _, tc := range []struct {
		name  string
		persp board.Color
		ksq   string
		x     board.Piece
		from  string
		y     board.Piece
		to    string
		want  int
	}{
		// Enemy pawns attack each other: counted from the higher square only.
		{"enemy pawns, from < to", board.White, "e1", wp, "a2", bp, "b3", -1},
		{"pawn on bishop", board.White, "a1", wp, "d4", wb, "e5", -1},
		{"bishop on queen", board.White, "a1", wb, "c1", bq, "d2", -1},
		{"rook on queen", board.White, "a1", wr, "a3", wq, "a5", -1},
		{"king on queen", board.White, "a1", wk, "a1", bq, "a2", -1},
		{"king on king", board.White, "a1", wk, "d4", board.MakePiece(board.Black, board.King), "d5", -1},
		{"knight pair, from < to", board.White, "a1", board.MakePiece(board.White, board.Knight), "b1", bn, "c3", -1},
	} {
		got := ThreatIndex(tc.persp, sq(tc.ksq), tc.x, sq(tc.from), tc.y, sq(tc.to))
		switch {
		case tc.want == -1 && got != -1:
			t.Errorf("%s: index %d, want not a feature", tc.name, got)
		case tc.want >= 0 && got != tc.want:
			t.Errorf("%s: index %d, want %d", tc.name, got, tc.want)
		}
	}
	// The knight pair the other way round is a feature, and the same one
	// the mirrored and colour-swapped views give.
	f := ThreatIndex(board.White, sq("a1"), bn, sq("c3"), board.MakePiece(board.White, board.Knight), sq("b1"))
	if f < 0 {
		t.Fatalf("black knight c3 attacking white knight b1 is not a feature")
	}
	if ThreatIndex(board.White, sq("a1"), bp, sq("b3"), wp, sq("a2")) < 0 {
		t.Fatalf("black pawn b3 attacking white pawn a2 is not a feature")
	}
	// White pawn a2 attacking a black knight on b3, White's view, king on
	// a-d: the white pawn's blocks come first, own targets (P, N, R) then
	// the opponent's, each 84 pairs (a white pawn's from a2..h7): block 3 +
	// 1 (knight); a2 is the first square and b3 its first target.
	wn := board.MakePiece(board.White, board.Knight)
	if got := ThreatIndex(board.White, sq("a1"), wp, sq("a2"), bn, sq("b3")); got != 4*84 {
		t.Errorf("wP a2 x bN b3: %d, want %d", got, 4*84)
	}
	// Black's view flips the board and swaps colours: a black pawn on a7
	// attacking a white knight on b6 is the same feature.
	if got := ThreatIndex(board.Black, sq("a8"), bp, sq("a7"), wn, sq("b6")); got != 4*84 {
		t.Errorf("bP a7 x wN b6 from Black's view: %d, want %d", got, 4*84)
	}
	// With the king on e-h the files mirror: h2 x g3 is a2 x b3.
	if got := ThreatIndex(board.White, sq("g1"), wp, sq("h2"), bn, sq("g3")); got != 4*84 {
		t.Errorf("wP h2 x bN g3, king g1: %d, want %d", got, 4*84)
	}
}

// TestThreatDelta checks the threats a move removes and adds against the
// difference of the full lists before and after it, on every legal move
// of positions chosen for discovered attacks, blocked and opened lines,
// en passant, castling (Chess960 too) and promotions, and on random games.
func TestThreatDelta(t *testing.T) {
	fens := []string{board.StartFEN,
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
		"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
		"1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1",
		"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
		"4k3/1P6/8/3q4/8/8/6p1/R3K2R b KQ - 0 1",
	}
	fens = append(fens, boardtest.Positions()[:40]...)
	key := func(ths []threat) []uint32 {
		out := make([]uint32, len(ths))
		for i, th := range ths {
			out[i] = th.key()
		}
		slices.Sort(out)
		return out
	}
	minus := func(a, b []uint32) []uint32 {
		var out []uint32
		for _, k := range a {
			if _, ok := slices.BinarySearch(b, k); !ok {
				out = append(out, k)
			}
		}
		return out
	}
	check := func(p *board.Position, m board.Move) {
		before := mailboxOf(p, board.NoSquare)
		p.MakeMove(m)
		after := before
		rem, add := threatDelta(&after, p.LastDelta(), nil, nil)
		if want := mailboxOf(p, board.NoSquare); after != want {
			t.Fatalf("%s: the board after playing the delta differs", p.FEN())
		}
		b, a := key(before.threats(nil)), key(after.threats(nil))
		if !slices.Equal(key(rem), minus(b, a)) || !slices.Equal(key(add), minus(a, b)) {
			p.UnmakeMove()
			t.Fatalf("%s, move %s: diff removes %d adds %d, full lists differ by %d and %d", p.FEN(), p.UCI(m), len(rem), len(add), len(minus(b, a)), len(minus(a, b)))
		}
		p.UnmakeMove()
	}
	moves := 0
	for _, fen := range fens {
		p, err := board.ParseFEN(fen)
		if err != nil {
			t.Fatal(err)
		}
		var ml board.MoveList
		p.GenerateLegal(&ml)
		for _, m := range ml.Moves[:ml.N] {
			check(p, m)
			moves++
		}
	}
	rng := rand.New(rand.NewPCG(18, 1))
	for g := 0; g < 200; g++ {
		p, _ := board.ParseFEN(board.StartFEN)
		for ply := 0; ply < 120; ply++ {
			var ml board.MoveList
			p.GenerateLegal(&ml)
			if ml.N == 0 {
				break
			}
			m := ml.Moves[rng.IntN(ml.N)]
			check(p, m)
			moves++
			p.MakeMove(m)
		}
	}
	t.Logf("%d moves", moves)
}

// TestThreatActive checks the board's threat list, indexed, against the
// brute-force features on the reference positions, for both perspectives.
func TestThreatActive(t *testing.T) {
	for _, fen := range boardtest.Positions()[:300] {
		p, err := board.ParseFEN(fen)
		if err != nil {
			t.Fatal(err)
		}
		mb := mailboxOf(p, board.NoSquare)
		for c := board.White; c <= board.Black; c++ {
			var got []int
			v := threatViewOf(c, p.King(c))
			for _, th := range mb.threats(nil) {
				if f := threatIndex(v, th); f >= 0 {
					got = append(got, f)
				}
			}
			slices.Sort(got)
			if want := bruteThreatFeatures(p, c); !slices.Equal(got, want) {
				t.Fatalf("%s %v: %d features, brute force %d", fen, c, len(got), len(want))
			}
		}
	}
}

// TestThreatsAnyDesign gives chess768 threat features from TOML (an
// override: features.threats = "full") and builds it from float tensors as
// nnuelab's own nets are stored: ft.weight must hold the 79,856 threat rows
// after the 768 piece-square rows; the rows a record's threats select
// (FeatureSet.AppendThreats, the trainer's view) are the brute-force
// features; and the incremental evaluator equals a from-scratch
// evaluation at every node of random games.
func TestThreatsAnyDesign(t *testing.T) {
	base, err := archs.Load("chess768")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := base.Override(`features.threats="full"`, `name="chess768-threats"`, `accumulator.width=64`)
	if err != nil {
		t.Fatal(err)
	}
	rng := rand.New(rand.NewPCG(768, 18))
	w, rows := spec.Accumulator.Width, spec.Features.Inputs()
	u := func(n int, lim float32) []float32 {
		v := make([]float32, n)
		for i := range v {
			v[i] = float32(math.Round(float64((2*rng.Float32()-1)*lim)*255) / 255)
		}
		return v
	}
	tensors := func(rows int) []Tensor {
		return []Tensor{
			{"ft.weight", []int{rows, w}, u(rows*w, 0.05)},
			{"ft.bias", []int{w}, u(w, 0.2)},
			{"out.weight", []int{1, 2 * w}, u(2*w, 0.5)},
			{"out.bias", []int{1}, u(1, 0.1)},
		}
	}
	if _, err := FromFloat(spec, tensors(768)); err == nil || !strings.Contains(err.Error(), "[80624 64]") {
		t.Fatalf("768 rows for chess768 + threats: %v, want a shape error naming [80624 64]", err)
	}
	n, err := FromFloat(spec, tensors(rows))
	if err != nil {
		t.Fatal(err)
	}
	if n.ThreatWeights != nil || len(n.FTWeights) != rows*w {
		t.Fatalf("threat rows not after the piece-square rows: %d int8 threat weights, %d int16 weights", len(n.ThreatWeights), len(n.FTWeights))
	}
	var tb ThreatBoard
	for _, fen := range boardtest.Positions()[:100] {
		p, _ := board.ParseFEN(fen)
		tb.Clear()
		for occ := p.Occupied(); occ != 0; {
			s := occ.PopLSB()
			tb.Put(p.PieceOn(s), s)
		}
		for c := board.White; c <= board.Black; c++ {
			got := n.Features.AppendThreats(&tb, c, p.King(c), nil)
			var want []int32
			for _, f := range bruteThreatFeatures(p, c) {
				want = append(want, int32(768+f))
			}
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("%s %v: AppendThreats %d rows, brute force %d", fen, c, len(got), len(want))
			}
		}
	}
	ev := NewEvaluator(n)
	checks := 0
	for g := 0; g < 10; g++ {
		p, _ := board.ParseFEN(board.StartFEN)
		ev.Reset(p)
		for ply := 0; ply < 80; ply++ {
			if inc, full := ev.Raw(p, nil), n.Evaluate(p, nil); inc != full {
				t.Fatalf("%s: incremental %d, from scratch %d", p.FEN(), inc, full)
			}
			checks++
			var ml board.MoveList
			p.GenerateLegal(&ml)
			if ml.N == 0 {
				break
			}
			p.MakeMove(ml.Moves[rng.IntN(ml.N)])
			ev.Push(p.LastDelta())
		}
	}
	t.Logf("%d positions: incremental = from scratch", checks)
}
