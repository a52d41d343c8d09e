package records

import (
	"github.com/nnuelab/nnuelab/experiments/plan"
)

// MetricSelfplayCPUHours is the record of what a variant's own self-play
// cost: the CPU-hours of the datagen shards its net trained on (seed 0's
// training), estimated from the nodes and CPU seconds the shards' tasks
// recorded, so that a recipe's Elo can be read per CPU-hour of datagen.
const MetricSelfplayCPUHours = "selfplay.cpu_hours"

// SelfplayCost is what a set of datagen shards cost. A shard resumed after
// an interruption records only its last process's nodes and CPU seconds,
// so the whole set's cost is estimated at the recorded rates: its
// positions times the recorded nodes a position, over the recorded nodes
// per CPU-second.
type SelfplayCost struct {
	Shards      int
	Positions   int64
	RecPos      int64   // positions of the recorded processes
	RecNodes    uint64  // nodes they searched
	RecCPU      float64 // CPU seconds they used
	NodesPerPos float64
	NodesPerCPU float64 // nodes per CPU-second
	CPUHours    float64
}

// selfplayCost sums the shards' results; ok is false when no shard
// recorded its nodes and CPU time (older results), which leaves the cost
// unknown rather than zero.
func selfplayCost(shards []*plan.DataResult) (c SelfplayCost, ok bool) {
	for _, d := range shards {
		c.Shards++
		c.Positions += d.Positions
		if d.Nodes == 0 || d.CPUSeconds <= 0 || d.NewPositions <= 0 {
			continue
		}
		c.RecPos += d.NewPositions
		c.RecNodes += d.Nodes
		c.RecCPU += d.CPUSeconds
	}
	if c.RecPos == 0 || c.RecCPU <= 0 {
		return c, false
	}
	c.NodesPerPos = float64(c.RecNodes) / float64(c.RecPos)
	c.NodesPerCPU = float64(c.RecNodes) / c.RecCPU
	c.CPUHours = float64(c.Positions) * c.NodesPerPos / c.NodesPerCPU / 3600
	return c, true
}

// selfplayShards returns the finished datagen shards that seed 0's
// training of v reads, in the order the training names them.
func selfplayShards(p *plan.Plan, v *plan.Variant, results map[string]*plan.TaskResult) []*plan.DataResult {
	if !v.Trained || len(v.Nets) == 0 {
		return nil
	}
	t := p.Task(v.Nets[0].Train)
	if t == nil {
		return nil
	}
	var out []*plan.DataResult
	for _, id := range t.Needs {
		nt := p.Task(id)
		if nt == nil || nt.Kind != plan.KindDatagen {
			continue
		}
		r := results[id]
		if r == nil || r.Data == nil {
			return nil // a shard still to run: no cost yet
		}
		out = append(out, r.Data)
	}
	return out
}

// selfplayRecord is v's self-play cost record, if its net trained on
// datagen shards that recorded their cost.
func selfplayRecord(p *plan.Plan, v *plan.Variant, results map[string]*plan.TaskResult, r Record) (Record, bool) {
	c, ok := selfplayCost(selfplayShards(p, v, results))
	if !ok {
		return r, false
	}
	r.Metric, r.Value, r.Unit, r.N = MetricSelfplayCPUHours, c.CPUHours, "CPU-h", int(c.Positions)
	r.Detail = map[string]any{
		"shards":               c.Shards,
		"positions":            c.Positions,
		"nodes_per_position":   c.NodesPerPos,
		"nodes_per_cpu_second": c.NodesPerCPU,
		"recorded_positions":   c.RecPos,
		"recorded_nodes":       c.RecNodes,
		"recorded_cpu_seconds": c.RecCPU,
		"note":                 "the datagen tasks' own processes (a resumed shard: its last run); the whole set at those rates",
	}
	return r, true
}
