package uci_test

import (
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/syzygy"
)

// tbDir holds the 3-4 piece tables and KRBvKR (engine/syzygy's test data).
var tbDir, _ = filepath.Abs("../syzygy/testdata/tables")

// urgentWins returns won positions whose fifty-move counter leaves no
// slack: the halfmove clock is 98 - DTZ, so only moves that keep close to
// the quickest zeroing keep the win; a search that plays by its evaluation
// alone draws many of them by the fifty-move rule.
func urgentWins(t *testing.T, tb *syzygy.Tables, n int) []string {
	t.Helper()
	r := rand.New(rand.NewPCG(47, 1))
	const black = board.PieceType(255) // the pieces after it are Black's
	sets := [][]board.PieceType{
		{board.Queen}, {board.Rook}, {board.Bishop, board.Knight}, {board.Bishop, board.Bishop},
		{board.Rook, black, board.Knight}, {board.Queen, black, board.Rook}, {board.Pawn},
	}
	var out []string
	for tries := 0; len(out) < n && tries < 200000; tries++ {
		set := sets[len(out)%len(sets)]
		var pl [64]board.Piece
		for i := range pl {
			pl[i] = board.NoPiece
		}
		put := func(pc board.Piece) {
			for {
				s := r.IntN(64)
				if pl[s] == board.NoPiece && (pc.Type() != board.Pawn || s >= 8 && s < 56) {
					pl[s] = pc
					return
				}
			}
		}
		put(board.MakePiece(board.White, board.King))
		put(board.MakePiece(board.Black, board.King))
		weak := false
		for _, pt := range set {
			if pt == black {
				weak = true
				continue
			}
			c := board.White
			if weak {
				c = board.Black
			}
			put(board.MakePiece(c, pt))
		}
		var sb strings.Builder
		for rank := 7; rank >= 0; rank-- {
			empty := 0
			for file := 0; file < 8; file++ {
				pc := pl[rank*8+file]
				if pc == board.NoPiece {
					empty++
					continue
				}
				if empty > 0 {
					fmt.Fprint(&sb, empty)
					empty = 0
				}
				sb.WriteString(pc.String())
			}
			if empty > 0 {
				fmt.Fprint(&sb, empty)
			}
			if rank > 0 {
				sb.WriteByte('/')
			}
		}
		p, err := board.ParseFEN(sb.String() + " w - - 0 1")
		if err != nil || p.CountLegal() == 0 {
			continue
		}
		dtz, err := tb.ProbeDTZ(p)
		if err != nil || dtz < 12 || dtz > 60 {
			continue
		}
		out = append(out, fmt.Sprintf("%s w - - %d 1", sb.String(), 98-dtz))
	}
	if len(out) < n {
		t.Fatalf("found %d urgent wins, want %d", len(out), n)
	}
	return out
}

// keepsWin reports whether move mv from fen keeps the win under the
// fifty-move rule, by the tables.
func keepsWin(t *testing.T, tb *syzygy.Tables, fen, mv string) bool {
	t.Helper()
	p, err := board.ParseFEN(fen)
	if err != nil {
		t.Fatal(err)
	}
	m, err := p.ParseUCIMove(mv)
	if err != nil {
		t.Fatalf("%s: bestmove %s: %v", fen, mv, err)
	}
	p.MakeMove(m)
	if p.CountLegal() == 0 {
		return p.InCheck()
	}
	if p.HalfmoveClock() == 0 {
		w, err := tb.ProbeWDL(p)
		if err != nil {
			t.Fatal(err)
		}
		return w == syzygy.Loss
	}
	d, err := tb.ProbeDTZ(p)
	if err != nil {
		t.Fatal(err)
	}
	return syzygy.Rule50WDL(d, p.HalfmoveClock()) == syzygy.Loss
}

