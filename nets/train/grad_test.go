package train

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/nets/train/vec"
)

// tinySpecs are small architectures covering every trainable layer kind:
// the three linear activations, both input modes, king buckets with
// mirroring, output buckets, the sf12 dense head and Rengar.
var tinySpecs = map[string]string{
	"screlu-768-threats": `name = "t-screlu-threats"
[net]
format = "nnuelab"
[features]
set = "chess768"
threats = "full"
[accumulator]
width = 32
[head]
type = "linear"
activation = "screlu"
[quant]
qa = 255
qb = 64
scale = 400
`,
	"screlu-768": `name = "t-screlu"
[net]
format = "nnuelab"
[features]
set = "chess768"
[accumulator]
width = 32
[head]
type = "linear"
activation = "screlu"
[quant]
qa = 255
qb = 64
scale = 400
`,
	"screlu-leorik-buckets": `name = "t-leorik"
[net]
format = "leorik"
[features]
set = "leorik"
[accumulator]
width = 32
[head]
type = "linear"
activation = "screlu"
output_buckets = 8
bucket_selector = "(pieces-2)/4"
[quant]
qa = 255
qb = 64
scale = 400
[output]
cp_num = 100
cp_den = 306
`,
	"relu-koivisto16": `name = "t-koivisto"
[net]
format = "koivisto-int16"
[features]
set = "koivisto16"
[accumulator]
width = 32
[head]
type = "linear"
activation = "relu"
[quant]
qa = 32
qb = 128
`,
	"crelu-stm-only": `name = "t-crelu"
[net]
format = "nnuelab"
[features]
set = "chess768"
plane_order = "own-second"
[accumulator]
width = 32
[head]
type = "linear"
activation = "crelu"
inputs = "stm"
[quant]
qa = 255
qb = 64
scale = 400
`,
	"sf12-pad": `name = "t-halfkp-pad"
[net]
format = "sf12"
[features]
set = "halfkp"
king_buckets = [` + strings.TrimSuffix(strings.Repeat("0, ", 64), ", ") + `]
[accumulator]
width = 32
[head]
type = "sf12"
layers = [8, 16, 1]
[quant]
qa = 127
qb = 64
weight_shift = 6
output_divisor = 16
[output]
cp_num = 100
cp_den = 208
`,
	"sf12-kings": `name = "t-halfkp-kings"
[net]
format = "sf12"
[features]
set = "halfkp"
[accumulator]
width = 32
[head]
type = "sf12"
layers = [8, 8, 1]
[quant]
qa = 127
qb = 64
weight_shift = 6
output_divisor = 16
[output]
perspective = "stm"
cp_num = 100
cp_den = 208
`,
	"sf12": `name = "t-halfkp"
[net]
format = "sf12"
[features]
set = "halfkp"
king_buckets = [` + strings.TrimSuffix(strings.Repeat("0, ", 64), ", ") + `]
[accumulator]
width = 32
[head]
type = "sf12"
layers = [32, 32, 1]
[quant]
qa = 127
qb = 64
weight_shift = 6
output_divisor = 16
[output]
cp_num = 100
cp_den = 208
`,
}

