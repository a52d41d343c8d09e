package plan

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/experiments/manifest"
)

// manifestWithData writes a manifest given as text and the data file it
// trains on, a.txt, into a temporary folder and loads it.
func manifestWithData(t *testing.T, text string) *manifest.Manifest {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "m.toml")
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// trainManifest is a training manifest with one variant of its own
// weight decay.
func trainManifest(t *testing.T) *manifest.Manifest {
	return manifestWithData(t, `
metrics = ["quant_error"]
[base]
arch = "chess768"
[[variant]]
name = "wd"
[variant.train]
weight_decay = 0.1
[data]
train = ["a.txt"]
[train]
epochs = 1
`)
}

// The plan checks every training config with the trainer's own Validate,
// so that a bad value (here set after parsing, as the generations driver
// builds its manifests) fails the plan, a dry run included, with the
// manifest's file and key, not inside a task.
func TestPlanValidatesTraining(t *testing.T) {
	for _, tc := range []struct {
		name string
		edit func(m *manifest.Manifest)
		key  string
	}{
		{"batch", func(m *manifest.Manifest) { m.Train.Batch = 1 << 21 }, "train.batch"},
		{"schedule", func(m *manifest.Manifest) { m.Train.Optim.Schedule = "linear" }, "train.schedule"},
		{"loss power", func(m *manifest.Manifest) { m.Loss.Power = 0.5 }, "loss.power"},
		{"variant's lr", func(m *manifest.Manifest) { lr := 20.0; m.Variants[0].Train.LR = &lr }, "variant[0].train.lr"},
		{"variant's lambda", func(m *manifest.Manifest) { l := 3.0; m.Variants[0].Train.Lambda = &l }, "variant[0].train.lambda"},
		{"variant's filter", func(m *manifest.Manifest) { f := "one-in=0"; m.Variants[0].Train.Filter = &f }, "variant[0].train.filter"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := trainManifest(t)
			if _, err := New(m, Options{Out: t.TempDir(), Cache: t.TempDir()}); err != nil {
				t.Fatalf("the manifest as written: %v", err)
			}
			m = trainManifest(t)
			tc.edit(m)
			_, err := New(m, Options{Out: t.TempDir(), Cache: t.TempDir()})
			var me *manifest.Error
			if !errors.As(err, &me) {
				t.Fatalf("error %v, want a manifest error", err)
			}
			if me.File != m.File || me.Key != tc.key {
				t.Errorf("error names %s, key %q; want %s, key %q (%v)", me.File, me.Key, m.File, tc.key, err)
			}
		})
	}
}

// The trained nets' configs are the manifest's: [train], the variant's
// overrides, [loss] and [data] where the trainer keeps them.
func TestTrainConfigFromManifest(t *testing.T) {
	m := trainManifest(t)
	p, err := New(m, Options{Out: t.TempDir(), Cache: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	base := p.Task(p.Variants[0].Nets[0].Train).Train.Config
	wd := p.Task(p.Variants[1].Nets[0].Train).Train.Config
	if base.Epochs != 1 || base.Batch != 16384 || base.Optim.Kind != "adamw" || base.Optim.LR != 0.001 || base.Optim.MinLR != 0.001/100 {
		t.Errorf("base: epochs %d, batch %d, %s lr %g -> %g; want the manifest's 1, 16384, adamw 0.001 -> 1e-05", base.Epochs, base.Batch, base.Optim.Kind, base.Optim.LR, base.Optim.MinLR)
	}
	if base.Optim.WeightDecay != 0.01 || wd.Optim.WeightDecay != 0.1 {
		t.Errorf("weight decay: base %g, variant %g; want 0.01 and 0.1", base.Optim.WeightDecay, wd.Optim.WeightDecay)
	}
	if base.Loss.Kind != "mpe" || base.Loss.Lambda != 0.5 || base.ValFraction != 0.02 || base.Optim.DecayScope != "" || base.QAT != "off" {
		t.Errorf("base: loss %+v, val fraction %g, decay scope %q, qat %q", base.Loss, base.ValFraction, base.Optim.DecayScope, base.QAT)
	}
	if err := base.Validate(); err != nil {
		t.Errorf("the planned config does not validate: %v", err)
	}
}

// A variant that changes only a runtime setting (history, refresh_cache)
// trains the base's net: the same key, one training task; its arch hash,
// which its measurements depend on, stays its own. A variant that changes
// the net has its own training.
func TestRuntimeSettingsOutOfNetIdentity(t *testing.T) {
	m := manifestWithData(t, `
metrics = ["quant_error"]
[base]
arch = "chess768"
[[variant]]
name = "h2"
overrides = ["history=2", "refresh_cache=true"]
[[variant]]
name = "w128"
overrides = ["accumulator.width=128"]
[data]
train = ["a.txt"]
[train]
epochs = 1
`)
	p, err := New(m, Options{Out: t.TempDir(), Cache: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	base, h2, w128 := p.Variants[0], p.Variants[1], p.Variants[2]
	if h2.Nets[0].SHA256 != base.Nets[0].SHA256 || h2.Nets[0].Train != base.Nets[0].Train || h2.NetSHA256 != base.NetSHA256 {
		t.Errorf("history=2 trains %.12s (%s), the base %.12s (%s)", h2.Nets[0].SHA256, h2.Nets[0].Train, base.Nets[0].SHA256, base.Nets[0].Train)
	}
	if h2.ArchSHA256 == base.ArchSHA256 {
		t.Error("history=2 has the base's arch hash: its measurements would be keyed alike")
	}
	if w128.Nets[0].SHA256 == base.Nets[0].SHA256 || w128.NetSHA256 == base.NetSHA256 {
		t.Error("width 128 trains the base's net")
	}
	trains := 0
	for _, tk := range p.Tasks {
		if tk.Kind == KindTrain {
			trains++
		}
	}
	if trains != 2 {
		t.Errorf("%d training tasks, want 2 (the base's, shared with history=2, and width 128's)", trains)
	}
	// A plan an older runner wrote (version 2: no net identity) is refused.
	if err := p.Write(); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(p.Out); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(p.Out, "plan.json")
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	old := strings.Replace(string(data), `"version": 3`, `"version": 2`, 1)
	if err := os.WriteFile(file, []byte(old), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Read(p.Out); err == nil || !strings.Contains(err.Error(), "version 2, this nnuelab writes 3") {
		t.Errorf("a version-2 plan: %v", err)
	}
}
