package board

import (
	"math/rand/v2"
	"sort"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board/boardtest"
)

// checkConsistent verifies the redundant board representations agree.
func checkConsistent(t *testing.T, p *Position, ctx string) {
	t.Helper()
	var byType [6]Bitboard
	var byColor [2]Bitboard
	for s := Square(0); s < 64; s++ {
		if pc := p.board[s]; pc != NoPiece {
			byType[pc.Type()] |= Bit(s)
			byColor[pc.Color()] |= Bit(s)
		}
	}
	if byType != p.byType || byColor != p.byColor || p.occ != byColor[0]|byColor[1] {
		t.Fatalf("%s: bitboards disagree with the mailbox", ctx)
	}
	for c := White; c <= Black; c++ {
		if p.Pieces(c, King) != Bit(p.kings[c]) {
			t.Fatalf("%s: king square of %s wrong", ctx, c)
		}
	}
	if k := p.computeKey(); k != p.Key() {
		t.Fatalf("%s: incremental key %x, recomputed %x", ctx, p.Key(), k)
	}
	// Asked twice: the second answer comes from the state's cache.
	want := p.AttackersTo(p.kings[p.side], p.side.Other(), p.occ)
	for i := 0; i < 2; i++ {
		if c := p.Checkers(); c != want {
			t.Fatalf("%s: Checkers() = %x, want %x", ctx, uint64(c), uint64(want))
		}
	}
}

// TestMakeUnmakeWalk plays every legal move of every reference position and
// checks keys, deltas, FEN and exact restoration on unmake.
func TestMakeUnmakeWalk(t *testing.T) {
	fens := boardtest.Positions()
	for _, r := range readPerft(t, "testdata/perft960.tsv") {
		fens = append(fens, r.fen)
	}
	for _, fen := range fens {
		p, err := ParseFEN(fen)
		if err != nil {
			t.Fatal(err)
		}
		before := p.board
		key := p.Key()
		var ml, noisy, quiet MoveList
		p.GenerateLegal(&ml)
		p.GenerateNoisy(&noisy)
		p.GenerateQuiet(&quiet)
		if n := p.CountLegal(); n != ml.N {
			t.Fatalf("%s: CountLegal %d, generated %d", fen, n, ml.N)
		}
		checkPartition(t, fen, ml.Slice(), noisy.Slice(), quiet.Slice())
		for _, m := range ml.Slice() {
			ctx := fen + " " + p.UCI(m)
			captured := p.board[m.To()]
			p.MakeMove(m)
			checkConsistent(t, p, ctx)
			// Applying the delta to the old board must give the new one.
			b := before
			d := p.LastDelta()
			for i := 0; i < int(d.NRemoved); i++ {
				rm := d.Removed[i]
				if b[rm.Square] != rm.Piece {
					t.Fatalf("%s: delta removes %s from %s holding %s", ctx, rm.Piece, rm.Square, b[rm.Square])
				}
				b[rm.Square] = NoPiece
			}
			for i := 0; i < int(d.NAdded); i++ {
				b[d.Added[i].Square] = d.Added[i].Piece
			}
			if b != p.board {
				t.Fatalf("%s: delta does not reproduce the board", ctx)
			}
			if d.KingMoved != (before[m.From()].Type() == King) {
				t.Fatalf("%s: KingMoved = %v", ctx, d.KingMoved)
			}
			if m.Kind() != Castling && m.Kind() != EnPassant && p.Captured() != captured {
				t.Fatalf("%s: Captured() = %s, want %s", ctx, p.Captured(), captured)
			}
			// The FEN after the move describes the same position.
			q, err := ParseFEN(p.FEN())
			if err != nil {
				t.Fatalf("%s: FEN after move %q: %v", ctx, p.FEN(), err)
			}
			if q.Key() != p.Key() {
				t.Fatalf("%s: key after move differs from key of its FEN", ctx)
			}
			p.UnmakeMove()
			if p.board != before || p.Key() != key || p.FEN() != fen {
				t.Fatalf("%s: unmake did not restore the position (%s)", ctx, p.FEN())
			}
			checkConsistent(t, p, ctx+" unmade")
		}
	}
}

func checkPartition(t *testing.T, fen string, all, noisy, quiet []Move) {
	t.Helper()
	union := append(append([]Move{}, noisy...), quiet...)
	a := append([]Move{}, all...)
	sort.Slice(a, func(i, j int) bool { return a[i] < a[j] })
	sort.Slice(union, func(i, j int) bool { return union[i] < union[j] })
	if len(a) != len(union) {
		t.Fatalf("%s: %d legal moves, noisy+quiet %d", fen, len(a), len(union))
	}
	for i := range a {
		if a[i] != union[i] {
			t.Fatalf("%s: noisy+quiet differ from all legal moves", fen)
		}
	}
}

