package records

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/nnuelab/nnuelab/bench/stats"
	"github.com/nnuelab/nnuelab/experiments/manifest"
	"github.com/nnuelab/nnuelab/experiments/metrics"
	"github.com/nnuelab/nnuelab/experiments/plan"
	"github.com/nnuelab/nnuelab/internal/fsutil"
)

// Record is one line of results.jsonl: one metric of one variant (and
// seed), with what it was computed from. The file holds nothing that
// depends on where or when the tasks ran, so that two runs of a
// deterministic manifest (local or on Slurm) write the same bytes; timing
// metrics are the exception, by nature.
type Record struct {
	Experiment string `json:"experiment"`
	Variant    string `json:"variant"`
	Label      string `json:"label"`
	Base       bool   `json:"base,omitempty"`
	Seed       uint64 `json:"seed,omitempty"`
	// Metric is e.g. "agreement.mae_cp", "elo", "eval_speed.ratio".
	Metric string  `json:"metric"`
	Value  float64 `json:"value"`
	// Lower and Upper bound Value: a 95% interval (Elo) or the range over
	// rounds (speed).
	Lower *float64 `json:"lower,omitempty"`
	Upper *float64 `json:"upper,omitempty"`
	Unit  string   `json:"unit,omitempty"`
	// N is the sample size (positions, games, rounds); 0 means the metric
	// does not apply (Detail["note"] says why).
	N          int            `json:"n"`
	Detail     map[string]any `json:"detail,omitempty"`
	Overrides  []string       `json:"overrides,omitempty"`
	ArchSHA256 string         `json:"arch_sha256"`
	NetSHA256  string         `json:"net_sha256,omitempty"`
	DataSHA256 string         `json:"data_sha256,omitempty"`
	Command    string         `json:"command"`
}

func fptr(x float64) *float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return nil
	}
	return &x
}

// infSign names an infinite value's sign as the details store it.
func infSign(x float64) string {
	if x > 0 {
		return "+inf"
	}
	return "-inf"
}

func finite(x float64) float64 {
	if math.IsNaN(x) || math.IsInf(x, 0) {
		return 0
	}
	return x
}

// Merge reads every task result of the plan and turns them into records,
// in a fixed order: variants as planned, metrics in report order, seeds
// ascending. A missing result is an error.
func Merge(p *plan.Plan) ([]Record, error) {
	recs, missing, err := merge(p, false)
	if err == nil && len(missing) > 0 {
		err = fmt.Errorf("task %s has no result in %s", missing[0], p.Out)
	}
	return recs, err
}

// MergePartial is Merge over the tasks finished so far, for a report of a
// run that is still going or was stopped: a record whose tasks are not all
// done is left out (the report marks its metric pending), except Elo,
// which sums the chunks finished (its N says how many games; Detail
// "games_planned" how many the manifest asks for). It also returns the
// IDs of the tasks without a result.
func MergePartial(p *plan.Plan) ([]Record, []string, error) {
	return merge(p, true)
}

