package nnue

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board"
)

// benchFENs are middlegame positions from the reference set.
var benchFENs = []string{
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	"r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
	"rn2kbnr/1pq3pp/4p3/p2p1p2/P3PBbP/3P1N2/RPP2PP1/3QKB1R w Kkq - 0 11",
	"5bk1/7p/5pp1/Pp3n2/PBp2P2/3q2PP/1K1P4/RN2r3 b - - 5 33",
	"8/kp4Q1/r4R2/p3p3/P2P4/3b2P1/1B1P3P/R1N3K1 b - - 0 31",
}

// benchPositions parses benchFENs.
func benchPositions(b *testing.B) []*board.Position {
	var positions []*board.Position
	for _, f := range benchFENs {
		p, err := board.ParseFEN(f)
		if err != nil {
			b.Fatal(err)
		}
		positions = append(positions, p)
	}
	return positions
}

// treeWalk makes every move to depth plies, evaluating at every node, the
// access pattern of a search; it returns the number of evaluations.
func treeWalk(ev *Evaluator, p *board.Position, depth int) int {
	ev.Raw(p, nil)
	if depth == 0 {
		return 1
	}
	var ml board.MoveList
	p.GenerateLegal(&ml)
	n := 1
	for _, m := range ml.Slice() {
		p.MakeMove(m)
		ev.Push(p.LastDelta())
		n += treeWalk(ev, p, depth-1)
		p.UnmakeMove()
		ev.Pop()
	}
	return n
}

func benchNet(b *testing.B, name string) *Network {
	spec, err := archs.Load(name)
	if err != nil {
		b.Fatal(err)
	}
	if spec.Head.Type == "rengar" {
		n, _ := NewRengar(spec, RandomRengarWeights(1, 0.25))
		return n
	}
	switch name {
	case "koivisto-7.4", "koivisto-5.13", "leorik-3.1":
		file := map[string]string{"koivisto-7.4": "koivisto-7.4.net", "koivisto-5.13": "koivisto-5.1.net", "leorik-3.1": "leorik-3.1-640HL-S-5288M-Tmix-Q5-v19.nnue"}[name]
		return loadTestNet(b, name, "../../../nets/"+file)
	case "koivisto-16":
		return loadTestNet(b, name, "koivisto-9.2-synthetic16.net.gz")
	case "halfkp":
		return loadTestNet(b, name, "halfkp-synthetic.nnue.gz")
	case "sf15.1":
		n, err := sf15Net()
		if err != nil {
			b.Fatal(err)
		}
		return n
	}
	// Random weights for designs without a published net here.
	n := newNetwork(spec)
	randomFT(n, rand.New(rand.NewPCG(1, 1)))
	if spec.Head.Type == "linear" {
		n.head = newLinearHead(n)
	} else {
		b.Skipf("%s: no net", name)
	}
	return n
}

// BenchmarkIncremental measures evaluations per second along search-like
// trees (depth 3 from five middlegames), per architecture, history depth H
// and refresh cache. Run: go test ./engine/nnue -run X -bench Incremental
func BenchmarkIncremental(b *testing.B) {
	for _, name := range archs.Builtin() {
		net := benchNet(b, name)
		for _, h := range []int{1, 2, 4, 0} {
			for _, cache := range []bool{false, true} {
				b.Run(fmt.Sprintf("%s/H=%d/cache=%v", name, h, cache), func(b *testing.B) {
					ev := NewEvaluatorWith(net, h, cache)
					positions := benchPositions(b)
					evals := 0
					b.ResetTimer()
					for i := 0; i < b.N; i++ {
						p := positions[i%len(positions)]
						ev.Reset(p)
						evals += treeWalk(ev, p, 2)
					}
					b.ReportMetric(float64(evals)/b.Elapsed().Seconds(), "evals/s")
				})
			}
		}
	}
}
