package datasets

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/bits"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
)

// bpGameOpts shapes the random games of bpGames.
type bpGameOpts struct {
	games    int
	maxPlies int
	chess960 bool
	gaps     bool     // leave positions out now and then, breaking chains
	wild     bool     // extreme scores and score jumps
	starts   []string // start positions (FEN) to choose from, if any
}

// bpRandom960 returns a random Chess960 start position in Shredder-FEN.
func bpRandom960(rng *rand.Rand) string {
	var rank [8]byte
	free := []int{0, 1, 2, 3, 4, 5, 6, 7}
	take := func(i int) int { f := free[i]; free = append(free[:i], free[i+1:]...); return f }
	rank[2*rng.IntN(4)] = 'b'
	rank[2*rng.IntN(4)+1] = 'b'
	free = free[:0]
	for f := 0; f < 8; f++ {
		if rank[f] == 0 {
			free = append(free, f)
		}
	}
	rank[take(rng.IntN(len(free)))] = 'q'
	rank[take(rng.IntN(len(free)))] = 'n'
	rank[take(rng.IntN(len(free)))] = 'n'
	rank[free[0]], rank[free[1]], rank[free[2]] = 'r', 'k', 'r'
	black := string(rank[:])
	white := strings.ToUpper(black)
	castle := string([]byte{'A' + byte(free[2]), 'A' + byte(free[0]), 'a' + byte(free[2]), 'a' + byte(free[0])})
	return black + "/pppppppp/8/8/8/8/PPPPPPPP/" + white + " w " + castle + " - 0 1"
}

// bpGames plays random legal games with board.Position and records every
// position (less the gaps) with its move, a drifting score and the game's
// result. Castling, double pushes and promotions are preferred so that every
// move kind occurs.
func bpGames(t testing.TB, seed uint64, o bpGameOpts) []Record {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 0x5eed))
	var recs []Record
	for g := 0; g < o.games; g++ {
		var p *board.Position
		var err error
		switch {
		case len(o.starts) > 0:
			p, err = board.ParseFEN(o.starts[g%len(o.starts)])
		case o.chess960:
			p, err = board.ParseFEN(bpRandom960(rng))
		default:
			p = board.StartPosition()
		}
		if err != nil {
			t.Fatal(err)
		}
		res := Result(rng.IntN(3))
		score := rng.IntN(200) - 100
		plies := 1 + rng.IntN(o.maxPlies)
		for ply := 0; ply < plies; ply++ {
			var ml board.MoveList
			p.GenerateLegal(&ml)
			if ml.N == 0 {
				break
			}
			m := ml.Moves[rng.IntN(ml.N)]
			for _, x := range ml.Slice() {
				k := x.Kind()
				if (k == board.Castling || k == board.EnPassant || k == board.Promotion) && rng.IntN(2) == 0 {
					m = x
				}
			}
			if !(o.gaps && rng.IntN(8) == 0) {
				rec, err := FromPosition(p, score, res)
				if err != nil {
					t.Fatal(err)
				}
				rec.Move = m
				recs = append(recs, rec)
			}
			p.MakeMove(m)
			score += rng.IntN(81) - 40
			if o.wild && rng.IntN(10) == 0 {
				score = []int{MinScore, MaxScore, 0, -32000, 32000, 31999}[rng.IntN(6)]
			}
			if score < MinScore+1 {
				score = MinScore + 1
			}
			if score > MaxScore {
				score = MaxScore
			}
		}
	}
	return recs
}

// canonical returns the record as binpack and .plain keep it: X-FEN
// castling notation, and the en-passant square only when the side to move
// has a legal en-passant capture (judged by board.Position, independently
// of the binpack code).
func bpCanonical(t testing.TB, r Record) Record {
	t.Helper()
	r.flags &^= flagShredder
	if r.ep == 64 {
		return r
	}
	p, err := r.Position()
	if err != nil {
		t.Fatal(err)
	}
	var ml board.MoveList
	p.GenerateLegal(&ml)
	for _, m := range ml.Slice() {
		if m.Kind() == board.EnPassant {
			return r
		}
	}
	r.ep = 64
	return r
}

// encodeBinpack writes records to binpack bytes.
func encodeBinpack(t testing.TB, recs []Record) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := newBinpackWriterTo(&buf, nil)
	for i, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatalf("record %d (%s): %v", i+1, r.Text(), err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// bpDecodeAll reads every record of data in the given file name's format.
func bpDecodeAll(t testing.TB, name string, data []byte, o Options) ([]Record, Reader, error) {
	t.Helper()
	r, err := NewReader(bytes.NewReader(data), name, o)
	if err != nil {
		return nil, nil, err
	}
	defer r.Close()
	var recs []Record
	for {
		rec, err := r.Next()
		if err == io.EOF {
			return recs, r, nil
		}
		if err != nil {
			return recs, r, err
		}
		recs = append(recs, rec)
	}
}

// bpSameRecords compares records field by field, the move included.
func bpSameRecords(t testing.TB, what string, got, want []Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d records, want %d", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: record %d\n got %s move %s\nwant %s move %s", what, i+1,
				got[i].Text(), moveText(got[i].Move), want[i].Text(), moveText(want[i].Move))
		}
	}
}

