package manifest

import (
	"errors"
	"github.com/nnuelab/nnuelab/nets/train"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/experiments/internal/exptest"
)

func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		name, toml string
		key        string // the key the error must name ("" = none)
		reason     string // a part of the reason
	}{
		{"syntax", "metrics = [", "", "line 1"},
		{"unknown top key", "colour = 1\n" + exptest.Minimal, "colour", "unknown key"},
		{"key case", "Metrics = [\"agreement\"]\n[base]\narch = \"koivisto-7.4\"\n", "Metrics", "lower case"},
		{"table case", "metrics = [\"agreement\"]\n[BASE]\narch = \"koivisto-7.4\"\n", "BASE", "lower case"},
		{"unknown key in base", exptest.Minimal + "colour = 1\n", "base.colour", "unknown key"},
		{"unknown base key", "metrics = [\"agreement\"]\n[base]\narch = \"koivisto-7.4\"\nnett = \"x\"\n", "base.nett", "unknown key"},
		{"unknown variant key", exptest.Minimal + "[[variant]]\noverride = [\"history=1\"]\n", "variant.override", "unknown key"},
		{"wrong type", "metrics = \"agreement\"\n[base]\narch = \"koivisto-7.4\"\n", "metrics", "line 1: incompatible types"},
		{"no metrics", "[base]\narch = \"koivisto-7.4\"\n", "metrics", "nothing to measure"},
		{"unknown metric", "metrics = [\"speed\"]\n[base]\narch = \"koivisto-7.4\"\n", "metrics", `unknown metric "speed"`},
		{"metric twice", "metrics = [\"agreement\", \"agreement\"]\n[base]\narch = \"koivisto-7.4\"\n", "metrics", "twice"},
		{"no base arch", "metrics = [\"agreement\"]\n[base]\n", "base.arch", "missing"},
		{"unknown arch", "metrics = [\"agreement\"]\n[base]\narch = \"koivisto-99\"\n", "base", "unknown architecture"},
		{"bad override key", exptest.Minimal + "[[variant]]\noverrides = [\"histroy=1\"]\n", "variant[0]", "unknown key"},
		{"bad override value", exptest.Minimal + "[[variant]]\noverrides = [\"history=-1\"]\n", "variant[0]", "history"},
		// A head's rule (archs): the variant, the key and the rule named.
		{"head rule", "metrics = [\"agreement\"]\n[base]\narch = \"sf15.1\"\n[[variant]]\nname = \"qa64\"\noverrides = [\"quant.qa=64\"]\n", "variant[0]", `variant "qa64": builtin:sf15.1.toml (overridden): key "quant.qa": the sf15 head needs quant.qa = 127`},
		{"override without =", exptest.Minimal + "[[variant]]\nname = \"x\"\noverrides = [\"history\"]\n", "variant[0]", "key=value"},
		{"feature set alone", exptest.Minimal + "[[variant]]\noverrides = [\"features.set=\\\"leorik\\\"\"]\n", "variant[0]", "own arch"},
		{"bad name", "name = \"a b\"\n" + exptest.Minimal, "name", "letters"},
		{"duplicate variant", exptest.Minimal + "[[variant]]\nname = \"base\"\noverrides = [\"history=1\"]\n", "variant[0].name", "also the name"},
		{"seed twice", "seeds = [1, 1]\n" + exptest.Minimal, "seeds", "twice"},
		{"negative seed", "seeds = [-1]\n" + exptest.Minimal, "seeds", "negative"},
		{"no seeds", "seeds = []\n" + exptest.Minimal, "seeds", "at least one"},
		{"speed needs variants", "metrics = [\"eval_speed\"]\n[base]\narch = \"koivisto-7.4\"\n", "variant", "at least one"},
		{"bench needs variants", "metrics = [\"agreement\", \"bench_nps\"]\n[base]\narch = \"koivisto-7.4\"\n", "variant", "at least one"},
		{"speed rounds", exptest.Minimal + "[speed]\nrounds = 0\n", "speed.rounds", "1..1000"},
		{"speed nodes", exptest.Minimal + "[speed]\nnodes = 5\n", "speed.nodes", "100.."},
		{"loss kind", exptest.Minimal + "[loss]\nkind = \"l1\"\n", "loss.kind", "unknown loss"},
		{"mpe power without training", exptest.Minimal + "[loss]\npower = 0.5\n", "loss.power", "[1, 10]"},
		{"loss lambda_end is [train]'s", exptest.Minimal + "[loss]\nlambda_end = 0.5\n", "loss.lambda_end", "unknown key"},
		{"loss scale", exptest.Minimal + "[loss]\nscale = 2.0\n", "loss.scale", "(0, 1)"},
		{"grid not a list", exptest.Minimal + "[grid]\nhistory = 2\n", "grid.history", "list"},
		{"grid empty", exptest.Minimal + "[grid]\nhistory = []\n", "grid.history", "at least one"},
		{"grid bad key", exptest.Minimal + "[grid]\nhistroy = [1, 2]\n", "variant[0]", "unknown key"},
		{"elo without section", "metrics = [\"elo\"]\n[base]\narch = \"koivisto-7.4\"\n[[variant]]\noverrides = [\"history=1\"]\n", "elo", "needs an [elo] section"},
		{"elo section without metric", exptest.Minimal + "[elo]\ngames = 2\nnodes = 100\n", "elo", "without"},
		{"elo odd games", "metrics = [\"elo\"]\n[base]\narch = \"koivisto-7.4\"\n[[variant]]\noverrides = [\"history=1\"]\n[elo]\ngames = 3\nnodes = 100\n", "elo.games", "even"},
		{"elo no limit", "metrics = [\"elo\"]\n[base]\narch = \"koivisto-7.4\"\n[[variant]]\noverrides = [\"history=1\"]\n[elo]\ngames = 2\n", "elo.tc", "time control"},
		{"elo bad tc", "metrics = [\"elo\"]\n[base]\narch = \"koivisto-7.4\"\n[[variant]]\noverrides = [\"history=1\"]\n[elo]\ngames = 2\ntc = \"fast\"\n", "elo.tc", ""},
		{"elo games and sprt", "metrics = [\"elo\"]\n[base]\narch = \"koivisto-7.4\"\n[[variant]]\noverrides = [\"history=1\"]\n[elo]\ngames = 2\ntc = \"1+0.01\"\n[elo.sprt]\nelo0 = 0\nelo1 = 5\n", "elo.games", "not both"},
		{"elo opponent", "metrics = [\"elo\"]\n[base]\narch = \"koivisto-7.4\"\n[[variant]]\noverrides = [\"history=1\"]\n[elo]\ngames = 2\nnodes = 100\nopponent = \"stockfish\"\n", "elo.opponent", "not one of base, classical"},
		{"sprt bounds", "metrics = [\"elo\"]\n[base]\narch = \"koivisto-7.4\"\n[[variant]]\noverrides = [\"history=1\"]\n[elo]\nmax_games = 100\ntc = \"1+0.01\"\n[elo.sprt]\nelo0 = 5\nelo1 = 0\n", "elo.sprt.elo1", "above elo0"},
		{"elo variants unknown", "metrics = [\"elo\"]\n[base]\narch = \"koivisto-7.4\"\n[[variant]]\nname = \"H1\"\noverrides = [\"history=1\"]\n[elo]\ngames = 2\nnodes = 100\nvariants = [\"H2\"]\n", "elo.variants", "not a variant"},
		{"elo variants base", "metrics = [\"elo\"]\n[base]\nname = \"B\"\narch = \"koivisto-7.4\"\n[[variant]]\nname = \"H1\"\noverrides = [\"history=1\"]\n[elo]\ngames = 2\nnodes = 100\nvariants = [\"B\"]\n", "elo.variants", "the base"},
		{"elo variants twice", "metrics = [\"elo\"]\n[base]\narch = \"koivisto-7.4\"\n[[variant]]\nname = \"H1\"\noverrides = [\"history=1\"]\n[elo]\ngames = 2\nnodes = 100\nvariants = [\"H1\", \"H1\"]\n", "elo.variants", "twice"},
		{"sprt model", "metrics = [\"elo\"]\n[base]\narch = \"koivisto-7.4\"\n[[variant]]\noverrides = [\"history=1\"]\n[elo]\nmax_games = 100\ntc = \"1+0.01\"\n[elo.sprt]\nelo0 = 0\nelo1 = 5\nmodel = \"bayes\"\n", "elo.sprt.model", "not one of"},
		{"train without data", exptest.Minimal + "[train]\nepochs = 1\n", "train", "needs [data]"},
		{"train bad optimizer", exptest.Minimal + "[data]\ntrain = [\"x.txt\"]\n[train]\noptimizer = \"sgd\"\n", "train.optimizer", "unknown optimizer"},
		{"train step without gamma", exptest.Minimal + "[data]\ntrain = [\"x.txt\"]\n[train]\nschedule = \"step\"\nstep_epochs = 2\n", "train.gamma", "gamma"},
		{"train decay", exptest.Minimal + "[data]\ntrain = [\"x.txt\"]\n[train]\nlr = 0.01\nweight_decay = 100.0\n", "train.weight_decay", "wd*lr < 1"},
		{"variant train without section", exptest.Minimal + "[[variant]]\nname = \"wd\"\n[variant.train]\nweight_decay = 0.5\n", "variant[0].train", "[train] section"},
		{"variant train with net", exptest.Minimal + "[data]\ntrain = [\"x.txt\"]\n[train]\n[[variant]]\nname = \"wd\"\nnet = \"x.nnue\"\n[variant.train]\nweight_decay = 0.5\n", "variant[0].train", "not trained"},
		{"train decay scope", exptest.Minimal + "[data]\ntrain = [\"x.txt\"]\n[train]\ndecay_scope = \"head\"\n", "train.decay_scope", "(all, transformer, buckets)"},
		{"variant decay scope", exptest.Minimal + "[data]\ntrain = [\"x.txt\"]\n[train]\n[[variant]]\nname = \"s\"\n[variant.train]\ndecay_scope = \"rows\"\n", "variant[0].train.decay_scope", "unknown decay scope"},
		{"variant train bad value", exptest.Minimal + "[data]\ntrain = [\"x.txt\"]\n[train]\n[[variant]]\nname = \"e\"\n[variant.train]\nepochs = 0\n", "variant[0].train.epochs", ">= 1"},
		{"negative shuffle buffer", exptest.Minimal + "[data]\ntrain = [\"x.txt\"]\n[train]\nshuffle_buffer = -1\n", "train.shuffle_buffer", "out of range 0.."},
		{"variant negative shuffle buffer", exptest.Minimal + "[data]\ntrain = [\"x.txt\"]\n[train]\n[[variant]]\nname = \"e\"\n[variant.train]\nshuffle_buffer = -5\n", "variant[0].train.shuffle_buffer", "out of range 0.."},
		// The trainer's rules (train.Config.ValidateSettings), where the
		// manifest's own checks used to differ: batch up to 1<<20, not
		// 1<<22; an mpe power in [1, 10], not (0, 10].
		{"train batch over the trainer's", exptest.Minimal + "[data]\ntrain = [\"x.txt\"]\n[train]\nbatch = 2097152\n", "train.batch", "out of range 1..1048576"},
		{"variant batch", exptest.Minimal + "[data]\ntrain = [\"x.txt\"]\n[train]\n[[variant]]\nname = \"b\"\n[variant.train]\nbatch = 0\n", "variant[0].train.batch", "out of range"},
		{"mpe power below 1", exptest.Minimal + "[data]\ntrain = [\"x.txt\"]\n[train]\n[loss]\npower = 0.5\n", "loss.power", "[1, 10]"},
		{"train lambda", exptest.Minimal + "[data]\ntrain = [\"x.txt\"]\n[train]\nlambda = 2.0\n", "train.lambda", "[0, 1]"},
		{"variant lambda", exptest.Minimal + "[data]\ntrain = [\"x.txt\"]\n[train]\n[[variant]]\nname = \"l\"\n[variant.train]\nlambda = -1.0\n", "variant[0].train.lambda", "[0, 1]"},
		{"train threads", exptest.Minimal + "[data]\ntrain = [\"x.txt\"]\n[train]\nthreads = 5000\n", "train.threads", "0..1024"},
		{"train min_lr over lr", exptest.Minimal + "[data]\ntrain = [\"x.txt\"]\n[train]\nlr = 0.01\nmin_lr = 0.1\n", "train.min_lr", "min lr <= lr"},
		{"shuffle buffer with max positions", exptest.Minimal + "[data]\ntrain = [\"x.txt\"]\nmax_positions = 10\n[train]\nshuffle_buffer = 100\n", "train.shuffle_buffer", "prefix"},
		{"train qat", exptest.Minimal + "[data]\ntrain = [\"x.txt\"]\n[train]\nqat = \"maybe\"\n", "train.qat", "not one of auto, on, off"},
		{"train beta is not a key", exptest.Minimal + "[data]\ntrain = [\"x.txt\"]\n[train]\nbeta1 = 0.5\n", "train.beta1", "unknown key"},
		{"variant train bad filter", exptest.Minimal + "[data]\ntrain = [\"x.txt\"]\n[train]\n[[variant]]\nname = \"f\"\n[variant.train]\nfilter = \"one-in=0\"\n", "variant[0].train.filter", "one-in"},
		{"variant train unknown key", exptest.Minimal + "[data]\ntrain = [\"x.txt\"]\n[train]\n[[variant]]\nname = \"e\"\n[variant.train]\nmomentum = 5\n", "variant.train.momentum", "unknown key"},
		{"variant train bad lambda", exptest.Minimal + "[data]\ntrain = [\"x.txt\"]\n[train]\n[[variant]]\nname = \"l\"\n[variant.train]\nlambda_end = 1.5\n", "variant[0].train.lambda_end", "[0, 1]"},
		{"val fraction", exptest.Minimal + "[data]\ntrain = [\"x.txt\"]\nval_fraction = 1.5\n", "data.val_fraction", "[0, 1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("m.toml", t.TempDir(), []byte(tc.toml))
			if err == nil {
				t.Fatalf("no error for\n%s", tc.toml)
			}
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("error %v is not an *Error", err)
			}
			if e.File != "m.toml" || !strings.HasPrefix(err.Error(), "m.toml: ") {
				t.Errorf("error %q does not name the file", err)
			}
			if e.Key != tc.key {
				t.Errorf("error %q names key %q, want %q", err, e.Key, tc.key)
			}
			if !strings.Contains(e.Reason, tc.reason) {
				t.Errorf("error %q: reason lacks %q", err, tc.reason)
			}
		})
	}
}

