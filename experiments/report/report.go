package report

import (
	"fmt"
	"image/color"
	"math"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/nnuelab/nnuelab/experiments/manifest"
	"github.com/nnuelab/nnuelab/experiments/metrics"
	"github.com/nnuelab/nnuelab/experiments/plan"
	"github.com/nnuelab/nnuelab/experiments/records"
	"github.com/nnuelab/nnuelab/internal/fsutil"
	"github.com/nnuelab/nnuelab/internal/plotaxis"
	"github.com/nnuelab/nnuelab/internal/svgplot"
	"github.com/nnuelab/nnuelab/nets/train"
	"github.com/samber/lo"
	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
)

// Palette is colour-blind safe (Okabe and Ito).
var Palette = []color.Color{
	color.RGBA{0, 114, 178, 255}, color.RGBA{213, 94, 0, 255}, color.RGBA{0, 158, 115, 255},
	color.RGBA{204, 121, 167, 255}, color.RGBA{230, 159, 0, 255}, color.RGBA{86, 180, 233, 255},
	color.RGBA{0, 0, 0, 255}, color.RGBA{240, 228, 66, 255},
}

// summary is one variant's results, averaged over seeds.
type summary struct {
	name, label string
	base        bool
	overrides   []string
	arch, net   string
	metrics     map[string]*agg
}

// agg averages one metric over seeds.
type agg struct {
	n, seeds     int
	sum, lo, hi  float64
	hasLo, hasHi bool
	unit         string
	detail       map[string]any
	values       []float64
}

func (a *agg) value() float64 { return a.sum / float64(a.seeds) }

// summarize groups records by variant (in first-seen order) and metric.
func summarize(recs []records.Record) []*summary {
	var out []*summary
	for _, group := range lo.PartitionBy(recs, func(r records.Record) string { return r.Variant }) {
		f := group[0]
		s := &summary{name: f.Variant, label: f.Label, base: f.Base, overrides: f.Overrides, arch: f.ArchSHA256, net: f.NetSHA256, metrics: map[string]*agg{}}
		out = append(out, s)
		s.add(group)
	}
	return out
}

// add aggregates a variant's records by metric.
func (s *summary) add(recs []records.Record) {
	for _, r := range recs {
		a := s.metrics[r.Metric]
		if a == nil {
			a = &agg{unit: r.Unit, detail: r.Detail, lo: math.Inf(1), hi: math.Inf(-1)}
			s.metrics[r.Metric] = a
		}
		if r.N == 0 && r.Detail != nil && r.Detail["note"] != nil {
			a.detail = r.Detail
			continue
		}
		a.seeds++
		a.n += r.N
		a.sum += r.Value
		a.values = append(a.values, r.Value)
		if r.Lower != nil {
			a.lo, a.hasLo = math.Min(a.lo, *r.Lower), true
		}
		if r.Upper != nil {
			a.hi, a.hasHi = math.Max(a.hi, *r.Upper), true
		}
	}
}

func (s *summary) get(metric string) (*agg, bool) {
	a, ok := s.metrics[metric]
	if !ok || a.seeds == 0 {
		return a, false
	}
	return a, true
}

// cell formats a metric for the table.
func (s *summary) cell(metric, format string) string {
	a, ok := s.get(metric)
	if !ok {
		if a != nil && a.detail != nil && a.detail["note"] != nil {
			return "n/a"
		}
		return "–"
	}
	return fmt.Sprintf(format, a.value())
}

// rangeCell formats a value with its interval or range.
func (s *summary) rangeCell(metric, format string) string {
	a, ok := s.get(metric)
	if !ok {
		return "–"
	}
	v := fmt.Sprintf(format, a.value())
	if a.hasLo || a.hasHi {
		lo, hi := "−∞", "+∞"
		if a.hasLo {
			lo = fmt.Sprintf(format, a.lo)
		}
		if a.hasHi {
			hi = fmt.Sprintf(format, a.hi)
		}
		v += " [" + lo + ", " + hi + "]"
	}
	return v
}

// ownOverrides drops the base's overrides that a variant inherited (they
// come first), so that the table shows what the variant changes.
func ownOverrides(s *summary, base []string) []string {
	if s.base || len(base) == 0 || len(s.overrides) < len(base) {
		return s.overrides
	}
	for i := range base {
		if s.overrides[i] != base[i] {
			return s.overrides
		}
	}
	return s.overrides[len(base):]
}

// PlusZero turns a negative zero into zero (an interval of [-0.0, -0.0] reads
// as a sign where there is none).
func PlusZero(x float64) float64 { return x + 0 }

// eloOpponent names what the report's Elo is measured against.
func eloOpponent(m *manifest.Manifest) string {
	if m.Elo != nil && m.Elo.Opponent == manifest.OpponentClassical {
		return manifest.OpponentClassical
	}
	return manifest.OpponentBase
}