func bpCanonicalAll(t testing.TB, recs []Record) []Record {
	out := make([]Record, len(recs))
	for i, r := range recs {
		out[i] = bpCanonical(t, r)
	}
	return out
}

// binpackLayout checks a binpack's block layout (every block but the last
// holds at least binpackBlockTarget bytes) and counts its blocks and the
// chains the writer made (a record starts a chain when the writer's open
// movetext is empty after it).
func binpackLayout(t testing.TB, data []byte, recs []Record) (blocks, chains int) {
	t.Helper()
	for off := 0; off < len(data); {
		if !bytes.HasPrefix(data[off:], binpackMagic[:]) {
			t.Fatalf("no block header at byte %d", off)
		}
		size := int(binary.LittleEndian.Uint32(data[off+4:]))
		if off+8+size < len(data) && size < binpackBlockTarget {
			t.Fatalf("block at byte %d has %d bytes, less than %d, and is not the last", off, size, binpackBlockTarget)
		}
		blocks++
		off += 8 + size
	}
	w := newBinpackWriterTo(io.Discard, nil)
	for _, rec := range recs {
		if err := w.Write(rec); err != nil {
			t.Fatal(err)
		}
		if w.plies == 0 {
			chains++
		}
	}
	return blocks, chains
}

// binpackable reports whether a record fits a binpack stem (ply, score).
func binpackable(r Record) bool {
	_, err := stmScore(r.Score, r.SideToMove())
	return err == nil && r.Ply() <= binpackMaxPly
}

// bpStandardCastling reports whether a record's castling rights are those of
// standard chess (kings on e1/e8, rooks on the a- and h-files), the only
// ones Stockfish's tools know.
func bpStandardCastling(r Record) bool {
	ok := true
	r.Pieces(func(p board.Piece, s board.Square) {})
	occ := r.occ
	for i := 0; occ != 0; i++ {
		s := occ.PopLSB()
		if c := r.code(i); c >= codeWhiteCastleRook {
			col := board.Color(c - codeWhiteCastleRook)
			if r.King(col) != board.E1.Relative(col) || (s != board.A1.Relative(col) && s != board.H1.Relative(col)) {
				ok = false
			}
		}
	}
	return ok
}

// sampleBinpackable returns the sample records a binpack can hold.
func sampleBinpackable(t testing.TB) []Record {
	var out []Record
	for _, r := range sampleRecords(t) {
		if binpackable(r) {
			out = append(out, r)
		}
	}
	return out
}

// TestBinpackRoundTrip writes records of every kind as binpack, reads them
// back (the same records, en passant and castling notation made canonical)
// and writes them again (the same bytes).
func TestBinpackRoundTrip(t *testing.T) {
	tests := []struct {
		name string
		recs []Record
	}{
		{"games", bpGames(t, 1, bpGameOpts{games: 40, maxPlies: 300})},
		{"games with gaps and wild scores", bpGames(t, 2, bpGameOpts{games: 40, maxPlies: 200, gaps: true, wild: true})},
		{"chess960 games", bpGames(t, 3, bpGameOpts{games: 40, maxPlies: 200, chess960: true})},
		{"sample positions without moves", sampleBinpackable(t)},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := encodeBinpack(t, tc.recs)
			got, r, err := bpDecodeAll(t, "x.binpack", data, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if r.Format() != FormatBinpack {
				t.Errorf("format %v", r.Format())
			}
			bpSameRecords(t, tc.name, got, bpCanonicalAll(t, tc.recs))
			if again := encodeBinpack(t, got); !bytes.Equal(again, data) {
				t.Fatalf("re-encoding gives %d bytes, first encoding %d, differing", len(again), len(data))
			}
			for i, rec := range got {
				p, err := rec.Position()
				if err != nil {
					t.Fatalf("record %d: %v", i+1, err)
				}
				if rec.Move != board.NullMove && !p.IsLegal(rec.Move) {
					t.Fatalf("record %d: move %s not legal for board", i+1, moveText(rec.Move))
				}
			}
			t.Logf("%d positions, %d bytes, %.2f bytes/position", len(got), len(data), float64(len(data))/float64(len(got)))
		})
	}
}

// ---------------------------------------------------------------------
// Interop with Stockfish's own tools.

// sfToolPath is Stockfish's tools build (testdata/sftools/README.md).
const sfToolPath = "testdata/sftools/stockfish-tools-avx2"

// sfConvert runs the tool's convert command in dir and checks that it
// converted want positions.
func sfConvert(t testing.TB, dir, in, out string, want int) {
	t.Helper()
	tool, err := filepath.Abs(sfToolPath)
	if err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(tool); err != nil || st.Mode()&0o111 == 0 {
		t.Fatalf("Stockfish's tools binary %s is missing or not executable (%v); the interop tests need it (testdata/sftools/README.md)", tool, err)
	}
	cmd := exec.Command(tool)
	cmd.Dir = dir
	cmd.Stdin = strings.NewReader(fmt.Sprintf("convert %s %s\nquit\n", in, out))
	b, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("running %s (Stockfish's tools; needs Linux on x86-64 with AVX2): %v\n%s", tool, err, b)
	}
	m := regexp.MustCompile(`Finished\. Converted (\d+) positions`).FindSubmatch(b)
	if m == nil || string(m[1]) != fmt.Sprint(want) {
		t.Fatalf("convert %s %s: want %d positions converted, the tool said:\n%s", in, out, want, b)
	}
}

