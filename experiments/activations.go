package experiment

import (
	"fmt"
	"io"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/nets/inspect"
)

// ActivationsResult is what nets/inspect's activation statistics counted
// of a variant's net over the manifest's positions (the sparsity and
// saturation metrics), and the quantized parameters at their storage
// type's clip. Counts, not shares, so that the records are exact.
type ActivationsResult struct {
	Positions int64 `json:"positions"`
	// GroupValues is how many first-layer outputs make a 4-byte group
	// (4 uint8 for Stockfish's heads, 2 int16 for a linear head, 1 float32
	// for Rengar's); Groups counts the groups seen, NonZeroGroups those
	// with a non-zero value (what a sparse affine layer multiplies).
	GroupValues   int   `json:"group_values"`
	Groups        int64 `json:"groups"`
	NonZeroGroups int64 `json:"nonzero_groups"`
	// Layers are the activations in evaluation order, the first layer's
	// (the feature transformer's, or Rengar's clamped inputs) first.
	Layers []ActLayerCounts `json:"layers"`
	// Tensors are the quantized parameter tensors with their values at
	// the clip.
	Tensors []TensorClip `json:"tensors"`
}

// ActLayerCounts is one activation's counts (inspect.ActLayer).
type ActLayerCounts struct {
	Name string `json:"name"`
	// Units is the neurons per bucket (layer stack), Buckets the stacks.
	Units   int `json:"units"`
	Buckets int `json:"buckets"`
	// Ceiling: the activation has a largest output (ReLU has none, so
	// nothing saturates).
	Ceiling bool `json:"ceiling"`
	// Outputs counts every output, Zero and Saturated those at 0 and at
	// the ceiling.
	Outputs   int64 `json:"outputs"`
	Zero      int64 `json:"zero"`
	Saturated int64 `json:"saturated"`
	// Dead neurons were never non-zero, AlwaysSaturated always at the
	// ceiling; Unreached neurons no position reached (layer stacks).
	Dead            int `json:"dead"`
	AlwaysSaturated int `json:"always_saturated"`
	Unreached       int `json:"unreached,omitempty"`
}

// TensorClip counts a quantized tensor's values and those at its storage
// type's limit (±127 for int8, ±32767 for int16, ...) at the variant's
// multipliers.
type TensorClip struct {
	Name   string `json:"name"`
	Bits   int    `json:"bits"`
	Values int64  `json:"values"`
	AtClip int64  `json:"at_clip"`
}

// activationCounts turns inspect's statistics of a net into the result.
func activationCounts(v *inspect.Net, a *inspect.Activations) *ActivationsResult {
	r := &ActivationsResult{Positions: a.Positions, GroupValues: a.GroupValues, Groups: a.Groups, NonZeroGroups: a.NonZeroGroups}
	for _, l := range a.Layers {
		r.Layers = append(r.Layers, ActLayerCounts{
			Name: l.Name, Units: l.Units, Buckets: l.Buckets, Ceiling: l.Ceil != 0,
			Outputs: l.Outputs, Zero: l.Zero, Saturated: l.Saturated,
			Dead: len(l.Dead()), AlwaysSaturated: len(l.AlwaysSaturated()), Unreached: l.Unreached(),
		})
	}
	for _, t := range v.Tensors {
		if !t.Quantized() {
			continue
		}
		c := TensorClip{Name: t.Name, Bits: t.Bits, Values: int64(t.Len())}
		lim := t.QLimit()
		for i := 0; i < t.Len(); i++ {
			if q := t.Q(i); q >= lim || q <= -lim {
				c.AtClip++
			}
		}
		r.Tensors = append(r.Tensors, c)
	}
	return r
}

// runActivations evaluates the manifest's positions with the variant's
// net, traced, and counts its activations (nets/inspect.CollectPositions,
// one thread: the task has one core).
func runActivations(p *Plan, t *Task, log io.Writer) (*ActivationsResult, error) {
	v := p.Variant(t.Variant)
	if v == nil {
		return nil, fmt.Errorf("no variant %q", t.Variant)
	}
	spec, net, _, err := loadVariant(p, v, seedIndex(p, t.Seed))
	if err != nil {
		return nil, err
	}
	ps, err := readPositions(p.Positions, p.Manifest.Positions.Limit)
	if err != nil {
		return nil, err
	}
	view, err := inspect.New(v.Name, spec, net, nil)
	if err != nil {
		return nil, err
	}
	pos := make([]*board.Position, len(ps))
	for i := range ps {
		pos[i] = ps[i].Pos
	}
	a, err := inspect.CollectPositions(view, pos, p.Positions, inspect.Options{Threads: 1})
	if err != nil {
		return nil, fmt.Errorf("variant %s: activations: %w", v.Name, err)
	}
	r := activationCounts(view, a)
	first := r.Layers[0]
	fmt.Fprintf(log, "%s: %s over %d positions: %.2f%% zero, %.2f%% saturated, %d dead; %.2f%% of the 4-byte groups non-zero\n",
		v.Name, first.Name, r.Positions, 100*ratio(first.Zero, first.Outputs), 100*ratio(first.Saturated, first.Outputs), first.Dead,
		100*ratio(r.NonZeroGroups, r.Groups))
	return r, nil
}

func ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// activationRecords turns an activations result into the records of
// metric (sparsity or saturation).
func activationRecords(p *Plan, metric string, r *ActivationsResult, rec func(string, float64, string, int, string) Record) []Record {
	data := p.PositionsSHA256
	n := int(r.Positions)
	first := r.Layers[0]
	perLayer := func(f func(l ActLayerCounts) map[string]any) []map[string]any {
		out := make([]map[string]any, len(r.Layers))
		for i, l := range r.Layers {
			out[i] = map[string]any{"name": l.Name, "units": l.Units * l.Buckets}
			for k, x := range f(l) {
				out[i][k] = x
			}
		}
		return out
	}
	var out []Record
	switch metric {
	case MetricSparsity:
		z := rec("sparsity.zero", ratio(first.Zero, first.Outputs), "share", n, data)
		z.Detail = map[string]any{"layer": first.Name, "outputs": first.Outputs,
			"layers": perLayer(func(l ActLayerCounts) map[string]any { return map[string]any{"zero": ratio(l.Zero, l.Outputs)} })}
		g := rec("sparsity.nonzero_groups", ratio(r.NonZeroGroups, r.Groups), "share", n, data)
		g.Detail = map[string]any{"group_values": r.GroupValues, "groups": r.Groups, "nonzero_groups": r.NonZeroGroups}
		d := rec("sparsity.dead", float64(first.Dead), "neurons", n, data)
		d.Detail = map[string]any{"layer": first.Name, "units": first.Units * first.Buckets,
			"layers": perLayer(func(l ActLayerCounts) map[string]any { return map[string]any{"dead": l.Dead} })}
		out = append(out, z, g, d)
	case MetricSaturation:
		if first.Ceiling {
			s := rec("saturation.outputs", ratio(first.Saturated, first.Outputs), "share", n, data)
			s.Detail = map[string]any{"layer": first.Name, "outputs": first.Outputs}
			a := rec("saturation.always", float64(first.AlwaysSaturated), "neurons", n, data)
			a.Detail = map[string]any{"layer": first.Name, "units": first.Units * first.Buckets}
			out = append(out, s, a)
		} else {
			s := rec("saturation.outputs", 0, "share", 0, data)
			s.Detail = map[string]any{"note": fmt.Sprintf("%s has no ceiling: nothing saturates", first.Name)}
			out = append(out, s)
		}
		if len(r.Layers) > 1 {
			// The most saturated of the later layers.
			best := -1
			for i, l := range r.Layers[1:] {
				if l.Ceiling && (best < 0 || ratio(l.Saturated, l.Outputs) > ratio(r.Layers[best].Saturated, r.Layers[best].Outputs)) {
					best = i + 1
				}
			}
			if best > 0 {
				l := r.Layers[best]
				s := rec("saturation.later", ratio(l.Saturated, l.Outputs), "share", n, data)
				s.Detail = map[string]any{"layer": l.Name, "layers": perLayer(func(l ActLayerCounts) map[string]any {
					return map[string]any{"saturated": ratio(l.Saturated, l.Outputs), "always_saturated": l.AlwaysSaturated}
				})}
				out = append(out, s)
			}
		}
		var values, clipped int64
		var tensors []map[string]any
		for _, t := range r.Tensors {
			values += t.Values
			clipped += t.AtClip
			tensors = append(tensors, map[string]any{"name": t.Name, "bits": t.Bits, "at_clip": ratio(t.AtClip, t.Values)})
		}
		if values > 0 {
			w := rec("saturation.weights_at_clip", ratio(clipped, values), "share", int(values), "")
			w.Detail = map[string]any{"values": values, "at_clip": clipped, "tensors": tensors}
			out = append(out, w)
		}
	}
	return out
}
