package nnue

import (
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board"
)

// randomFT fills a network's feature transformer with small random values.
func randomFT(n *Network, rng *rand.Rand) {
	for i := range n.FTWeights {
		n.FTWeights[i] = int16(rng.IntN(257) - 128)
	}
	for i := range n.FTBias {
		n.FTBias[i] = int16(rng.IntN(257) - 128)
	}
	for i := range n.PSQT {
		n.PSQT[i] = int32(rng.IntN(20001) - 10000)
	}
	for i := range n.ThreatWeights {
		n.ThreatWeights[i] = int8(rng.IntN(256) - 128)
	}
	for i := range n.ThreatPSQT {
		n.ThreatPSQT[i] = int32(rng.IntN(20001) - 10000)
	}
}

// scratchAcc computes perspective c's accumulator of p from scratch.
func scratchAcc(n *Network, p *board.Position, c board.Color) ([]int16, []int32) {
	acc := slices.Clone(n.FTBias)
	var psqt []int32
	if n.PSQTBuckets > 0 {
		psqt = make([]int32, n.PSQTBuckets)
	}
	for _, f := range n.Features.Active(p, c, nil) {
		addRow(acc, n.row(f))
		if psqt != nil {
			addRow32(psqt, n.psqtRow(f))
		}
	}
	if n.Features.Threats() {
		for _, f := range bruteThreatFeatures(p, c) {
			if n.ThreatWeights == nil { // nnuelab's nets: int16 rows after the piece-square ones
				addRow(acc, n.row(n.Features.Size()+f))
				if psqt != nil {
					addRow32(psqt, n.psqtRow(n.Features.Size()+f))
				}
				continue
			}
			addRow8(acc, n.threatRow(f))
			if psqt != nil {
				addRow32(psqt, n.threatPSQTRow(f))
			}
		}
	}
	return acc, psqt
}

// TestIncrementalEqualsRefresh walks random search-like trees (moves, null
// moves, unmakes, evaluations at random nodes) from the reference
// positions and checks after every evaluation that the incremental
// accumulators equal a refresh, for every architecture, H in {1, 2, 4,
// unlimited}, with and without the refresh cache.
func TestIncrementalEqualsRefresh(t *testing.T) {
	fens := []string{board.StartFEN,
		"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
		"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
		"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
		"1r2k1r1/pppppppp/8/8/8/8/PPPPPPPP/1R2K1R1 w GBgb - 0 1",
	}
	// Every builtin design, and threat features on designs without king
	// buckets or mirroring (chess768: only the threats' own orientation
	// forces refreshes) and with them (leorik-3.2).
	names := append(archs.Builtin(), "chess768+threats", "leorik-3.2+threats")
	for _, name := range names {
		design, plus, _ := strings.Cut(name, "+")
		spec, err := archs.Load(design)
		if err != nil {
			t.Fatal(err)
		}
		if plus == "threats" {
			if spec, err = spec.Override(`features.threats="full"`, `name="`+name+`"`, `net.format="nnuelab"`); err != nil {
				t.Fatal(err)
			}
		}
		// One transformer per arch for every H and cache setting: sf17.1's
		// is 138 MB.
		base := newNetwork(spec)
		randomFT(base, rand.New(rand.NewPCG(0, 7)))
		if spec.Head.Type == "rengar" {
			base = rengarTestNet(t)
		}
		for _, h := range []int{1, 2, 4, 0} {
			for _, cache := range []bool{false, true} {
				rng := rand.New(rand.NewPCG(uint64(h), 7))
				n := base
				ev := NewEvaluatorWith(n, h, cache)
				checks := 0
				for _, fen := range fens {
					p, _ := board.ParseFEN(fen)
					ev.Reset(p)
					checks += walk(t, n, ev, p, rng, 0)
				}
				st := ev.Stats()
				if checks < 50 || st.Refreshes == 0 {
					t.Fatalf("%s H=%d cache=%v: only %d checks, %d refreshes", name, h, cache, checks, st.Refreshes)
				}
				if cache && design != "chess768" && name != "leorik-3.1" && name != "koivisto-5.13" && name != "rengar" && st.CacheHits == 0 {
					t.Errorf("%s H=%d: refresh cache never hit", name, h)
				}
			}
		}
	}
}

// walk plays random moves to a random depth, checking accumulators at
// random nodes; it returns the number of checks.
func walk(t *testing.T, n *Network, ev *Evaluator, p *board.Position, rng *rand.Rand, depth int) int {
	checks := 0
	if rng.IntN(3) != 0 {
		ev.computeAll(p)
		top := &ev.stack[ev.top]
		for c := board.White; c <= board.Black; c++ {
			acc, psqt := scratchAcc(n, p, c)
			if !slices.Equal(acc, top.acc[c]) || !slices.Equal(psqt, top.psqt[c]) {
				t.Fatalf("%s H=%d cache=%v: %s perspective %s: incremental accumulator differs from refresh",
					n.Spec.Name, ev.history, ev.useCache, p.FEN(), c)
			}
		}
		checks++
	}
	if depth >= 7 {
		return checks
	}
	var ml board.MoveList
	p.GenerateLegal(&ml)
	if ml.N == 0 {
		return checks
	}
	for k := 0; k < 1+rng.IntN(2); k++ {
		if !p.InCheck() && rng.IntN(8) == 0 {
			p.MakeNullMove()
			ev.Push(&board.Delta{})
		} else {
			m := ml.Moves[rng.IntN(ml.N)]
			// Prefer king moves and captures sometimes: they exercise refreshes.
			for try := 0; try < 3 && p.PieceOn(m.From()).Type() != board.King && rng.IntN(2) == 0; try++ {
				m = ml.Moves[rng.IntN(ml.N)]
			}
			p.MakeMove(m)
			ev.Push(p.LastDelta())
		}
		checks += walk(t, n, ev, p, rng, depth+1)
		if p.LastMove() == board.NullMove {
			p.UnmakeNullMove()
		} else {
			p.UnmakeMove()
		}
		ev.Pop()
	}
	return checks
}