// eloCell is a variant's Elo cell of the report's table: value, interval,
// games and the SPRT's state.
func eloCell(s *summary) string {
	a, ok := s.get("elo")
	if !ok {
		if s.base {
			return "0 (base)"
		}
		return "–"
	}
	lo, hi := "−∞", "+∞"
	if a.hasLo {
		lo = fmt.Sprintf("%+.1f", PlusZero(a.lo))
	}
	if a.hasHi {
		hi = fmt.Sprintf("%+.1f", PlusZero(a.hi))
	}
	out := fmt.Sprintf("%s [%s, %s], %d games", EloValueText(a.value(), a.detail), lo, hi, a.n)
	if planned, ok := a.detail["games_planned"]; ok {
		out += fmt.Sprintf(" of %v", planned)
	}
	if d, ok := a.detail["sprt"].(string); ok {
		out += ", SPRT " + d
		// How far the test has come: the LLR against Wald's bounds.
		if llr, ok := a.detail["llr"].(float64); ok {
			if b := Floats(a.detail["llr_bounds"]); len(b) == 2 {
				out += fmt.Sprintf(" (LLR %+.2f of [%+.2f, %+.2f])", PlusZero(llr), b[0], b[1])
			}
		}
	}
	return out
}

// Paths returns where Write puts a report: the markdown file
// and the folder of its plots.
func Paths(dir, name string) (md, plots string) {
	if dir == "" {
		dir = filepath.Join("docs", "reports")
	}
	return filepath.Join(dir, name+".md"), filepath.Join(dir, name)
}

// Write writes the report of a run: DIR/NAME.md (tables, a short
// text, the setup) and its SVG plots in DIR/NAME/, all atomically.
func Write(p *plan.Plan, recs []records.Record, dir string) (string, error) {
	return writeReport(p, recs, dir, nil)
}

// WritePartial writes the report of a run that has not finished,
// from MergePartial's records: the same page, headed by what is missing
// (missing: the unfinished task IDs) and generated from the task results,
// since results.jsonl is only written by a finished run.
func WritePartial(p *plan.Plan, recs []records.Record, missing []string, dir string) (string, error) {
	return writeReport(p, recs, dir, missing)
}

