package eval

import (
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/board/boardtest"
)

// readEPD returns up to n FENs of the shared reference positions.
func readEPD(t testing.TB, n int) []string {
	t.Helper()
	fens := boardtest.Positions()
	return fens[:min(n, len(fens))]
}

// mirrorFEN flips the board vertically and swaps the colours, so the
// evaluation from the side to move must not change.
func mirrorFEN(fen string) string {
	f := strings.Fields(fen)
	ranks := strings.Split(f[0], "/")
	for i, j := 0, len(ranks)-1; i < j; i, j = i+1, j-1 {
		ranks[i], ranks[j] = ranks[j], ranks[i]
	}
	swap := func(s string) string {
		return strings.Map(func(r rune) rune {
			switch {
			case r >= 'a' && r <= 'z':
				return r - 'a' + 'A'
			case r >= 'A' && r <= 'Z':
				return r - 'A' + 'a'
			}
			return r
		}, s)
	}
	f[0] = swap(strings.Join(ranks, "/"))
	if f[1] == "w" {
		f[1] = "b"
	} else {
		f[1] = "w"
	}
	if f[2] != "-" {
		c := swap(f[2])
		var up, low strings.Builder
		for _, r := range c {
			if r >= 'A' && r <= 'Z' {
				up.WriteRune(r)
			} else {
				low.WriteRune(r)
			}
		}
		f[2] = up.String() + low.String()
	}
	if f[3] != "-" {
		f[3] = string(f[3][0]) + string("87654321"[f[3][1]-'1'])
	}
	return strings.Join(f, " ")
}

func TestPeSTOKnownValues(t *testing.T) {
	tests := []struct {
		name string
		fen  string
		want int
	}{
		{"start position is balanced", board.StartFEN, 0},
		{"bare kings", "4k3/8/8/8/8/8/8/4K3 w - - 0 1", 0},
		// Kings and one pawn: phase 0, so only endgame values count: the
		// kings' e1/e8 entries cancel and the pawn is 94 + its e4 entry (-7).
		{"lone pawn is endgame-valued", "4k3/8/8/8/4P3/8/8/4K3 w - - 0 1", 94 - 7},
		{"black to move sees it negated", "4k3/8/8/8/4P3/8/8/4K3 b - - 0 1", -(94 - 7)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := board.ParseFEN(tc.fen)
			if err != nil {
				t.Fatal(err)
			}
			e := NewPeSTO()
			e.Reset(p)
			if got := e.Evaluate(p); got != tc.want {
				t.Errorf("Evaluate = %d, want %d", got, tc.want)
			}
		})
	}
}

func TestPeSTOMirrorSymmetry(t *testing.T) {
	e := NewPeSTO()
	for _, fen := range readEPD(t, 500) {
		p, err := board.ParseFEN(fen)
		if err != nil {
			t.Fatal(err)
		}
		m, err := board.ParseFEN(mirrorFEN(fen))
		if err != nil {
			t.Fatalf("mirror of %s: %v", fen, err)
		}
		e.Reset(p)
		a := e.Evaluate(p)
		e.Reset(m)
		if b := e.Evaluate(m); a != b {
			t.Fatalf("%s: %d, mirrored %d", fen, a, b)
		}
	}
}

// TestPeSTOIncremental plays random games (null moves included) and checks
// after every Push and Pop that the incremental score equals a fresh one.
func TestPeSTOIncremental(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	inc, fresh := NewPeSTO(), NewPeSTO()
	check := func(p *board.Position, where string) {
		fresh.Reset(p)
		if a, b := inc.Evaluate(p), fresh.Evaluate(p); a != b {
			t.Fatalf("%s %s: incremental %d, from scratch %d", where, p.FEN(), a, b)
		}
	}
	fens := append(readEPD(t, 200), board.StartFEN,
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		"n1n5/PPPk4/8/8/8/8/4Kppp/5N1N b - - 0 1")
	for _, fen := range fens {
		p, err := board.ParseFEN(fen)
		if err != nil {
			t.Fatal(err)
		}
		inc.Reset(p)
		depth := 0
		for ply := 0; ply < 40; ply++ {
			var ml board.MoveList
			p.GenerateLegal(&ml)
			if ml.N == 0 {
				break
			}
			if !p.InCheck() && rng.IntN(10) == 0 {
				p.MakeNullMove()
				inc.Push(p.LastDelta())
				check(p, "after null move")
				p.UnmakeNullMove()
				inc.Pop()
				check(p, "after unmaking null move")
			}
			p.MakeMove(ml.Moves[rng.IntN(ml.N)])
			inc.Push(p.LastDelta())
			depth++
			check(p, "after move")
		}
		for ; depth > 0; depth-- {
			p.UnmakeMove()
			inc.Pop()
			check(p, "after unmake")
		}
	}
}

func TestExplainShowsParts(t *testing.T) {
	p, _ := board.ParseFEN("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R b KQkq - 0 1")
	e := NewPeSTO()
	e.Reset(p)
	out := e.Explain(p)
	for _, want := range []string{"mg (white view)", "eg (white view)", "phase", "final (white view)", "final (side to move, black)"} {
		if !strings.Contains(out, want) {
			t.Errorf("Explain output lacks %q:\n%s", want, out)
		}
	}
}

func TestRegistry(t *testing.T) {
	if _, err := New(Classical, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := New("no-such-arch", ""); err == nil || !strings.Contains(err.Error(), "classical") {
		t.Errorf("unknown arch: err = %v, want an error listing the known ones", err)
	}
	found := false
	for _, a := range Archs() {
		found = found || a == Classical
	}
	if !found {
		t.Errorf("Archs() = %v lacks %q", Archs(), Classical)
	}
}

func BenchmarkPeSTOPushEvaluatePop(b *testing.B) {
	p, _ := board.ParseFEN("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
	var ml board.MoveList
	p.GenerateLegal(&ml)
	e := NewPeSTO()
	e.Reset(p)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		p.MakeMove(ml.Moves[i%ml.N])
		e.Push(p.LastDelta())
		_ = e.Evaluate(p)
		p.UnmakeMove()
		e.Pop()
	}
}