// encodePlain writes records to .plain bytes.
func encodePlain(t testing.TB, recs []Record) []byte {
	t.Helper()
	var buf bytes.Buffer
	w := newPlainWriterTo(&buf, nil)
	for i, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatalf("record %d (%s): %v", i+1, r.Text(), err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// bpInteropSets are the record sets the interop tests convert with the tool:
// chained games (standard chess), games with gaps and extreme scores, the
// sample positions (standard castling, no moves), and Chess960 games from
// the point where castling rights are gone (the tool knows no Chess960
// castling).
func bpInteropSets(t testing.TB) []struct {
	name string
	recs []Record
} {
	var sample, c960 []Record
	for _, r := range sampleBinpackable(t) {
		if bpStandardCastling(r) {
			sample = append(sample, r)
		}
	}
	for _, r := range bpGames(t, 13, bpGameOpts{games: 30, maxPlies: 200, chess960: true}) {
		if r.CastlingRights() == 0 {
			c960 = append(c960, r)
		}
	}
	return []struct {
		name string
		recs []Record
	}{
		{"games", bpGames(t, 11, bpGameOpts{games: 60, maxPlies: 300})},
		{"gaps and wild scores", bpGames(t, 12, bpGameOpts{games: 60, maxPlies: 200, gaps: true, wild: true})},
		{"sample positions", sample},
		{"chess960 without castling", c960},
	}
}

// TestBinpackToolReadsNnuelab (a): binpacks nnuelab writes, converted to
// .plain by Stockfish's tools, read back: the same positions, moves, scores,
// plies and results; the tool's .plain is byte for byte what nnuelab's
// .plain writer makes of the same records; and the tool's binpack of that
// .plain is nnuelab's binpack.
func TestBinpackToolReadsNnuelab(t *testing.T) {
	for _, tc := range bpInteropSets(t) {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			bp := encodeBinpack(t, tc.recs)
			if err := os.WriteFile(filepath.Join(dir, "nn.binpack"), bp, 0o644); err != nil {
				t.Fatal(err)
			}
			sfConvert(t, dir, "nn.binpack", "sf.plain", len(tc.recs))
			plain, err := os.ReadFile(filepath.Join(dir, "sf.plain"))
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := bpDecodeAll(t, "sf.plain", plain, Options{})
			if err != nil {
				t.Fatal(err)
			}
			bpSameRecords(t, "tool's .plain", got, bpCanonicalAll(t, tc.recs))
			if mine := encodePlain(t, tc.recs); !bytes.Equal(mine, plain) {
				t.Fatalf("nnuelab's .plain (%d bytes) differs from the tool's (%d bytes) at byte %d", len(mine), len(plain), bpDiffAt(mine, plain))
			}
			sfConvert(t, dir, "sf.plain", "sf.binpack", len(tc.recs))
			sfbp, _ := os.ReadFile(filepath.Join(dir, "sf.binpack"))
			if !bytes.Equal(sfbp, bp) {
				t.Fatalf("the tool's binpack of the .plain (%d bytes) differs from nnuelab's (%d bytes) at byte %d", len(sfbp), len(bp), bpDiffAt(sfbp, bp))
			}
		})
	}
}

// TestBinpackNnuelabReadsTool (b): .plain files of games, converted to
// binpack by Stockfish's tools, read by nnuelab: the same records; the
// tool's binpack written again by nnuelab is byte-identical.
func TestBinpackNnuelabReadsTool(t *testing.T) {
	for _, tc := range bpInteropSets(t) {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			if err := os.WriteFile(filepath.Join(dir, "in.plain"), encodePlain(t, tc.recs), 0o644); err != nil {
				t.Fatal(err)
			}
			sfConvert(t, dir, "in.plain", "sf.binpack", len(tc.recs))
			sfbp, err := os.ReadFile(filepath.Join(dir, "sf.binpack"))
			if err != nil {
				t.Fatal(err)
			}
			got, _, err := bpDecodeAll(t, "sf.binpack", sfbp, Options{})
			if err != nil {
				t.Fatal(err)
			}
			bpSameRecords(t, "tool's binpack", got, bpCanonicalAll(t, tc.recs))
			if again := encodeBinpack(t, got); !bytes.Equal(again, sfbp) {
				t.Fatalf("nnuelab re-writes the tool's binpack (%d bytes) as %d bytes, differing at byte %d", len(sfbp), len(again), bpDiffAt(again, sfbp))
			}
			blocks, chains := binpackLayout(t, sfbp, got)
			t.Logf("%d positions in %d chains, %d block(s), %d bytes: %.2f bytes/position", len(got), chains, blocks, len(sfbp), float64(len(sfbp))/float64(len(got)))
		})
	}
}

