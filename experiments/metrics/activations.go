package metrics

import (
	"fmt"

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

// ActivationCounts turns inspect's statistics of a net into the result.
func ActivationCounts(v *inspect.Net, a *inspect.Activations) *ActivationsResult {
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

// Ratio is a/b as a float, 0 when b is 0: a share of counted activations.
func Ratio(a, b int64) float64 {
	if b == 0 {
		return 0
	}
	return float64(a) / float64(b)
}

// perLayer lists every layer's name and units with what f says of it.
func perLayer(r *ActivationsResult, f func(l ActLayerCounts) map[string]any) []map[string]any {
	out := make([]map[string]any, len(r.Layers))
	for i, l := range r.Layers {
		out[i] = map[string]any{"name": l.Name, "units": l.Units * l.Buckets}
		for k, x := range f(l) {
			out[i][k] = x
		}
	}
	return out
}

// sparsityRecords: the first layer's zero outputs, its non-zero 4-byte
// groups and its dead neurons, each layer's in the details.
func sparsityRecords(s Stored) ([]Value, error) {
	r := s.Activations
	if r == nil || len(r.Layers) == 0 {
		return nil, errNotStored(MetricSparsity)
	}
	n, first := int(r.Positions), r.Layers[0]
	return []Value{
		{Metric: "sparsity.zero", Value: Ratio(first.Zero, first.Outputs), Unit: "share", N: n,
			Detail: map[string]any{"layer": first.Name, "outputs": first.Outputs,
				"layers": perLayer(r, func(l ActLayerCounts) map[string]any { return map[string]any{"zero": Ratio(l.Zero, l.Outputs)} })}},
		{Metric: "sparsity.nonzero_groups", Value: Ratio(r.NonZeroGroups, r.Groups), Unit: "share", N: n,
			Detail: map[string]any{"group_values": r.GroupValues, "groups": r.Groups, "nonzero_groups": r.NonZeroGroups}},
		{Metric: "sparsity.dead", Value: float64(first.Dead), Unit: "neurons", N: n,
			Detail: map[string]any{"layer": first.Name, "units": first.Units * first.Buckets,
				"layers": perLayer(r, func(l ActLayerCounts) map[string]any { return map[string]any{"dead": l.Dead} })}},
	}, nil
}

// saturationRecords: the first layer's outputs at the ceiling (or why
// none), its neurons always there, the most saturated later layer, and the
// quantized parameters at their clip.
func saturationRecords(s Stored) ([]Value, error) {
	r := s.Activations
	if r == nil || len(r.Layers) == 0 {
		return nil, errNotStored(MetricSaturation)
	}
	n, first := int(r.Positions), r.Layers[0]
	var out []Value
	if first.Ceiling {
		out = append(out,
			Value{Metric: "saturation.outputs", Value: Ratio(first.Saturated, first.Outputs), Unit: "share", N: n,
				Detail: map[string]any{"layer": first.Name, "outputs": first.Outputs}},
			Value{Metric: "saturation.always", Value: float64(first.AlwaysSaturated), Unit: "neurons", N: n,
				Detail: map[string]any{"layer": first.Name, "units": first.Units * first.Buckets}})
	} else {
		out = append(out, Value{Metric: "saturation.outputs", Unit: "share",
			Detail: map[string]any{"note": fmt.Sprintf("%s has no ceiling: nothing saturates", first.Name)}})
	}
	if len(r.Layers) > 1 {
		// The most saturated of the later layers.
		best := -1
		for i, l := range r.Layers[1:] {
			if l.Ceiling && (best < 0 || Ratio(l.Saturated, l.Outputs) > Ratio(r.Layers[best].Saturated, r.Layers[best].Outputs)) {
				best = i + 1
			}
		}
		if best > 0 {
			l := r.Layers[best]
			out = append(out, Value{Metric: "saturation.later", Value: Ratio(l.Saturated, l.Outputs), Unit: "share", N: n,
				Detail: map[string]any{"layer": l.Name, "layers": perLayer(r, func(l ActLayerCounts) map[string]any {
					return map[string]any{"saturated": Ratio(l.Saturated, l.Outputs), "always_saturated": l.AlwaysSaturated}
				})}})
		}
	}
	var values, clipped int64
	var tensors []map[string]any
	for _, t := range r.Tensors {
		values += t.Values
		clipped += t.AtClip
		tensors = append(tensors, map[string]any{"name": t.Name, "bits": t.Bits, "at_clip": Ratio(t.AtClip, t.Values)})
	}
	if values > 0 {
		out = append(out, Value{Metric: "saturation.weights_at_clip", Value: Ratio(clipped, values), Unit: "share", N: int(values), Data: DataNone,
			Detail: map[string]any{"values": values, "at_clip": clipped, "tensors": tensors}})
	}
	return out, nil
}
