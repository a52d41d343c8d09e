package metrics

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"slices"
)

// Names of the built-in metrics of the measure task (the registered ones
// run there too).
const (
	MetricAgreement     = "agreement"      // against Stockfish 15.1's NNUE evaluation
	MetricQuantError    = "quant_error"    // float vs quantized output, cp
	MetricValLoss       = "val_loss"       // loss of the engine's net on validation positions
	MetricHistoryShares = "history_shares" // accumulator updates by distance, refreshes
)

// MeasureResult is what the measure task of a variant and seed stores:
// the value of each metric it measured.
type MeasureResult struct {
	Agreement *Agreement  `json:"agreement,omitempty"`
	Reference string      `json:"reference,omitempty"`
	Quant     *QuantError `json:"quant,omitempty"`
	// QuantNote says why there is no quantization error.
	QuantNote string   `json:"quant_note,omitempty"`
	ValLoss   *ValLoss `json:"val_loss,omitempty"`
	Shares    *Shares  `json:"shares,omitempty"`
	// SharesQuiet counts only the searches whose root is not in check.
	SharesQuiet *Shares `json:"shares_quiet,omitempty"`
	// Metrics holds the values of the registered metrics (Def), by name,
	// as their Measure returned them.
	Metrics map[string]json.RawMessage `json:"metrics,omitempty"`
}

// Measure is the measure task's body: it measures the metrics which lists
// (built-in or registered) on the subject's net, in report order, and logs
// a line for each.
func Measure(ctx context.Context, s *Subject, which []string, log io.Writer) (*MeasureResult, error) {
	r := &MeasureResult{}
	ps, net, spec := s.Positions, s.Net, s.Spec
	if slices.Contains(which, MetricAgreement) {
		sf, src, err := stockfishReference(s.PositionsFile, ps)
		if err != nil {
			return nil, err
		}
		cp := make([]float64, len(ps))
		for i, pos := range ps {
			cp[i] = netCP(net, pos.Pos)
		}
		a := agreementOf(cp, sf)
		r.Agreement, r.Reference = &a, src
		fmt.Fprintf(log, "%s: agreement with Stockfish 15.1 on %d positions: MAE %.1f cp (scale %.3f), sign %.1f%%\n", s.Variant, a.N, a.MAE, a.Scale, 100*a.Sign)
	}
	if slices.Contains(which, MetricQuantError) {
		fn, why, err := floatTensors(spec, s.NetPath)
		switch {
		case err != nil:
			return nil, err
		case fn == nil:
			r.QuantNote = why
		default:
			if r.Quant, err = quantErrorOf(spec, net, fn, ps); err != nil {
				return nil, fmt.Errorf("quantization error: %w", err)
			}
			fmt.Fprintf(log, "%s: quantization error on %d positions: mean %.2f cp, max %.1f cp\n", s.Variant, r.Quant.N, r.Quant.Mean, r.Quant.Max)
		}
	}
	if slices.Contains(which, MetricValLoss) {
		var err error
		if r.ValLoss, err = valLossOf(s.Loss, net, s.Validation, s.ValLimit); err != nil {
			return nil, fmt.Errorf("validation loss: %w", err)
		}
		fmt.Fprintf(log, "%s: validation loss %.6f on %d positions\n", s.Variant, r.ValLoss.Loss, r.ValLoss.N)
	}
	if slices.Contains(which, MetricHistoryShares) {
		var err error
		if r.Shares, r.SharesQuiet, err = historyShares(ctx, net, SearchPositions(ps, s.Search.Positions), s.Search.Nodes); err != nil {
			return nil, err
		}
		fmt.Fprintf(log, "%s: %d accumulator updates in %d nodes\n", s.Variant, r.Shares.Updates, r.Shares.Nodes)
	}
	for _, x := range which {
		d, ok := Lookup(x)
		if !ok || d.Measure == nil {
			continue // a built-in metric, measured above
		}
		val, err := d.Measure(ctx, s, log)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", x, err)
		}
		raw, err := json.Marshal(val)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", x, err)
		}
		if r.Metrics == nil {
			r.Metrics = map[string]json.RawMessage{}
		}
		r.Metrics[x] = raw
	}
	return r, nil
}