func TestParseDefaultsAndVariants(t *testing.T) {
	dir := t.TempDir()
	m, err := Parse(filepath.Join(dir, "abl.toml"), dir, []byte(`
metrics = ["agreement", "eval_speed"]
[base]
arch = "koivisto-7.4"
overrides = ["refresh_cache=true"]
net = "k.net"
[[variant]]
label = "H=1"
overrides = ["history=1"]
[[variant]]
name = "leo"
arch = "leorik-3.1"
[grid]
history = [2, 4]
"quant.qa" = [64]
`))
	if err != nil {
		t.Fatal(err)
	}
	if m.Name != "abl" || !reflect.DeepEqual(m.Seeds, []uint64{1}) || m.Base.Name != "base" {
		t.Errorf("defaults: name %q seeds %v base %q", m.Name, m.Seeds, m.Base.Name)
	}
	if m.Speed != (SpeedSpec{Positions: 8, Nodes: 10000, Rounds: 5, BenchDepth: 9}) {
		t.Errorf("speed defaults %+v", m.Speed)
	}
	if m.Loss != (train.Loss{Kind: "mpe", Power: 2.5, Scale: 2.5 / 400, Lambda: 0.5}) {
		t.Errorf("loss defaults %+v", m.Loss)
	}
	want := []VariantSpec{
		// No arch: the base's arch, overrides and net under its own
		// (the name comes from its own overrides).
		{Name: "history=1", Label: "H=1", Arch: "koivisto-7.4", Overrides: []string{"refresh_cache=true", "history=1"}, Net: "k.net"},
		// Its own arch: nothing inherited.
		{Name: "leo", Label: "leo", Arch: "leorik-3.1"},
		// The grid: sorted keys, one variant per combination.
		{Name: "history=2_qa=64", Label: "history=2, qa=64", Arch: "koivisto-7.4", Overrides: []string{"refresh_cache=true", "history=2", "quant.qa=64"}, Net: "k.net"},
		{Name: "history=4_qa=64", Label: "history=4, qa=64", Arch: "koivisto-7.4", Overrides: []string{"refresh_cache=true", "history=4", "quant.qa=64"}, Net: "k.net"},
	}
	// Each variant keeps the architecture it was checked with: its
	// overrides applied once.
	got := append([]VariantSpec(nil), m.Variants...)
	for i := range got {
		if got[i].spec == nil {
			t.Fatalf("variant %s has no spec", got[i].Name)
		}
		if s, err := m.Spec(&m.Variants[i]); err != nil || s != got[i].spec {
			t.Errorf("Spec(%s) = %p, %v; want the variant's own %p", got[i].Name, s, err, got[i].spec)
		}
		got[i].spec = nil
	}
	if h := m.Variants[3].spec.History; h != 4 || !m.Variants[3].spec.RefreshCache || m.Variants[3].spec.Quant.QA != 64 {
		t.Errorf("grid variant's spec: history %d, refresh cache %v, qa %d", h, m.Variants[3].spec.RefreshCache, m.Variants[3].spec.Quant.QA)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("variants\n got %+v\nwant %+v", got, want)
	}
	if got := m.Path("k.net"); got != filepath.Join(dir, "k.net") {
		t.Errorf("Path = %q", got)
	}
	spec, err := m.Spec(&m.Variants[2])
	if err != nil {
		t.Fatal(err)
	}
	if spec.History != 2 || spec.Quant.QA != 64 || !spec.RefreshCache || spec.Name != "koivisto-7.4" {
		t.Errorf("grid variant spec: history %d qa %d cache %v name %s", spec.History, spec.Quant.QA, spec.RefreshCache, spec.Name)
	}
}

