package plan

import (
	"github.com/nnuelab/nnuelab/bench/stats"
	"github.com/nnuelab/nnuelab/experiments/manifest"
)

// An SPRT runs as a sequence of match chunks per variant, like the
// fixed-game test, so that a stopped run or a Slurm array keeps every
// finished chunk. The test looks at the pooled pentanomial after each chunk,
// in chunk order (fishtest's model: workers play batches, the server
// decides); once it crosses a bound, the variant's remaining chunks are not
// needed. Chunk c needs chunk c-sprtInFlight, so that a variant left alone
// still fills that many cores.

// sprtInFlight is how many chunks of one variant may be played at once. A
// chunk still in play at the decision is stopped (Env.Drop) and its games
// discarded; one that finished before a lower-numbered chunk decided is not
// counted: the verdict and the Elo come from the chunks up to the first
// look that crossed a bound, whatever order the executor finished them in.
const sprtInFlight = 2

// SPRTTest returns the manifest's SPRT, or false without one.
func SPRTTest(m *manifest.Manifest) (stats.SPRT, bool) {
	if m.Elo == nil || m.Elo.SPRT == nil {
		return stats.SPRT{}, false
	}
	s := m.Elo.SPRT
	return stats.SPRT{Elo0: s.Elo0, Elo1: s.Elo1, Alpha: s.Alpha, Beta: s.Beta, Model: stats.Model(s.Model)}, true
}

// SPRTLooks walks variant's Elo chunks in order and returns which finished
// chunks count: those up to the first look (after a chunk, with every
// earlier chunk finished) whose pooled pentanomial crosses a bound, and
// whether one did. Undecided, every finished chunk counts (a partial run
// may have gaps). Without an SPRT every finished chunk counts.
func SPRTLooks(p *Plan, variant string, results map[string]*TaskResult) (counted map[string]bool, decided bool) {
	s, ok := SPRTTest(p.Manifest)
	counted = map[string]bool{}
	var pen stats.Penta
	prefix := true
	for _, t := range p.Tasks {
		if t.Kind != KindElo || t.Variant != variant {
			continue
		}
		r := results[t.ID]
		if r == nil || r.Elo == nil {
			prefix = false
			continue
		}
		if decided {
			continue
		}
		counted[t.ID] = true
		for i := range pen {
			pen[i] += r.Elo.Penta[i]
		}
		if ok && prefix && s.Decide(s.LLR(pen)) != stats.Continue {
			decided = true
		}
	}
	return counted, decided
}

// NotNeeded returns the Elo tasks without a result whose variant's SPRT
// has crossed a bound on the chunks finished (nil without an SPRT).
func NotNeeded(p *Plan, results map[string]*TaskResult) map[string]bool {
	if _, ok := SPRTTest(p.Manifest); !ok {
		return nil
	}
	settled := map[string]bool{}
	out := map[string]bool{}
	for _, t := range p.Tasks {
		if t.Kind != KindElo || results[t.ID] != nil {
			continue
		}
		d, seen := settled[t.Variant]
		if !seen {
			_, d = SPRTLooks(p, t.Variant, results)
			settled[t.Variant] = d
		}
		if d {
			out[t.ID] = true
		}
	}
	return out
}
