package records

import (
	"math"
	"testing"

	"github.com/nnuelab/nnuelab/experiments/plan"
)

// TestSelfplayCost: a set's cost is its positions at the recorded nodes a
// position and nodes per CPU-second, so a resumed shard (whose record
// covers only its last run) does not make the set look cheaper; without
// any recorded cost the cost is unknown, not zero.
func TestSelfplayCost(t *testing.T) {
	for _, tc := range []struct {
		name   string
		shards []*plan.DataResult
		ok     bool
		hours  float64
	}{
		{"none", nil, false, 0},
		{"unrecorded", []*plan.DataResult{{Positions: 1000}}, false, 0},
		// 1000 positions at 1000 nodes each, 1M nodes a CPU-second: 1 s.
		{"one", []*plan.DataResult{{Positions: 1000, NewPositions: 1000, Nodes: 1_000_000, CPUSeconds: 1}}, true, 1.0 / 3600},
		// The second shard resumed: its last run made 500 of its 1000
		// positions; the set is 2000 positions at the recorded rates.
		{"resumed", []*plan.DataResult{
			{Positions: 1000, NewPositions: 1000, Nodes: 1_000_000, CPUSeconds: 1},
			{Positions: 1000, NewPositions: 500, Nodes: 500_000, CPUSeconds: 1},
		}, true, 2000 * 1000 / (1_500_000 / 2.0) / 3600},
		// A shard with no record (older result) counts its positions at
		// the others' rates.
		{"mixed", []*plan.DataResult{
			{Positions: 1000, NewPositions: 1000, Nodes: 2_000_000, CPUSeconds: 4},
			{Positions: 3000},
		}, true, 4000 * 2000 / 500_000.0 / 3600},
	} {
		c, ok := selfplayCost(tc.shards)
		if ok != tc.ok || math.Abs(c.CPUHours-tc.hours) > 1e-12 {
			t.Errorf("%s: cost %+v ok %v, want %g CPU-h ok %v", tc.name, c, ok, tc.hours, tc.ok)
		}
		if ok && c.Shards != len(tc.shards) {
			t.Errorf("%s: %d shards, want %d", tc.name, c.Shards, len(tc.shards))
		}
	}
}