// TestTrainFor checks that a variant's [variant.train] overrides only the
// keys it names, and that a default min_lr follows an overridden lr.
func TestTrainFor(t *testing.T) {
	m, err := Parse("m.toml", t.TempDir(), []byte(exptest.Minimal+`[[variant]]
name = "wd"
[variant.train]
weight_decay = 2.0
lr = 0.0005
[[variant]]
name = "short"
[variant.train]
epochs = 3
min_lr = 0.0
[[variant]]
name = "thin"
[variant.train]
filter = "default,one-in=4"
[data]
train = ["x.txt"]
[train]
epochs = 8
weight_decay = 0.01
filter = "default"
`))
	if err != nil {
		t.Fatal(err)
	}
	base, wd, short := m.TrainFor(&m.Base), m.TrainFor(&m.Variants[0]), m.TrainFor(&m.Variants[1])
	if base.Epochs != 8 || base.WeightDecay != 0.01 || base.LR != 0.001 || base.MinLR != 0.001/100 {
		t.Errorf("base schedule %+v, want [train]'s", *base)
	}
	if wd.WeightDecay != 2 || wd.LR != 0.0005 || wd.MinLR != 0.0005/100 || wd.Epochs != 8 {
		t.Errorf("variant wd: %+v", *wd)
	}
	if short.Epochs != 3 || short.MinLR != 0 || short.WeightDecay != 0.01 || short.LR != 0.001 {
		t.Errorf("variant short: %+v", *short)
	}
	if m.Train.WeightDecay != 0.01 || m.Train.Epochs != 8 {
		t.Errorf("TrainFor changed [train]: %+v", *m.Train)
	}
	if got := m.Variants[0].Train.String(); got != "lr = 0.0005, weight_decay = 2" {
		t.Errorf("String() = %q", got)
	}
	thin := m.TrainFor(&m.Variants[2])
	if f, err := thin.DataFilter(); err != nil || f == nil || f.OneIn != 4 || f.MinPly != 16 || base.Filter != "default" || short.Filter != "default" {
		t.Errorf("variant thin: filter %q -> %+v (%v); base %q, short %q", thin.Filter, f, err, base.Filter, short.Filter)
	}
	if got := m.Variants[2].Train.String(); got != `filter = "default,one-in=4"` {
		t.Errorf("String() = %q", got)
	}
}

