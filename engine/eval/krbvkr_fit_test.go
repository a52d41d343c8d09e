package eval

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/syzygy"
)

// The fit of the rook-and-bishop-against-rook network (krbvkr.go). It runs
// only when asked, as
//
//	GOMAXPROCS=1 go test ./engine/eval -run TestFitKRBvKR -timeout 60m -krbvkr.fit -v
//
// and then rewrites krbvkr.bin from random positions and a decision set
// (krbvkr_rank_test.go) labelled by the Syzygy tables in
// engine/syzygy/testdata/tables, about 6 minutes here; the same flags
// give the same file byte for byte (one goroutine, seeded). The third
// session's value-only network was -krbvkr.rank 0 -krbvkr.samples 8000000
// -krbvkr.epochs 8. With -krbvkr.measure FILE it measures a weights file
// instead, and -krbvkr.positions adds the 1-ply measure on given positions
// (bench/endgames/keeprate -list prints those of the endgame games).
var (
	krbFit     = flag.Bool("krbvkr.fit", false, "fit the KRBvKR network to the tables and rewrite krbvkr.bin")
	krbSamples = flag.Int("krbvkr.samples", 4_000_000, "random KRBvKR positions to fit on")
	krbTest    = flag.Int("krbvkr.test", 100_000, "further positions to measure the fit on")
	krbEpochs  = flag.Int("krbvkr.epochs", 6, "passes over the positions")
	krbSeed    = flag.Uint64("krbvkr.seed", 1, "seed of the positions and of the fit")
	krbOut     = flag.String("krbvkr.out", krbWeightsFile, "where the weights go")
	// The hidden layer's width (eighth session): krbvkr.bin's is 64; the
	// file records it, so a wider fit is measured and played as it is.
	krbHiddenWidth = flag.Int("krbvkr.hidden", 64, "hidden units of a fitted network (1 to krbMaxHidden)")
	krbQuiet       = flag.Bool("krbvkr.quiet", true, "only positions where the side to move has no capture")
	krbMeasure     = flag.String("krbvkr.measure", "", "measure this weights file instead of fitting one")
	// The decision set (fifth session): won positions with the stronger
	// side to move and all their moves, the moves that keep the win
	// ranked above the ones that do not.
	krbRank       = flag.Int("krbvkr.rank", 300_000, "won positions of the decision set (0: fit the value alone, as the third session did)")
	krbRankWeight = flag.Float64("krbvkr.rankweight", 0.05, "weight of the decision set's ranking loss")
	krbValueKids  = flag.Float64("krbvkr.valuekids", 0.5, "weight of the value loss on the decision set's children")
	krbValueSelf  = flag.Float64("krbvkr.valueself", 0, "weight of the value loss on the decision set's won positions themselves")
	krbBeta       = flag.Float64("krbvkr.beta", 10, "softmax scale of the ranking loss (per unit of the network's output)")
	krbTau        = flag.Float64("krbvkr.tau", 8, "among winning moves, the ranking target falls by e every tau plies of DTZ")
	krbPositions  = flag.String("krbvkr.positions", "", "also measure the 1-ply keep rate on these positions (FENs one a line, KRBvKR, the stronger side to move: keeprate -list)")
	krbDefend     = flag.Bool("krbvkr.defend", false, "add to the decision set the defender's replies after one drawing and one winning move of each won position, and the drawn position after a drawing reply (tried in the fifth session, not kept)")
	krbWalk       = flag.Int("krbvkr.walk", 6, "won positions taken along each line of play from a random won start")
)

const krbTables = "../syzygy/testdata/tables"

// krbSample is a random KRBvKR position with the tables' verdict: dtz is
// the distance to zeroing from the stronger side's point of view
// (positive: it wins), as ProbeDTZ gives it.
type krbSample struct {
	c   krbPosition
	dtz int16
}

// krbTarget is what the network is fitted to: the value of a position
// for the stronger side from its distance to zeroing.
func krbTarget(dtz int) float32 {
	switch {
	case dtz == 0:
		return 0
	case dtz > 100:
		return 0.1
	case dtz < -100:
		return -0.1
	case dtz > 0:
		return 1 - float32(dtz)/200
	default:
		return -1 - float32(dtz)/200
	}
}

// randomSquares draws five distinct squares, in order.
func randomSquares(rng *rand.Rand) (sq [5]board.Square) {
	var used board.Bitboard
	for i := range sq {
		for {
			s := board.Square(rng.IntN(64))
			if !used.Has(s) {
				used |= board.Bit(s)
				sq[i] = s
				break
			}
		}
	}
	return sq
}

