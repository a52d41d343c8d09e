// Command accuracy is an example nnuelab metric plugin: from a network's
// scores on a position set, and optionally reference scores and game
// results, it computes the numbers an accuracy ablation reports. An
// experiment manifest names it (plugin "accuracy") and its outputs.
//
// Outputs: positions, mean_cp, std_cp; with target scores also mae_cp,
// rmse_cp, sign_agreement (share of positions where both scores have the
// same sign, zeros agreeing with zeros) and pearson; with game results also
// wdl_loss, the mean cross-entropy between sigmoid(score/scale) and the
// result. Parameter "scale" (default 400) sets the sigmoid's scale in
// centipawns.
package main

import (
	"fmt"
	"math"
	"strconv"

	"github.com/nnuelab/nnuelab/plugins/sdk"
	"github.com/nnuelab/nnuelab/plugins/sdk/pluginpb"
)

func main() {
	sdk.Serve(sdk.Plugins{Metric: metric{}})
}

type metric struct{}

func (metric) DescribeMetric() *pluginpb.MetricDescription {
	return &pluginpb.MetricDescription{
		Name:    "accuracy",
		Version: "1.0",
		Summary: "score statistics, error against reference scores, WDL cross-entropy against results",
		Outputs: []string{"positions", "mean_cp", "std_cp", "mae_cp", "rmse_cp", "sign_agreement", "pearson", "wdl_loss"},
	}
}

func (metric) Compute(in *sdk.MetricInput) (map[string]float64, error) {
	return compute(in.Scores, in.TargetScores, in.TargetResults, in.Params)
}

func compute(scores, targets, results []float32, params map[string]string) (map[string]float64, error) {
	scale := 400.0
	if s, ok := params["scale"]; ok {
		v, err := strconv.ParseFloat(s, 64)
		if err != nil || v <= 0 || math.IsInf(v, 0) {
			return nil, fmt.Errorf("param scale: %q is not a positive number", s)
		}
		scale = v
	}
	for k := range params {
		if k != "scale" {
			return nil, fmt.Errorf("unknown param %q (accuracy takes: scale)", k)
		}
	}
	n := float64(len(scores))
	out := map[string]float64{"positions": n}
	if n == 0 {
		return out, nil
	}
	mean, std := meanStd(scores)
	out["mean_cp"], out["std_cp"] = mean, std
	if len(targets) > 0 {
		var abs, sq, agree, cov float64
		tmean, tstd := meanStd(targets)
		for i, s := range scores {
			d := float64(s - targets[i])
			abs += math.Abs(d)
			// float64(x*y) here and below: no FMA fusion at GOAMD64=v3 (make fma-check).
			sq += float64(d * d)
			if sign(s) == sign(targets[i]) {
				agree++
			}
			cov += float64((float64(s) - mean) * (float64(targets[i]) - tmean))
		}
		out["mae_cp"] = abs / n
		out["rmse_cp"] = math.Sqrt(sq / n)
		out["sign_agreement"] = agree / n
		if std > 0 && tstd > 0 {
			out["pearson"] = cov / n / (std * tstd)
		}
	}
	if len(results) > 0 {
		var loss float64
		for i, s := range scores {
			r := float64(results[i])
			if r < 0 || r > 1 {
				return nil, fmt.Errorf("position %d: result %v is not in [0, 1]", i, r)
			}
			p := 1 / (1 + math.Exp(-float64(s)/scale))
			p = min(max(p, 1e-12), 1-1e-12)
			loss -= float64(r*math.Log(p)) + float64((1-r)*math.Log(1-p))
		}
		out["wdl_loss"] = loss / n
	}
	return out, nil
}

func meanStd(xs []float32) (mean, std float64) {
	for _, x := range xs {
		mean += float64(x)
	}
	mean /= float64(len(xs))
	for _, x := range xs {
		std += float64((float64(x) - mean) * (float64(x) - mean))
	}
	return mean, math.Sqrt(std / float64(len(xs)))
}

func sign(x float32) int {
	switch {
	case x > 0:
		return 1
	case x < 0:
		return -1
	}
	return 0
}
