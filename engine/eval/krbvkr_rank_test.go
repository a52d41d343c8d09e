package eval

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/syzygy"
)

// The decision set of the KRBvKR fit (fifth session): the value fit alone
// (fitKRB) learns which positions are won, but its best move by one ply
// keeps a won position won only 39% of the time, and the search needs the
// network to tell a won child from a drawn sibling. So the fit also sees
// won positions with the stronger side to move and every one of their
// moves (the children, the defender to move), and a softmax over the
// children's scores is pulled towards the moves that keep the win, the
// nearer zeroing the more.

// krbDecision is one won position of the decision set: its children are
// kids[first : first+count] of the set, each with the stronger side's
// DTZ after the move (a child that keeps the win has 1..100).
type krbDecision struct {
	first, count int32
	// self is the position itself with its DTZ (for the stronger side's
	// won positions; the defender's and drawn ones leave it zero).
	self krbSample
	// defender: the position is the defender's to move (a child of a
	// won position) and its children are its replies, ranked for the
	// defender: the drawing ones above, else the longest losses.
	defender bool
	// drawn: the stronger side is to move in a drawn position (reached by
	// a drawing move and the defender's drawing reply); none of its
	// children wins, and the ones it scores best are pulled down to
	// their values the hardest (a search takes the best of them).
	drawn bool
}

// krbDecisionSet is the won positions and their children.
type krbDecisionSet struct {
	parents []krbDecision
	kids    []krbSample
}

// canonicalOf is the canonical form of the KRBvKR position p whose
// stronger side is strong.
func canonicalOf(p *board.Position, strong board.Color) krbPosition {
	weak := strong.Other()
	return canonicalKRB(p.King(strong), p.Pieces(strong, board.Rook).LSB(), p.Pieces(strong, board.Bishop).LSB(),
		p.King(weak), p.Pieces(weak, board.Rook).LSB(), strong == board.White, p.SideToMove() == strong)
}

// isKRB reports whether p is still rook and bishop against rook with
// strong the side of the bishop.
func isKRB(p *board.Position, strong board.Color) bool {
	weak := strong.Other()
	return p.ByColor(strong).Count() == 3 && p.Pieces(strong, board.Rook) != 0 && p.Pieces(strong, board.Bishop) != 0 &&
		p.ByColor(weak).Count() == 2 && p.Pieces(weak, board.Rook) != 0
}

