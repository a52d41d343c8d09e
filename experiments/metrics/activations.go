package metrics

import (
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