func writeReport(p *plan.Plan, recs []records.Record, dir string, missing []string) (string, error) {
	recs, err := records.AsStored(recs)
	if err != nil {
		return "", err
	}
	m := p.Manifest
	mdPath, plotDir := Paths(dir, m.Name)
	sums := summarize(recs)
	if len(sums) == 0 {
		return "", fmt.Errorf("no results to report")
	}
	var b strings.Builder
	title := m.Title
	if title == "" {
		title = m.Name
	}
	fmt.Fprintf(&b, "# %s\n\n", title)
	if missing == nil {
		fmt.Fprintf(&b, "<!-- Generated by `nnuelab experiment` from %s; do not edit by hand. -->\n\n", filepath.ToSlash(plan.RelPath(filepath.Join(p.Out, "results.jsonl"))))
	} else {
		fmt.Fprintf(&b, "<!-- Generated by `nnuelab experiment report --partial` from the task results in %s; do not edit by hand. -->\n\n", filepath.ToSlash(plan.RelPath(filepath.Join(p.Out, "tasks"))))
		kinds := map[string]int{}
		for _, id := range missing {
			if t := p.Task(id); t != nil {
				kinds[t.Kind]++
			}
		}
		var parts []string
		for _, k := range []string{plan.KindDatagen, plan.KindLabel, plan.KindTrain, plan.KindMeasure, plan.KindActivations, plan.KindSpeed, plan.KindElo} {
			if kinds[k] > 0 {
				parts = append(parts, fmt.Sprintf("%d %s", kinds[k], k))
			}
		}
		fmt.Fprintf(&b, "> **Partial results:** %d of %d tasks finished; not yet run: %s. Elo cells count the games played so far. `%s` continues the run (finished tasks are reused).\n\n",
			len(p.Tasks)-len(missing), len(p.Tasks), strings.Join(parts, ", "), p.Command)
	}
	if m.Claim != "" {
		fmt.Fprintf(&b, "**Claim under test.** %s", strings.TrimSpace(m.Claim))
		if m.Source != "" {
			fmt.Fprintf(&b, " (source: %s)", strings.TrimSpace(m.Source))
		}
		b.WriteString("\n\n")
	}
	fmt.Fprintf(&b, "**Regenerate:** `%s` (finished tasks are reused; `nnuelab experiment report %s` rewrites this page from the results alone).\n\n", p.Command, filepath.ToSlash(plan.RelPath(m.File)))
	if d := strings.TrimSpace(m.Description); d != "" {
		b.WriteString(d + "\n\n")
	}

	// The main table: one column per metric present.
	type col struct {
		head string
		f    func(*summary) string
		show bool
	}
	has := func(metric string) bool {
		for _, s := range sums {
			if _, ok := s.metrics[metric]; ok {
				return true
			}
		}
		return false
	}
	var cols []col
	for _, d := range metrics.All() {
		for _, c := range d.Columns {
			head := strings.ReplaceAll(c.Head, "{opponent}", eloOpponent(m))
			cols = append(cols, col{head, func(s *summary) string { return columnCell(m, s, c) }, has(c.Metric)})
		}
	}
	b.WriteString("## Results\n\n| variant | overrides |")
	for _, c := range cols {
		if c.show {
			b.WriteString(" " + c.head + " |")
		}
	}
	b.WriteString("\n|---|---|")
	for _, c := range cols {
		if c.show {
			b.WriteString("---|")
		}
	}
	b.WriteString("\n")
	var baseOv []string
	for _, s := range sums {
		if s.base {
			baseOv = s.overrides
		}
	}
	for _, s := range sums {
		name := s.label
		if s.base {
			name = "**" + name + "** (base)"
		}
		ov := "–"
		own := ownOverrides(s, baseOv)
		if t := m.TrainOverride(s.name); t != "" {
			own = append(own[:len(own):len(own)], t)
		}
		if len(own) > 0 {
			ov = "`" + strings.Join(own, "` `") + "`"
		}
		fmt.Fprintf(&b, "| %s | %s |", name, ov)
		for _, c := range cols {
			if c.show {
				b.WriteString(" " + c.f(s) + " |")
			}
		}
		b.WriteString("\n")
	}
	b.WriteString("\n")
	if len(m.Seeds) > 1 {
		fmt.Fprintf(&b, "Per-net metrics are means over the %d seeds %v; speed and Elo use seed %d's nets.\n\n", len(m.Seeds), m.Seeds, m.Seeds[0])
	}
	if note := SpeedClockNote(recs); note != "" {
		b.WriteString(note + "\n\n")
	}
	for _, s := range sums {
		if a, ok := s.metrics["quant_error.mean_cp"]; ok && a.seeds == 0 && a.detail != nil {
			fmt.Fprintf(&b, "- %s: no quantization error: %v.\n", s.label, a.detail["note"])
		}
	}
	notes := map[string]bool{}
	for _, s := range sums {
		if a, ok := s.metrics["saturation.outputs"]; ok && a.seeds == 0 && a.detail != nil {
			if note := fmt.Sprint(a.detail["note"]); !notes[note] {
				notes[note] = true
				fmt.Fprintf(&b, "- Saturated outputs n/a: %s.\n", note)
			}
		}
	}
	b.WriteString(findings(sums, eloOpponent(m)))
	if pending := pendingMetrics(p, recs); len(pending) > 0 {
		fmt.Fprintf(&b, "\n**Pending:** %s — not measured in this run; `%s` runs them (finished tasks are reused).\n",
			strings.Join(pending, ", "), p.Command)
	}

	b.WriteString(selfplaySection(sums, eloOpponent(m)))

	if has("history_shares.d1") {
		b.WriteString("\n## Where accumulator updates came from\n\n")
		b.WriteString("Share of accumulator updates (per perspective) during fixed-node searches, by how many plies back the nearest computed accumulator was, and refreshes.\n\n")
		b.WriteString("The last two columns count only the searches whose root is not in check: the search does not evaluate a root in check, so no accumulator is computed at the root of those searches.\n\n")
		b.WriteString("| variant | 1 ply | 2 plies | 3 plies | 4–8 plies | deeper | refresh | cache hits / refreshes | updates | last 2, roots not in check | refresh, roots not in check |\n|---|---|---|---|---|---|---|---|---|---|---|\n")
		for _, s := range sums {
			if _, ok := s.get("history_shares.d1"); !ok {
				continue
			}
			mid := 0.0
			for d := 4; d <= metrics.ShareDepth; d++ {
				if a, ok := s.get(fmt.Sprintf("history_shares.d%d", d)); ok {
					mid += a.value()
				}
			}
			hits := "–"
			if a, ok := s.get("history_shares.refresh"); ok {
				if c, ok := a.detail["count"].(float64); ok && c > 0 {
					if h, ok := a.detail["cache_hits"].(float64); ok {
						hits = fmt.Sprintf("%.1f%%", 100*h/c)
					}
				}
			}
			up, _ := s.get("history_shares.refresh")
			fmt.Fprintf(&b, "| %s | %s | %s | %s | %.2f%% | %s | %s | %s | %d | %s | %s |\n", s.label,
				pct(s, "history_shares.d1"), pct(s, "history_shares.d2"), pct(s, "history_shares.d3"), 100*mid,
				pct(s, "history_shares.deeper"), pct(s, "history_shares.refresh"), hits, up.n/max(up.seeds, 1),
				pct(s, "history_shares.quiet_roots.last2"), pct(s, "history_shares.quiet_roots.refresh"))
		}
	}

	if m.Scaling != nil {
		sec, err := scalingSection(p, recs, p.BaseVariant().Label)
		if err != nil {
			return "", err
		}
		b.WriteString("\n" + sec)
	}

	// Plots.
	plots, err := reportPlots(sums, recs, eloOpponent(m))
	if err != nil {
		return "", err
	}
	if m.Scaling != nil {
		svg, err := scalingPlot(p, recs, p.BaseVariant().Label)
		if err != nil {
			return "", err
		}
		if svg != nil {
			plots["elo-vs-positions.svg"] = svg
		}
	}
	if err := WritePlots(&b, plots, plotDir, m.Name); err != nil {
		return "", err
	}

	// Setup.
	b.WriteString("## Setup\n\n")
	fmt.Fprintf(&b, "- Manifest `%s` (sha256 `%s`); metrics %s.\n", filepath.ToSlash(plan.RelPath(m.File)), p.ManifestSHA256[:16], strings.Join(m.Metrics, ", "))
	fmt.Fprintf(&b, "- Positions `%s` (sha256 `%s`)", p.Positions, p.PositionsSHA256[:16])
	if m.Positions.Limit > 0 {
		fmt.Fprintf(&b, ", first %d", m.Positions.Limit)
	}
	b.WriteString(". Agreement: each net's evaluation (cp, side to move) against Stockfish 15.1's NNUE evaluation (net nn-ad9b42354671), after a least-squares scale through the origin; sign agreement counts 0 as its own sign.\n")
	for _, line := range setupLines(m, p.Setting()) {
		fmt.Fprintf(&b, "- %s\n", line)
	}
	if m.Train != nil {
		fmt.Fprintf(&b, "- Training: data %s (sha256 `%s`), %d epoch(s), batch %d, %s lr %g → %g (%s), weight decay %g, seeds %v; nets cached by content key.\n",
			strings.Join(m.Data.Train, ", "), p.DataSHA256[:16], m.Train.Epochs, m.Train.Batch, m.Train.Optim.Kind, m.Train.Optim.LR, m.Train.Optim.MinLR, m.Train.Optim.Schedule, m.Train.Optim.WeightDecay, m.Seeds)
		for _, v := range m.All() {
			if v.Train != nil {
				fmt.Fprintf(&b, "- %s trains with %s.\n", v.Label, v.Train)
			}
		}
	}
	for _, line := range plan.MadeLines(p) {
		fmt.Fprintf(&b, "- %s\n", line)
	}
	b.WriteString("\n| variant | arch | arch sha256 | net sha256 / cache key |\n|---|---|---|---|\n")
	for _, v := range p.Variants {
		fmt.Fprintf(&b, "| %s | %s | `%s` | `%s` (%s) |\n", v.Label, filepath.Base(v.Arch), v.ArchSHA256[:16], v.Nets[0].SHA256[:16], v.Nets[0].Kind)
	}
	if err := fsutil.WriteFileAll(mdPath, []byte(b.String()), 0o644); err != nil {
		return "", err
	}
	return mdPath, nil
}