// TestBinpackToolBlocks: more than two blocks' worth of positions, as the
// tool writes them and as nnuelab does: the same bytes, so the same block
// boundaries.
func TestBinpackToolBlocks(t *testing.T) {
	// Unchained positions (34 bytes each) fill blocks fast; slices of
	// chained games between them make blocks end after chains of every
	// length.
	var sample []Record
	for _, r := range sampleBinpackable(t) {
		if bpStandardCastling(r) {
			sample = append(sample, r)
		}
	}
	games := bpGames(t, 21, bpGameOpts{games: 400, maxPlies: 120, gaps: true})
	var recs []Record
	for i := 0; len(recs) < 200000; i++ {
		if i%10 == 0 {
			at := (i * 37) % len(games)
			recs = append(recs, games[at:min(at+1+i/10%30, len(games))]...)
		} else {
			recs = append(recs, sample[i%len(sample)])
		}
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "in.plain"), encodePlain(t, recs), 0o644); err != nil {
		t.Fatal(err)
	}
	sfConvert(t, dir, "in.plain", "sf.binpack", len(recs))
	sfbp, _ := os.ReadFile(filepath.Join(dir, "sf.binpack"))
	mine := encodeBinpack(t, recs)
	if !bytes.Equal(mine, sfbp) {
		t.Fatalf("nnuelab's binpack (%d bytes) differs from the tool's (%d bytes) at byte %d", len(mine), len(sfbp), bpDiffAt(mine, sfbp))
	}
	blocks, _ := binpackLayout(t, sfbp, recs)
	if blocks < 3 {
		t.Fatalf("only %d blocks (%d bytes, %d positions); the test needs at least 3", blocks, len(sfbp), len(recs))
	}
	got, _, err := bpDecodeAll(t, "sf.binpack", sfbp, Options{})
	if err != nil {
		t.Fatal(err)
	}
	bpSameRecords(t, "blocks", got, bpCanonicalAll(t, recs))
}

func bpDiffAt(a, b []byte) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}

// binpackFixtures are the committed fixtures: the .plain nnuelab writes
// from these games is the input the tool converted (testdata/binpack/README.md).
var binpackFixtures = []struct {
	base string
	seed uint64
	opts bpGameOpts
}{
	{"games", 31, bpGameOpts{games: 6, maxPlies: 120}},
	{"gaps", 32, bpGameOpts{games: 6, maxPlies: 120, gaps: true, wild: true}},
}

var writeFixtures = flag.Bool("binpack-fixtures", false, "rewrite testdata/binpack with Stockfish's tools")

// TestBinpackFixtures reads the committed files the tool made
// (testdata/binpack/README.md): the binpack and the .plain give the games'
// records, and nnuelab writes both back byte for byte. With
// -binpack-fixtures it makes them again first.
func TestBinpackFixtures(t *testing.T) {
	for _, fx := range binpackFixtures {
		t.Run(fx.base, func(t *testing.T) {
			recs := bpGames(t, fx.seed, fx.opts)
			if *writeFixtures {
				dir, _ := filepath.Abs("testdata/binpack")
				in := filepath.Join(t.TempDir(), "in.plain")
				if err := os.WriteFile(in, encodePlain(t, recs), 0o644); err != nil {
					t.Fatal(err)
				}
				sfConvert(t, dir, in, fx.base+".binpack", len(recs))
				sfConvert(t, dir, fx.base+".binpack", fx.base+".plain", len(recs))
			}
			bp, err := os.ReadFile("testdata/binpack/" + fx.base + ".binpack")
			if err != nil {
				t.Fatal(err)
			}
			plain, err := os.ReadFile("testdata/binpack/" + fx.base + ".plain")
			if err != nil {
				t.Fatal(err)
			}
			want := bpCanonicalAll(t, recs)
			fromBP, _, err := bpDecodeAll(t, fx.base+".binpack", bp, Options{})
			if err != nil {
				t.Fatal(err)
			}
			bpSameRecords(t, "binpack", fromBP, want)
			fromPlain, _, err := bpDecodeAll(t, fx.base+".plain", plain, Options{})
			if err != nil {
				t.Fatal(err)
			}
			bpSameRecords(t, ".plain", fromPlain, want)
			if again := encodeBinpack(t, fromBP); !bytes.Equal(again, bp) {
				t.Fatalf("binpack re-written differs at byte %d", bpDiffAt(again, bp))
			}
			if again := encodePlain(t, fromPlain); !bytes.Equal(again, plain) {
				t.Fatalf(".plain re-written differs at byte %d", bpDiffAt(again, plain))
			}
		})
	}
}