func merge(p *plan.Plan, partial bool) ([]Record, []string, error) {
	results := map[string]*plan.TaskResult{}
	var missing []string
	for _, t := range p.Tasks {
		r, err := plan.LoadResult(p.Out, t)
		if err != nil {
			return nil, nil, err // edited or damaged: never counted
		}
		if r == nil {
			missing = append(missing, t.ID)
			continue
		}
		results[t.ID] = r
	}
	// Chunks an SPRT no longer needs are not missing.
	skip := plan.NotNeeded(p, results)
	kept := missing[:0]
	for _, id := range missing {
		if !skip[id] {
			kept = append(kept, id)
		}
	}
	missing = kept
	if len(missing) > 0 && !partial {
		return nil, missing, nil
	}
	m := p.Manifest
	var out []Record
	for vi, v := range p.Variants {
		rec := func(seedIdx int, metric string, value float64, unit string, n int, data string) Record {
			r := Record{
				Experiment: m.Name, Variant: v.Name, Label: v.Label, Base: v.Base, Metric: metric,
				Value: finite(value), Unit: unit, N: n, Overrides: v.Overrides, ArchSHA256: v.ArchSHA256,
				NetSHA256: v.Nets[seedIdx].SHA256, DataSHA256: data, Command: p.Command,
			}
			if v.Trained || len(m.Seeds) > 1 {
				r.Seed = m.Seeds[seedIdx]
			}
			return r
		}
		// Training: the trainer's own loss history.
		if v.Trained {
			for si := range m.Seeds {
				res := results[v.Nets[si].Train]
				if res == nil {
					continue
				}
				tr := res.Train
				if len(tr.History) == 0 {
					continue
				}
				last := tr.History[len(tr.History)-1]
				r := rec(si, "train.val_loss", last.ValLoss, "", len(tr.History), p.DataSHA256)
				hist := make([][3]float64, len(tr.History))
				for i, e := range tr.History {
					hist[i] = [3]float64{float64(e.Positions), e.TrainLoss, e.ValLoss}
				}
				r.Detail = map[string]any{"epochs": len(tr.History), "history": hist, "unit": "[positions, train loss, val loss] per epoch"}
				out = append(out, r)
			}
			if r, ok := selfplayRecord(p, v, results, rec(0, "", 0, "", 0, "")); ok {
				out = append(out, r)
			}
		}
		for _, d := range m.Listed() {
			if d.TaskKind() == metrics.TaskElo {
				if (v.Base && m.Elo.Opponent != manifest.OpponentClassical) || !m.Elo.Tests(v.Name) {
					continue
				}
				r, err := EloRecord(p, v, results, rec(0, d.Name, 0, "Elo", 0, p.OpeningsSHA256))
				if err != nil {
					if partial {
						continue // no chunk finished yet
					}
					return nil, nil, err
				}
				out = append(out, r)
				continue
			}
			// The task results the metric's records read: one per seed,
			// or the speed task's (seed 0's nets).
			type stored struct {
				seedIdx int
				st      metrics.Stored
			}
			var from []stored
			switch {
			case d.TaskKind() == metrics.TaskSpeed:
				if res := results["speed"]; res != nil && res.Speed != nil {
					from = append(from, stored{0, metrics.Stored{Speed: res.Speed, Variant: vi}})
				}
			default:
				for si, seed := range m.Seeds {
					res := results[fmt.Sprintf("%s-%s-s%d", d.TaskKind(), v.Name, seed)]
					switch {
					case res == nil:
					case d.TaskKind() == metrics.TaskActivations && res.Activations != nil:
						from = append(from, stored{si, metrics.Stored{Activations: res.Activations}})
					case d.TaskKind() == metrics.TaskMeasure && res.Measure != nil && (d.Measure == nil || res.Measure.Metrics[d.Name] != nil):
						from = append(from, stored{si, metrics.Stored{Measure: res.Measure, Raw: res.Measure.Metrics[d.Name], Loss: m.Loss}})
					}
				}
			}
			for _, f := range from {
				vals, err := d.Records(f.st)
				if err != nil {
					return nil, nil, err
				}
				for _, x := range vals {
					out = append(out, record(p, x, rec(f.seedIdx, x.Metric, x.Value, x.Unit, x.N, "")))
				}
			}
		}
	}
	return out, missing, nil
}

// record completes r (a record of the variant and seed, its value set)
// with what the metric's value x adds: its bounds, details and the hash of
// the data it was computed from.
func record(p *plan.Plan, x metrics.Value, r Record) Record {
	r.Lower, r.Upper, r.Detail = x.Lower, x.Upper, x.Detail
	switch x.Data {
	case metrics.DataPositions:
		r.DataSHA256 = p.PositionsSHA256
	case metrics.DataValidation:
		r.DataSHA256 = p.ValidationSHA256
	}
	return r
}