// columnCell is a variant's cell of a metric's column c.
func columnCell(m *manifest.Manifest, s *summary, c metrics.Column) string {
	var cell string
	switch c.Kind {
	case metrics.ColumnPercent:
		cell = pctOrNote(s, c.Metric)
	case metrics.ColumnRange:
		cell = s.rangeCell(c.Metric, c.Format)
	case metrics.ColumnElo:
		if m.Elo != nil && !m.Elo.Tests(s.name) && !(s.base && m.Elo.Opponent != manifest.OpponentClassical) {
			return "not tested"
		}
		return eloCell(s)
	default:
		cell = s.cell(c.Metric, c.Format)
	}
	if _, ok := s.get(c.Metric); ok && c.Then != nil {
		then := *c.Then
		then.Kind = c.Kind
		cell += " / " + columnCell(m, s, then)
	}
	return cell
}

// setupLines are the setup lines of the metrics the manifest lists, in
// their setup order, each line once.
func setupLines(m *manifest.Manifest, st metrics.Setting) []string {
	defs := slices.Clone(m.Listed())
	slices.SortStableFunc(defs, func(a, b *metrics.Def) int { return a.SetupOrder - b.SetupOrder })
	var lines []string
	for _, d := range defs {
		if d.Setup == nil {
			continue
		}
		if line := d.Setup(st); line != "" && !slices.Contains(lines, line) {
			lines = append(lines, line)
		}
	}
	return lines
}

// pendingMetrics lists the manifest's metrics (including skipped ones)
// that have no record.
func pendingMetrics(p *plan.Plan, recs []records.Record) []string {
	have := map[string]bool{}
	for _, r := range recs {
		name, _, _ := strings.Cut(r.Metric, ".")
		have[name] = true
	}
	var out []string
	for _, x := range manifest.Metrics() {
		want := p.Manifest.Has(x) || slices.Contains(p.Skipped, x)
		if want && !have[x] {
			out = append(out, x)
		}
	}
	return out
}

func pct(s *summary, metric string) string {
	a, ok := s.get(metric)
	if !ok {
		return "–"
	}
	v := 100 * a.value()
	switch {
	case v == 0:
		return "0%"
	case v < 0.1:
		return fmt.Sprintf("%.3f%%", v)
	case v > 99.9 && v < 100:
		return fmt.Sprintf("%.3f%%", v)
	}
	return fmt.Sprintf("%.1f%%", v)
}

// pctOrNote is pct, or "n/a" for a metric whose record says why it does
// not apply.
func pctOrNote(s *summary, metric string) string {
	if a, ok := s.get(metric); !ok && a != nil && a.detail != nil && a.detail["note"] != nil {
		return "n/a"
	}
	return pct(s, metric)
}

// pctText is a share as pct prints it.
func pctText(x float64) string {
	return pct(&summary{metrics: map[string]*agg{"x": {seeds: 1, sum: x}}}, "x")
}