// bpTricky are start positions with the hard cases: en passant with and
// without a legal capture (pinned pawns, a pawn that is not there), castling
// of every Chess960 shape (king and rook side by side, king that does not
// move, rook that does not move, rook between king and corner), promotions.
var bpTricky = []string{
	"8/8/8/KPp4r/8/8/8/4k3 w - c6 0 2",   // ep capture leaves the king in check along the rank
	"4k3/8/8/2KPp3/8/8/8/8 w - e6 0 2",   // a legal ep capture
	"4k3/8/8/8/3pP3/8/8/4K2R b K e3 0 1", // Black takes en passant
	"4k3/8/8/8/3pP3/8/8/4K2R b K - 0 1",  // the same without the right to
	"4k3/8/8/1b6/3pP3/8/8/6K1 b - e3 0 1",
	"8/6B1/8/8/3pP3/8/8/k3K3 b - e3 0 1", // the capturing pawn is pinned on a diagonal
	"r3k2r/p6p/8/8/8/8/P6P/R3K2R w KQkq - 0 1",
	"rk5r/p6p/8/8/8/8/P6P/RK5R w HAha - 0 1",
	"1r2k1r1/p6p/8/8/8/8/P6P/1R2K1R1 w GBgb - 0 1",
	"5rkr/p6p/8/8/8/8/P6P/5RKR w HFhf - 0 1",
	"rkr5/p6p/8/8/8/8/P6P/RKR5 w CAca - 0 1",
	"2r1kr2/p6p/8/8/8/8/P6P/2R1KR2 w FCfc - 0 1",
	"r5kr/p6p/8/8/8/8/P6P/R5KR w HAha - 0 1",
	"4k3/1P4P1/8/8/8/8/1p4p1/4K3 w - - 0 1",
	"r1n1k2r/1P6/8/8/8/8/6p1/R3K1NR w KQkq - 0 1",
}

// TestBinpackMoveCoding holds the move coding to board.Position: in every
// position of many games, a move is legal for binpack exactly when the
// board generates it, and every legal move coded as a movetext entry
// decodes to itself.
func TestBinpackMoveCoding(t *testing.T) {
	var recs []Record
	recs = append(recs, bpGames(t, 61, bpGameOpts{games: 20, maxPlies: 150})...)
	recs = append(recs, bpGames(t, 62, bpGameOpts{games: 20, maxPlies: 150, chess960: true})...)
	recs = append(recs, bpGames(t, 63, bpGameOpts{games: 2 * len(bpTricky), maxPlies: 20, starts: bpTricky})...)
	kinds := []board.Move{board.Normal, board.EnPassant, board.Castling,
		board.Promotion, board.Promotion | 1<<14, board.Promotion | 2<<14, board.Promotion | 3<<14}
	var p, after bpos
	checked := 0
	for i, rec := range recs {
		bp, err := rec.Position()
		if err != nil {
			t.Fatal(err)
		}
		var ml board.MoveList
		bp.GenerateLegal(&ml)
		legal := map[board.Move]bool{}
		for _, m := range ml.Slice() {
			legal[m] = true
		}
		p.fromRecord(&rec)
		for own := p.byColor[p.stm]; own != 0; {
			from := own.PopLSB()
			for to := board.Square(0); to < 64; to++ {
				for _, k := range kinds {
					m := board.Move(from) | board.Move(to)<<6 | k
					if got := p.legal(m, &after); got != legal[m] {
						t.Fatalf("record %d %s: move %s kind %d: binpack says legal=%v, board %v", i+1, rec.FEN(), moveText(m), m.Kind()>>12, got, legal[m])
					}
				}
			}
		}
		for _, m := range ml.Slice() {
			pid, np, mid, nm, ok := p.moveCode(m)
			if !ok {
				t.Fatalf("%s: legal move %s has no code", rec.FEN(), moveText(m))
			}
			w := &binpackWriter{}
			w.addBits(pid, usedBits(np))
			w.addBits(mid, usedBits(nm))
			w.addBits(0b00111, 5) // score delta zigzag 7 = -4
			rd := &binpackReader{name: "entry", block: w.mt}
			rd.cur, rd.nxt = &rd.bufs[0], &rd.bufs[1]
			*rd.cur = p
			if err := rd.movetextEntry(); err != nil {
				t.Fatalf("%s: move %s: %v", rec.FEN(), moveText(m), err)
			}
			if rd.move != m || rd.score != -4 || rd.bit != w.mtBits {
				t.Fatalf("%s: move %s decodes as %s score %d after %d of %d bits", rec.FEN(), moveText(m), moveText(rd.move), rd.score, rd.bit, w.mtBits)
			}
			checked++
		}
	}
	t.Logf("%d positions, %d legal moves coded and decoded", len(recs), checked)
}

// TestBinpackTricky round-trips games from the tricky positions.
func TestBinpackTricky(t *testing.T) {
	recs := bpGames(t, 64, bpGameOpts{games: 4 * len(bpTricky), maxPlies: 40, starts: bpTricky})
	data := encodeBinpack(t, recs)
	got, _, err := bpDecodeAll(t, "t.binpack", data, Options{})
	if err != nil {
		t.Fatal(err)
	}
	bpSameRecords(t, "tricky", got, bpCanonicalAll(t, recs))
	if !bytes.Equal(encodeBinpack(t, got), data) {
		t.Fatal("re-encoding differs")
	}
	// The pinned en-passant square is dropped, the legal ones kept.
	for i, fen := range bpTricky[:3] {
		r, _ := ParseFEN(fen)
		got, _, err := bpDecodeAll(t, "t.binpack", encodeBinpack(t, []Record{r}), Options{})
		if err != nil || len(got) != 1 {
			t.Fatal(err)
		}
		if keep := i > 0; (got[0].EnPassant() != board.NoSquare) != keep {
			t.Errorf("%s: en passant %s after the round trip, want kept=%v", fen, got[0].EnPassant(), keep)
		}
	}
}

