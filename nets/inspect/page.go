package inspect

import (
	"cmp"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/nnuelab/nnuelab/internal/fsutil"
)

// Summary is what a page reports about one net, in numbers (`nets show
// --json` prints it).
type Summary struct {
	Name        string          `json:"name"`
	Arch        string          `json:"arch"`
	File        string          `json:"file"`
	SHA256      string          `json:"sha256,omitempty"`
	Width       int             `json:"width"`
	Features    int             `json:"features"`
	KingBuckets int             `json:"king_buckets"`
	Tensors     []TensorSummary `json:"tensors"`
	Planes      []PlaneSummary  `json:"planes"`
	// TopNeurons are the strongest neurons by weight norm, TopFeatures the
	// features with the largest weight rows.
	TopNeurons  []Neuron         `json:"top_neurons"`
	TopFeatures []FeatureSummary `json:"top_features"`
	// EmptyNeurons counts first-layer neurons whose weights are all zero.
	EmptyNeurons int          `json:"empty_neurons"`
	Activations  *ActSummary  `json:"activations,omitempty"`
	Figures      []string     `json:"figures,omitempty"`
	Virtual      *TensorStats `json:"virtual,omitempty"`
	// Neurons are all first-layer neurons, strongest first.
	Neurons []Neuron `json:"-"`
}

// TensorSummary describes one tensor.
type TensorSummary struct {
	Name  string      `json:"name"`
	Shape []int       `json:"shape"`
	Bits  int         `json:"bits"` // 0: float
	Scale float64     `json:"scale,omitempty"`
	Limit float64     `json:"clip,omitempty"` // float units
	Float bool        `json:"float_from_file"`
	Stats TensorStats `json:"stats"`
}

// PlaneSummary is planeWeight with the plane's name.
type PlaneSummary struct {
	Plane   string  `json:"plane"`
	MeanAbs float64 `json:"mean_abs"`
	Share   float64 `json:"share"`
}

// FeatureSummary names a feature and its row norm.
type FeatureSummary struct {
	Feature string  `json:"feature"`
	Norm    float64 `json:"norm"`
}

// ActSummary is Activations in numbers.
type ActSummary struct {
	Data          string         `json:"data"`
	Positions     int64          `json:"positions"`
	NonZeroGroups float64        `json:"nonzero_groups"`
	GroupValues   int            `json:"group_values"`
	Layers        []LayerSummary `json:"layers"`
}

// LayerSummary is one ActLayer in numbers.
type LayerSummary struct {
	Name            string   `json:"name"`
	Units           int      `json:"units"`
	Buckets         int      `json:"buckets"`
	Zero            float64  `json:"zero"`
	Saturated       float64  `json:"saturated"`
	HasCeil         bool     `json:"has_ceiling"`
	Dead            []string `json:"dead"`
	AlwaysSaturated []string `json:"always_saturated"`
	Unreached       int      `json:"unreached"`
}

// Summarize computes the numbers of v's page (a nil a: no activations).
func Summarize(v *Net, a *Activations, top int) *Summary {
	s := &Summary{Name: v.Name, Arch: v.Spec.Name, File: v.File(), SHA256: v.Info.SHA256,
		Width: v.Network.Width, Features: v.Network.Features.Size(), KingBuckets: v.Network.Features.KingBuckets()}
	for _, t := range v.Tensors {
		s.Tensors = append(s.Tensors, TensorSummary{Name: t.Name, Shape: t.Shape, Bits: t.Bits, Scale: t.Scale,
			Limit: t.Limit(), Float: t.FromFloatFile(), Stats: t.Stats()})
	}
	if v.Virtual != nil {
		st := v.Virtual.Stats()
		s.Virtual = &st
	}
	for _, p := range v.planeWeights() {
		s.Planes = append(s.Planes, PlaneSummary{planeName(p.Plane), p.MeanAbs, p.Share})
	}
	ns := v.Neurons()
	s.Neurons = ns
	s.TopNeurons = ns[:min(top, len(ns))]
	for _, n := range ns {
		if n.Norm == 0 {
			s.EmptyNeurons++
		}
	}
	for _, f := range v.TopFeatures(10) {
		s.TopFeatures = append(s.TopFeatures, FeatureSummary{f.String(), f.Norm})
	}
	if a != nil {
		as := &ActSummary{Data: a.Data, Positions: a.Positions, NonZeroGroups: a.NonZeroGroupShare(), GroupValues: a.GroupValues}
		for _, l := range a.Layers {
			ls := LayerSummary{Name: l.Name, Units: l.Units, Buckets: l.Buckets, Zero: l.ZeroShare(), Saturated: l.SaturatedShare(),
				HasCeil: l.Ceil != 0, Unreached: l.Unreached(), Dead: []string{}, AlwaysSaturated: []string{}}
			for _, u := range l.Dead() {
				ls.Dead = append(ls.Dead, l.UnitName(u))
			}
			for _, u := range l.AlwaysSaturated() {
				ls.AlwaysSaturated = append(ls.AlwaysSaturated, l.UnitName(u))
			}
			as.Layers = append(as.Layers, ls)
		}
		s.Activations = as
	}
	return s
}