// EloRecord merges a variant's match chunks.
func EloRecord(p *plan.Plan, v *plan.Variant, results map[string]*plan.TaskResult, r Record) (Record, error) {
	var w stats.WDL
	var pen stats.Penta
	var chunks int
	var llr *float64
	var llrBounds []float64
	var decision string
	var args []string
	planned, past := 0, 0
	counted, _ := plan.SPRTLooks(p, v.Name, results)
	for _, t := range p.Tasks {
		if t.Kind != plan.KindElo || t.Variant != v.Name {
			continue
		}
		planned += t.Games
		res := results[t.ID]
		if res == nil {
			continue // MergePartial: a chunk not played yet
		}
		if !counted[t.ID] {
			past++ // played past the SPRT's decision (sprt.go)
			continue
		}
		e := res.Elo
		w.Wins += e.Wins
		w.Draws += e.Draws
		w.Losses += e.Losses
		for i := range pen {
			pen[i] += e.Penta[i]
		}
		if chunks == 0 {
			args = e.Args
		}
		chunks++
		llr, decision = e.LLR, e.Decision
	}
	if s, ok := plan.SPRTTest(p.Manifest); ok {
		// Decided on the pooled chunks; an undecided test that has played
		// max_games stops without a verdict.
		l := s.LLR(pen)
		llr, decision = &l, s.Decide(l).String()
		lo, hi := s.Bounds()
		llrBounds = []float64{lo, hi}
		if decision == stats.Continue.String() && w.Games() >= planned {
			decision = "max games reached"
		}
	}
	if chunks == 0 {
		return r, fmt.Errorf("variant %s has no Elo results", v.Name)
	}
	est, interval := pen.Elo(), "95%, pentanomial"
	// A handful of pairs that all scored alike has no variance: the
	// pentanomial interval collapses to a point that claims certainty.
	// Games taken as independent (trinomial) give an honest width then.
	if pen.Pairs() == 0 || (w.Games() > 0 && est.Upper-est.Lower == 0) {
		est, interval = w.Elo(), "95%, trinomial (the pentanomial has no variance with these few pairs)"
	}
	r.Value, r.Lower, r.Upper, r.N = finite(est.Value), fptr(est.Lower), fptr(est.Upper), w.Games()
	nelo := pen.NormalizedElo()
	r.Detail = map[string]any{
		"wins": w.Wins, "draws": w.Draws, "losses": w.Losses, "pentanomial": pen,
		"los": finite(pen.LOS()), "draw_ratio": finite(w.DrawRatio()), "nelo": finite(nelo.Value),
		"chunks": chunks, "against": eloAgainst(p, args), "interval": interval,
		"match_args_chunk0": args,
	}
	if w.Games() < planned && (decision == "" || decision == stats.Continue.String()) {
		r.Detail["games_planned"] = planned
	}
	// JSON holds no infinity: an Elo that is one (every game won or lost)
	// says so in the details, and the report prints it as such, never 0.
	if math.IsInf(est.Value, 0) {
		r.Detail["infinite"] = infSign(est.Value)
	}
	if llr != nil {
		r.Detail["llr"], r.Detail["sprt"] = *llr, decision
	}
	if llrBounds != nil {
		r.Detail["llr_bounds"] = llrBounds
	}
	if past > 0 {
		r.Detail["chunks_past_decision"] = past
	}
	return r, nil
}

// eloAgainst names the opponent a variant's games were played against:
// the second engine of the match (args: the first chunk's), else what the
// manifest asks for (the classical engine, or the base).
func eloAgainst(p *plan.Plan, args []string) string {
	if name := matchOpponent(args); name != "" {
		return name
	}
	if p.Manifest.Elo != nil && p.Manifest.Elo.Opponent == manifest.OpponentClassical {
		return manifest.OpponentClassical
	}
	return p.BaseVariant().Name
}

// matchOpponent returns the name= of the second -engine of `nnuelab
// match` arguments ("" when there is none).
func matchOpponent(args []string) string {
	engines := 0
	for _, a := range args {
		if a == "-engine" || a == "--engine" {
			engines++
			continue
		}
		if strings.HasPrefix(a, "-") {
			if engines == 2 {
				return ""
			}
			continue
		}
		if name, ok := strings.CutPrefix(a, "name="); ok && engines == 2 {
			return name
		}
	}
	return ""
}

// WriteResults writes the records as JSON lines to path, atomically.
func WriteResults(path string, recs []Record) error {
	data, err := encodeResults(recs)
	if err != nil {
		return err
	}
	return fsutil.WriteFileAll(path, data, 0o644)
}

// ReadResults reads a results.jsonl file.
func ReadResults(path string) ([]Record, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return decodeResults(f, path)
}

// AsStored returns recs as results.jsonl holds them (details decoded from
// JSON: numbers float64, lists []any), so that a report reads records of one
// shape whether they come from a finished run's file or a partial merge.
func AsStored(recs []Record) ([]Record, error) {
	data, err := encodeResults(recs)
	if err != nil {
		return nil, err
	}
	return decodeResults(bytes.NewReader(data), "records")
}

func encodeResults(recs []Record) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	for i := range recs {
		if err := enc.Encode(&recs[i]); err != nil {
			return nil, err
		}
	}
	return b.Bytes(), nil
}

// decodeResults reads JSON lines; name says where they come from in errors.
func decodeResults(r io.Reader, name string) ([]Record, error) {
	var out []Record
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<16), 1<<24)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil {
			return nil, fmt.Errorf("%s line %d: %w", name, line, err)
		}
		out = append(out, rec)
	}
	return out, sc.Err()
}

// ResultsPath is the merged results file of a results folder.
func ResultsPath(out string) string { return filepath.Join(out, "results.jsonl") }
