package generations

import (
	"fmt"
	"math"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"github.com/nnuelab/nnuelab/experiments/data"
	"github.com/nnuelab/nnuelab/experiments/manifest"
	"github.com/nnuelab/nnuelab/experiments/plan"
	"github.com/nnuelab/nnuelab/experiments/records"
	"github.com/nnuelab/nnuelab/experiments/report"
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

// The results of a generations manifest are OUT/results.jsonl, one record
// per generation and metric, merged from the generations' sub-experiments
// (each keeps its own results.jsonl and tasks/ under OUT/gen-K/), so that
// the report is written from that one file. Variant is "gen0", "gen1", ...;
// the metrics:
//
//	generation          the generation's number; detail: the net that played
//	                    its self-play, the warm start, the window, the labels,
//	                    the gate's decision and the best net after it
//	selfplay.positions  new self-play positions (detail: cumulative, labelled)
//	train.positions     positions the training stepped through (cumulative)
//	train.val_loss      the trainer's validation loss, with its history
//	val_loss            the engine's (quantized) validation loss
//	bench_nps.nps       bench nodes per CPU second; bench_nps.ratio to the
//	                    best net so far
//	elo.gate            against the best net so far (the gate's SPRT)
//	elo.vs_gen0         against gen 0 (fixed games)
//	elo.vs_reference    against the reference architecture's shipped net

// Metrics of a generations manifest's results.
const (
	genMetricGeneration = "generation"
	genMetricSelfplay   = "selfplay.positions"
	// genCumulativeEquiv is the self-play so far in generation 1's
	// positions, recorded when generations search different nodes a move.
	genCumulativeEquiv = "cumulative_equiv"
	genMetricTrained   = "train.positions"
	genMetricGate      = "elo.gate"
	genMetricVsGen0    = "elo.vs_gen0"
	genMetricVsRef     = "elo.vs_reference"
)

// records merges the finished parts of the planned generations into the
// generations' results.
func (r *genRunner) records() ([]records.Record, error) {
	m := r.m
	// A part's task file edited or damaged since its task wrote it is an
	// error naming it, not a result left out or counted.
	for _, g := range r.gens {
		for _, p := range g.parts() {
			if err := plan.CheckResults(p); err != nil {
				return nil, err
			}
		}
	}
	var out []records.Record
	base := records.Record{Experiment: m.Name, ArchSHA256: r.arch0.netSHA, Command: r.opt.Command}
	merged := func(p *plan.Plan) []records.Record {
		if p == nil || !allDone(p) {
			return nil
		}
		recs, err := records.Merge(p)
		if err != nil {
			return nil
		}
		return recs
	}
	find := func(recs []records.Record, variant, metric string) *records.Record {
		for i := range recs {
			if recs[i].Variant == variant && recs[i].Metric == metric {
				return &recs[i]
			}
		}
		return nil
	}
	copyAs := func(src *records.Record, n *genNet, label, metric string) {
		if src == nil {
			return
		}
		c := *src
		c.Experiment, c.Variant, c.Label, c.Metric, c.Base, c.Seed = m.Name, n.Name, label, metric, false, 0
		c.Overrides = nil
		c.Command = r.opt.Command
		out = append(out, c)
	}

	// Gen 0: measured as the base of generation 1's train part, and against
	// the reference in generation 1.
	g0 := base
	g0.Variant, g0.Label, g0.Metric, g0.NetSHA256 = r.gen0.Name, "gen 0", genMetricGeneration, r.gen0.ID
	g0.Detail = map[string]any{"net": filepath.Base(r.gen0.Path), "shipped": r.gen0.Shipped, "float": r.gen0.Float}
	out = append(out, g0)
	if len(r.gens) > 0 {
		g1 := r.gens[0]
		recs := merged(g1.Train)
		for _, metric := range []string{"val_loss", "bench_nps.nps"} {
			copyAs(find(recs, r.gen0.Name, metric), r.gen0, "gen 0", metric)
		}
		copyAs(find(merged(g1.VsRef), r.gen0.Name, manifest.MetricElo), r.gen0, "gen 0", genMetricVsRef)
	}

	var cumMade, cumTrained int64
	madeKnown, trainedKnown := true, true
	// Self-play at other nodes a move than generation 1's also counts in
	// generation 1's positions (a position by its nodes), so that the
	// curve and its extrapolation compare like with like when a later
	// generation changes the recipe; only then is it recorded.
	var cumEquiv float64
	mixed, equivKnown := false, true
	for _, g := range r.gens {
		if g.Datagen.Nodes != r.gens[0].Datagen.Nodes {
			mixed = true
		}
		if g.Datagen.Nodes == 0 {
			equivKnown = false // depth-limited self-play: no node count
		}
	}
	for _, g := range r.gens {
		label := fmt.Sprintf("gen %d", g.K)
		if g.Net.Arch != r.arch0 { // a [[generations.gen]] arch: the rows say which
			label += " (" + g.Net.Arch.text() + ")"
		}
		gr := base
		gr.ArchSHA256 = g.Net.Arch.netSHA
		gr.Variant, gr.Label, gr.Metric, gr.Value, gr.N, gr.NetSHA256 = g.Net.Name, label, genMetricGeneration, float64(g.K), 1, g.Net.ID
		var window []string
		for _, j := range g.Window {
			window = append(window, genName(j))
		}
		init := ""
		if g.Init != nil {
			init = g.Init.Name
		}
		labels := fmt.Sprintf("own search (%s, %d nodes)", g.Player.Arch.spec.Name, g.Datagen.Nodes)
		if g.Label != nil {
			labels = fmt.Sprintf("%s at %d nodes", filepath.Base(g.Label.Engine), g.Label.Nodes)
			if filepath.Base(g.Label.Engine) == "stockfish" {
				labels = fmt.Sprintf("Stockfish 15.1 at %d nodes", g.Label.Nodes)
			}
		}
		gr.Detail = map[string]any{
			"player": g.Player.Name, "player_net": g.Player.ID, "init": init, "window": window, "labels": labels,
			"parts": partFolders(r.out, g),
		}
		if g.Data != nil {
			gr.DataSHA256 = g.Data.Key
			gr.Detail["data"] = g.Data.Ref
		}
		if g.Decided {
			gr.Detail["promoted"] = g.Promoted
			if g.Decision != "" {
				gr.Detail["gate"] = g.Decision
			}
			best, _ := r.best(g.K + 1)
			gr.Detail["best_after"] = best.Name
		}
		out = append(out, gr)

		// Self-play made (and labelled) by the finished shards.
		var made, labelled int64
		shards, done, ldone, lshards := 0, 0, 0, 0
		for _, t := range g.Train.Tasks {
			if t.Data == nil {
				continue // (earlier generations' sets in the window have no tasks here)
			}
			res, ok := plan.ReadResult(g.Train.Out, t)
			switch t.Kind {
			case plan.KindDatagen:
				shards++
				if ok && res.Data != nil {
					done++
					made += res.Data.Positions
				}
			case plan.KindLabel:
				lshards++
				if ok && res.Data != nil {
					ldone++
					labelled += res.Data.Positions
				}
			}
		}
		if shards > 0 && done == shards {
			cumMade += made
			sr := base
			sr.Variant, sr.Label, sr.Metric, sr.Value, sr.N = g.Net.Name, label, genMetricSelfplay, float64(made), shards
			sr.NetSHA256 = g.Player.ID
			if d := g.Train.MadeData(manifest.RefDatagen + genName(g.K)); d != nil {
				sr.DataSHA256 = d.Key
			}
			sr.Detail = map[string]any{"shards": shards, "player": g.Player.Name, "nodes": g.Datagen.Nodes,
				"seed": g.Datagen.RawSeed, "keep": keepName(g.Datagen.Keep)}
			if madeKnown {
				sr.Detail["cumulative"] = cumMade
				cumEquiv += float64(made) * float64(g.Datagen.Nodes) / float64(max(r.gens[0].Datagen.Nodes, 1))
				if mixed && equivKnown {
					sr.Detail[genCumulativeEquiv] = cumEquiv
					sr.Detail["equiv_nodes"] = float64(r.gens[0].Datagen.Nodes)
				}
			}
			if lshards > 0 && ldone == lshards {
				sr.Detail["labelled"] = labelled
			}
			out = append(out, sr)
		} else {
			madeKnown = false
		}

		// Training.
		trainID := g.Train.Variant(g.Net.Name).Nets[0].Train
		if tr, ok := plan.ReadResult(g.Train.Out, g.Train.Task(trainID)); ok && tr.Train != nil && len(tr.Train.History) > 0 {
			last := tr.Train.History[len(tr.Train.History)-1]
			cumTrained += last.Positions
			tp := base
			tp.Variant, tp.Label, tp.Metric, tp.Value, tp.N = g.Net.Name, label, genMetricTrained, float64(last.Positions), len(tr.Train.History)
			tp.NetSHA256, tp.DataSHA256 = g.Net.ID, g.Train.DataSHA256
			tp.Detail = map[string]any{"epochs": len(tr.Train.History), "init": init, "window": window}
			if trainedKnown {
				tp.Detail["cumulative"] = cumTrained
			}
			out = append(out, tp)
		} else {
			trainedKnown = false
		}

		recs := merged(g.Train)
		for _, metric := range []string{"train.val_loss", "val_loss", "bench_nps.nps", "bench_nps.ratio"} {
			copyAs(find(recs, g.Net.Name, metric), g.Net, label, metric)
		}
		copyAs(find(recs, g.Net.Name, manifest.MetricElo), g.Net, label, genMetricGate)
		copyAs(find(merged(g.VsGen0), g.Net.Name, manifest.MetricElo), g.Net, label, genMetricVsGen0)
		copyAs(find(merged(g.VsRef), g.Net.Name, manifest.MetricElo), g.Net, label, genMetricVsRef)
	}
	return out, nil
}

// keepName spells datagen's Keep as the report shows it.
func keepName(k string) string {
	if k == "" {
		return "quiet"
	}
	return k
}

// partFolders lists a generation's sub-experiment folders relative to the
// results folder.
func partFolders(out string, g *generation) []string {
	var parts []string
	for _, p := range g.parts() {
		if rel, err := filepath.Rel(out, p.Out); err == nil {
			parts = append(parts, filepath.ToSlash(rel))
		}
	}
	return parts
}

// writeSummary writes the generations' results and (unless NoReport) the
// report from them, as `nnuelab experiment report` does.
func (r *genRunner) writeSummary() error {
	recs, err := r.records()
	if err != nil {
		return err
	}
	if err := records.WriteResults(records.ResultsPath(r.out), recs); err != nil {
		return err
	}
	if r.opt.NoReport {
		return nil
	}
	if recs, err = records.ReadResults(records.ResultsPath(r.out)); err != nil {
		return err
	}
	path, err := WriteReport(r.m, recs, r.out, r.opt.ReportDir, r.opt.Command)
	if err != nil {
		return err
	}
	fmt.Fprintf(r.opt.Log, "generations %s: report %s\n", r.m.Name, path)
	return nil
}

// Report rewrites a generations manifest's report from its
// results file alone (OUT/results.jsonl; out "" is plan.DefaultOut,
// results/NAME), as `nnuelab experiment report` does.
func Report(m *manifest.Manifest, out, reportDir, command string) (string, error) {
	if out == "" {
		var err error
		if out, err = plan.DefaultOut(m.Name); err != nil {
			return "", err
		}
	}
	recs, err := records.ReadResults(records.ResultsPath(out))
	if err != nil {
		return "", fmt.Errorf("no results to report (run `%s` first): %w", command, err)
	}
	return WriteReport(m, recs, out, reportDir, command)
}

// genRow is one generation's results in a report.
type genRow struct {
	k     int
	name  string
	label string
	recs  map[string]records.Record
}

func (g *genRow) get(metric string) (records.Record, bool) {
	r, ok := g.recs[metric]
	return r, ok
}

func (g *genRow) detail(metric, key string) any {
	if r, ok := g.recs[metric]; ok && r.Detail != nil {
		return r.Detail[key]
	}
	return nil
}

// genRows groups a generations results file by generation, in order.
func genRows(recs []records.Record) []*genRow {
	var rows []*genRow
	for _, group := range lo.PartitionBy(recs, func(r records.Record) string { return r.Variant }) {
		name := group[0].Variant
		k, err := strconv.Atoi(strings.TrimPrefix(name, "gen"))
		if err != nil || !strings.HasPrefix(name, "gen") {
			continue
		}
		// A metric recorded twice: the last record counts.
		rows = append(rows, &genRow{k: k, name: name, label: group[0].Label,
			recs: lo.KeyBy(group, func(r records.Record) string { return r.Metric })})
	}
	sort.Slice(rows, func(i, j int) bool { return rows[i].k < rows[j].k })
	return rows
}

// WriteReport writes a generations manifest's report from its
// results (records as results.jsonl holds them): DIR/NAME.md and its
// plots in DIR/NAME/, atomically. out is the results folder (named in the
// page), command the run command.
func WriteReport(m *manifest.Manifest, recs []records.Record, out, dir, command string) (string, error) {
	g := m.Generations
	mdPath, plotDir := report.Paths(dir, m.Name)
	rows := genRows(recs)
	if len(rows) == 0 {
		return "", fmt.Errorf("no generations in the results to report")
	}
	title := m.Title
	if title == "" {
		title = m.Name
	}
	var b strings.Builder
	fmt.Fprintf(&b, "# %s\n\n", title)
	fmt.Fprintf(&b, "<!-- Generated by `nnuelab experiment` from %s; do not edit by hand. -->\n\n", filepath.ToSlash(plan.RelPath(records.ResultsPath(mustAbs(out)))))
	if m.Claim != "" {
		fmt.Fprintf(&b, "**Claim under test.** %s", strings.TrimSpace(m.Claim))
		if m.Source != "" {
			fmt.Fprintf(&b, " (source: %s)", strings.TrimSpace(m.Source))
		}
		b.WriteString("\n\n")
	}
	fmt.Fprintf(&b, "**Regenerate:** `%s` (finished generations are reused, a stopped run continues where it stopped, and raising `count` continues the loop; `nnuelab experiment report %s` rewrites this page from the results alone).\n\n",
		command, filepath.ToSlash(plan.RelPath(m.File)))
	if d := strings.TrimSpace(m.Description); d != "" {
		b.WriteString(d + "\n\n")
	}

	// Status.
	finished, best := 0, "gen0"
	for _, row := range rows {
		if row.k == 0 {
			continue
		}
		if ba, ok := row.detail(genMetricGeneration, "best_after").(string); ok {
			best = ba
			done := true
			if m.Elo != nil {
				_, vs0 := row.get(genMetricVsGen0)
				_, vsRef := row.get(genMetricVsRef)
				done = vs0 && (vsRef || g.Reference == "")
			}
			if done {
				finished++
			}
		}
	}
	fmt.Fprintf(&b, "**Status:** %d of %d generation(s) finished; the best net so far is %s.", finished, g.Count, best)
	if finished < g.Count {
		fmt.Fprintf(&b, " The run continues with `%s`.", command)
	}
	b.WriteString("\n\n")

	// Data and training.
	b.WriteString("## Generations\n\n")
	b.WriteString("| generation | self-play by | new positions | positions so far | labels | training starts from | positions trained (so far) | trainer val loss | validation loss | bench nps |\n")
	b.WriteString("|---|---|---|---|---|---|---|---|---|---|\n")
	for _, row := range rows {
		cells := []string{fmt.Sprintf("**%s**", row.label)}
		if row.k == 0 {
			net, _ := row.detail(genMetricGeneration, "net").(string)
			if s, _ := row.detail(genMetricGeneration, "shipped").(bool); s {
				net += ", the shipped net"
			}
			cells = append(cells, "– (`"+net+"`)", "–", "–", "–", "–", "–")
		} else {
			player, _ := row.detail(genMetricGeneration, "player").(string)
			labels, _ := row.detail(genMetricGeneration, "labels").(string)
			init, _ := row.detail(genMetricGeneration, "init").(string)
			if init == "" {
				init = "random weights"
			}
			made, soFar := "–", "–"
			if r, ok := row.get(genMetricSelfplay); ok {
				made = report.Millions(r.Value)
				if c, ok := r.Detail["cumulative"].(float64); ok {
					soFar = report.Millions(c)
				}
			}
			trained := "–"
			if r, ok := row.get(genMetricTrained); ok {
				trained = report.Millions(r.Value)
				if c, ok := r.Detail["cumulative"].(float64); ok {
					trained += " (" + report.Millions(c) + ")"
				}
			}
			cells = append(cells, player, made, soFar, labels, init, trained)
		}
		num := func(metric, format string) string {
			if r, ok := row.get(metric); ok {
				return fmt.Sprintf(format, r.Value)
			}
			return "–"
		}
		cells = append(cells, num("train.val_loss", "%.5f"), num("val_loss", "%.5f"), num("bench_nps.nps", "%.0f"))
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	b.WriteString("\n")

	if m.Elo != nil {
		b.WriteString("## Strength\n\n")
		ref := g.Reference
		if ref == "" {
			ref = "reference"
		}
		fmt.Fprintf(&b, "| generation | gate: vs the best net so far [95%%] | best net after | vs gen 0 [95%%] | vs %s [95%%] |\n|---|---|---|---|---|\n", ref)
		for _, row := range rows {
			cell := func(metric string) string {
				if r, ok := row.get(metric); ok {
					return report.EloRecordText(r)
				}
				return "–"
			}
			gate, after, vs0 := cell(genMetricGate), "–", cell(genMetricVsGen0)
			if row.k == 0 {
				gate, after, vs0 = "–", "gen0", "0 (itself)"
			} else {
				if a, ok := row.detail(genMetricGeneration, "best_after").(string); ok {
					after = a
					if p, ok := row.detail(genMetricGeneration, "promoted").(bool); ok && p {
						after = "**" + a + "** (promoted)"
					}
				}
				if player, ok := row.detail(genMetricGeneration, "player").(string); ok && gate != "–" {
					gate = "vs " + player + ": " + gate
				}
			}
			fmt.Fprintf(&b, "| **%s** | %s | %s | %s | %s |\n", row.label, gate, after, vs0, cell(genMetricVsRef))
		}
		b.WriteString("\n")
	}
	b.WriteString(genFindings(rows, m))

	// Plots.
	plots, err := genPlots(rows, g.Reference)
	if err != nil {
		return "", err
	}
	if err := report.WritePlots(&b, plots, plotDir, m.Name); err != nil {
		return "", err
	}

	// Setup.
	b.WriteString("## Setup\n\n")
	sum, err := data.FileSHA256(m.File)
	if err != nil {
		return "", err
	}
	r := &genRunner{m: m, g: g}
	fmt.Fprintf(&b, "- Manifest `%s` (sha256 `%s`); metrics %s; results in `%s` (one sub-experiment per generation and part: `gen-K/train` holds the self-play, the training, the per-net metrics and the gate, `gen-K/vs-gen0` and `gen-K/vs-reference` the fixed-games tests).\n",
		filepath.ToSlash(plan.RelPath(m.File)), sum[:16], strings.Join(m.Metrics, ", "), filepath.ToSlash(plan.RelPath(mustAbs(out))))
	fmt.Fprintf(&b, "- Loop: %d generation(s) of %s%s%s after gen 0; a generation that fails its gate is still measured, but the next self-play uses the best net so far.\n", g.Count, g.Arch, overrideText(g.Overrides), archChangesText(g))
	fmt.Fprintf(&b, "- Self-play: %s.\n", r.selfplayText())
	fmt.Fprintf(&b, "- Training: %s.\n", r.trainingText())
	if m.Has(manifest.MetricValLoss) {
		val := "the built-in 10,000 Stockfish 15.1 positions"
		if m.Data != nil && len(m.Data.Validation) > 0 {
			val = "`" + strings.Join(m.Data.Validation, "`, `") + "`"
		}
		fmt.Fprintf(&b, "- Validation loss: %s loss (power %g, scale %g/cp, lambda %g) of the engine's quantized evaluation on %s, the same files every generation.\n",
			m.Loss.Kind, m.Loss.Power, m.Loss.Scale, m.Loss.Lambda, val)
	}
	if m.Has(manifest.MetricBenchNPS) {
		fmt.Fprintf(&b, "- Bench: `nnuelab bench %d`, nodes per CPU second, median of %d rounds interleaved with the best net so far.\n", m.Speed.BenchDepth, m.Speed.Rounds)
		if note := report.SpeedClockNote(recs); note != "" {
			fmt.Fprintf(&b, "- %s\n", note)
		}
	}
	if m.Elo != nil {
		fmt.Fprintf(&b, "- Elo: `nnuelab match`, %s; game pairs with colours reversed, adjudication %v, hash %d MB; intervals are 95%% (pentanomial).\n", r.eloText(), m.Elo.Adjudicate, m.Elo.Hash)
	}
	b.WriteString("\n| generation | net (sha256 / cache key) | self-play data key | played by |\n|---|---|---|---|\n")
	for _, row := range rows {
		gr, _ := row.get(genMetricGeneration)
		data, player := "–", "–"
		if sr, ok := row.get(genMetricSelfplay); ok && sr.DataSHA256 != "" {
			data = "`" + short(sr.DataSHA256) + "`"
		}
		if p, ok := row.detail(genMetricGeneration, "player").(string); ok {
			player = p
		}
		fmt.Fprintf(&b, "| %s | `%s` | %s | %s |\n", row.label, short(gr.NetSHA256), data, player)
	}
	if err := fsutil.WriteFileAll(mdPath, []byte(b.String()), 0o644); err != nil {
		return "", err
	}
	return mdPath, nil
}

func short(s string) string {
	if len(s) > 16 {
		return s[:16]
	}
	return s
}

func mustAbs(p string) string {
	if a, err := filepath.Abs(p); err == nil {
		return a
	}
	return p
}

// genFindings is the report's short text.
func genFindings(rows []*genRow, m *manifest.Manifest) string {
	var b strings.Builder
	var first, last *genRow
	for _, row := range rows {
		if _, ok := row.get("val_loss"); ok {
			if first == nil {
				first = row
			}
			last = row
		}
	}
	var lines []string
	if first != nil && last != nil && first != last {
		a, _ := first.get("val_loss")
		z, _ := last.get("val_loss")
		lines = append(lines, fmt.Sprintf("The validation loss goes from %.5f (%s) to %.5f (%s), %+.1f%%.", a.Value, first.label, z.Value, last.label, 100*(z.Value/a.Value-1)))
	}
	for _, row := range rows {
		if row.k == 0 {
			continue
		}
		var parts []string
		if r, ok := row.get(genMetricGate); ok {
			player, _ := row.detail(genMetricGeneration, "player").(string)
			verdict := "not promoted"
			if p, ok := row.detail(genMetricGeneration, "promoted").(bool); ok && p {
				verdict = "promoted"
			}
			parts = append(parts, fmt.Sprintf("scores %s against %s (%s)", report.EloRecordText(r), player, verdict))
		}
		if r, ok := row.get(genMetricVsGen0); ok {
			parts = append(parts, fmt.Sprintf("%+.1f against gen 0", report.PlusZero(r.Value)))
		}
		if r, ok := row.get(genMetricVsRef); ok {
			parts = append(parts, fmt.Sprintf("%+.1f against %s", report.PlusZero(r.Value), m.Generations.Reference))
		}
		if len(parts) > 0 {
			lines = append(lines, fmt.Sprintf("**%s** %s.", row.label, strings.Join(parts, "; ")))
		}
	}
	if l := genExtrapolation(rows, m.Generations); l != "" {
		lines = append(lines, l)
	}
	if len(lines) == 0 {
		return ""
	}
	b.WriteString("### What the numbers say\n\n")
	for _, l := range lines {
		b.WriteString("- " + l + "\n")
	}
	return b.String()
}

// genGoal is the loop's goal against the reference (issue 24, then 46):
// within 200 Elo of it.
const genGoal = -200

// genScalePoints are the generations measured against the reference, at
// the self-play made so far (in generation 1's positions when the nodes a
// move changed), and the fitted generations by how their training started:
// warm from the generation before, or cold from random weights.
func genScalePoints(rows []*genRow) (pts []report.ScalePoint, warm, cold []string) {
	equiv := equivNodes(rows)
	for _, row := range rows {
		sr, ok := row.get(genMetricSelfplay)
		c, ok2 := selfplaySoFar(sr, equiv > 0)
		r, ok3 := row.get(genMetricVsRef)
		if row.k == 0 || !ok || !ok2 || !ok3 {
			continue
		}
		pt, ok := report.EloScalePoint(c, r)
		if !ok {
			continue
		}
		pts = append(pts, pt)
		if init, _ := row.detail(genMetricGeneration, "init").(string); init != "" {
			warm = append(warm, row.name)
		} else {
			cold = append(cold, row.name)
		}
	}
	return pts, warm, cold
}

// genExtrapolation fits the generations' Elo against the reference to the
// log of the self-play positions they were trained on and says where the
// line comes within 200 Elo of the reference (issue 24's goal), with the
// range the slope's interval gives and, when the manifest gives
// self-play's rate, the CPU time, and whether the fit mixes warm-started
// nets with nets from random weights; "" with fewer than two measured
// generations.
func genExtrapolation(rows []*genRow, g *manifest.GenerationsSpec) string {
	pts, warm, cold := genScalePoints(rows)
	f, err := report.FitScaling(pts)
	if err != nil {
		return ""
	}
	made := 0.0
	for _, p := range pts {
		made = max(made, p.Positions)
	}
	equiv := equivNodes(rows)
	s := fmt.Sprintf("Against %s the generations gain %+.0f ± %.0f Elo per doubling of the self-play positions (log-linear fit over %d generations, weighted by their intervals)",
		g.Reference, f.B, 1.96*f.SEB, f.Points)
	if equiv > 0 {
		s = fmt.Sprintf("Self-play counted in positions at generation 1's %d nodes a move (a position searched with other nodes counts by its nodes). ", equiv) + s
	}
	// A warm start and a random one need not give the same Elo on the same
	// data (width-28m measured it), so the sentence says when the line
	// crosses from one kind of net to the other.
	mixed := ""
	if len(warm) > 0 && len(cold) > 0 {
		mixed = fmt.Sprintf(" The fit mixes nets warm-started from the generation before (%s) with nets trained from random weights (%s): where the two starts differ in strength, the slope holds that difference too.",
			strings.Join(warm, ", "), strings.Join(cold, ", "))
	}
	n, ok := f.PositionsFor(genGoal)
	if !ok {
		return s + "; at that rate it does not close the gap." + mixed
	}
	s += fmt.Sprintf("; at that rate the own net comes within 200 Elo of it at about %s positions, %.0f× the %s made so far.", report.Millions(n), n/made, report.Millions(made))
	if g.PositionsPerCPUSecond <= 0 {
		return s + mixed
	}
	if fast, slow, ok := f.PositionsRange(genGoal); ok {
		s += fmt.Sprintf(" With the slope at either end of its interval: %s to %s positions.", report.Millions(fast), report.Millions(slow))
	} else {
		s += " The slope's interval reaches zero, so the data cannot bound the size from above."
	}
	return s + " Cost: " + report.SelfplayCost(n, g.PositionsPerCPUSecond, g.Rate) + mixed
}

// genPlots draws the training loss curves of every generation, the Elo
// against gen 0 and the reference over the self-play positions made, and
// the fit of the Elo against the reference on a log scale with the goal.
func genPlots(rows []*genRow, reference string) (map[string][]byte, error) {
	out := map[string][]byte{}
	var curves []train.Curve
	for _, row := range rows {
		r, ok := row.get("train.val_loss")
		if !ok {
			continue
		}
		hist, _ := r.Detail["history"].([]any)
		var h []train.EpochStats
		for i, e := range hist {
			v := report.Floats(e)
			if len(v) != 3 {
				continue
			}
			h = append(h, train.EpochStats{Epoch: i + 1, Positions: int64(v[0]), TrainLoss: v[1], ValLoss: v[2]})
		}
		if len(h) > 0 {
			curves = append(curves, train.Curve{Label: row.label, History: h})
		}
	}
	if len(curves) > 0 {
		data, err := train.PlotLoss(curves, train.PlotOptions{Title: "training (solid) and validation (dashed) loss"})
		if err != nil {
			return nil, err
		}
		out["loss-curves.svg"] = data
	}
	if data, err := eloByPositions(rows, reference); err != nil {
		return nil, err
	} else if data != nil {
		out["elo-vs-positions.svg"] = data
	}
	// The extrapolation the text reads off, on a log scale.
	if pts, _, _ := genScalePoints(rows); len(pts) >= 2 {
		if reference == "" {
			reference = "reference"
		}
		xLabel := "self-play positions so far (log scale)"
		if equiv := equivNodes(rows); equiv > 0 {
			xLabel = fmt.Sprintf("self-play so far (positions at %d nodes a move, log scale)", equiv)
		}
		data, err := report.ScalingPlot(pts, genGoal, "Elo against "+reference+" by self-play: the fit and the goal", xLabel)
		if err != nil {
			return nil, err
		}
		if data != nil {
			out["elo-fit.svg"] = data
		}
	}
	return out, nil
}

// eloByPositions plots Elo against gen 0 and against the reference over the
// cumulative self-play positions (millions), with 95% intervals; nil with
// fewer than two points in every series.
func eloByPositions(rows []*genRow, reference string) ([]byte, error) {
	type series struct {
		label  string
		metric string
	}
	if reference == "" {
		reference = "reference"
	}
	ss := []series{{"vs gen 0", genMetricVsGen0}, {"vs " + reference, genMetricVsRef}}
	// The x axis in millions of positions (thousands for small runs).
	scale, unit := 1e6, "millions"
	for _, row := range rows {
		if sr, ok := row.get(genMetricSelfplay); ok {
			if c, ok := sr.Detail["cumulative"].(float64); ok && c < 1e5 {
				scale, unit = 1e3, "thousands"
			}
		}
	}
	equiv := equivNodes(rows)
	p := plot.New()
	p.X.Label.Text = "self-play positions so far (" + unit + ")"
	if equiv > 0 {
		p.X.Label.Text = fmt.Sprintf("self-play so far (%s of positions at %d nodes a move)", unit, equiv)
	}
	p.Y.Label.Text = "Elo (95% interval)"
	p.Add(plotter.NewGrid())
	var legend svgplot.Legend
	drawn := 0
	for i, s := range ss {
		var xys plotter.XYs
		var errs plotter.YErrors
		for _, row := range rows {
			x := 0.0
			if row.k > 0 {
				sr, ok := row.get(genMetricSelfplay)
				c, ok2 := selfplaySoFar(sr, equiv > 0)
				if !ok || !ok2 {
					continue
				}
				x = c / scale
			}
			y, lo, hi := 0.0, 0.0, 0.0
			if r, ok := row.get(s.metric); ok {
				if math.IsInf(r.Value, 0) {
					continue // every game lost or won: no point to draw
				}
				y = r.Value
				// An interval open at one end draws no bar on that side.
				if r.Lower != nil && !math.IsInf(*r.Lower, 0) {
					lo = r.Value - *r.Lower
				}
				if r.Upper != nil && !math.IsInf(*r.Upper, 0) {
					hi = *r.Upper - r.Value
				}
			} else if !(row.k == 0 && s.metric == genMetricVsGen0) {
				continue // gen 0 is 0 against itself
			}
			xys = append(xys, plotter.XY{X: x, Y: y})
			errs = append(errs, struct{ Low, High float64 }{lo, hi})
		}
		if len(xys) < 2 {
			continue
		}
		drawn++
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, err
		}
		c := report.Palette[i%len(report.Palette)]
		line.Color, points.Color = c, c
		points.Shape, points.Radius = draw.CircleGlyph{}, vg.Points(3)
		eb, err := plotter.NewYErrorBars(struct {
			plotter.XYs
			plotter.YErrors
		}{xys, errs})
		if err != nil {
			return nil, err
		}
		eb.LineStyle.Color = c
		p.Add(line, points, eb)
		legend.Add(s.label, line, points)
	}
	if drawn == 0 {
		return nil, nil
	}
	for _, a := range []*plot.Axis{&p.X, &p.Y} {
		pad := (a.Max - a.Min) * 0.06
		if pad == 0 || math.IsNaN(pad) {
			pad = 1
		}
		a.Min, a.Max = a.Min-pad, a.Max+pad
	}
	p.X.Tick.Marker, p.Y.Tick.Marker = plotaxis.Ticks, plotaxis.Ticks
	return svgplot.Render(p, &legend, 17*vg.Centimeter, 11*vg.Centimeter)
}

// equivNodes returns generation 1's nodes a move when the generations'
// self-play is recorded in its positions (their nodes a move differ), else 0.
func equivNodes(rows []*genRow) int {
	for _, row := range rows {
		if sr, ok := row.get(genMetricSelfplay); ok {
			if _, ok := sr.Detail[genCumulativeEquiv]; ok {
				n, _ := sr.Detail["equiv_nodes"].(float64)
				return int(n)
			}
		}
	}
	return 0
}

// selfplaySoFar is a generation's cumulative self-play: in generation 1's
// positions when equiv, else in positions.
func selfplaySoFar(sr records.Record, equiv bool) (float64, bool) {
	key := "cumulative"
	if equiv {
		key = genCumulativeEquiv
	}
	c, ok := sr.Detail[key].(float64)
	return c, ok
}