// Text writes the summary as the lines `nets show` prints.
func (s *Summary) Text(w io.Writer) {
	fmt.Fprintf(w, "%s: arch %s, %s", s.Name, s.Arch, s.File)
	if s.SHA256 != "" {
		fmt.Fprintf(w, " (sha256 %.12s)", s.SHA256)
	}
	buckets := "no king buckets"
	if s.KingBuckets > 1 {
		buckets = fmt.Sprintf("%d king buckets", s.KingBuckets)
	}
	fmt.Fprintf(w, "\n  first layer: %d features (%s) -> %d neurons per perspective\n", s.Features, buckets, s.Width)
	for _, t := range s.Tensors {
		st := t.Stats
		fmt.Fprintf(w, "  %-12s %-14s %s: %s .. %s, mean |v| %s, %s < 0", t.Name, shape(t.Shape), storage(t.Bits, t.Scale), g4(st.Min), g4(st.Max), g4(st.AbsMean), pct(st.Negative))
		if t.Bits > 0 {
			fmt.Fprintf(w, ", %s at clip ±%s, %s at max |v|, %s zero", pct(st.AtClip), g4(t.Limit), pct(st.AtMax), pct(st.Zero))
		}
		fmt.Fprintln(w)
	}
	planes := append([]PlaneSummary(nil), s.Planes...)
	slices.SortStableFunc(planes, func(a, b PlaneSummary) int { return cmp.Compare(b.Share, a.Share) })
	var ps []string
	for _, p := range planes[:min(6, len(planes))] {
		ps = append(ps, fmt.Sprintf("%s %s", p.Plane, pct(p.Share)))
	}
	fmt.Fprintf(w, "  weight mass by plane (top 6): %s\n", strings.Join(ps, ", "))
	var fs []string
	for _, f := range s.TopFeatures[:min(5, len(s.TopFeatures))] {
		fs = append(fs, fmt.Sprintf("%s %s", f.Feature, g4(f.Norm)))
	}
	fmt.Fprintf(w, "  strongest features: %s\n", strings.Join(fs, ", "))
	var ns []string
	for _, n := range s.TopNeurons {
		ns = append(ns, fmt.Sprintf("%d (%s)", n.Index, g4(n.Norm)))
	}
	fmt.Fprintf(w, "  strongest neurons: %s; %d of %d have no weight at all\n", strings.Join(ns, ", "), s.EmptyNeurons, s.Width)
	if a := s.Activations; a != nil {
		fmt.Fprintf(w, "  activations over %s (%d positions):\n", a.Data, a.Positions)
		for _, l := range a.Layers {
			fmt.Fprintf(w, "    %-22s %s zero", l.Name, pct(l.Zero))
			if l.HasCeil {
				fmt.Fprintf(w, ", %s saturated", pct(l.Saturated))
			}
			fmt.Fprintf(w, "; %d dead, %d always saturated of %d", len(l.Dead), len(l.AlwaysSaturated), l.Units*l.Buckets-l.Unreached)
			if l.Unreached > 0 {
				fmt.Fprintf(w, " (%d unreached)", l.Unreached)
			}
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "  first layer: %s of 4-byte groups (%d values) non-zero\n", pct(a.NonZeroGroups), a.GroupValues)
	}
}

func shape(s []int) string {
	var p []string
	for _, d := range s {
		p = append(p, strconv.Itoa(d))
	}
	return strings.Join(p, "×")
}

func storage(bits int, scale float64) string {
	if bits == 0 {
		return "float32"
	}
	return fmt.Sprintf("int%d ×%s", bits, g4(scale))
}