// findings writes the short text: each variant against the base.
func findings(sums []*summary, eloVs string) string {
	var base *summary
	for _, s := range sums {
		if s.base {
			base = s
		}
	}
	if base == nil || len(sums) < 2 {
		return ""
	}
	var b strings.Builder
	b.WriteString("\n### What the numbers say\n\n")
	for _, s := range sums {
		if s.base {
			if _, ok := s.get("elo"); ok {
				fmt.Fprintf(&b, "- **%s** (the base) scores %s against the %s engine.\n", s.label, eloCell(s), eloVs)
			}
			continue
		}
		var parts []string
		if a, ok := s.get("agreement.mae_cp"); ok {
			if ba, ok := base.get("agreement.mae_cp"); ok {
				parts = append(parts, fmt.Sprintf("agrees with Stockfish 15.1 to %.1f cp (base %.1f cp, %+.1f)", a.value(), ba.value(), a.value()-ba.value()))
			}
		}
		if a, ok := s.get("quant_error.mean_cp"); ok {
			mx, _ := s.get("quant_error.max_cp")
			q := fmt.Sprintf("loses %.2f cp to quantization on average", a.value())
			if mx != nil && mx.seeds > 0 {
				q += fmt.Sprintf(" (worst %.1f cp)", mx.value())
			}
			parts = append(parts, q)
		}
		if a, ok := s.get("val_loss"); ok {
			if ba, ok := base.get("val_loss"); ok && ba.value() != 0 {
				parts = append(parts, fmt.Sprintf("validation loss %.5f (%+.2f%% vs base)", a.value(), 100*(a.value()/ba.value()-1)))
			}
		}
		if a, ok := s.get("history_shares.last2"); ok {
			r, _ := s.get("history_shares.refresh")
			t := fmt.Sprintf("takes %.2f%% of its accumulator updates from the last two plies", 100*a.value())
			if r != nil && r.seeds > 0 {
				t += fmt.Sprintf(" and refreshes %.2f%%", 100*r.value())
			}
			if q, ok := s.get("history_shares.quiet_roots.last2"); ok {
				qr, _ := s.get("history_shares.quiet_roots.refresh")
				t += fmt.Sprintf(" (%.2f%% and %.2f%% in searches whose root is not in check)", 100*q.value(), 100*qr.value())
			}
			parts = append(parts, t)
		}
		if a, ok := s.get("sparsity.zero"); ok {
			t := fmt.Sprintf("has %s of its first layer's outputs zero", pctText(a.value()))
			if ba, ok := base.get("sparsity.zero"); ok {
				t += fmt.Sprintf(" (base %s)", pctText(ba.value()))
			}
			if g, ok := s.get("sparsity.nonzero_groups"); ok {
				t += fmt.Sprintf(" and %s of its 4-byte groups non-zero", pctText(g.value()))
				if bg, ok := base.get("sparsity.nonzero_groups"); ok {
					t += fmt.Sprintf(" (base %s)", pctText(bg.value()))
				}
			}
			parts = append(parts, t)
		}
		if a, ok := s.get("saturation.outputs"); ok {
			t := fmt.Sprintf("saturates %s of its first layer's outputs", pctText(a.value()))
			if ba, ok := base.get("saturation.outputs"); ok {
				t += fmt.Sprintf(" (base %s)", pctText(ba.value()))
			}
			parts = append(parts, t)
		}
		if a, ok := s.get("saturation.weights_at_clip"); ok {
			parts = append(parts, fmt.Sprintf("has %s of its quantized weights at the clip", pctText(a.value())))
		}
		if a, ok := s.get("eval_speed.ratio"); ok {
			parts = append(parts, fmt.Sprintf("evaluates at %.3f× the base's rate (range %.3f–%.3f)", a.value(), a.lo, a.hi))
		}
		if a, ok := s.get("bench_nps.ratio"); ok {
			parts = append(parts, fmt.Sprintf("searches at %.3f× the base's nps (range %.3f–%.3f)", a.value(), a.lo, a.hi))
		}
		if _, ok := s.get("elo"); ok {
			if eloVs == manifest.OpponentBase {
				parts = append(parts, "scores "+eloCell(s)+" against it")
			} else {
				parts = append(parts, "scores "+eloCell(s)+" against the "+eloVs+" engine")
			}
		}
		if len(parts) == 0 {
			continue
		}
		fmt.Fprintf(&b, "- **%s** %s.\n", s.label, strings.Join(parts, "; "))
	}
	return b.String()
}