// bpTwoBlocks returns a binpack of two blocks (two writers' output one after
// the other, as Stockfish's append mode makes), the records of each and
// the offset of the second.
func bpTwoBlocks(t testing.TB) (data []byte, first, second []Record, at int) {
	first = bpGames(t, 71, bpGameOpts{games: 3, maxPlies: 60})
	for _, r := range sampleBinpackable(t) {
		if r.PieceCount() < 32 && len(second) < 40 {
			second = append(second, r)
		}
	}
	a, b := encodeBinpack(t, first), encodeBinpack(t, second)
	return append(append([]byte(nil), a...), b...), bpCanonicalAll(t, first), bpCanonicalAll(t, second), len(a)
}

// TestBinpackTruncated cuts a two-block binpack at every byte: each cut is an
// error naming the file and a byte offset, with or without SkipBad, except
// the cut between the blocks (a shorter valid file); the records before the
// error are the file's first records.
func TestBinpackTruncated(t *testing.T) {
	data, first, second, between := bpTwoBlocks(t)
	all := append(append([]Record(nil), first...), second...)
	for cut := 4; cut < len(data); cut++ {
		for _, skip := range []bool{false, true} {
			got, _, err := bpDecodeAll(t, "cut.binpack", data[:cut], Options{SkipBad: skip})
			if cut == between {
				if err != nil || len(got) != len(first) {
					t.Fatalf("cut between the blocks: %d records, %v", len(got), err)
				}
				continue
			}
			var ee *EntryError
			if err == nil || !errors.As(err, &ee) || ee.File != "cut.binpack" || !strings.Contains(err.Error(), "byte ") || !strings.Contains(err.Error(), "truncated") {
				t.Fatalf("cut at %d of %d (skip %v): %d records and error %v, want a truncation error naming a byte", cut, len(data), skip, len(got), err)
			}
			bpSameRecords(t, fmt.Sprintf("cut at %d", cut), got, all[:len(got)])
		}
	}
}

// TestBinpackCorrupt flips bytes of a binpack: never a panic or a hang;
// every error names the file and a byte; every record returned is valid
// with a legal move, with or without SkipBad.
func TestBinpackCorrupt(t *testing.T) {
	data, _, _, _ := bpTwoBlocks(t)
	detected := 0
	for i := range data {
		for _, mask := range []byte{0x41, 0x80} {
			c := append([]byte(nil), data...)
			c[i] ^= mask
			for _, skip := range []bool{false, true} {
				got, _, err := bpDecodeAll(t, "flip.binpack", c, Options{SkipBad: skip})
				if err != nil {
					if !skip {
						detected++
					}
					if i >= 4 && (!strings.Contains(err.Error(), "flip.binpack") || !strings.Contains(err.Error(), "byte ")) {
						t.Fatalf("flip %#x at byte %d: error %q names no file and byte", mask, i, err)
					}
				}
				if len(got) > 2*len(c) {
					t.Fatalf("flip at %d: %d records from %d bytes", i, len(got), len(c))
				}
				for j, r := range got {
					if err := r.validate(); err != nil {
						t.Fatalf("flip %#x at byte %d: record %d invalid: %v", mask, i, j+1, err)
					}
					if r.Move != board.NullMove && !skip {
						p, _ := r.Position()
						if !p.IsLegal(r.Move) {
							t.Fatalf("flip %#x at byte %d: record %d move %s illegal", mask, i, j+1, moveText(r.Move))
						}
					}
				}
			}
		}
	}
	t.Logf("%d of %d flips detected as errors", detected, 2*len(data))
}

