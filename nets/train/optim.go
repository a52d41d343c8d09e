package train

import (
	"math"
	"slices"
	"strings"
)

// Optim holds the optimizer and learning-rate schedule settings.
//
// The toml tags are a manifest's [train] keys (Config embeds Optim); the
// JSON form (field names as they are) is part of the cache keys.
type Optim struct {
	// Kind is "adamw" (decoupled weight decay) or "adam" (L2 decay added to
	// the gradient).
	Kind         string  `toml:"optimizer"`
	LR           float64 `toml:"lr"`
	Beta1, Beta2 float64 `toml:"-"`
	Eps          float64 `toml:"-"`
	WeightDecay  float64 `toml:"weight_decay"`
	// DecayScope says which weights decay (never biases): "" or "all"
	// every weight tensor; "transformer" the feature transformer's only,
	// not the head's; "buckets" only the transformer's real rows, not a
	// factorized net's virtual (piece, square) rows nor the head, so that
	// decay pulls each king-specific row towards the shared row it sits
	// beside without shrinking the shared row itself. Empty stays out of
	// the JSON form, so the cache keys of nets trained before it existed
	// still hold.
	DecayScope string `json:",omitempty" toml:"decay_scope"`
	// Schedule is "constant", "step" (LR times Gamma every StepEpochs
	// epochs) or "cosine" (from LR down to MinLR over the whole run).
	Schedule   string  `toml:"schedule"`
	StepEpochs int     `toml:"step_epochs"`
	Gamma      float64 `toml:"gamma"`
	MinLR      float64 `toml:"min_lr"`
	// Warmup ramps the rate up linearly over the first Warmup steps.
	Warmup int `toml:"warmup"`
}

// Validate checks the optimizer settings; a bad value is a
// *SettingError naming its key.
func (o *Optim) Validate() error {
	switch o.Kind {
	case "adam", "adamw":
	default:
		return settingErr("optimizer", "unknown optimizer %q (adam, adamw)", o.Kind)
	}
	switch {
	case !(o.LR > 0 && o.LR < 10):
		return settingErr("lr", "learning rate %g out of range (0, 10)", o.LR)
	case !(o.Beta1 >= 0 && o.Beta1 < 1) || !(o.Beta2 >= 0 && o.Beta2 < 1):
		return settingErr("beta", "betas %g, %g must be in [0, 1)", o.Beta1, o.Beta2)
	case !(o.Eps > 0):
		return settingErr("eps", "eps %g must be positive", o.Eps)
	case !(o.WeightDecay >= 0 && o.WeightDecay*o.LR < 1):
		// Decoupled decay shrinks a weight by lr*wd a step: at 1 or more
		// it would flip or zero every weight.
		return settingErr("weight_decay", "weight decay %g out of range: need wd >= 0 and wd*lr < 1 (lr %g)", o.WeightDecay, o.LR)
	case o.Warmup < 0:
		return settingErr("warmup", "warmup %d must be >= 0", o.Warmup)
	}
	if o.DecayScope != "" && !slices.Contains(DecayScopes, o.DecayScope) {
		return settingErr("decay_scope", "unknown decay scope %q (%s)", o.DecayScope, strings.Join(DecayScopes, ", "))
	}
	switch o.Schedule {
	case "constant":
	case "step":
		if o.StepEpochs < 1 {
			return settingErr("step_epochs", "step schedule needs step epochs >= 1, got %d", o.StepEpochs)
		}
		if !(o.Gamma > 0 && o.Gamma <= 1) {
			return settingErr("gamma", "step schedule needs gamma in (0, 1], got %g", o.Gamma)
		}
	case "cosine":
		if !(o.MinLR >= 0 && o.MinLR <= o.LR) {
			return settingErr("min_lr", "cosine schedule needs 0 <= min lr <= lr, got %g", o.MinLR)
		}
	default:
		return settingErr("schedule", "unknown schedule %q (constant, step, cosine)", o.Schedule)
	}
	return nil
}

// rate returns the learning rate of step (0-based) in epoch (0-based) of a
// run of totalSteps steps.
func (o *Optim) rate(step, epoch, totalSteps int) float64 {
	lr := o.LR
	switch o.Schedule {
	case "step":
		lr *= math.Pow(o.Gamma, float64(epoch/o.StepEpochs))
	case "cosine":
		t := min(float64(step)/float64(max(totalSteps, 1)), 1)
		// float64(x*y) here and below: no FMA fusion at GOAMD64=v3 (make fma-check).
		lr = o.MinLR + float64((o.LR-o.MinLR)*(1+math.Cos(math.Pi*t))/2)
	}
	if o.Warmup > 0 && step < o.Warmup {
		lr *= float64(step+1) / float64(o.Warmup)
	}
	return lr
}

// DecayScopes are the values of Optim.DecayScope (besides "", which is
// "all").
var DecayScopes = []string{"all", "transformer", "buckets"}

// decays reports whether the decay scope covers a tensor part (partHead,
// partFT, partVirtual).
func (o *Optim) decays(part int) bool {
	switch o.DecayScope {
	case "transformer":
		return part != partHead
	case "buckets":
		return part == partFT
	}
	return true
}
