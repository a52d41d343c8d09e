package plan

import (
	"path/filepath"
	"testing"

	"github.com/nnuelab/nnuelab/experiments/data"
)

// A manifest that trains and measures val_loss on the built-in set gives
// that set to the trainer as its validation (which the trainer leaves out
// of training): the set is cut from the Stockfish data experiments train
// on, and would otherwise leak.
func TestBuiltinValidationIsTrainerValidation(t *testing.T) {
	m := manifestWithData(t, `
name = "b"
metrics = ["val_loss"]
[base]
arch = "chess768"
[data]
train = ["a.txt"]
[train]
epochs = 1
`)
	p, err := New(m, Options{Out: filepath.Join(t.TempDir(), "out"), Cache: t.TempDir(), Binary: "/bin/nnuelab"})
	if err != nil {
		t.Fatal(err)
	}
	cfg := p.Task(p.Variants[0].Nets[0].Train).Train.Config
	want := filepath.Join(p.Out, "validation-sf151.txt.zst")
	if len(cfg.ValData) != 1 || cfg.ValData[0] != want || cfg.ValFraction != 0 {
		t.Fatalf("trainer validation %v (fraction %v), want %s", cfg.ValData, cfg.ValFraction, want)
	}
	if err := p.Write(); err != nil {
		t.Fatal(err)
	}
	got, err := data.FileSHA256(want)
	if err != nil {
		t.Fatal(err)
	}
	if builtin, _ := data.FileSHA256(data.BuiltinValidation); got != builtin {
		t.Error("the copy of the built-in validation set differs from it")
	}
}
