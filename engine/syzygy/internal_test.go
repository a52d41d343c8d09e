package syzygy

import (
	"math/rand/v2"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
)

// fathomArray reads a C array of integers named name from Fathom's
// tbprobe.c (testdata/fathom), flattened.
func fathomArray(t *testing.T, name string) []int {
	t.Helper()
	src, err := os.ReadFile("testdata/fathom/tbprobe.c")
	if err != nil {
		t.Fatal(err)
	}
	re := regexp.MustCompile(`(?s)\b` + name + `(\[\w*\])+ = \{(.*?)\};`)
	m := re.FindSubmatch(src)
	if m == nil {
		t.Fatalf("no array %s in tbprobe.c", name)
	}
	var out []int
	for _, f := range regexp.MustCompile(`-?\d+`).FindAll(m[2], -1) {
		v, err := strconv.Atoi(string(f))
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, v)
	}
	return out
}

// TestIndexTables: the index tables this package builds from their rules
// equal the reference prober's literal ones.
func TestIndexTables(t *testing.T) {
	check := func(name string, got []int, want []int) {
		t.Helper()
		if len(got) != len(want) {
			t.Fatalf("%s: %d entries, Fathom has %d", name, len(got), len(want))
		}
		for i := range got {
			if got[i] != want[i] {
				t.Errorf("%s[%d] = %d, Fathom has %d", name, i, got[i], want[i])
			}
		}
	}
	ints := func(n int, f func(i int) int) []int {
		v := make([]int, n)
		for i := range v {
			v[i] = f(i)
		}
		return v
	}
	check("OffDiag", ints(64, func(i int) int { return int(offDiag[i]) }), fathomArray(t, "OffDiag"))
	check("Triangle", ints(64, func(i int) int { return int(triangle[i]) }), fathomArray(t, "Triangle"))
	check("Lower", ints(64, func(i int) int { return int(lower[i]) }), fathomArray(t, "Lower"))
	check("Diag", ints(64, func(i int) int { return int(diag[i]) }), fathomArray(t, "Diag"))
	check("KKIdx", ints(640, func(i int) int { return int(kkIdx[i/64][i%64]) }), fathomArray(t, "KKIdx"))
	// Only the file encoding of pawns (the first half) is used by WDL and
	// DTZ tables.
	check("Flap[0]", ints(64, func(i int) int { return int(flap[i]) }), fathomArray(t, "Flap")[:64])
	check("PawnTwist[0]", ints(64, func(i int) int { return int(pawnTwist[i]) }), fathomArray(t, "PawnTwist")[:64])
	if binomial[3][10] != 120 || binomial[0][5] != 1 || binomial[2][1] != 0 || binomial[7][63] != 553270671 {
		t.Errorf("binomial: C(10,3)=%d C(5,0)=%d C(1,2)=%d C(63,7)=%d", binomial[3][10], binomial[0][5], binomial[2][1], binomial[7][63])
	}
}

// TestMaterialNames: every table of the official 3-5 piece list parses,
// and its key names it back (the stronger side first); bad names do not
// parse.
func TestMaterialNames(t *testing.T) {
	names := map[string]bool{}
	for file := range officialChecksums(t) {
		names[strings.TrimSuffix(strings.TrimSuffix(file, ".rtbw"), ".rtbz")] = true
	}
	if len(names) != 145 {
		t.Fatalf("%d names", len(names))
	}
	for name := range names {
		m, ok := parseMaterial(name)
		if !ok {
			t.Errorf("%s does not parse", name)
			continue
		}
		if got := keyName(m.key); got != name {
			t.Errorf("keyName(%s) = %s", name, got)
		}
		if got := keyName(m.mirrorKey); got != name {
			t.Errorf("keyName(mirror of %s) = %s", name, got)
		}
		if m.n != len(name)-1 {
			t.Errorf("%s: %d pieces", name, m.n)
		}
	}
	cases := []struct {
		name                 string
		pawns, symmetric, kk bool
		lead, other          int
	}{
		{"KRBvKR", false, false, false, 0, 0},
		{"KRvKR", false, true, false, 0, 0},
		{"KQQvK", false, false, true, 0, 0},
		{"KPvKP", true, true, false, 1, 1},
		{"KPPvKP", true, false, false, 1, 2}, // Black leads: fewer pawns
		{"KNPvK", true, false, false, 1, 0},
		{"KQvKPP", true, false, false, 2, 0}, // only Black has pawns
	}
	for _, c := range cases {
		m, ok := parseMaterial(c.name)
		if !ok || m.hasPawns != c.pawns || m.symmetric != c.symmetric || m.kk != c.kk || m.lead != c.lead || m.other != c.other {
			t.Errorf("%s: %+v", c.name, m)
		}
	}
	for _, bad := range []string{"", "KvK", "KQK", "KQvKvK", "QKvK", "KQvQ", "KXvK", "KKvK", "KQQQQQQvK", "kqvk", "KQv"} {
		if _, ok := parseMaterial(bad); ok {
			t.Errorf("%q parses", bad)
		}
	}
}

