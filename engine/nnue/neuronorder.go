package nnue

import (
	"math/bits"
	"math/rand/v2"
	"runtime"
	"slices"
	"sync"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/nnue/simd"
)

// The order of the transformer's neurons. fc_0 runs over the non-zero
// 4-byte groups of the transformed features only (simd.AffineSparse7), so
// it costs by the number of groups with a non-zero byte, not of non-zero
// bytes. Stockfish 15.1's net stores its neurons in the trainer's order,
// where often and rarely active ones mix, and about half of the groups
// are non-zero. At load the sf15 head therefore reorders them by when
// their pairwise product is non-zero on a fixed sample of positions, so
// that neurons active together share groups and the rarely active ones
// fill the others (activityOrder).
//
// The reordering is a permutation of the neurons that every part applies
// alike: output j of the pairwise product multiplies accumulator neurons j
// and j + W/2, so both move together, in both perspectives (the
// transformer is shared); the transformer's weight columns and biases and
// fc_0's input columns (of the side to move's half and of the other's)
// follow. Every sum of fc_0 then has the same terms, so the evaluation is
// bit for bit the unpermuted one. What shows the weights or the
// transformed features to the outside (Network.TransformerInFileOrder,
// HeadParams, Trace.Transformed) undoes it.

// Sample of the neuron statistics: sampleGames pseudo-random games (a
// fixed seed) of up to sampleGamePlies plies from the start position,
// every position from ply sampleFirstPly on.
const (
	sampleGames     = 64
	sampleGamePlies = 64
	sampleFirstPly  = 4
	sampleSeed      = 0x5f15_0_0d
)

// neuronActivity returns, for each output j of n's pairwise product (j <
// Width/2), the set of samples where it is non-zero, as a bitset: both
// perspectives of each position of the sample, in a fixed order. The
// accumulators are updated along the games by an Evaluator.
func neuronActivity(n *Network) [][]uint64 {
	half := n.Width / 2
	words := (2*sampleGames*(sampleGamePlies-sampleFirstPly+1) + 63) / 64
	active := make([][]uint64, half)
	for j := range active {
		active[j] = make([]uint64, words)
	}
	rng := rand.New(rand.NewPCG(sampleSeed, 26))
	ev := NewEvaluatorWith(n, 1, false)
	x := make([]uint8, half)
	var ml board.MoveList
	s := 0
	for g := 0; g < sampleGames; g++ {
		p := board.StartPosition()
		ev.Reset(p)
		for ply := 1; ply <= sampleGamePlies; ply++ {
			p.GenerateLegal(&ml)
			if ml.N == 0 {
				break
			}
			p.MakeMove(ml.Moves[rng.IntN(ml.N)])
			ev.Push(p.LastDelta())
			if ply < sampleFirstPly {
				continue
			}
			ev.computeAll(p)
			for _, acc := range ev.stack[ev.top].acc {
				simd.PairwiseClippedReLU(x, acc)
				for j, v := range x {
					if v != 0 {
						active[j][s/64] |= 1 << (s % 64)
					}
				}
				s++
			}
		}
	}
	return active
}

// activityOrder returns the neurons' new order, order[new] = old, from
// their activity sets: groups of 4 consecutive neurons, each started by
// the most often active neuron left (ties: the lower index) and filled
// by the neurons left that are active in the most of the group's samples
// (so that the group's set adds the fewest samples to their own, the
// least they cost anywhere; ties: the more active, then the lower index);
// nil if that is the old order. On Stockfish 15.1's
// net this leaves 0.40 of fc_0's groups non-zero on the reference
// positions where sorting by activity alone leaves 0.43 (the file's order:
// 0.50).
func activityOrder(active [][]uint64) []int {
	count := make([]int, len(active))
	byCount := make([]int, len(active))
	for j, set := range active {
		for _, w := range set {
			count[j] += bits.OnesCount64(w)
		}
		byCount[j] = j
	}
	slices.SortStableFunc(byCount, func(a, b int) int { return count[b] - count[a] })
	used := make([]bool, len(active))
	order := make([]int, 0, len(active))
	var group []uint64
	for _, seed := range byCount {
		if used[seed] {
			continue
		}
		used[seed] = true
		order = append(order, seed)
		group = append(group[:0], active[seed]...)
		for k := 1; k < 4 && len(order) < len(active); k++ {
			// The fewest samples added beyond their own: the most shared
			// with the group. No neuron shares more than it is active, so
			// the scan, by activity, ends at the first one active no more
			// than the best share so far (ties go to the earlier).
			best, bestShared := -1, -1
			for _, j := range byCount {
				if count[j] <= bestShared {
					break
				}
				if used[j] {
					continue
				}
				shared := 0
				for i, w := range active[j] {
					shared += bits.OnesCount64(group[i] & w)
				}
				if shared > bestShared {
					best, bestShared = j, shared
				}
			}
			used[best] = true
			order = append(order, best)
			for i, w := range active[best] {
				group[i] |= w
			}
		}
	}
	for j, o := range order {
		if j != o {
			return order
		}
	}
	return nil
}