func g4(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

// PageOptions tune the pages.
type PageOptions struct {
	// Top is the number of neurons drawn as boards (strongest first).
	Top int
	// MaxBuckets is the number of king-bucket rows of a board figure: all
	// buckets up to it, else a selection (e1, g1, c1, e4).
	MaxBuckets int
	// Command is the command line quoted on the page as how to remake it.
	Command string
}

// WritePage writes dir/SLUG.md and its figures in dir/SLUG/ (every .svg
// there that this page does not write is removed), each file atomically.
// a may be nil (no activation section). It returns the page's summary.
func WritePage(dir string, v *Net, a *Activations, o PageOptions) (*Summary, error) {
	if o.MaxBuckets <= 0 {
		o.MaxBuckets = 5
	}
	slug := v.Slug()
	figDir := filepath.Join(dir, slug)
	if err := os.MkdirAll(figDir, 0o755); err != nil {
		return nil, err
	}
	s := Summarize(v, a, o.Top)
	written := map[string]bool{}
	write := func(name string, data []byte) error {
		written[name] = true
		s.Figures = append(s.Figures, filepath.Join(figDir, name))
		return writeAtomic(filepath.Join(figDir, name), data)
	}
	hist, err := HistogramsSVG(v)
	if err != nil {
		return nil, err
	}
	if err := write("histograms.svg", hist); err != nil {
		return nil, err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", v.Name)
	fmt.Fprintf(&b, "<!-- Generated by `nnuelab nets show`: do not edit; %s rewrites it. -->\n\n", orDefault(o.Command, "the command below"))
	fmt.Fprintf(&b, "Architecture `%s`: %s.  \n", v.Spec.Name, strings.TrimSuffix(v.Spec.Description, "."))
	fmt.Fprintf(&b, "Net: %s", mdFile(v))
	if v.Info.SHA256 != "" {
		fmt.Fprintf(&b, ", SHA-256 `%.12s…`", v.Info.SHA256)
	}
	fmt.Fprintf(&b, ".  \nFirst layer: %d features", s.Features)
	if s.KingBuckets > 1 {
		fmt.Fprintf(&b, " (%d king buckets)", s.KingBuckets)
	}
	fmt.Fprintf(&b, " → %d neurons per perspective; head `%s`.\n\n", s.Width, v.Spec.Head.Type)
	if o.Command != "" {
		fmt.Fprintf(&b, "Made by `%s`.\n\n", o.Command)
	}

	b.WriteString("## Weights and biases\n\n")
	b.WriteString("Float values are the float file's where the net is an nnuelab float net, else the quantized values divided by the scale (*dequantized*). The clip is the largest value the storage type holds at the arch's multiplier; *at clip* counts the quantized values there, *at max |v|* those at the tensor's own largest magnitude (a pile there is a clip the trainer applied).\n\n")
	b.WriteString("| tensor | shape | stored | float range | mean \\|v\\| | < 0 | clip (float) | at clip | at max \\|v\\| | zero |\n|---|---|---|---|---|---|---|---|---|---|\n")
	for _, t := range s.Tensors {
		st := t.Stats
		src := "dequantized"
		if t.Float || t.Bits == 0 {
			src = "float"
		}
		clip, at, zero := "—", "—", pct(st.Zero)
		if t.Bits > 0 {
			clip, at = "±"+g4(t.Limit), pct(st.AtClip)
		}
		fmt.Fprintf(&b, "| `%s` | %s | %s (%s) | %s … %s | %s | %s | %s | %s | %s | %s |\n", t.Name, shape(t.Shape), storage(t.Bits, t.Scale), src,
			g4(st.Min), g4(st.Max), g4(st.AbsMean), pct(st.Negative), clip, at, pct(st.AtMax), zero)
	}
	if s.Virtual != nil {
		fmt.Fprintf(&b, "| `ft.virtual` (factorizer) | %s | float | %s … %s | %s | %s | — | — | — | %s |\n", shape(v.Virtual.Shape), g4(s.Virtual.Min), g4(s.Virtual.Max), g4(s.Virtual.AbsMean), pct(s.Virtual.Negative), pct(s.Virtual.Zero))
	}
	fmt.Fprintf(&b, "\n![histograms of every tensor](%s/histograms.svg)\n\n", slug)

	b.WriteString("## First layer\n\n")
	b.WriteString("Weight mass per piece plane (White's view: *own* is the perspective's side), the mean |weight| per feature and neuron over every king bucket, and the plane's share of the total:\n\n")
	b.WriteString("| plane | mean \\|w\\| | share |\n|---|---|---|\n")
	for _, p := range s.Planes {
		fmt.Fprintf(&b, "| %s | %s | %s |\n", p.Plane, g4(p.MeanAbs), pct(p.Share))
	}
	b.WriteString("\nStrongest features (L2 norm of the feature's weight row over all neurons): ")
	var fs []string
	for _, f := range s.TopFeatures {
		fs = append(fs, fmt.Sprintf("%s %s", f.Feature, g4(f.Norm)))
	}
	b.WriteString(strings.Join(fs, "; ") + ".\n\n")
	var ns []string
	for _, n := range s.TopNeurons {
		ns = append(ns, fmt.Sprintf("%s (%s)", v.NeuronName(n.Index), g4(n.Norm)))
	}
	fmt.Fprintf(&b, "Neurons by weight norm: the strongest %s; the median %s; the weakest %s. %d of %d neurons have no weight at all.\n\n",
		strings.Join(ns, ", "), g4(s.Neurons[len(s.Neurons)/2].Norm), g4(s.Neurons[len(s.Neurons)-1].Norm), s.EmptyNeurons, s.Width)
	shown := v.ShownBuckets(o.MaxBuckets)
	if len(v.Buckets()) > len(shown) {
		var ks []string
		for _, sb := range shown {
			ks = append(ks, fmt.Sprintf("%s (bucket %d)", sb.King, sb.Bucket))
		}
		fmt.Fprintf(&b, "The boards show %d of the %d king buckets: the own king on %s.\n\n", len(shown), len(v.Buckets()), strings.Join(ks, ", "))
	}
	if v.Virtual != nil {
		b.WriteString("The last row of each figure is the factorizer's virtual rows (what every king bucket shares; the trainer folds them into the real rows at export).\n\n")
	}
	for rank, n := range s.TopNeurons {
		name := fmt.Sprintf("ft-neuron-%d.svg", n.Index)
		if err := write(name, v.NeuronFigure(n.Index, o.MaxBuckets, n.Norm, rank+1).SVG()); err != nil {
			return nil, err
		}
		fmt.Fprintf(&b, "![neuron %s](%s/%s)\n\n", v.NeuronName(n.Index), slug, name)
	}

	if a != nil {
		act, err := ActivationsSVG(v, a)
		if err != nil {
			return nil, err
		}
		if err := write("activations.svg", act); err != nil {
			return nil, err
		}
		writeActivations(&b, s.Activations)
		fmt.Fprintf(&b, "![activations](%s/activations.svg)\n", slug)
	} else if err := StatsFor(v.Spec); err != nil {
		fmt.Fprintf(&b, "## Activations\n\nNo activation statistics: %v.\n", err)
	}
	if err := removeStale(figDir, written); err != nil {
		return nil, err
	}
	if err := writeAtomic(filepath.Join(dir, slug+".md"), []byte(b.String())); err != nil {
		return nil, err
	}
	return s, nil
}

// writeActivations writes the activation section of a page.
func writeActivations(b *strings.Builder, a *ActSummary) {
	fmt.Fprintf(b, "## Activations over `%s` (%d positions)\n\n", a.Data, a.Positions)
	b.WriteString("Each output after its activation, the feature transformer's for both perspectives where the head reads both (Rengar's reads the side to move's only; its clamp saturates at either end, ±127/128). A neuron is *dead* when no position made it non-zero, *always saturated* when every output sat at the activation's ceiling; a layer stack that no position reached is *unreached*.\n\n")
	b.WriteString("| layer | neurons | zero | saturated | dead | always saturated |\n|---|---|---|---|---|---|\n")
	for _, l := range a.Layers {
		units := strconv.Itoa(l.Units)
		if l.Buckets > 1 {
			units = fmt.Sprintf("%d × %d stacks", l.Units, l.Buckets)
			if l.Unreached > 0 {
				units += fmt.Sprintf(" (%d unreached)", l.Unreached)
			}
		}
		sat := "— (no ceiling)"
		if l.HasCeil {
			sat = pct(l.Saturated)
		}
		fmt.Fprintf(b, "| %s | %s | %s | %s | %s | %s |\n", l.Name, units, pct(l.Zero), sat, listUnits(l.Dead), listUnits(l.AlwaysSaturated))
	}
	fmt.Fprintf(b, "\nSparse affine: %s of the first layer's 4-byte groups (%d outputs each) hold a non-zero value; a sparse affine layer multiplies those and skips the rest.\n\n",
		pct(a.NonZeroGroups), a.GroupValues)
}

// listUnits writes a count and up to 12 names.
func listUnits(us []string) string {
	if len(us) == 0 {
		return "0"
	}
	if len(us) <= 12 {
		return fmt.Sprintf("%d: %s", len(us), strings.Join(us, ", "))
	}
	return fmt.Sprintf("%d: %s, …", len(us), strings.Join(us[:12], ", "))
}

func mdFile(v *Net) string {
	switch {
	case v.Info.Shipped:
		return fmt.Sprintf("shipped `nets/%s`", v.Info.File)
	case v.Info.File != "":
		return fmt.Sprintf("`%s`", v.Info.File)
	}
	return "built in memory"
}

func orDefault(s, d string) string {
	if s == "" {
		return d
	}
	return "`" + s + "`"
}

// WriteCompare writes dir/NAME.md with the histograms and activation
// statistics of several nets side by side (as may be nil, or hold nil for
// nets without statistics).
func WriteCompare(dir, name string, vs []*Net, as []*Activations, o PageOptions) error {
	figDir := filepath.Join(dir, name)
	if err := os.MkdirAll(figDir, 0o755); err != nil {
		return err
	}
	written := map[string]bool{}
	hist, err := CompareHistogramsSVG(vs)
	if err != nil {
		return err
	}
	written["histograms.svg"] = true
	if err := writeAtomic(filepath.Join(figDir, "histograms.svg"), hist); err != nil {
		return err
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s: %d nets side by side\n\n", name, len(vs))
	fmt.Fprintf(&b, "<!-- Generated by `nnuelab nets show`: do not edit; %s rewrites it. -->\n\n", orDefault(o.Command, "the command below"))
	if o.Command != "" {
		fmt.Fprintf(&b, "Made by `%s`.\n\n", o.Command)
	}
	b.WriteString("| net | arch | file | neurons | ft.bias < 0 | ft.weight at clip | strongest plane |\n|---|---|---|---|---|---|---|\n")
	for _, v := range vs {
		s := Summarize(v, nil, 0)
		best := s.Planes[0]
		for _, p := range s.Planes {
			if p.Share > best.Share {
				best = p
			}
		}
		fmt.Fprintf(&b, "| [%s](%s.md) | `%s` | %s | %d | %s | %s | %s (%s) |\n", v.Name, v.Slug(), v.Spec.Name, mdFile(v), v.Network.Width,
			pct(v.Tensor("ft.bias").Stats().Negative), pct(v.Tensor("ft.weight").Stats().AtClip), best.Plane, pct(best.Share))
	}
	fmt.Fprintf(&b, "\n![histograms side by side](%s/histograms.svg)\n\n", name)
	have := false
	for _, a := range as {
		have = have || a != nil
	}
	if have {
		act, err := CompareActivationsSVG(vs, as)
		if err != nil {
			return err
		}
		written["activations.svg"] = true
		if err := writeAtomic(filepath.Join(figDir, "activations.svg"), act); err != nil {
			return err
		}
		b.WriteString("## Activations\n\n| net | layer | zero | saturated | dead | always saturated |\n|---|---|---|---|---|---|\n")
		for i, v := range vs {
			if as[i] == nil {
				continue
			}
			s := Summarize(v, as[i], 0).Activations
			for _, l := range s.Layers {
				sat := "—"
				if l.HasCeil {
					sat = pct(l.Saturated)
				}
				fmt.Fprintf(&b, "| %s | %s | %s | %s | %d | %d |\n", v.Name, l.Name, pct(l.Zero), sat, len(l.Dead), len(l.AlwaysSaturated))
			}
		}
		b.WriteString("\n| net | data | positions | non-zero 4-byte groups of the first layer |\n|---|---|---|---|\n")
		for i, v := range vs {
			if as[i] != nil {
				fmt.Fprintf(&b, "| %s | `%s` | %d | %s |\n", v.Name, as[i].Data, as[i].Positions, pct(as[i].NonZeroGroupShare()))
			}
		}
		fmt.Fprintf(&b, "\n![activations side by side](%s/activations.svg)\n", name)
	}
	if err := removeStale(figDir, written); err != nil {
		return err
	}
	return writeAtomic(filepath.Join(dir, name+".md"), []byte(b.String()))
}

// removeStale removes the .svg files of dir that were not written now.
func removeStale(dir string, written map[string]bool) error {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return err
	}
	for _, e := range entries {
		if !e.IsDir() && strings.HasSuffix(e.Name(), ".svg") && !written[e.Name()] {
			if err := os.Remove(filepath.Join(dir, e.Name())); err != nil {
				return err
			}
		}
	}
	return nil
}

// writeAtomic writes data to path atomically, readable by all
// (internal/fsutil).
func writeAtomic(path string, data []byte) error {
	return fsutil.WriteFileAtomic(path, data, 0o644)
}