// TestBinpackBadInput: hand-made damage gives the error it should, at the
// byte it should; SkipBad skips what can be skipped (one position, a chain,
// the rest of a block) and counts it, and truncation and lost block
// headers stay errors.
func TestBinpackBadInput(t *testing.T) {
	data, first, second, at := bpTwoBlocks(t)
	chain0 := 0 // the first game's chain length
	for w := newBinpackWriterTo(io.Discard, nil); chain0 < len(first); chain0++ {
		w.Write(first[chain0])
		if chain0 > 0 && w.plies == 0 {
			break
		}
	}
	tests := []struct {
		name    string
		patch   func(b []byte) []byte
		want    string // in the error
		recs    int    // records read with SkipBad (-1: still an error)
		skipped int64
	}{
		{"second block magic", func(b []byte) []byte { b[at] = 'X'; return b }, fmt.Sprintf("byte %d: block header \"XINP\"", at), -1, 0},
		{"huge block", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[at+4:], 200<<20); return b }, fmt.Sprintf("byte %d: block of 209715200 bytes", at+4), -1, 0},
		{"lying block size", func(b []byte) []byte { binary.LittleEndian.PutUint32(b[at+4:], 50<<20); return b }, "truncated", -1, 0},
		{"empty block", func(b []byte) []byte {
			return append(append(b[:at:at], 'B', 'I', 'N', 'P', 0, 0, 0, 0), data[at:]...)
		}, fmt.Sprintf("byte %d: empty block", at), len(first) + len(second), 1},
		{"stray bytes", func(b []byte) []byte {
			binary.LittleEndian.PutUint32(b[4:], uint32(at-8+3))
			return append(append(b[:at:at], 1, 2, 3), data[at:]...)
		}, fmt.Sprintf("byte %d: 3 stray bytes", at), len(first) + len(second), 1},
		{"stem without magic room", func(b []byte) []byte { return b[:at+8+20] }, "truncated", -1, 0},
		{"unused nibble", func(b []byte) []byte {
			n := bits.OnesCount64(binary.BigEndian.Uint64(b[at+8:]))
			b[at+8+8+n/2] |= 1 << (4 * (n & 1))
			return b
		}, fmt.Sprintf("byte %d: stem position: non-zero unused nibble", at+8), len(first) + len(second) - 1, 1},
		{"two white kings", func(b []byte) []byte { b[8+8] = 0xAA; return b }, "byte 8: stem position", len(second), 1},
		{"halfmove high byte", func(b []byte) []byte { b[8+30] = 1; return b }, "byte 38: halfmove clock high byte", len(first) + len(second) - 1, 1},
		{"illegal stem move", func(b []byte) []byte {
			binary.BigEndian.PutUint16(b[8+24:], compressMove(makeMove(board.MakeSquare(4, 1), board.MakeSquare(4, 4), board.Normal, 0)))
			return b
		}, "byte 32: stem move e2e5 is not legal", len(second), 1},
		{"stem move without promotion with promotion bits", func(b []byte) []byte { b[8+25] |= 1; return b }, "byte 32: stem move", len(second), 1},
		{"stem null move with a movetext", func(b []byte) []byte { b[8+24], b[8+25] = 0, 0; return b }, "byte 32: stem without a move followed by", len(second), 1},
		{"result bits 3", func(b []byte) []byte { b[8+28] |= 0xC0; return b }, "byte 36: result bits 3", len(first) + len(second) - chain0, int64(chain0)},
		{"ply parity", func(b []byte) []byte { b[8+29] |= 1; return b }, "byte 8: ply 1 has the wrong parity", len(first) + len(second) - chain0, int64(chain0)},
		{"stem score -32768 with Black to move", nil, "", 0, 0},
	}
	for _, tc := range tests {
		if tc.patch == nil {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			c := tc.patch(append([]byte(nil), data...))
			_, _, err := bpDecodeAll(t, "bad.binpack", c, Options{})
			if err == nil || !strings.Contains(err.Error(), "bad.binpack: record ") || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want one containing %q", err, tc.want)
			}
			var skipped []error
			got, r, err := bpDecodeAll(t, "bad.binpack", c, Options{SkipBad: true, OnSkip: func(e error) { skipped = append(skipped, e) }})
			if tc.recs < 0 {
				if err == nil {
					t.Fatalf("SkipBad: no error, %d records", len(got))
				}
				return
			}
			if err != nil || len(got) != tc.recs || r.Skipped() != tc.skipped || int64(len(skipped)) != tc.skipped {
				t.Fatalf("SkipBad: %d records (want %d), %d skipped (want %d), %v", len(got), tc.recs, r.Skipped(), tc.skipped, err)
			}
		})
	}
}

// TestBinpackWriterRefuses: records a binpack cannot hold are errors that
// write nothing, and the writer goes on.
func TestBinpackWriterRefuses(t *testing.T) {
	ok, _ := ParseText("4k3/8/8/8/8/8/8/4K3 w - - 0 1 [0.5] 10")
	blackLow, _ := ParseText("4k3/8/8/8/8/8/8/4K3 b - - 0 1 [0.5] -32768")
	late, _ := ParseText("4k3/8/8/8/8/8/8/4K3 w - - 0 8193 [0.5] 0")
	illegal := ok
	illegal.Move = makeMove(board.E1, board.MakeSquare(4, 2), board.Normal, 0)
	tests := []struct {
		name string
		rec  Record
		want string
	}{
		{"zero record", Record{}, "record 1: "},
		{"score", blackLow, "does not fit an int16"},
		{"ply", late, "ply 16384 does not fit"},
		{"move", illegal, "move e1e3 is not legal"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for _, enc := range []Writer{newBinpackWriterTo(io.Discard, nil), newPlainWriterTo(io.Discard, nil)} {
				err := enc.Write(tc.rec)
				if _, isPlain := enc.(*plainWriter); isPlain && tc.name == "ply" {
					if err != nil {
						t.Fatalf(".plain refuses ply 16384: %v", err)
					}
					continue
				}
				if err == nil || !strings.Contains(err.Error(), tc.want) {
					t.Fatalf("%T: error %v, want %q", enc, err, tc.want)
				}
				if err := enc.Write(ok); err != nil || enc.Count() != 1 {
					t.Fatalf("%T: after a refused record: %v, count %d", enc, err, enc.Count())
				}
			}
		})
	}
}