// TestTrainForRecipe: the recipe knobs of [variant.train] (lambda and its
// schedule, the learning-rate schedule, the batch) reach the trainer's
// config, and a variant without them trains as before.
func TestTrainForRecipe(t *testing.T) {
	m, err := Parse("m.toml", t.TempDir(), []byte(exptest.Minimal+`[[variant]]
name = "wdl"
[variant.train]
lambda = 1.0
lambda_end = 0.7
schedule = "step"
batch = 8192
[data]
train = ["x.txt"]
[train]
epochs = 8
step_epochs = 2
gamma = 0.3
`))
	if err != nil {
		t.Fatal(err)
	}
	base, v := m.TrainFor(&m.Base), m.TrainFor(&m.Variants[0])
	if base.Lambda != nil || base.LambdaEnd != nil || base.Schedule != "cosine" || base.Batch != 16384 {
		t.Errorf("base: lambda %v end %v schedule %s batch %d", base.Lambda, base.LambdaEnd, base.Schedule, base.Batch)
	}
	if v.Lambda == nil || *v.Lambda != 1 || v.LambdaEnd == nil || *v.LambdaEnd != 0.7 || v.Schedule != "step" || v.Batch != 8192 {
		t.Errorf("variant: %+v", *v)
	}
	if got := m.Variants[0].Train.String(); got != `lambda = 1, lambda_end = 0.7, schedule = "step", batch = 8192` {
		t.Errorf("String() = %q", got)
	}
}