// reportPlots draws the SVGs a report has data for, by file name.
func reportPlots(sums []*summary, recs []records.Record, eloVs string) (map[string][]byte, error) {
	out := map[string][]byte{}
	speedMetric := ""
	for _, m := range []string{"eval_speed.ratio", "bench_nps.ratio"} {
		for _, s := range sums {
			if _, ok := s.get(m); ok {
				speedMetric = m
			}
		}
		if speedMetric != "" {
			break
		}
	}
	speedLabel := map[string]string{"eval_speed.ratio": "evaluations/s, ratio to base", "bench_nps.ratio": "bench nps, ratio to base"}[speedMetric]
	// Accuracy (or Elo) against speed.
	if speedMetric != "" {
		for _, y := range []struct{ metric, label, file string }{
			{"agreement.mae_cp", "MAE vs Stockfish 15.1 (cp)", "accuracy-vs-speed.svg"},
			{"val_loss", "validation loss", "loss-vs-speed.svg"},
			{"elo", "Elo vs " + eloVs, "elo-vs-speed.svg"},
		} {
			data, err := scatter(sums, speedMetric, y.metric, speedLabel, y.label)
			if err != nil {
				return nil, err
			}
			if data != nil {
				out[y.file] = data
			}
		}
	}
	// History shares, stacked.
	if data, err := sharesPlot(sums); err != nil {
		return nil, err
	} else if data != nil {
		out["history-shares.svg"] = data
	}
	// Bars with ranges or intervals, as the metrics define them.
	for _, d := range metrics.All() {
		for _, bm := range d.Bars {
			data, err := barPlot(sums, bm.Metric, strings.ReplaceAll(bm.Label, "{opponent}", eloVs))
			if err != nil {
				return nil, err
			}
			if data != nil {
				out[bm.File] = data
			}
		}
	}
	// Loss curves of trained nets.
	var curves []train.Curve
	for _, r := range recs {
		if r.Metric != "train.val_loss" {
			continue
		}
		hist, _ := r.Detail["history"].([]any)
		var h []train.EpochStats
		for i, e := range hist {
			row, _ := e.([]any)
			if len(row) != 3 {
				continue
			}
			pos, _ := row[0].(float64)
			tl, _ := row[1].(float64)
			vl, _ := row[2].(float64)
			h = append(h, train.EpochStats{Epoch: i + 1, Positions: int64(pos), TrainLoss: tl, ValLoss: vl})
		}
		if len(h) > 0 {
			label := r.Label
			if r.Seed != 0 {
				label += fmt.Sprintf(" s%d", r.Seed)
			}
			curves = append(curves, train.Curve{Label: label, History: h})
		}
	}
	if len(curves) > 0 {
		data, err := train.PlotLoss(curves, train.PlotOptions{Title: "training loss (solid) and validation loss (dashed)"})
		if err != nil {
			return nil, err
		}
		out["loss-curves.svg"] = data
	}
	return out, nil
}

// barSlot is the room along x that a nominal chart gives each bar: a
// label of a few words a line, set level under its bar, fits in it.
const barSlot = 2.8 * vg.Centimeter

// nominal sets up a bar chart's x axis: names set level under their bars,
// each wrapped to its bar's slot so that neighbours never overlap, with
// half a bar of room at both ends. It returns the plot's size: at least
// minW wide, wide enough for a slot a bar beside the y axis, and deep
// enough for the longest name's lines.
func nominal(p *plot.Plot, names []string, minW vg.Length) (w, h vg.Length) {
	lbl := p.X.Tick.Label
	fits := func(s string) bool { return lbl.Width(s) <= vg.Length(0.92*float64(barSlot)) }
	wrapped := make([]string, len(names))
	var depth vg.Length
	for i, n := range names {
		wrapped[i] = wrapLabel(n, fits)
		depth = max(depth, lbl.Height(wrapped[i]))
	}
	p.NominalX(wrapped...)
	p.X.Min, p.X.Max = -0.6, float64(len(names))-0.4
	p.X.Tick.Label.XAlign, p.X.Tick.Label.YAlign = draw.XCenter, draw.YTop
	p.Y.Tick.Marker = plotaxis.Ticks
	// The y axis, its label and ticks take about 3 cm at the left.
	// float64(x*y) here and below: no FMA fusion at GOAMD64=v3 (make fma-check).
	w = max(minW, vg.Length(float64(float64(len(names))+0.2)*float64(barSlot))+3*vg.Centimeter)
	return w, 8*vg.Centimeter + depth
}

// wrapLabel breaks a long variant label into lines at spaces, each as
// long as fits allows; a word too long for a line of its own stays whole.
func wrapLabel(s string, fits func(string) bool) string {
	var lines []string
	line := ""
	for _, w := range strings.Fields(s) {
		if line != "" && !fits(line+" "+w) {
			lines = append(lines, line)
			line = w
			continue
		}
		if line != "" {
			line += " "
		}
		line += w
	}
	return strings.Join(append(lines, line), "\n")
}

