package records

import (
	"fmt"

	"github.com/nnuelab/nnuelab/experiments/manifest"
	"github.com/nnuelab/nnuelab/experiments/metrics"
	"github.com/nnuelab/nnuelab/experiments/plan"
)

// activationRecords turns an activations result into the records of
// metric (sparsity or saturation).
func activationRecords(p *plan.Plan, metric string, r *metrics.ActivationsResult, rec func(string, float64, string, int, string) Record) []Record {
	data := p.PositionsSHA256
	n := int(r.Positions)
	first := r.Layers[0]
	perLayer := func(f func(l metrics.ActLayerCounts) map[string]any) []map[string]any {
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
	case manifest.MetricSparsity:
		z := rec("sparsity.zero", metrics.Ratio(first.Zero, first.Outputs), "share", n, data)
		z.Detail = map[string]any{"layer": first.Name, "outputs": first.Outputs,
			"layers": perLayer(func(l metrics.ActLayerCounts) map[string]any {
				return map[string]any{"zero": metrics.Ratio(l.Zero, l.Outputs)}
			})}
		g := rec("sparsity.nonzero_groups", metrics.Ratio(r.NonZeroGroups, r.Groups), "share", n, data)
		g.Detail = map[string]any{"group_values": r.GroupValues, "groups": r.Groups, "nonzero_groups": r.NonZeroGroups}
		d := rec("sparsity.dead", float64(first.Dead), "neurons", n, data)
		d.Detail = map[string]any{"layer": first.Name, "units": first.Units * first.Buckets,
			"layers": perLayer(func(l metrics.ActLayerCounts) map[string]any { return map[string]any{"dead": l.Dead} })}
		out = append(out, z, g, d)
	case manifest.MetricSaturation:
		if first.Ceiling {
			s := rec("saturation.outputs", metrics.Ratio(first.Saturated, first.Outputs), "share", n, data)
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
				if l.Ceiling && (best < 0 || metrics.Ratio(l.Saturated, l.Outputs) > metrics.Ratio(r.Layers[best].Saturated, r.Layers[best].Outputs)) {
					best = i + 1
				}
			}
			if best > 0 {
				l := r.Layers[best]
				s := rec("saturation.later", metrics.Ratio(l.Saturated, l.Outputs), "share", n, data)
				s.Detail = map[string]any{"layer": l.Name, "layers": perLayer(func(l metrics.ActLayerCounts) map[string]any {
					return map[string]any{"saturated": metrics.Ratio(l.Saturated, l.Outputs), "always_saturated": l.AlwaysSaturated}
				})}
				out = append(out, s)
			}
		}
		var values, clipped int64
		var tensors []map[string]any
		for _, t := range r.Tensors {
			values += t.Values
			clipped += t.AtClip
			tensors = append(tensors, map[string]any{"name": t.Name, "bits": t.Bits, "at_clip": metrics.Ratio(t.AtClip, t.Values)})
		}
		if values > 0 {
			w := rec("saturation.weights_at_clip", metrics.Ratio(clipped, values), "share", int(values), "")
			w.Detail = map[string]any{"values": values, "at_clip": clipped, "tensors": tensors}
			out = append(out, w)
		}
	}
	return out
}