// randomKRB draws a legal KRBvKR position whose side to move is not in
// check: the squares of the stronger side's king, rook, bishop and the
// defending king and rook, random colours and side to move.
func randomKRB(rng *rand.Rand, p *board.Position) (sq [5]board.Square, strongWhite, strongToMove bool) {
	for {
		strongWhite, strongToMove = rng.IntN(2) == 0, rng.IntN(2) == 0
		sq = randomSquares(rng)
		if setKRB(p, sq, strongWhite, strongToMove) != nil || p.InCheck() {
			continue
		}
		if *krbQuiet {
			var ml board.MoveList
			if p.GenerateNoisy(&ml); ml.N > 0 {
				continue
			}
		}
		return sq, strongWhite, strongToMove
	}
}

// setKRB sets p to the position of the squares (the stronger side's
// king, rook, bishop, the defending king and rook); an error if it is
// not legal (kings next to each other, the side not to move in check).
func setKRB(p *board.Position, sq [5]board.Square, strongWhite, strongToMove bool) error {
	var cells [64]board.Piece
	for s := range cells {
		cells[s] = board.NoPiece
	}
	strong, weak := board.White, board.Black
	if !strongWhite {
		strong, weak = weak, strong
	}
	cells[sq[0]] = board.MakePiece(strong, board.King)
	cells[sq[1]] = board.MakePiece(strong, board.Rook)
	cells[sq[2]] = board.MakePiece(strong, board.Bishop)
	cells[sq[3]] = board.MakePiece(weak, board.King)
	cells[sq[4]] = board.MakePiece(weak, board.Rook)
	stm := weak
	if strongToMove {
		stm = strong
	}
	f := board.FENFields{Board: &cells, Side: stm, Castling: [4]board.Square{board.NoSquare, board.NoSquare, board.NoSquare, board.NoSquare}, EnPassant: board.NoSquare, Fullmove: 1}
	if err := p.SetFEN(f.String()); err != nil {
		return err
	}
	them := stm.Other()
	if p.AttackersTo(p.King(them), stm, p.Occupied()) != 0 {
		return fmt.Errorf("%s: the side not to move is in check", f.String())
	}
	return nil
}

// krbSamplesOf draws n labelled positions.
func krbSamplesOf(t *testing.T, tb *syzygy.Tables, rng *rand.Rand, n int) []krbSample {
	out := make([]krbSample, n)
	var p board.Position
	for i := range out {
		sq, sw, stm := randomKRB(rng, &p)
		d, err := tb.ProbeDTZ(&p)
		if err != nil {
			t.Fatalf("%s: %v", p.FEN(), err)
		}
		if !stm {
			d = -d
		}
		out[i] = krbSample{c: canonicalKRB(sq[0], sq[1], sq[2], sq[3], sq[4], sw, stm), dtz: int16(d)}
	}
	return out
}

// fitKRB fits a network to the samples by stochastic gradient descent on
// the squared error, one sample at a time in a seeded order, and to the
// decision set's ranking (krbRankStep), its won positions shuffled in
// among the samples.
func fitKRB(rng *rand.Rand, train []krbSample, dec krbDecisionSet, epochs int, logf func(string, ...any)) *krbNet {
	n := newKRBNet(rng)
	order := make([]int32, len(train)+len(dec.parents))
	for i := range order {
		order[i] = int32(i)
	}
	h := make([]float32, n.hidden)
	for e := range epochs {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		lr := float32(0.01 * math.Pow(0.7, float64(e)))
		var sse, ce float64
		var topKeeps int
		for _, k := range order {
			if int(k) >= len(train) {
				d := dec.parents[int(k)-len(train)]
				if *krbValueSelf > 0 && !d.defender && !d.drawn {
					in := d.self.c.inputs()
					out := n.forwardHidden(&in, h)
					n.krbStep(&in, h, float32(*krbValueSelf)*(out-krbTarget(int(d.self.dtz)))*lr)
				}
				c, keep := n.krbRankStep(dec.kids[d.first:d.first+d.count], d.defender, d.drawn, float64(lr), *krbBeta, *krbTau, *krbRankWeight, *krbValueKids)
				ce += c
				if keep {
					topKeeps++
				}
				continue
			}
			s := &train[k]
			in := s.c.inputs()
			out := n.forwardHidden(&in, h)
			g := out - krbTarget(int(s.dtz))
			sse += float64(g) * float64(g)
			n.krbStep(&in, h, g*lr)
		}
		logf("epoch %d: lr %.4f, RMS error %.4f", e+1, lr, math.Sqrt(sse/float64(len(train))))
		if len(dec.parents) > 0 {
			logf("epoch %d: decision set: cross-entropy %.4f, best-scored move keeps the win %.3f (while fitting)",
				e+1, ce/float64(len(dec.parents)), float64(topKeeps)/float64(len(dec.parents)))
		}
	}
	return n
}

// krbReport measures a network on positions it was not fitted on.
type krbReport struct {
	r2          float64 // of the target
	winSpearman float64 // rank correlation of score and -DTZ over wins
	winAbove    float64 // share of (win, draw) pairs ranked right
	wins, draws int
}