// scatter plots y against x, one labelled point per variant; nil when
// fewer than two variants have both.
func scatter(sums []*summary, xm, ym, xl, yl string) ([]byte, error) {
	var xys plotter.XYs
	var labels []string
	var yerr plotter.YErrors
	for _, s := range sums {
		x, ok1 := s.get(xm)
		y, ok2 := s.get(ym)
		if ym == "elo" && s.base && ok1 && !ok2 { // the base is the zero when Elo is measured against it
			xys = append(xys, plotter.XY{X: x.value(), Y: 0})
			labels = append(labels, s.label)
			yerr = append(yerr, struct{ Low, High float64 }{0, 0})
			continue
		}
		if !ok1 || !ok2 {
			continue
		}
		xys = append(xys, plotter.XY{X: x.value(), Y: y.value()})
		labels = append(labels, s.label)
		lo, hi := 0.0, 0.0
		if y.hasLo {
			lo = y.value() - y.lo
		}
		if y.hasHi {
			hi = y.hi - y.value()
		}
		yerr = append(yerr, struct{ Low, High float64 }{lo, hi})
	}
	if len(xys) < 2 {
		return nil, nil
	}
	p := plot.New()
	p.X.Label.Text, p.Y.Label.Text = xl, yl
	p.Add(plotter.NewGrid())
	sc, err := plotter.NewScatter(xys)
	if err != nil {
		return nil, err
	}
	sc.GlyphStyle.Color, sc.GlyphStyle.Radius, sc.GlyphStyle.Shape = Palette[0], vg.Points(3), draw.CircleGlyph{}
	p.Add(sc)
	if ym == "elo" {
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{xys, yerr})
		if err == nil {
			p.Add(eb)
		}
	}
	// Labels of the points in the right half read leftwards from them, so
	// that no label runs off the figure's right edge.
	xmin, xmax := xys[0].X, xys[0].X
	for _, q := range xys {
		xmin, xmax = min(xmin, q.X), max(xmax, q.X)
	}
	var left, right plotter.XYLabels
	for i, q := range xys {
		side := &left
		if xmax > xmin && q.X > (xmin+xmax)/2 {
			side = &right
		}
		side.XYs = append(side.XYs, q)
		side.Labels = append(side.Labels, labels[i])
	}
	for _, side := range []struct {
		l     plotter.XYLabels
		align draw.XAlignment
		dx    vg.Length
	}{{left, draw.XLeft, vg.Points(4)}, {right, draw.XRight, -vg.Points(4)}} {
		if len(side.l.XYs) == 0 {
			continue
		}
		lab, err := plotter.NewLabels(side.l)
		if err != nil {
			return nil, err
		}
		for i := range lab.TextStyle {
			lab.TextStyle[i].XAlign, lab.TextStyle[i].YAlign = side.align, draw.YBottom
		}
		lab.Offset = vg.Point{X: side.dx, Y: vg.Points(2)}
		p.Add(lab)
	}
	pad := func(a *plot.Axis) {
		d := (a.Max - a.Min) * 0.08
		if d == 0 {
			d = math.Max(math.Abs(a.Max)*0.01, 0.01)
		}
		a.Min -= d
		a.Max += d
	}
	pad(&p.X)
	pad(&p.Y)
	p.X.Tick.Marker, p.Y.Tick.Marker = plotaxis.Ticks, plotaxis.Ticks
	return svgplot.Render(p, nil, 17*vg.Centimeter, 11*vg.Centimeter)
}

// barPlot draws one bar per variant with its range or interval; nil when
// fewer than two variants have the metric.
func barPlot(sums []*summary, metric, label string) ([]byte, error) {
	var vals plotter.Values
	var names []string
	var xys plotter.XYs
	var errs plotter.YErrors
	withErr := false
	for _, s := range sums {
		a, ok := s.get(metric)
		if !ok {
			if metric == "elo" && s.base {
				vals = append(vals, 0)
				names = append(names, s.label)
				xys = append(xys, plotter.XY{X: float64(len(vals) - 1)})
				errs = append(errs, struct{ Low, High float64 }{})
			}
			continue
		}
		v := a.value()
		vals = append(vals, v)
		names = append(names, s.label)
		xys = append(xys, plotter.XY{X: float64(len(vals) - 1), Y: v})
		lo, hi := 0.0, 0.0
		if a.hasLo {
			lo, withErr = v-a.lo, true
		}
		if a.hasHi {
			hi, withErr = a.hi-v, true
		}
		errs = append(errs, struct{ Low, High float64 }{lo, hi})
	}
	if len(vals) < 2 {
		return nil, nil
	}
	p := plot.New()
	p.Y.Label.Text = label
	p.Add(plotter.NewGrid())
	bars, err := plotter.NewBarChart(vals, vg.Points(18))
	if err != nil {
		return nil, err
	}
	bars.Color = Palette[0]
	bars.LineStyle.Width = 0
	p.Add(bars)
	if withErr {
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{xys, errs})
		if err != nil {
			return nil, err
		}
		p.Add(eb)
	}
	w, h := nominal(p, names, 12*vg.Centimeter)
	// Room above and below, so that an interval's caps are not drawn on
	// the frame.
	// float64(x*y): no FMA fusion at GOAMD64=v3 (make fma-check).
	pad := float64(0.05 * (p.Y.Max - p.Y.Min))
	p.Y.Min, p.Y.Max = p.Y.Min-pad, p.Y.Max+pad
	return svgplot.Render(p, nil, w, h)
}

