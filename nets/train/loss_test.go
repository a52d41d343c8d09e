package train

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestLossValues(t *testing.T) {
	const s = 2.5 / 400
	ln2 := math.Log(2)
	for _, tc := range []struct {
		name       string
		loss       Loss
		out, cpPer float64
		score, wdl float64
		want       float64
	}{
		{"mpe at p=0.5, t=0.75", Loss{Kind: "mpe", Power: 2.5, Scale: s, Lambda: 0.5}, 0, 1, 0, 1, math.Pow(0.25, 2.5)},
		{"mpe score only", Loss{Kind: "mpe", Power: 2.5, Scale: s, Lambda: 1}, 0, 1, 400, 0, math.Pow(1/(1+math.Exp(-2.5))-0.5, 2.5)},
		{"mpe result only", Loss{Kind: "mpe", Power: 2.5, Scale: s, Lambda: 0}, 0, 1, 400, 0, math.Pow(0.5, 2.5)},
		{"mpe exact fit", Loss{Kind: "mpe", Power: 2.5, Scale: s, Lambda: 1}, 160, 1, 160, 0.5, 0},
		{"mpe cp conversion", Loss{Kind: "mpe", Power: 2.5, Scale: s, Lambda: 1}, 306, 100.0 / 306, 100, 0.5, 0},
		{"mse", Loss{Kind: "mse", Power: 0, Scale: s, Lambda: 0.5}, 0, 1, 0, 0, 0.0625},
		{"result draw at 0", Loss{Kind: "result", Power: 0, Scale: s, Lambda: 0.5}, 0, 1, 0, 0.5, ln2},
		{"result win", Loss{Kind: "result", Power: 0, Scale: s, Lambda: 0.5}, 160, 1, 0, 1, math.Log1p(math.Exp(-1))},
		{"result loss", Loss{Kind: "result", Power: 0, Scale: s, Lambda: 0.5}, 160, 1, 0, 0, math.Log1p(math.Exp(1))},
		{"result draw", Loss{Kind: "result", Power: 0, Scale: s, Lambda: 0.5}, 160, 1, 0, 0.5, (math.Log1p(math.Exp(-1)) + math.Log1p(math.Exp(1))) / 2},
		{"result huge logit", Loss{Kind: "result", Power: 0, Scale: s, Lambda: 0.5}, 1e6, 1, 0, 0, 1e6 * s},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, d := tc.loss.eval(float32(tc.out), tc.cpPer, tc.score, tc.wdl)
			if math.Abs(got-tc.want) > 1e-6*math.Max(1, tc.want) {
				t.Fatalf("loss %g, want %g", got, tc.want)
			}
			// The derivative by the output, against a central difference.
			h := math.Max(1e-2, math.Abs(tc.out)*1e-4)
			hi, lo := float32(tc.out+h), float32(tc.out-h)
			up, _ := tc.loss.eval(hi, tc.cpPer, tc.score, tc.wdl)
			down, _ := tc.loss.eval(lo, tc.cpPer, tc.score, tc.wdl)
			if num := (up - down) / float64(hi-lo); math.Abs(num-d) > 1e-4*math.Abs(d)+1e-9 {
				t.Fatalf("derivative %g, numeric %g", d, num)
			}
		})
	}
}

func TestSchedule(t *testing.T) {
	for _, tc := range []struct {
		name               string
		o                  Optim
		step, epoch, total int
		want               float64
	}{
		{"constant", Optim{Schedule: "constant", LR: 0.01}, 500, 3, 1000, 0.01},
		{"step epoch 0", Optim{Schedule: "step", LR: 0.01, StepEpochs: 2, Gamma: 0.5}, 0, 1, 100, 0.01},
		{"step epoch 2", Optim{Schedule: "step", LR: 0.01, StepEpochs: 2, Gamma: 0.5}, 0, 2, 100, 0.005},
		{"step epoch 5", Optim{Schedule: "step", LR: 0.01, StepEpochs: 2, Gamma: 0.5}, 0, 5, 100, 0.0025},
		{"cosine start", Optim{Schedule: "cosine", LR: 0.01, MinLR: 0.001}, 0, 0, 100, 0.01},
		{"cosine middle", Optim{Schedule: "cosine", LR: 0.01, MinLR: 0.001}, 50, 0, 100, 0.0055},
		{"cosine end", Optim{Schedule: "cosine", LR: 0.01, MinLR: 0.001}, 100, 0, 100, 0.001},
		{"warmup", Optim{Schedule: "constant", LR: 0.01, Warmup: 10}, 4, 0, 100, 0.005},
		{"after warmup", Optim{Schedule: "constant", LR: 0.01, Warmup: 10}, 10, 0, 100, 0.01},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := tc.o.rate(tc.step, tc.epoch, tc.total); math.Abs(got-tc.want) > 1e-12 {
				t.Fatalf("rate %g, want %g", got, tc.want)
			}
		})
	}
}