// TestSyzygy: with SyzygyPath set, the engine never gives a won position
// away, not even where the fifty-move counter leaves one or two plies of
// slack and the search looks one ply deep (without tables the same
// searches draw some of them), reports tbhits and a table score, and a
// path it cannot open is refused with the tables in use kept.
func TestSyzygy(t *testing.T) {
	tb, err := syzygy.Open(tbDir)
	if err != nil {
		t.Fatal(err)
	}
	defer tb.Close()
	fens := urgentWins(t, tb, 28)
	play := func(g *gui) (kept int, infos []string) {
		for _, fen := range fens {
			g.send("ucinewgame", "position fen "+fen, "go depth 1")
			lines := g.until("bestmove", 30*time.Second)
			if keepsWin(t, tb, fen, bestmove(t, lines)) {
				kept++
			}
			infos = append(infos, lines[len(lines)-2])
		}
		return kept, infos
	}

	without := start(t)
	without.sync()
	keptWithout, _ := play(without)

	g := start(t)
	g.send("uci")
	opts := g.until("uciok", 10*time.Second)
	for _, want := range []string{"option name SyzygyPath type string default <empty>", "option name SyzygyProbeDepth type spin default 1 min 1 max 100",
		"option name Syzygy50MoveRule type check default true", "option name SyzygyProbeLimit type spin default 7 min 0 max 7"} {
		if !strings.Contains(strings.Join(opts, "\n"), want) {
			t.Errorf("uci does not list %q", want)
		}
	}
	g.send("setoption name SyzygyPath value " + tbDir)
	if l := g.sync(); len(l) != 1 || !strings.Contains(l[0], "found 72 tablebase files, up to 5 pieces") {
		t.Fatalf("SyzygyPath: %q", l)
	}
	kept, infos := play(g)
	if kept != len(fens) {
		t.Errorf("with tables %d of %d wins kept", kept, len(fens))
	}
	if keptWithout == len(fens) {
		t.Errorf("without tables every win was kept too: the positions test nothing")
	}
	t.Logf("wins kept at depth 1: %d of %d with tables, %d without", kept, len(fens), keptWithout)
	for _, l := range infos {
		if m := infoRE.FindStringSubmatch(l); m == nil || m[infoRE.SubexpIndex("tbhits")] == "" || m[infoRE.SubexpIndex("tbhits")] == " tbhits 0" {
			t.Errorf("final info %q: want tbhits > 0", l)
		}
		if !strings.Contains(l, " score cp 3") && !strings.Contains(l, " score mate ") {
			t.Errorf("final info %q: want a table win's score (cp 30000 and more) or a mate", l)
		}
	}

	// A path that does not open is refused; the tables stay.
	g.send("setoption name SyzygyPath value " + filepath.Join(t.TempDir(), "none"))
	if l := g.sync(); len(l) != 1 || !strings.Contains(l[0], "info string error: setoption SyzygyPath") {
		t.Fatalf("bad SyzygyPath: %q", l)
	}
	g.send("position fen "+fens[0], "go depth 1")
	if l := g.until("bestmove", 30*time.Second); !keepsWin(t, tb, fens[0], bestmove(t, l)) {
		t.Errorf("after a refused SyzygyPath the tables were dropped")
	}
}

// TestSyzygyDamagedTable: a table that cannot be read is reported once as
// an info string, and the search goes on without it and answers.
func TestSyzygyDamagedTable(t *testing.T) {
	dir := t.TempDir()
	ents, err := os.ReadDir(tbDir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(tbDir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if e.Name() == "KRvK.rtbw" || e.Name() == "KRvK.rtbz" {
			b[len(b)/2] ^= 0x10
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	g := start(t)
	g.send("setoption name SyzygyPath value " + dir)
	g.sync()
	var warned []string
	for range 2 {
		g.send("position fen 8/8/8/4k3/8/8/8/R3K3 w - - 0 1", "go depth 3")
		for _, l := range g.until("bestmove", 30*time.Second) {
			if strings.HasPrefix(l, "info string syzygy") {
				warned = append(warned, l)
			}
		}
	}
	if len(warned) == 0 || !strings.Contains(warned[0], "KRvK") {
		t.Fatalf("damaged KRvK: warnings %q, want one naming the file", warned)
	}
	seen := map[string]bool{}
	for _, w := range warned {
		if seen[w] {
			t.Errorf("warning %q repeated", w)
		}
		seen[w] = true
	}
}