// sharesPlot stacks, per variant, the shares of accumulator updates by
// distance and refreshes.
func sharesPlot(sums []*summary) ([]byte, error) {
	type series struct {
		label   string
		metrics []string
	}
	ss := []series{
		{"1 ply back", []string{"history_shares.d1"}},
		{"2 plies", []string{"history_shares.d2"}},
		{"3 plies", []string{"history_shares.d3"}},
		{"4+ plies", []string{"history_shares.d4", "history_shares.d5", "history_shares.d6", "history_shares.d7", "history_shares.d8", "history_shares.deeper"}},
		{"refresh", []string{"history_shares.refresh"}},
	}
	var names []string
	var rows []*summary
	for _, s := range sums {
		if _, ok := s.get("history_shares.d1"); ok {
			names = append(names, s.label)
			rows = append(rows, s)
		}
	}
	if len(rows) == 0 {
		return nil, nil
	}
	p := plot.New()
	p.Y.Label.Text = "share of accumulator updates (%)"
	var legend svgplot.Legend
	var prev *plotter.BarChart
	for i, se := range ss {
		vals := make(plotter.Values, len(rows))
		for j, s := range rows {
			for _, m := range se.metrics {
				if a, ok := s.get(m); ok {
					vals[j] += float64(100 * a.value())
				}
			}
		}
		bars, err := plotter.NewBarChart(vals, vg.Points(18))
		if err != nil {
			return nil, err
		}
		bars.Color = Palette[i%len(Palette)]
		bars.LineStyle.Width = 0
		if prev != nil {
			bars.StackOn(prev)
		}
		prev = bars
		p.Add(bars)
		legend.Add(se.label, bars)
	}
	p.Y.Min, p.Y.Max = 0, 100
	w, h := nominal(p, names, 16*vg.Centimeter)
	return svgplot.Render(p, &legend, w, h)
}

// Floats reads a list of numbers from a record's detail (as stored:
// []any of float64); nil if it is not one.
func Floats(v any) []float64 {
	list, _ := v.([]any)
	out := make([]float64, 0, len(list))
	for _, e := range list {
		f, ok := e.(float64)
		if !ok {
			return nil
		}
		out = append(out, f)
	}
	return out
}

// WritePlots writes a report's plots into plotDir (each atomically) and
// their "## Plots" section, in name order, into b.
func WritePlots(b *strings.Builder, plots map[string][]byte, plotDir, name string) error {
	if len(plots) == 0 {
		return nil
	}
	b.WriteString("\n## Plots\n\n")
	names := make([]string, 0, len(plots))
	for n := range plots {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		if err := fsutil.WriteFileAll(filepath.Join(plotDir, n), plots[n], 0o644); err != nil {
			return err
		}
		fmt.Fprintf(b, "![%s](%s/%s)\n\n", strings.TrimSuffix(n, ".svg"), name, n)
	}
	return nil
}

// SpeedClockNote says how finely the speed figures were timed: for each
// speed metric whose records carry it (results made since rounds were
// sized to the clock), the clock, its resolution (the smallest step
// observed), the length of the rounds, and the step as a share of the
// shortest round, which bounds what a round's ratio can resolve. "" when
// no record carries it (older results keep their page).
func SpeedClockNote(recs []records.Record) string {
	type span struct {
		clock      string
		resolution float64
		lo, hi     float64 // round lengths, s
		what       string
	}
	var spans []*span
	by := map[string]*span{}
	for _, r := range recs {
		var secs []float64
		var what string
		switch r.Metric {
		case "eval_speed.evals_per_sec":
			reps, ok := r.Detail["reps"].(float64)
			evals, ok2 := r.Detail["evals"].(float64)
			if !ok || !ok2 {
				continue
			}
			for _, eps := range Floats(r.Detail["per_round"]) {
				if eps > 0 {
					secs = append(secs, evals*reps/eps)
				}
			}
			what = fmt.Sprintf("evaluations/s: rounds of %d passes of the trace", int(reps))
		case "bench_nps.nps":
			runs, ok := r.Detail["runs"].(float64)
			nodes, ok2 := r.Detail["nodes"].(float64)
			if !ok || !ok2 {
				continue
			}
			for _, nps := range Floats(r.Detail["per_round"]) {
				if nps > 0 {
					secs = append(secs, nodes*runs/nps)
				}
			}
			what = "bench nps: rounds of " + plural(int(runs), "bench run")
		default:
			continue
		}
		s := by[r.Metric]
		if s == nil {
			s = &span{lo: math.Inf(1), hi: math.Inf(-1), what: what}
			s.clock, _ = r.Detail["clock"].(string)
			s.resolution, _ = r.Detail["clock_resolution_ns"].(float64)
			by[r.Metric] = s
			spans = append(spans, s)
		}
		for _, x := range secs {
			s.lo, s.hi = math.Min(s.lo, x), math.Max(s.hi, x)
		}
	}
	var parts []string
	for _, s := range spans {
		if s.lo > s.hi {
			continue
		}
		res := "not observed (the clock did not move)"
		share := ""
		if s.resolution > 0 {
			res = time.Duration(s.resolution).String()
			share = fmt.Sprintf(", %.2g%% of the shortest round", 100*s.resolution/1e9/s.lo)
		}
		parts = append(parts, fmt.Sprintf("%s of %.3g–%.3g CPU-s, timed by %s, resolution %s (the smallest step observed)%s",
			s.what, s.lo, s.hi, s.clock, res, share))
	}
	if len(parts) == 0 {
		return ""
	}
	return "Speed timing: " + strings.Join(parts, "; ") + "."
}

// plural is "1 run" or "3 runs".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