// TestTrainLambda: [train] lambda sets every trained variant's target
// lambda (a variant's own overrides it); [loss] lambda, which val_loss
// uses, stays; a lambda outside [0, 1] is an error naming the key.
func TestTrainLambda(t *testing.T) {
	m, err := Parse("m.toml", t.TempDir(), []byte(exptest.Minimal+`[[variant]]
name = "own"
[variant.train]
lambda = 0.6
[data]
train = ["x.txt"]
[train]
lambda = 0.9
`))
	if err != nil {
		t.Fatal(err)
	}
	base, v := m.TrainFor(&m.Base), m.TrainFor(&m.Variants[0])
	if base.Lambda == nil || *base.Lambda != 0.9 || v.Lambda == nil || *v.Lambda != 0.6 || m.Loss.Lambda != 0.5 {
		t.Errorf("base lambda %v, variant %v, [loss] %v", base.Lambda, v.Lambda, m.Loss.Lambda)
	}
	_, err = Parse("m.toml", t.TempDir(), []byte(exptest.Minimal+"[data]\ntrain = [\"x.txt\"]\n[train]\nlambda = 1.5\n"))
	if err == nil || !strings.Contains(err.Error(), "train.lambda") {
		t.Errorf("lambda 1.5: %v", err)
	}
}