// krbDecisionsOf draws n won positions with the stronger side to move:
// random starts (DTZ 1-100, the wins under 20 plies kept one time in four,
// so that the long wins the games fail weigh more) and the positions that
// follow them along a line of play (a random winning move, the defender's
// reply that keeps the win farthest, one time in four a random reply),
// up to walk positions a start. Positions where the rook can be captured
// or mate given are left out: the search sees those.
func krbDecisionsOf(t *testing.T, tb *syzygy.Tables, rng *rand.Rand, n, walk int) krbDecisionSet {
	var set krbDecisionSet
	var p board.Position
	var ml, replies board.MoveList
	probe := func() int {
		d, err := tb.ProbeDTZ(&p)
		if err != nil {
			t.Fatalf("%s: %v", p.FEN(), err)
		}
		return d
	}
	for len(set.parents) < n {
		// A random start: the stronger side to move, not in check.
		sw := rng.IntN(2) == 0
		sq := randomSquares(rng)
		if setKRB(&p, sq, sw, true) != nil || p.InCheck() {
			continue
		}
		d := probe()
		if d <= 0 || d > 100 || d < 20 && rng.IntN(4) != 0 {
			continue
		}
		strong := p.SideToMove()
		for step := 0; step < walk && len(set.parents) < n; step++ {
			// The children.
			p.GenerateLegal(&ml)
			first := int32(len(set.kids))
			trivial := false
			var keepers []board.Move
			for _, m := range ml.Moves[:ml.N] {
				p.MakeMove(m)
				if !isKRB(&p, strong) || p.InCheck() && func() bool { p.GenerateLegal(&replies); return replies.N == 0 }() {
					trivial = true // the rook taken, or mate
				} else {
					dk := -probe()
					set.kids = append(set.kids, krbSample{c: canonicalOf(&p, strong), dtz: int16(dk)})
					if dk > 0 && dk <= 100 {
						keepers = append(keepers, m)
					}
				}
				p.UnmakeMove()
				if trivial {
					break
				}
			}
			if trivial || len(keepers) == 0 {
				set.kids = set.kids[:first]
				break
			}
			set.parents = append(set.parents, krbDecision{first: first, count: int32(len(set.kids)) - first,
				self: krbSample{c: canonicalOf(&p, strong), dtz: int16(probe())}})
			if *krbDefend {
				// One drawing and one winning move, each with the
				// defender's replies.
				var drawing []board.Move
				for _, m := range ml.Moves[:ml.N] {
					if !slices.Contains(keepers, m) {
						drawing = append(drawing, m)
					}
				}
				for _, from := range [][]board.Move{drawing, keepers} {
					if len(from) == 0 || len(set.parents) >= n {
						continue
					}
					p.MakeMove(from[rng.IntN(len(from))])
					if d, ok := krbReplies(&p, strong, probe, &set); ok {
						set.parents = append(set.parents, d)
						// After a drawing move, one of the defender's
						// drawing replies and the drawn position's moves.
						var holds []board.Move
						p.GenerateLegal(&replies)
						for i, r := range replies.Moves[:replies.N] {
							if k := set.kids[int(d.first)+i]; (k.dtz <= 0 || k.dtz > 100) && !slices.Contains(keepers, from[0]) {
								holds = append(holds, r)
							}
						}
						if len(holds) > 0 && len(set.parents) < n {
							p.MakeMove(holds[rng.IntN(len(holds))])
							if d, ok := krbDrawnChildren(&p, strong, probe, &set); ok {
								set.parents = append(set.parents, d)
							}
							p.UnmakeMove()
						}
					}
					p.UnmakeMove()
				}
			}
			// On along the line: a winning move, the defender's reply.
			p.MakeMove(keepers[rng.IntN(len(keepers))])
			p.GenerateLegal(&replies)
			best, bestD := board.NullMove, -1
			var candidates []board.Move
			for _, r := range replies.Moves[:replies.N] {
				p.MakeMove(r)
				if isKRB(&p, strong) {
					if dr := probe(); dr > 0 && dr <= 100 {
						candidates = append(candidates, r)
						if dr > bestD {
							best, bestD = r, dr
						}
					}
				}
				p.UnmakeMove()
			}
			if best == board.NullMove {
				break
			}
			if rng.IntN(4) == 0 {
				best = candidates[rng.IntN(len(candidates))]
			}
			p.MakeMove(best)
			if p.InCheck() {
				break
			}
		}
	}
	return set
}

// krbReplies adds the defender's replies in p (the defender to move) to
// the set's children and returns their decision; false when a reply
// leaves rook and bishop against rook (a capture: the search resolves
// those) or there is none.
func krbReplies(p *board.Position, strong board.Color, probe func() int, set *krbDecisionSet) (krbDecision, bool) {
	var replies board.MoveList
	p.GenerateLegal(&replies)
	first := int32(len(set.kids))
	for _, r := range replies.Moves[:replies.N] {
		p.MakeMove(r)
		if !isKRB(p, strong) {
			p.UnmakeMove()
			set.kids = set.kids[:first]
			return krbDecision{}, false
		}
		set.kids = append(set.kids, krbSample{c: canonicalOf(p, strong), dtz: int16(probe())})
		p.UnmakeMove()
	}
	if replies.N == 0 {
		return krbDecision{}, false
	}
	return krbDecision{first: first, count: int32(len(set.kids)) - first, defender: true}, true
}

// krbDrawnChildren adds the moves of p (the stronger side to move, a
// draw) to the set's children and returns their decision; false when a
// move leaves rook and bishop against rook or mates, or there is none.
func krbDrawnChildren(p *board.Position, strong board.Color, probe func() int, set *krbDecisionSet) (krbDecision, bool) {
	var ml, replies board.MoveList
	p.GenerateLegal(&ml)
	first := int32(len(set.kids))
	for _, m := range ml.Moves[:ml.N] {
		p.MakeMove(m)
		if !isKRB(p, strong) || p.InCheck() && func() bool { p.GenerateLegal(&replies); return replies.N == 0 }() {
			p.UnmakeMove()
			set.kids = set.kids[:first]
			return krbDecision{}, false
		}
		set.kids = append(set.kids, krbSample{c: canonicalOf(p, strong), dtz: int16(-probe())})
		p.UnmakeMove()
	}
	if ml.N == 0 {
		return krbDecision{}, false
	}
	return krbDecision{first: first, count: int32(len(set.kids)) - first, drawn: true}, true
}