func measureKRB(n *krbNet, test []krbSample) krbReport {
	var r krbReport
	var mean float64
	for _, s := range test {
		mean += float64(krbTarget(int(s.dtz)))
	}
	mean /= float64(len(test))
	var ssr, sst float64
	var winScores, winDTZ, drawScores []float64
	for _, s := range test {
		in := s.c.inputs()
		y := float64(n.forward(&in))
		t := float64(krbTarget(int(s.dtz)))
		ssr += (y - t) * (y - t)
		sst += (t - mean) * (t - mean)
		switch {
		case krbWon(s.dtz):
			winScores = append(winScores, y)
			winDTZ = append(winDTZ, -float64(s.dtz))
		case s.dtz == 0:
			drawScores = append(drawScores, y)
		}
	}
	r.r2 = 1 - ssr/sst
	r.wins, r.draws = len(winScores), len(drawScores)
	r.winSpearman = spearman(winScores, winDTZ)
	// The share of (win, draw) pairs with the win above: by merging the
	// sorted scores.
	ws, ds := slices.Clone(winScores), slices.Clone(drawScores)
	slices.Sort(ws)
	slices.Sort(ds)
	var above float64
	j := 0
	for _, w := range ws {
		for j < len(ds) && ds[j] < w {
			j++
		}
		above += float64(j)
	}
	r.winAbove = above / float64(len(ws)) / float64(len(ds))
	return r
}

func ranks(x []float64) []float64 {
	idx := make([]int, len(x))
	for i := range idx {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int {
		switch {
		case x[a] < x[b]:
			return -1
		case x[a] > x[b]:
			return 1
		}
		return 0
	})
	r := make([]float64, len(x))
	for i := 0; i < len(idx); {
		j := i
		for j < len(idx) && x[idx[j]] == x[idx[i]] {
			j++
		}
		for k := i; k < j; k++ {
			r[idx[k]] = float64(i+j-1) / 2
		}
		i = j
	}
	return r
}

func spearman(a, b []float64) float64 {
	ra, rb := ranks(a), ranks(b)
	n := float64(len(a))
	var ma, mb float64
	for i := range ra {
		ma += ra[i]
		mb += rb[i]
	}
	ma, mb = ma/n, mb/n
	var sab, saa, sbb float64
	for i := range ra {
		sab += (ra[i] - ma) * (rb[i] - mb)
		saa += (ra[i] - ma) * (ra[i] - ma)
		sbb += (rb[i] - mb) * (rb[i] - mb)
	}
	return sab / math.Sqrt(saa*sbb)
}

// TestFitKRBvKR rewrites krbvkr.bin (only with -krbvkr.fit).
func TestFitKRBvKR(t *testing.T) {
	if !*krbFit {
		t.Skip("fits the KRBvKR network only with -krbvkr.fit (see krbvkr_fit_test.go)")
	}
	tb := openKRBTables(t)
	rng := rand.New(rand.NewPCG(*krbSeed, 0x6b7262766b72))
	train := krbSamplesOf(t, tb, rng, *krbSamples)
	test := krbSamplesOf(t, tb, rng, *krbTest)
	t.Logf("%d positions drawn and labelled", len(train)+len(test))
	var dec krbDecisionSet
	if *krbRank > 0 && *krbMeasure == "" {
		dec = krbDecisionsOf(t, tb, rng, *krbRank, *krbWalk)
		t.Logf("decision set: %d won positions, %d moves", len(dec.parents), len(dec.kids))
	}
	var n *krbNet
	if *krbMeasure != "" {
		data, err := os.ReadFile(*krbMeasure)
		if err != nil {
			t.Fatal(err)
		}
		if n, err = decodeKRB(*krbMeasure, data); err != nil {
			t.Fatal(err)
		}
	} else {
		n = fitKRB(rng, train, dec, *krbEpochs, t.Logf)
	}
	r := measureKRB(n, test)
	t.Logf("held out: %d positions (%d wins, %d draws): R² %.3f, wins' Spearman with -DTZ %.3f, win above draw %.4f",
		len(test), r.wins, r.draws, r.r2, r.winSpearman, r.winAbove)
	for _, m := range []struct {
		name  string
		score func(p *board.Position) float64
	}{{"network", netScore(n)}, {"hand-made term (mopUp + rookBishopEdge)", handScore}} {
		pol := policyKRB(t, tb, m.score, test, 5000)
		t.Logf("%s, best move by one ply over %d held-out wins (DTZ 3-100, stronger side to move): keeps the win %.3f, nearer zeroing %.3f",
			m.name, pol.positions, pol.keep, pol.progress)
	}
	if *krbPositions != "" {
		games := krbPositionsOf(t, tb, *krbPositions)
		for _, m := range []struct {
			name  string
			score func(p *board.Position) float64
		}{{"network", netScore(n)}, {"hand-made term", handScore}} {
			pol := policyKRB(t, tb, m.score, games, len(games))
			t.Logf("%s, best move by one ply over %d won positions of %s (DTZ 3-100): keeps the win %.3f, nearer zeroing %.3f",
				m.name, pol.positions, *krbPositions, pol.keep, pol.progress)
		}
	}
	if *krbMeasure != "" {
		return
	}
	if err := os.WriteFile(*krbOut, encodeKRB(n), 0o644); err != nil {
		t.Fatal(err)
	}
}