// TestFusedStep checks that the optimizer step, which gathers each
// transformer row's gradient and updates it at once, equals the plain
// order: full gradients, then Adam on every tensor (bit for bit), and that
// clipping holds. The factorized cases check the virtual rows' gradients
// (engine.virtualGrads), their own Adam constants and the folded matrix
// the step rebuilds against Model.sync's.
func TestFusedStep(t *testing.T) {
	recs := ptrs(testRecords(t, 700))
	for _, name := range []string{"screlu-leorik-buckets", "sf12", "rengar", "screlu-leorik-buckets/factorized", "sf12-kings/factorized"} {
		t.Run(name, func(t *testing.T) {
			name, factorized := strings.CutSuffix(name, "/factorized")
			var opts []Option
			if factorized {
				opts = append(opts, Factorized())
			}
			spec := tinySpec(t, name)
			a, _ := NewModel(spec, 4, opts...)
			b, _ := NewModel(spec, 4, opts...)
			loss := Loss{Kind: "mpe", Power: 2.5, Scale: 2.5 / 400, Lambda: 0.5}
			o := DefaultConfig().Optim
			ea, eb := newEngine(a, loss, 2), newEngine(b, loss, 1)
			for step := 1; step <= 3; step++ {
				h := &hyper{o: &o, lr: 0.05, step: step}
				la := ea.step(recs, h)
				lb, grads := eb.gradients(recs)
				if la != lb {
					t.Fatalf("step %d: loss %g vs %g", step, la, lb)
				}
				for k, p := range b.all {
					part := partHead
					if p == b.ft {
						part = partFT
					}
					ad := h.adam(p, part)
					if p == b.ft && b.factor > 0 {
						// the virtual rows have their own decay scope
						n := b.realRows * b.width
						vecAdam(&Param{Data: p.Data[:n], M: p.M[:n], V: p.V[:n]}, grads[k][:n], &ad)
						ad = h.adam(p, partVirtual)
						vecAdam(&Param{Data: p.Data[n:], M: p.M[n:], V: p.V[n:]}, grads[k][n:], &ad)
						continue
					}
					vecAdam(p, grads[k], &ad)
				}
				b.sync()
				sameTensors(t, a, b)
				if !slices.Equal(a.folded, b.folded) {
					t.Fatalf("step %d: the step's folded matrix differs from sync's", step)
				}
			}
			for _, p := range a.all {
				for i, v := range p.Data {
					if v > p.Clip || v < -p.Clip {
						t.Fatalf("%s[%d] = %g beyond its clip %g", p.Name, i, v, p.Clip)
					}
				}
			}
		})
	}
}

// TestDecayScope checks which weights each decay scope shrinks: one step
// from the same (perturbed) weights with and without decay must change
// exactly the tensors and rows in scope, and never a bias.
func TestDecayScope(t *testing.T) {
	recs := ptrs(testRecords(t, 300))
	spec := tinySpec(t, "sf12-kings")
	step := func(scope string, wd float64) *Model {
		m, err := NewModel(spec, 3, Factorized())
		if err != nil {
			t.Fatal(err)
		}
		// Every row away from zero, the virtual ones too, so that decay shows.
		perturb(m, rand.New(rand.NewPCG(5, 6)), 0.05)
		o := DefaultConfig().Optim
		o.WeightDecay, o.DecayScope = wd, scope
		if err := o.Validate(); err != nil {
			t.Fatal(err)
		}
		newEngine(m, Loss{Kind: "mpe", Power: 2.5, Scale: 2.5 / 400, Lambda: 0.5}, 1).step(recs, &hyper{o: &o, lr: 0.05, step: 1})
		return m
	}
	ref := step("all", 0)
	W := ref.width
	same := func(a, b []float32) bool { return slices.Equal(a, b) }
	for _, tc := range []struct {
		scope                     string
		ownRows, virtRows, headWs bool // which parts must have decayed
	}{
		{"", true, true, true},
		{"all", true, true, true},
		{"transformer", true, true, false},
		{"buckets", true, false, false},
	} {
		t.Run("scope="+tc.scope, func(t *testing.T) {
			m := step(tc.scope, 1)
			own := same(m.ft.Data[:m.realRows*W], ref.ft.Data[:ref.realRows*W])
			virt := same(m.ft.Data[m.realRows*W:], ref.ft.Data[ref.realRows*W:])
			if own == tc.ownRows || virt == tc.virtRows {
				t.Errorf("transformer rows decayed: own %v, virtual %v; want %v, %v", !own, !virt, tc.ownRows, tc.virtRows)
			}
			for k, p := range m.all {
				if p == m.ft {
					continue
				}
				unchanged := same(p.Data, ref.all[k].Data)
				if !p.Decay && !unchanged {
					t.Errorf("%s (no decay) changed", p.Name)
				}
				if p.Decay && unchanged == tc.headWs {
					t.Errorf("%s decayed %v, want %v", p.Name, !unchanged, tc.headWs)
				}
			}
		})
	}
	o := DefaultConfig().Optim
	o.DecayScope = "head"
	if err := o.Validate(); err == nil || !strings.Contains(err.Error(), "decay scope") {
		t.Errorf("unknown scope: %v", err)
	}
}

// TestLambdaSchedule: lambda moves linearly from Lambda at the first step
// to LambdaEnd at the last, and stays fixed without LambdaEnd.
func TestLambdaSchedule(t *testing.T) {
	end := 0.25
	l := Loss{Kind: "mpe", Power: 2.5, Scale: 0.01, Lambda: 1, LambdaEnd: &end}
	for _, tc := range []struct {
		step, total int
		want        float64
	}{{0, 5, 1}, {1, 5, 0.8125}, {2, 5, 0.625}, {4, 5, 0.25}, {9, 5, 0.25}, {0, 1, 1}} {
		if got := l.lambdaAt(tc.step, tc.total); math.Abs(got-tc.want) > 1e-12 {
			t.Errorf("step %d of %d: lambda %g, want %g", tc.step, tc.total, got, tc.want)
		}
	}
	fixed := Loss{Kind: "mpe", Power: 2.5, Scale: 0.01, Lambda: 0.7}
	if got := fixed.lambdaAt(3, 10); got != 0.7 {
		t.Errorf("no schedule: lambda %g, want 0.7", got)
	}
	bad := -0.5
	l.LambdaEnd = &bad
	if l.Validate() == nil {
		t.Error("final lambda -0.5 accepted")
	}
}
