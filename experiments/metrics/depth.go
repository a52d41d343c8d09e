package metrics

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/nnuelab/nnuelab/bench/stats"
	"github.com/nnuelab/nnuelab/engine/nnue"
	"github.com/nnuelab/nnuelab/engine/search"
	"github.com/nnuelab/nnuelab/experiments/data"
)

// MetricNodesToDepth is nodes_to_depth: the nodes the search needs to
// complete a fixed depth with the variant's net, on the searched positions
// ([speed] positions of them, a fresh table each). An evaluation that
// orders moves and prunes better reaches the depth in fewer nodes; the
// count is deterministic, unlike a speed, so one run shows a difference.
const MetricNodesToDepth = "nodes_to_depth"

// nodesDepth is the depth nodes_to_depth completes: deep enough for
// pruning and reductions to act, shallow enough to cost a few seconds.
const nodesDepth = 7

// DepthNodes is what nodes_to_depth stores in a measure task's result: the
// depth and the nodes of each searched position, in order.
type DepthNodes struct {
	Depth int      `json:"depth"`
	Nodes []uint64 `json:"nodes"`
}

func init() {
	Register(&Def{
		Name: MetricNodesToDepth,
		Key:  struct{ Depth, Version int }{nodesDepth, 1},
		Measure: func(ctx context.Context, s *Subject, log io.Writer) (any, error) {
			ps := SearchPositions(s.Positions, s.Search.Positions)
			d, err := nodesToDepth(ctx, s, ps, nodesDepth)
			if err != nil {
				return nil, err
			}
			fmt.Fprintf(log, "%s: depth %d in a median of %.0f nodes over %d positions\n", s.Variant, d.Depth, medianNodes(d.Nodes), len(d.Nodes))
			return d, nil
		},
		Records: func(s Stored) ([]Value, error) { return depthRecords(s.Raw) },
		Columns: []Column{{Head: fmt.Sprintf("nodes to depth %d (median)", nodesDepth), Metric: MetricNodesToDepth, Format: "%.0f"}},
		Setup: func(s Setting) string {
			return fmt.Sprintf("Nodes to depth: the search completes depth %d on %d positions spread over the set (16 MB hash, cleared between positions, deterministic); the median of their node counts, mean and 90th percentile in the results.", nodesDepth, s.Positions)
		},
		Seconds: func(s Setting) float64 {
			// A depth costs about the node budget of the speed searches.
			return float64(s.Positions*s.Nodes) / estNPS * s.Width
		},
	})
}

// nodesToDepth searches each position to depth with the subject's
// evaluator (its history depth and refresh cache) and returns the nodes of
// each search.
func nodesToDepth(ctx context.Context, s *Subject, ps []data.Position, depth int) (*DepthNodes, error) {
	ev := nnue.NewEvaluator(s.Net)
	tt, err := search.NewTT(16)
	if err != nil {
		return nil, err
	}
	sr := search.New(ev, tt)
	out := &DepthNodes{Depth: depth, Nodes: make([]uint64, 0, len(ps))}
	for _, p := range ps {
		tt.Clear()
		sr.Clear()
		res := sr.Search(ctx, p.Pos, search.Limits{Depth: depth}, nil)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		out.Nodes = append(out.Nodes, res.Nodes)
	}
	return out, nil
}

func medianNodes(ns []uint64) float64 {
	xs := make([]float64, len(ns))
	for i, n := range ns {
		xs[i] = float64(n)
	}
	return stats.Median(xs)
}

// depthRecords is nodes_to_depth's record: the median nodes, with the
// mean, the 90th percentile (nearest rank) and every count in its details.
func depthRecords(raw json.RawMessage) ([]Value, error) {
	var d DepthNodes
	if err := json.Unmarshal(raw, &d); err != nil {
		return nil, fmt.Errorf("%s: %w", MetricNodesToDepth, err)
	}
	if len(d.Nodes) == 0 {
		return nil, fmt.Errorf("%s: no positions searched", MetricNodesToDepth)
	}
	sorted := slices.Clone(d.Nodes)
	slices.Sort(sorted)
	var sum float64
	for _, n := range d.Nodes {
		sum += float64(n)
	}
	p90 := sorted[(9*len(sorted)+9)/10-1]
	return []Value{{
		Metric: MetricNodesToDepth, Value: medianNodes(d.Nodes), Unit: "nodes", N: len(d.Nodes),
		Detail: map[string]any{"depth": d.Depth, "mean": sum / float64(len(d.Nodes)), "p90": p90, "per_position": d.Nodes},
	}}, nil
}
