package plan

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/nnuelab/nnuelab/experiments/manifest"
)

// trainManifest writes a training manifest with one variant and its data
// file into a temporary folder and loads it.
func trainManifest(t *testing.T) *manifest.Manifest {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "a.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "t.toml")
	if err := os.WriteFile(path, []byte(`
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
`), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
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
			if _, err := NewPlan(m, PlanOptions{Out: t.TempDir(), Cache: t.TempDir()}); err != nil {
				t.Fatalf("the manifest as written: %v", err)
			}
			m = trainManifest(t)
			tc.edit(m)
			_, err := NewPlan(m, PlanOptions{Out: t.TempDir(), Cache: t.TempDir()})
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
	p, err := NewPlan(m, PlanOptions{Out: t.TempDir(), Cache: t.TempDir()})
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