// krbPositionsOf reads KRBvKR positions with the stronger side to move,
// FENs one a line, labelled by the tables (the clock taken as 0).
func krbPositionsOf(t *testing.T, tb *syzygy.Tables, path string) []krbSample {
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []krbSample
	for i, line := range strings.Split(string(data), "\n") {
		if strings.TrimSpace(line) == "" {
			continue
		}
		p, err := board.ParseFEN(line)
		if err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
		strong := p.SideToMove()
		if !isKRB(p, strong) {
			t.Fatalf("%s:%d: %s is not KRBvKR with the stronger side to move", path, i+1, line)
		}
		d, err := tb.ProbeDTZ(p)
		if err != nil {
			t.Fatalf("%s:%d: %v", path, i+1, err)
		}
		out = append(out, krbSample{c: canonicalOf(p, strong), dtz: int16(d)})
	}
	return out
}

// squaresKRB is the inverse of canonicalKRB: the squares (the stronger
// side's king, rook, bishop, the defending king and rook) of the
// canonical position, the stronger side White.
func squaresKRB(c krbPosition) [5]board.Square {
	wk := board.Square(slices.Index(krbTriangle[:], int8(c.king)))
	return [5]board.Square{c.sq[0], c.sq[1], c.sq[2], wk, c.sq[3]}
}

// krbPolicy is how often the move a network scores best keeps a win
// (keep) and brings its zeroing nearer (progress), over won positions
// with the stronger side to move: every move is scored by the network
// on the position it leads to (a capture of the rook or a mate above
// every other).
type krbPolicy struct {
	positions      int
	keep, progress float64
}

func policyKRB(t *testing.T, tb *syzygy.Tables, score func(p *board.Position) float64, test []krbSample, limit int) krbPolicy {
	var r krbPolicy
	var p board.Position
	var ml board.MoveList
	for _, s := range test {
		if r.positions == limit {
			break
		}
		if !s.c.strongToMove || s.dtz < 3 || s.dtz > 100 {
			continue
		}
		sq := squaresKRB(s.c)
		if err := setKRB(&p, sq, true, true); err != nil {
			t.Fatalf("%v: %v", sq, err)
		}
		r.positions++
		p.GenerateLegal(&ml)
		best, bestScore := board.NullMove, math.Inf(-1)
		for _, m := range ml.Moves[:ml.N] {
			p.MakeMove(m)
			var v float64
			var replies board.MoveList
			p.GenerateLegal(&replies)
			switch {
			case replies.N == 0 && p.InCheck():
				v = 3
			case replies.N == 0:
				v = 0
			case p.Pieces(board.Black, board.Rook) == 0:
				v = 2
			default:
				v = score(&p)
			}
			p.UnmakeMove()
			if v > bestScore {
				best, bestScore = m, v
			}
		}
		p.MakeMove(best)
		d, err := tb.ProbeDTZ(&p)
		if err != nil {
			t.Fatalf("%s: %v", p.FEN(), err)
		}
		d = -d // the stronger side's view
		zeroed := p.HalfmoveClock() == 0
		p.UnmakeMove()
		if d > 0 && d <= 100 {
			r.keep++
			if zeroed || d < int(s.dtz) {
				r.progress++
			}
		}
	}
	r.keep /= float64(r.positions)
	r.progress /= float64(r.positions)
	return r
}

// netScore and handScore score a KRBvKR position for White, the
// stronger side: the network, and Endgame's hand-made term.
func netScore(n *krbNet) func(p *board.Position) float64 {
	return func(p *board.Position) float64 {
		c := canonicalKRB(p.King(board.White), p.Pieces(board.White, board.Rook).LSB(), p.Pieces(board.White, board.Bishop).LSB(),
			p.King(board.Black), p.Pieces(board.Black, board.Rook).LSB(), true, p.SideToMove() == board.White)
		in := c.inputs()
		return float64(n.forward(&in))
	}
}

func handScore(p *board.Position) float64 {
	k, wk := p.King(board.White), p.King(board.Black)
	dark := p.Pieces(board.White, board.Bishop)&endgameDark != 0
	return float64(mopUp(k, wk)+rookBishopEdge(k, wk, dark)) / 1000
}
