package train

import (
	"fmt"
	"math"
	"slices"
	"strings"
)

// Optim holds the optimizer and learning-rate schedule settings.
type Optim struct {
	// Kind is "adamw" (decoupled weight decay) or "adam" (L2 decay added to
	// the gradient).
	Kind         string
	LR           float64
	Beta1, Beta2 float64
	Eps          float64
	WeightDecay  float64
	// DecayScope says which weights decay (never biases): "" or "all"
	// every weight tensor; "transformer" the feature transformer's only,
	// not the head's; "buckets" only the transformer's real rows, not a
	// factorized net's virtual (piece, square) rows nor the head, so that
	// decay pulls each king-specific row towards the shared row it sits
	// beside without shrinking the shared row itself. Empty stays out of
	// the JSON form, so the cache keys of nets trained before it existed
	// still hold.
	DecayScope string `json:",omitempty"`
	// Schedule is "constant", "step" (LR times Gamma every StepEpochs
	// epochs) or "cosine" (from LR down to MinLR over the whole run).
	Schedule   string
	StepEpochs int
	Gamma      float64
	MinLR      float64
	// Warmup ramps the rate up linearly over the first Warmup steps.
	Warmup int
}

// Validate checks the optimizer settings.
func (o *Optim) Validate() error {
	switch o.Kind {
	case "adam", "adamw":
	default:
		return fmt.Errorf("unknown optimizer %q (adam, adamw)", o.Kind)
	}
	switch {
	case !(o.LR > 0 && o.LR < 10):
		return fmt.Errorf("learning rate %g out of range (0, 10)", o.LR)
	case !(o.Beta1 >= 0 && o.Beta1 < 1) || !(o.Beta2 >= 0 && o.Beta2 < 1):
		return fmt.Errorf("betas %g, %g must be in [0, 1)", o.Beta1, o.Beta2)
	case !(o.Eps > 0):
		return fmt.Errorf("eps %g must be positive", o.Eps)
	case !(o.WeightDecay >= 0 && o.WeightDecay*o.LR < 1):
		// Decoupled decay shrinks a weight by lr*wd a step: at 1 or more
		// it would flip or zero every weight.
		return fmt.Errorf("weight decay %g out of range: need wd >= 0 and wd*lr < 1 (lr %g)", o.WeightDecay, o.LR)
	case o.Warmup < 0:
		return fmt.Errorf("warmup %d must be >= 0", o.Warmup)
	}
	if o.DecayScope != "" && !slices.Contains(DecayScopes, o.DecayScope) {
		return fmt.Errorf("unknown decay scope %q (%s)", o.DecayScope, strings.Join(DecayScopes, ", "))
	}
	switch o.Schedule {
	case "constant":
	case "step":
		if o.StepEpochs < 1 || !(o.Gamma > 0 && o.Gamma <= 1) {
			return fmt.Errorf("step schedule needs step epochs >= 1 and gamma in (0, 1], got %d and %g", o.StepEpochs, o.Gamma)
		}
	case "cosine":
		if !(o.MinLR >= 0 && o.MinLR <= o.LR) {
			return fmt.Errorf("cosine schedule needs 0 <= min lr <= lr, got %g", o.MinLR)
		}
	default:
		return fmt.Errorf("unknown schedule %q (constant, step, cosine)", o.Schedule)
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
		lr = o.MinLR + (o.LR-o.MinLR)*(1+math.Cos(math.Pi*t))/2
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
