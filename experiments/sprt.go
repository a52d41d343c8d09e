package experiment

import "github.com/nnuelab/nnuelab/bench/stats"

// An SPRT runs as a chain of match chunks per variant (chunk c needs chunk
// c-1), like the fixed-game test, so that a stopped run or a Slurm array
// keeps every finished chunk. The test itself is applied to the pooled
// pentanomial of the chunks played: once it crosses a bound, the
// variant's remaining chunks are not needed (fishtest's model: workers play
// batches, the server decides).

// sprtTest returns the manifest's SPRT, or false without one.
func sprtTest(m *Manifest) (stats.SPRT, bool) {
	if m.Elo == nil || m.Elo.SPRT == nil {
		return stats.SPRT{}, false
	}
	s := m.Elo.SPRT
	return stats.SPRT{Elo0: s.Elo0, Elo1: s.Elo1, Alpha: s.Alpha, Beta: s.Beta, Model: stats.Model(s.Model)}, true
}

// sprtPooled sums the pentanomials of variant's finished Elo chunks.
func sprtPooled(p *Plan, variant string, results map[string]*TaskResult) (pen stats.Penta) {
	for _, t := range p.Tasks {
		if t.Kind != KindElo || t.Variant != variant {
			continue
		}
		if r := results[t.ID]; r != nil && r.Elo != nil {
			for i := range pen {
				pen[i] += r.Elo.Penta[i]
			}
		}
	}
	return pen
}

// notNeeded returns the Elo tasks without a result whose variant's SPRT
// has crossed a bound on the chunks finished (nil without an SPRT).
func notNeeded(p *Plan, results map[string]*TaskResult) map[string]bool {
	s, ok := sprtTest(p.Manifest)
	if !ok {
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
			d = s.Decide(s.LLR(sprtPooled(p, t.Variant, results))) != stats.Continue
			settled[t.Variant] = d
		}
		if d {
			out[t.ID] = true
		}
	}
	return out
}