// TestBinpackCreate goes through Create and Open: the format follows the
// name and the content.
func TestBinpackCreate(t *testing.T) {
	dir := t.TempDir()
	recs := bpGames(t, 81, bpGameOpts{games: 3, maxPlies: 80})
	for _, name := range []string{"x.binpack", "x.plain"} {
		path := filepath.Join(dir, name)
		writeAll(t, path, recs)
		got, r, err := readAll(t, path, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if want, _ := FormatOf(name); r.Format() != want {
			t.Errorf("%s: format %v", name, r.Format())
		}
		bpSameRecords(t, name, got, bpCanonicalAll(t, recs))
	}
	w, _ := Create(filepath.Join(dir, "y.binpack"))
	w.Write(recs[0])
	w.Abort()
	if _, err := os.Stat(filepath.Join(dir, "y.binpack")); !os.IsNotExist(err) {
		t.Error("aborted binpack exists")
	}
}

// FuzzBinpack: any bytes read as a binpack give records and io.EOF or an
// error naming the file and a byte, never a panic or a hang; records are
// valid with legal moves; a file read without error writes back to bytes
// that read as the same records and write back to themselves.
func FuzzBinpack(f *testing.F) {
	f.Add(encodeBinpack(f, bpGames(f, 91, bpGameOpts{games: 2, maxPlies: 30})))
	f.Add(encodeBinpack(f, bpGames(f, 92, bpGameOpts{games: 2, maxPlies: 30, chess960: true})))
	f.Add(encodeBinpack(f, bpGames(f, 93, bpGameOpts{games: 3, maxPlies: 20, starts: bpTricky})))
	f.Add(encodeBinpack(f, sampleBinpackable(f)[:6]))
	f.Add([]byte("BINP\x00\x00\x00\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, skip := range []bool{false, true} {
			rd, _ := newBinpackReader(bufio.NewReader(bytes.NewReader(data)), "fuzz.binpack", Options{SkipBad: skip})
			var recs []Record
			var err error
			for {
				var rec Record
				if rec, err = rd.Next(); err != nil {
					break
				}
				if e := rec.validate(); e != nil {
					t.Fatalf("record %d invalid: %v", len(recs)+1, e)
				}
				if rec.Move != board.NullMove {
					if p, _ := rec.Position(); !p.IsLegal(rec.Move) {
						t.Fatalf("record %d: illegal move %s", len(recs)+1, moveText(rec.Move))
					}
				}
				if recs = append(recs, rec); len(recs) > 2*len(data) {
					t.Fatalf("%d records from %d bytes", len(recs), len(data))
				}
			}
			if err != io.EOF {
				if !strings.Contains(err.Error(), "fuzz.binpack: record ") || !strings.Contains(err.Error(), "byte ") {
					t.Fatalf("error %q names no file and byte", err)
				}
				continue
			}
			b1 := encodeBinpack(t, recs)
			again, _, err := bpDecodeAll(t, "again.binpack", b1, Options{})
			if err != nil {
				t.Fatal(err)
			}
			bpSameRecords(t, "re-read", again, recs)
			if b2 := encodeBinpack(t, again); !bytes.Equal(b1, b2) {
				t.Fatal("re-encoding is not stable")
			}
		}
	})
}

// benchRead reads data through a binpack reader b.N times and reports
// positions per second.
func benchRead(b *testing.B, data []byte) {
	n := 0
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		rd, _ := newBinpackReader(bufio.NewReaderSize(bytes.NewReader(data), 1<<16), "bench.binpack", Options{})
		for {
			if _, err := rd.Next(); err != nil {
				if err != io.EOF {
					b.Fatal(err)
				}
				break
			}
			n++
		}
	}
	b.ReportMetric(float64(n)/b.Elapsed().Seconds(), "positions/s")
	b.ReportMetric(float64(len(data))*float64(b.N)/float64(n), "bytes/position")
}

// BenchmarkBinpackRead decodes chained games (the common case: positions
// about 2 bytes each).
func BenchmarkBinpackRead(b *testing.B) {
	benchRead(b, encodeBinpack(b, bpGames(b, 101, bpGameOpts{games: 300, maxPlies: 300})))
}

// BenchmarkBinpackReadStems decodes positions stored one chain each.
func BenchmarkBinpackReadStems(b *testing.B) {
	recs := sampleBinpackable(b)
	for len(recs) < 50000 {
		recs = append(recs, recs...)
	}
	benchRead(b, encodeBinpack(b, recs))
}

// BenchmarkBinpackWrite encodes chained games.
func BenchmarkBinpackWrite(b *testing.B) {
	recs := bpGames(b, 101, bpGameOpts{games: 300, maxPlies: 300})
	for b.Loop() {
		w := newBinpackWriterTo(io.Discard, nil)
		for _, r := range recs {
			if err := w.Write(r); err != nil {
				b.Fatal(err)
			}
		}
		w.Close()
	}
	b.ReportMetric(float64(len(recs))*float64(b.N)/b.Elapsed().Seconds(), "positions/s")
}