// TestMoveGeneration: the prober's own move generator gives exactly the
// board package's legal moves (and legal captures) on random positions of
// every committed table, en passant included.
func TestMoveGeneration(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	key := func(from, to board.Square, promo board.PieceType) string {
		return from.String() + to.String() + strconv.Itoa(int(promo))
	}
	n := 0
	for _, name := range tableNames(t, tablesDir) {
		samples := randomPositions(t, rng, name, 30, false)
		if w, b, _ := strings.Cut(name, "v"); strings.Contains(w, "P") && strings.Contains(b, "P") {
			samples = append(samples, randomPositions(t, rng, name, 30, true)...)
		}
		for _, s := range samples {
			var p position
			p.setBoard(s.pos)
			var want, wantCaps, got, gotCaps []string
			var ml board.MoveList
			s.pos.GenerateLegal(&ml)
			for _, m := range ml.Slice() {
				promo := board.PieceType(0)
				if m.Kind() == board.Promotion {
					promo = m.Promo()
				}
				k := key(m.From(), m.To(), promo)
				want = append(want, k)
				if s.pos.PieceOn(m.To()) != board.NoPiece || m.Kind() == board.EnPassant {
					wantCaps = append(wantCaps, k)
				}
			}
			var buf moveBuf
			for _, m := range p.genMoves(buf[:0]) {
				if _, ok := p.doMove(m); ok {
					got = append(got, key(board.Square(m.from()), board.Square(m.to()), m.promo()))
				}
			}
			for _, m := range p.genCaptures(buf[:0]) {
				if _, ok := p.doMove(m); ok {
					gotCaps = append(gotCaps, key(board.Square(m.from()), board.Square(m.to()), m.promo()))
				}
			}
			for _, l := range [][]string{want, wantCaps, got, gotCaps} {
				sort.Strings(l)
			}
			if strings.Join(got, " ") != strings.Join(want, " ") || strings.Join(gotCaps, " ") != strings.Join(wantCaps, " ") {
				t.Fatalf("%s:\nmoves    %v\nboard    %v\ncaptures %v\nboard    %v", s.fen, got, want, gotCaps, wantCaps)
			}
			if mate := p.isMate(); mate != (len(want) == 0 && s.pos.InCheck()) {
				t.Fatalf("%s: isMate %v", s.fen, mate)
			}
			// The material key kept through captures equals a count.
			for _, m := range p.genCaptures(buf[:0]) {
				if c, ok := p.doMove(m); ok && c.mkey != c.countKey() {
					t.Fatalf("%s: key after a capture %x, count %x", s.fen, c.mkey, c.countKey())
				}
			}
			n++
		}
	}
	t.Logf("%d positions", n)
}

// TestValid: positions the prober refuses as illegal.
func TestValid(t *testing.T) {
	base := func() position {
		var p position
		p.color[0] = 1<<4 | 1<<12        // Ke1, Pe2
		p.color[1] = 1<<60 | 1<<35       // Ke8, Pd5
		p.typ[board.King] = 1<<4 | 1<<60 // kings
		p.typ[board.Pawn] = 1<<12 | 1<<35
		return p
	}
	ok := base()
	if !ok.valid() {
		t.Fatal("a legal position is refused")
	}
	cases := map[string]func(p *position){
		"no white king":    func(p *position) { p.color[0] &^= 1 << 4; p.typ[board.King] &^= 1 << 4 },
		"two black kings":  func(p *position) { p.color[1] |= 1 << 63; p.typ[board.King] |= 1 << 63 },
		"pawn on rank 1":   func(p *position) { p.color[0] |= 1 << 1; p.typ[board.Pawn] |= 1 << 1 },
		"pawn on rank 8":   func(p *position) { p.color[1] |= 1 << 57; p.typ[board.Pawn] |= 1 << 57 },
		"king in check":    func(p *position) { p.color[0] |= 1 << 51; p.typ[board.Pawn] |= 1 << 51 }, // Pd7 checks Ke8, White to move
		"ep on wrong rank": func(p *position) { p.ep = 20 },
		"ep without pawn":  func(p *position) { p.ep = 44 }, // e6: no black pawn on e5
	}
	for name, f := range cases {
		p := base()
		f(&p)
		if p.valid() {
			t.Errorf("%s: accepted", name)
		}
	}
	p := base()
	p.ep = 43 // d6 behind the black pawn on d5: fine
	if !p.valid() {
		t.Error("a legal en-passant square is refused")
	}
}

