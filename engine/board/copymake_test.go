package board

import "testing"

// perftCopyMake is perft with copy-make instead of make/unmake; it exists
// only to measure the choice (see docs/perf.md) and must count the same.
func perftCopyMake(p *Position, depth int) uint64 {
	if depth == 1 {
		return uint64(p.CountLegal())
	}
	var ml MoveList
	p.GenerateLegal(&ml)
	var n uint64
	for _, m := range ml.Moves[:ml.N] {
		q := *p
		q.MakeMove(m)
		n += perftCopyMake(&q, depth-1)
	}
	return n
}

func TestPerftCopyMake(t *testing.T) {
	p := StartPosition()
	if got := perftCopyMake(p, 4); got != 197281 {
		t.Fatalf("copy-make perft(4) = %d", got)
	}
}

func BenchmarkPerftStart5CopyMake(b *testing.B) {
	p := StartPosition()
	for i := 0; i < b.N; i++ {
		perftCopyMake(p, 5)
	}
	b.ReportMetric(float64(4865609*b.N)/b.Elapsed().Seconds()/1e6, "Mnps")
}
