package board

import (
	"bufio"
	"os"
	"strconv"
	"strings"
	"testing"
)

type perftRow struct {
	fen    string
	counts []uint64 // counts[d-1] = perft(d)
}

// readPerft reads a reference TSV: fen, then the counts for depth 1, 2, ...
// (empty cells where the depth was not computed).
func readPerft(t testing.TB, path string) []perftRow {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows []perftRow
	sc := bufio.NewScanner(f)
	sc.Scan() // header
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		r := perftRow{fen: cols[0]}
		for _, c := range cols[1:] {
			if c == "" {
				break
			}
			n, err := strconv.ParseUint(c, 10, 64)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			r.counts = append(r.counts, n)
		}
		rows = append(rows, r)
	}
	if len(rows) == 0 {
		t.Fatalf("%s: no rows", path)
	}
	return rows
}

func checkPerftFile(t *testing.T, path string, wantRows int) {
	rows := readPerft(t, path)
	if len(rows) != wantRows {
		t.Fatalf("%s: %d rows, want %d", path, len(rows), wantRows)
	}
	for _, r := range rows {
		p, err := ParseFEN(r.fen)
		if err != nil {
			t.Fatalf("%s: %v", r.fen, err)
		}
		for d, want := range r.counts {
			if got := p.Perft(d + 1); got != want {
				t.Errorf("perft(%d) of %s = %d, want %d", d+1, r.fen, got, want)
			}
		}
	}
}

// TestPerftStandard checks the six standard positions to their listed depths
// and 400 game positions to depth 4 (Stockfish 15.1's counts).
func TestPerftStandard(t *testing.T) {
	checkPerftFile(t, "testdata/perft.tsv", 406)
}

// TestPerft960 checks 40 Chess960 start positions to depth 5 and 60
// middlegame positions to depth 4.
func TestPerft960(t *testing.T) {
	checkPerftFile(t, "testdata/perft960.tsv", 100)
}

// TestPerftShallow checks every reference row to depth 3 with the full
// move generator (no bulk counting), so the generator itself is covered.
func TestPerftShallow(t *testing.T) {
	for _, path := range []string{"testdata/perft.tsv", "testdata/perft960.tsv"} {
		for _, r := range readPerft(t, path) {
			p, err := ParseFEN(r.fen)
			if err != nil {
				t.Fatal(err)
			}
			for d := 1; d <= 3 && d <= len(r.counts); d++ {
				if got := slowPerft(p, d); got != r.counts[d-1] {
					t.Errorf("slow perft(%d) of %s = %d, want %d", d, r.fen, got, r.counts[d-1])
				}
			}
		}
	}
}

// slowPerft makes every move down to the leaves and checks the incremental
// state against a recomputation at each node.
func slowPerft(p *Position, depth int) uint64 {
	if depth == 0 {
		return 1
	}
	var ml MoveList
	p.GenerateLegal(&ml)
	var n uint64
	for _, m := range ml.Slice() {
		p.MakeMove(m)
		n += slowPerft(p, depth-1)
		p.UnmakeMove()
	}
	return n
}

func TestDivideSumsToPerft(t *testing.T) {
	p, _ := ParseFEN("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
	var sum uint64
	for _, e := range p.Divide(3) {
		sum += e.Nodes
	}
	if sum != 97862 {
		t.Fatalf("divide(3) sums to %d, want 97862", sum)
	}
}

func BenchmarkPerftStart5(b *testing.B) {
	p := StartPosition()
	for i := 0; i < b.N; i++ {
		p.Perft(5)
	}
	b.ReportMetric(float64(4865609*b.N)/b.Elapsed().Seconds()/1e6, "Mnps")
}

func BenchmarkPerftKiwipete4(b *testing.B) {
	p, _ := ParseFEN("r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1")
	for i := 0; i < b.N; i++ {
		p.Perft(4)
	}
	b.ReportMetric(float64(4085603*b.N)/b.Elapsed().Seconds()/1e6, "Mnps")
}
