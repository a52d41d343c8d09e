package train

import (
	"math"
)

// Loss names the training objective.
//
// Every loss works on the logit z = s * cp of the network's output, cp
// being the output in centipawns (internal units times cp_num/cp_den) from
// the side to move's view, and s the sigmoid scale (2.5/400 by default, as
// CudAD). With p = sigmoid(z):
//
//   - "mpe": |p - t|^power (power 2.5: CudAD's default), t the blended
//     target lambda*sigmoid(s*score) + (1-lambda)*wdl, score and wdl turned
//     to the side to move's view; lambda 0.5 is CudAD's (sigmoid + wdl)/2.
//   - "mse": (p - t)^2 with the same target.
//   - "result": Rengar's result loss on the game result alone:
//     ln(1+exp(-z)) for a win, ln(1+exp(z)) for a loss, their mean for a
//     draw. (Rengar's own logit is its y = cp/128, i.e. s = 1/128.)
//
// The toml tags are an experiment manifest's [loss] keys (its loss of
// training and of the val_loss metric, which uses Value); the JSON form
// (field names as they are) is part of the trained nets' cache keys.
type Loss struct {
	Kind   string  `toml:"kind"`   // "mpe", "mse" or "result"
	Power  float64 `toml:"power"`  // the mpe exponent
	Scale  float64 `toml:"scale"`  // s, per centipawn
	Lambda float64 `toml:"lambda"` // weight of the score in the target (1 = score only, 0 = result only)
	// LambdaEnd, if set, makes lambda a schedule: it moves linearly from
	// Lambda at the first step to LambdaEnd at the last (bullet's linear
	// WDL schedule: learn the search's scores first, the results later).
	// Validation losses use Lambda, so that runs compare.
	// (A manifest sets it in [train], beside the recipe's other knobs.)
	LambdaEnd *float64 `json:",omitempty" toml:"-"`
}

// lambdaAt returns the score weight at step of total steps.
func (l *Loss) lambdaAt(step, total int) float64 {
	if l.LambdaEnd == nil || total <= 1 {
		return l.Lambda
	}
	f := float64(min(step, total-1)) / float64(total-1)
	// float64(x*y) here and below: no FMA fusion at GOAMD64=v3 (make fma-check).
	return l.Lambda + float64((*l.LambdaEnd-l.Lambda)*f)
}

// Validate checks the loss settings; a bad value is a *SettingError
// naming its key.
func (l *Loss) Validate() error {
	switch l.Kind {
	case "mpe":
		if !(l.Power >= 1 && l.Power <= 10) {
			return settingErr("power", "loss power %g out of range [1, 10]", l.Power)
		}
	case "mse", "result":
	default:
		return settingErr("kind", "unknown loss %q (mpe, mse, result)", l.Kind)
	}
	if !(l.Scale > 0 && l.Scale < 1) {
		return settingErr("scale", "sigmoid scale %g out of range (0, 1)", l.Scale)
	}
	if !(l.Lambda >= 0 && l.Lambda <= 1) {
		return settingErr("lambda", "lambda %g out of range [0, 1]", l.Lambda)
	}
	if l.LambdaEnd != nil && !(*l.LambdaEnd >= 0 && *l.LambdaEnd <= 1) {
		return settingErr("lambda_end", "final lambda %g out of range [0, 1]", *l.LambdaEnd)
	}
	return nil
}

func sigmoid(x float64) float64 { return 1 / (1 + math.Exp(-x)) }

// softplus is ln(1+exp(x)) without overflow.
func softplus(x float64) float64 {
	if x > 30 {
		return x
	}
	return math.Log1p(math.Exp(x))
}

// Of returns the loss of one position and its derivative by the logit z
// (Scale times the network's output in centipawns), for score
// (centipawns) and wdl (0, 0.5, 1), both from the side to move's view:
// the one formula of training (eval) and of the val_loss metric
// (experiments/metrics), so that they cannot differ.
func (l *Loss) Of(z, score, wdl float64) (loss, dz float64) {
	if l.Kind == "result" {
		return float64(wdl*softplus(-z)) + float64((1-wdl)*softplus(z)), sigmoid(z) - wdl
	}
	p := sigmoid(z)
	t := float64(l.Lambda*sigmoid(l.Scale*score)) + float64((1-l.Lambda)*wdl)
	e := p - t
	var dp float64
	if l.Kind == "mse" {
		loss, dp = e*e, 2*e
	} else {
		a := math.Abs(e)
		loss = math.Pow(a, l.Power)
		dp = l.Power * math.Pow(a, l.Power-1)
		if e < 0 {
			dp = -dp
		}
	}
	return loss, dp * p * (1 - p)
}

// eval returns the loss of one position and its derivative by the
// network's output, for output out (internal units; cpPer converts to
// centipawns), score (centipawns) and wdl (0, 0.5, 1), both from the side
// to move's view.
func (l *Loss) eval(out float32, cpPer float64, score float64, wdl float64) (loss float64, dout float64) {
	dz := l.Scale * cpPer
	loss, d := l.Of(float64(out)*dz, score, wdl)
	return loss, d * dz
}