func TestRepetitions(t *testing.T) {
	p := StartPosition()
	play := func(moves ...string) {
		for _, s := range moves {
			m, err := p.ParseUCIMove(s)
			if err != nil {
				t.Fatal(err)
			}
			p.MakeMove(m)
		}
	}
	play("g1f3", "g8f6", "f3g1", "f6g8")
	if n := p.Repetitions(); n != 1 {
		t.Fatalf("after one cycle: %d repetitions, want 1", n)
	}
	if !p.RepeatedWithin(4) || p.RepeatedWithin(3) {
		t.Fatalf("RepeatedWithin wrong")
	}
	play("g1f3", "g8f6", "f3g1", "f6g8")
	if n := p.Repetitions(); n != 2 {
		t.Fatalf("after two cycles: %d repetitions, want 2", n)
	}
	play("e2e4")
	if n := p.Repetitions(); n != 0 {
		t.Fatalf("after a pawn move: %d repetitions, want 0", n)
	}
}

func TestNullMove(t *testing.T) {
	p, _ := ParseFEN("rnbqkbnr/ppp1pppp/8/8/3pP3/8/PPPP1PPP/RNBQKBNR b KQkq e3 0 3")
	fen, key := p.FEN(), p.Key()
	p.MakeNullMove()
	if p.SideToMove() != White || p.EnPassant() != NoSquare || p.Key() == key {
		t.Fatal("null move did not pass the turn and clear en passant")
	}
	if k := p.computeKey(); k != p.Key() {
		t.Fatalf("null move key %x, recomputed %x", p.Key(), k)
	}
	checkConsistent(t, p, "after the null move")
	p.UnmakeNullMove()
	if p.FEN() != fen || p.Key() != key {
		t.Fatal("null move not undone")
	}
}

func TestCastlingRightsUpdate(t *testing.T) {
	tests := []struct{ fen, move, rights string }{
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1e2", "kq"},
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "h1h2", "Qkq"},
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "a1a8", "Kk"},
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 1", "e1g1", "kq"},
		{"r3k2r/8/8/8/8/8/8/R3K2R b KQkq - 0 1", "h8h1", "Qq"},
		// Chess960: rooks on b and g files (Shredder-FEN).
		{"1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1", "g1g8", "Bb"},
		{"1r2k1r1/8/8/8/8/8/8/1R2K1R1 w GBgb - 0 1", "e1b1", "gb"},
	}
	for _, tc := range tests {
		p, err := ParseFEN(tc.fen)
		if err != nil {
			t.Fatal(err)
		}
		m, err := p.ParseUCIMove(tc.move)
		if err != nil {
			t.Fatalf("%s: %v", tc.fen, err)
		}
		p.MakeMove(m)
		if got := p.castlingField(); got != tc.rights {
			t.Errorf("%s %s: rights %q, want %q", tc.fen, tc.move, got, tc.rights)
		}
	}
}

// TestCheckersAfterMove plays random games from the reference positions
// and checks, after every legal move, the checkers MakeMove leaves known
// (none, when its test finds the move gives no check) or Checkers finds
// against AttackersTo.
func TestCheckersAfterMove(t *testing.T) {
	rng := rand.New(rand.NewPCG(11, 12))
	checks, moves := 0, 0
	for i, fen := range boardtest.Positions() {
		if i%10 != 0 {
			continue
		}
		p, err := ParseFEN(fen)
		if err != nil {
			t.Fatal(err)
		}
		for ply := 0; ply < 40; ply++ {
			var ml MoveList
			p.GenerateLegal(&ml)
			if ml.N == 0 {
				break
			}
			for _, m := range ml.Slice() {
				p.MakeMove(m)
				want := p.AttackersTo(p.kings[p.side], p.side.Other(), p.occ)
				if got := p.Checkers(); got != want {
					p.UnmakeMove()
					t.Fatalf("%s, after %s: Checkers() = %x, want %x", p.FEN(), p.UCI(m), uint64(got), uint64(want))
				}
				moves++
				if want != 0 {
					checks++
				}
				p.UnmakeMove()
			}
			p.MakeMove(ml.Moves[rng.IntN(ml.N)])
		}
	}
	t.Logf("%d checks in %d moves", checks, moves)
}