func TestTOMLLiteral(t *testing.T) {
	for _, tc := range []struct {
		in   any
		want string
	}{
		{int64(4), "4"}, {2.0, "2.0"}, {0.25, "0.25"}, {"none", `"none"`}, {true, "true"},
		{[]any{int64(0), int64(1)}, "[0, 1]"},
	} {
		got, err := tomlLiteral(tc.in)
		if err != nil || got != tc.want {
			t.Errorf("tomlLiteral(%#v) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := tomlLiteral(map[string]any{}); err == nil {
		t.Error("a table is not a grid value")
	}
}

// TestListed: the listed metrics in report order, which tasks they need
// and which the measure task runs.
func TestListed(t *testing.T) {
	for _, tc := range []struct {
		metrics []string
		listed  string
		tasks   string
		measure string
	}{
		{[]string{"elo", "val_loss"}, "val_loss elo", "measure elo", "val_loss"},
		{[]string{"saturation", "nodes_to_depth", "agreement"}, "agreement nodes_to_depth saturation", "measure activations", "agreement nodes_to_depth"},
		{[]string{"bench_nps", "sparsity"}, "sparsity bench_nps", "activations speed", ""},
	} {
		m := &Manifest{Metrics: tc.metrics}
		var listed, tasks []string
		for _, d := range m.Listed() {
			listed = append(listed, d.Name)
		}
		for _, k := range []string{"measure", "activations", "speed", "elo"} {
			if m.ListsTask(k) {
				tasks = append(tasks, k)
			}
		}
		if got := strings.Join(listed, " "); got != tc.listed {
			t.Errorf("%v: listed %q, want %q", tc.metrics, got, tc.listed)
		}
		if got := strings.Join(tasks, " "); got != tc.tasks {
			t.Errorf("%v: tasks %q, want %q", tc.metrics, got, tc.tasks)
		}
		if got := strings.Join(m.MeasureMetrics(), " "); got != tc.measure {
			t.Errorf("%v: measure task %q, want %q", tc.metrics, got, tc.measure)
		}
	}
}