// krbDefendTarget is krbRankTarget for the defender's replies (the
// stronger side's DTZ after each): the drawing replies share the target
// alike; if none draws, the longer a loss the more.
func krbDefendTarget(kids []krbSample, tau float64, q []float64) {
	draws, longest := 0, 0
	for _, k := range kids {
		if k.dtz <= 0 || k.dtz > 100 {
			draws++
		} else {
			longest = max(longest, int(k.dtz))
		}
	}
	var sum float64
	for i, k := range kids {
		switch {
		case draws > 0 && (k.dtz <= 0 || k.dtz > 100):
			q[i] = 1
		case draws > 0:
			q[i] = 0
		default:
			q[i] = math.Exp(float64(int(k.dtz)-longest) / tau)
		}
		sum += q[i]
	}
	for i := range q {
		q[i] /= sum
	}
}

// krbRankTarget is the share of the ranking target each child gets:
// none for a move that gives the win away, and among the winning ones
// e^(-(DTZ - the least DTZ)/tau).
func krbRankTarget(kids []krbSample, tau float64, q []float64) {
	least := math.MaxInt
	for _, k := range kids {
		if krbWon(k.dtz) {
			least = min(least, int(k.dtz))
		}
	}
	var sum float64
	for i, k := range kids {
		q[i] = 0
		if krbWon(k.dtz) {
			q[i] = math.Exp(-float64(int(k.dtz)-least) / tau)
		}
		sum += q[i]
	}
	for i := range q {
		q[i] /= sum
	}
}

// krbStep is one gradient step of the network on the inputs in, whose
// forward pass left the hidden sums h and output out, for a loss whose
// derivative by the output is g (the learning rate included). It
// overwrites h with the hidden layer's gradient.
func (n *krbNet) krbStep(in *[krbActive]int, h []float32, g float32) {
	hid := n.hidden
	n.b2 -= g
	gh, w2 := h[:hid], n.w2[:hid]
	for j, v := range gh {
		gh[j] = 0
		if v > 0 {
			gh[j] = float32(g * w2[j])
			w2[j] -= float32(g * v)
		}
	}
	b1 := n.b1[:hid]
	for j := range gh {
		b1[j] -= gh[j]
	}
	for _, x := range in {
		row := n.w1[x*hid : x*hid+hid]
		for j := range row {
			row[j] -= gh[j]
		}
	}
}

// krbRankStep fits the network to one won position of the decision set:
// the softmax of beta x the children's scores against the ranking
// target (cross-entropy, weight rankWeight), and each child's score to
// its value (squared error, weight valueWeight); for the defender's
// replies (defender), the softmax of -beta x the scores. It returns the
// cross-entropy and whether the child scored best (for the side to move)
// is one the target wants.
func (n *krbNet) krbRankStep(kids []krbSample, defender, drawn bool, lr, beta, tau, rankWeight, valueWeight float64) (float64, bool) {
	k := len(kids)
	ins := make([][krbActive]int, k)
	hs := make([]float32, k*n.hidden)
	s := make([]float64, k)
	q := make([]float64, k)
	sign := 1.0
	switch {
	case defender:
		krbDefendTarget(kids, tau, q)
		sign = -1
	case drawn:
	default:
		krbRankTarget(kids, tau, q)
	}
	top := 0
	for i := range kids {
		ins[i] = kids[i].c.inputs()
		s[i] = sign * float64(n.forwardHidden(&ins[i], hs[i*n.hidden:(i+1)*n.hidden]))
		if s[i] > s[top] {
			top = i
		}
	}
	var z float64
	for i := range s {
		z += math.Exp(beta * (s[i] - s[top]))
	}
	var ce float64
	if drawn {
		q[top] = 1 // for the return value: nothing to keep
	}
	for i := range kids {
		pi := math.Exp(beta*(s[i]-s[top])) / z
		if q[i] > 0 && !drawn {
			ce -= q[i] * math.Log(max(pi, 1e-30))
		}
		err := sign*s[i] - float64(krbTarget(int(kids[i].dtz)))
		g := sign*rankWeight*beta*(pi-q[i]) + valueWeight*err
		if drawn {
			// No ranking: the value, the more so the likelier the child
			// is the search's choice.
			g = valueWeight * err * (1 + float64(k)*pi)
		}
		n.krbStep(&ins[i], hs[i*n.hidden:(i+1)*n.hidden], float32(lr*g))
	}
	return ce, q[top] > 0
}