// TestPrepare: the prober's copy of a board position has the board's
// en-passant square, and prepare reports ErrCastling exactly when the
// board has castling rights, although both are read from the board only
// when the placement allows them. The positions are FENs with and
// without rights and en-passant squares, and every position of random
// games (null moves included) from them.
func TestPrepare(t *testing.T) {
	tables, err := Open(tablesDir)
	if err != nil {
		t.Fatal(err)
	}
	defer tables.Close()
	fens := []string{
		board.StartFEN,
		"rnbqkbnr/ppp1p1pp/8/3pPp2/8/8/PPPP1PPP/RNBQKBNR w KQkq f6 0 3",
		"rnbqkbnr/pppp1ppp/8/8/3Pp3/8/PPP1PPPP/RNBQKBNR b KQkq d3 0 2",
		"bqnb1rkr/pppppppp/8/8/8/8/PPPPPPPP/BQNB1RKR w HFhf - 0 1",
		"4k3/8/8/8/8/8/8/R3K3 w Q - 0 1",
		"r3k3/8/8/8/8/8/8/4K3 b q - 0 1",
		"4k2r/8/8/8/8/8/8/4K3 w k - 0 1",
		"4k3/8/8/8/3pP3/8/8/4K3 b - e3 0 1",
		"4k3/8/8/3Pp3/8/8/8/4K3 w - e6 0 1",
		"4k3/8/8/4pP2/8/8/8/4K3 w - e6 0 1",
		"4k3/8/8/8/2Pp4/8/8/4K3 b - c3 0 1",
		"4k3/pppppppp/8/8/8/8/PPPPPPPP/4K3 w - - 0 1",
		"r3k2r/pppppppp/8/8/8/8/PPPPPPPP/R3K2R w KQkq - 0 1",
		"8/8/8/8/8/8/8/K1k5 w - - 0 1",
	}
	rng := rand.New(rand.NewPCG(47, 1))
	n, withEP, withRights := 0, 0, 0
	check := func(fen string, b *board.Position) {
		t.Helper()
		n++
		var p position
		err := tables.prepare(b, &p)
		rights := b.CastlingRights() != 0
		if rights {
			withRights++
		}
		if rights != (err == ErrCastling) {
			t.Fatalf("%s (from %s): castling rights %b, prepare says %v", b.FEN(), fen, b.CastlingRights(), err)
		}
		want := 0
		if ep := b.EnPassant(); ep != board.NoSquare {
			want = int(ep)
			withEP++
		}
		if p.ep != want {
			t.Fatalf("%s (from %s): en-passant square %d, the board's %d", b.FEN(), fen, p.ep, want)
		}
	}
	for _, fen := range fens {
		for game := 0; game < 20; game++ {
			b, err := board.ParseFEN(fen)
			if err != nil {
				t.Fatalf("%s: %v", fen, err)
			}
			check(fen, b)
			for ply := 0; ply < 150; ply++ {
				var ml board.MoveList
				b.GenerateLegal(&ml)
				moves := ml.Slice()
				if len(moves) == 0 {
					break
				}
				if rng.IntN(20) == 0 && !b.InCheck() {
					b.MakeNullMove()
				} else {
					b.MakeMove(moves[rng.IntN(len(moves))])
				}
				check(fen, b)
			}
		}
	}
	// The checks above must have met both.
	if withEP < 50 || withRights < 50 {
		t.Errorf("%d positions, only %d with an en-passant square and %d with castling rights", n, withEP, withRights)
	}
	t.Logf("%d positions, %d with an en-passant square, %d with castling rights", n, withEP, withRights)
}