// permuteHalves permutes the two halves of row in place by order (of
// length len(row)/2): row'[p] = row[order[p]], row'[h+p] = row[h+order[p]]
// with h = len(row)/2. tmp has len(row) elements.
func permuteHalves[T any](row, tmp []T, order []int) {
	h := len(row) / 2
	copy(tmp, row)
	lo, hi := row[:h], row[h:]
	tlo, thi := tmp[:h], tmp[h:2*h]
	for p, o := range order[:h] {
		lo[p], hi[p] = tlo[o], thi[o]
	}
}

// unpermuteHalves is permuteHalves undone: it returns a copy of row with
// row'[order[p]] = row[p] in each half.
func unpermuteHalves[T any](row []T, order []int) []T {
	h := len(row) / 2
	out := make([]T, len(row))
	for p, o := range order {
		out[o], out[h+o] = row[p], row[h+p]
	}
	return out
}

// orderNeurons reorders the neurons of h's network by activity (the
// comment above) and records the order in h.order. It leaves a net alone
// whose fc_0 runs dense (nothing to gain) or whose order is already that.
func (h *sf15Head) orderNeurons() {
	n := h.net
	if h.stacks[0].w0s == nil {
		return
	}
	order := activityOrder(neuronActivity(n))
	if order == nil {
		return
	}
	w := n.Width
	permuteHalves(n.FTBias, make([]int16, w), order)
	rows := len(n.FTWeights) / w
	workers := min(runtime.GOMAXPROCS(0), 4)
	var wg sync.WaitGroup
	for k := 0; k < workers; k++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			tmp := make([]int16, w)
			for f := k * rows / workers; f < (k+1)*rows/workers; f++ {
				permuteHalves(n.FTWeights[f*w:(f+1)*w], tmp, order)
			}
		}()
	}
	tmp := make([]int8, w)
	for s := range h.stacks {
		st := &h.stacks[s]
		for i := 0; i < h.l0; i++ {
			permuteHalves(st.w0[i*w:(i+1)*w], tmp, order)
		}
		st.w0s = simd.SparseWeights(st.w0, h.l0, w)
	}
	wg.Wait()
	h.order = order
}

// fileOrderW0 returns fc_0's weights of stack st (l0 rows of Width) with
// the columns in the file's order.
func (h *sf15Head) fileOrderW0(st *sf15Stack) []int8 {
	if h.order == nil {
		return st.w0
	}
	w := h.net.Width
	out := make([]int8, 0, len(st.w0))
	for i := 0; i < h.l0; i++ {
		out = append(out, unpermuteHalves(st.w0[i*w:(i+1)*w], h.order)...)
	}
	return out
}

// TransformerInFileOrder returns the feature transformer's weights (rows
// as FTWeights) and biases with the neurons in the order of the net file.
// The engine may hold them reordered (an sf15.1 net's, by activity; see
// FTWeights), and then these are fresh copies; else they are FTWeights and
// FTBias themselves.
func (n *Network) TransformerInFileOrder() (weights, bias []int16) {
	h, ok := n.head.(*sf15Head)
	if !ok || h.order == nil {
		return n.FTWeights, n.FTBias
	}
	w := n.Width
	weights = make([]int16, 0, len(n.FTWeights))
	for f := 0; f < len(n.FTWeights)/w; f++ {
		weights = append(weights, unpermuteHalves(n.row(f), h.order)...)
	}
	return weights, unpermuteHalves(n.FTBias, h.order)
}