func tinySpec(t testing.TB, name string) *archs.Spec {
	t.Helper()
	if name == "rengar" {
		s, err := archs.Load("rengar")
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	s, err := archs.Parse(name+".toml", []byte(tinySpecs[name]))
	if err != nil {
		t.Fatal(err)
	}
	return s
}

var (
	sampleOnce sync.Once
	sample     []datasets.Record
	sampleErr  error
)

// testRecords returns the first n positions of testdata/sample.txt.zst
// (20,000 positions of Stockfish 15.1 self-play, every 56th line of
// datasets/sf151-selfplay/sf151-selfplay.txt.zst).
func testRecords(t testing.TB, n int) []datasets.Record {
	t.Helper()
	sampleOnce.Do(func() {
		sample, _, sampleErr = readRecords("testdata/sample.txt.zst", nil, 0, false, nil, nil, nil)
	})
	if sampleErr != nil {
		t.Fatal(sampleErr)
	}
	if n > len(sample) {
		t.Fatalf("sample has %d positions, %d wanted", len(sample), n)
	}
	return sample[:n]
}

func ptrs(recs []datasets.Record) []*datasets.Record {
	out := make([]*datasets.Record, len(recs))
	for i := range recs {
		out[i] = &recs[i]
	}
	return out
}

// TestGradientCheck compares the analytic gradient of every parameter kind
// with central finite differences of the loss, for every layer kind and
// loss. Entries where a clamp's kink lies within the step (the two step
// sizes disagree) are skipped; most must be checked.
func TestGradientCheck(t *testing.T) {
	type tc struct {
		spec, loss string
		factor     bool
	}
	var cases []tc
	for name := range tinySpecs {
		cases = append(cases, tc{name, "mpe", false})
	}
	cases = append(cases, tc{"rengar", "mpe", false}, tc{"screlu-768", "mse", false}, tc{"screlu-768", "result", false},
		tc{"sf12", "result", false}, tc{"rengar", "result", false}, tc{"relu-koivisto16", "mse", false},
		tc{"relu-koivisto16", "mpe", true}, tc{"sf12-kings", "mpe", true}, tc{"screlu-leorik-buckets", "mse", true})
	recs := testRecords(t, 24)
	for _, c := range cases {
		name := c.spec + "/" + c.loss
		if c.factor {
			name += "/factorized"
		}
		t.Run(name, func(t *testing.T) {
			spec := tinySpec(t, c.spec)
			var opts []Option
			if c.factor {
				opts = append(opts, Factorized())
			}
			m, err := NewModel(spec, 11, opts...)
			if err != nil {
				t.Fatal(err)
			}
			// A partly trained state: random small offsets everywhere, so
			// that biases and tempo are not zero.
			rng := rand.New(rand.NewPCG(5, 6))
			perturb(m, rng, 0.02)
			loss := Loss{Kind: c.loss, Power: 2.5, Scale: 2.5 / 400, Lambda: 0.5}
			e := newEngine(m, loss, 2)
			_, grads := e.gradients(ptrs(recs))
			f := func() float64 { return e.evalLoss(recs) }
			checked, skipped := 0, 0
			for k, p := range m.all {
				idx := pickIndices(m, p, grads[k], rng)
				for _, i := range idx {
					// Finite differences at three step sizes. Agreement with
					// any one passes; a real error shows as smooth numeric
					// values (the steps agree with each other) that all
					// disagree with the analytic one. Steps that disagree
					// among themselves straddle a clamp's kink: skipped.
					a := float64(grads[k][i])
					var num []float64
					for _, h := range []float64{1e-3, 3e-4, 1e-4} {
						num = append(num, central(m, p, i, h*float64(p.LRMult), f))
					}
					scale := math.Abs(a)
					for _, n := range num {
						scale = math.Max(scale, math.Abs(n))
					}
					tol := 0.01*scale + 1e-9
					agree := false
					for _, n := range num {
						agree = agree || math.Abs(a-n) <= tol
					}
					smooth := math.Abs(num[0]-num[1]) <= tol && math.Abs(num[1]-num[2]) <= tol
					switch {
					case agree:
						checked++
					case smooth:
						checked++
						t.Errorf("%s[%d]: analytic %.6g, numeric %.6g %.6g %.6g", p.Name, i, a, num[0], num[1], num[2])
					default:
						skipped++
					}
				}
			}
			t.Logf("%d entries checked, %d skipped at kinks", checked, skipped)
			if checked < 4*skipped || checked < 20 {
				t.Fatalf("only %d entries checked (%d skipped)", checked, skipped)
			}
		})
	}
}

// pickIndices chooses up to 8 entries of p with a non-negligible gradient
// and, for the transformer, one row that no position uses (its gradient
// must be exactly zero).
func pickIndices(m *Model, p *Param, g []float32, rng *rand.Rand) []int {
	var nz []int
	for i, v := range g {
		if v != 0 {
			nz = append(nz, i)
		}
	}
	rng.Shuffle(len(nz), func(a, b int) { nz[a], nz[b] = nz[b], nz[a] })
	if len(nz) > 8 {
		nz = nz[:8]
	}
	for i, v := range g {
		if v == 0 {
			nz = append(nz, i)
			break
		}
	}
	return nz
}

// central is the central difference of f in p.Data[i] with step h.
func central(m *Model, p *Param, i int, h float64, f func() float64) float64 {
	old := p.Data[i]
	p.Data[i] = old + float32(h)
	m.sync()
	up := f()
	p.Data[i] = old - float32(h)
	m.sync()
	down := f()
	p.Data[i] = old
	m.sync()
	hp := float64(old+float32(h)) - float64(old-float32(h)) // the step float32 really took
	return (up - down) / hp
}

func vecAdam(p *Param, g []float32, a *vec.Adam) { vec.AdamUpdate(p.Data, p.M, p.V, g, a) }

// TestBuildLists compares the parallel counting sort with a plain one.
func TestBuildLists(t *testing.T) {
	recs := ptrs(testRecords(t, 1500))
	for _, threads := range []int{1, 2, 5} {
		m, _ := NewModel(tinySpec(t, "screlu-leorik-buckets"), 1)
		e := newEngine(m, Loss{Kind: "mpe", Power: 2.5, Scale: 0.01, Lambda: 0.5}, threads)
		e.gradients(recs) // fills the feature lists and builds the gather lists
		want := map[int][]int32{}
		for s := 0; s < 2*len(recs); s++ {
			for _, f := range e.feats[s*e.m.slotFeatures():][:e.nfeat[s]] {
				want[int(f)] = append(want[int(f)], int32(s))
			}
		}
		for f := 0; f < m.rows; f++ {
			if got := e.rowsOf(f); fmt.Sprint(got) != fmt.Sprint(want[f]) && !(len(got) == 0 && len(want[f]) == 0) {
				t.Fatalf("threads %d feature %d: %v, want %v", threads, f, got, want[f])
			}
		}
	}
}

// TestFactorizedFold: a factorized model and the plain model of its folded
// tensors evaluate alike, the folded net has the feature set's rows, and a
// feature set without king buckets refuses the factorizer.
func TestFactorizedFold(t *testing.T) {
	recs := testRecords(t, 200)
	for _, name := range []string{"relu-koivisto16", "sf12-kings", "screlu-leorik-buckets"} {
		t.Run(name, func(t *testing.T) {
			spec := tinySpec(t, name)
			m, err := NewModel(spec, 3, Factorized())
			if err != nil {
				t.Fatal(err)
			}
			if FactorizeFor(spec, "auto") != true || !m.Factorized() {
				t.Fatalf("%s: auto does not factorize a king-bucketed set", name)
			}
			// Train-like state: every row, the virtual ones too, moved.
			perturb(m, rand.New(rand.NewPCG(1, 2)), 0.05)
			plain, err := NewModel(spec, 3)
			if err != nil {
				t.Fatal(err)
			}
			ts := m.Tensors()
			if ts[0].Shape[0] != spec.Features.Size() {
				t.Fatalf("folded transformer has %d rows, the feature set %d", ts[0].Shape[0], spec.Features.Size())
			}
			if err := plain.SetTensors(ts); err != nil {
				t.Fatal(err)
			}
			for i := range recs {
				a, b := m.Evaluate(&recs[i]), plain.Evaluate(&recs[i])
				if math.Abs(float64(a-b)) > 1e-3*math.Max(1, math.Abs(float64(a))) {
					t.Fatalf("position %d: factorized %g, folded %g", i, a, b)
				}
			}
		})
	}
	if _, err := NewModel(tinySpec(t, "screlu-768"), 1, Factorized()); err == nil {
		t.Error("chess768 accepted the factorizer")
	}
	if FactorizeFor(tinySpec(t, "screlu-768"), "auto") {
		t.Error("auto factorizes a set without king buckets")
	}
}

// perturb moves every weight of m, biases and virtual rows included, by a
// uniform offset of up to scale units of its tensor, drawn from rng: a
// train-like state in which no tensor is at its initial value.
func perturb(m *Model, rng *rand.Rand, scale float32) {
	for _, p := range m.all {
		for i := range p.Data {
			p.Data[i] += (2*rng.Float32() - 1) * scale * p.LRMult
		}
	}
	m.sync()
}
