package train

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/nnuelab/nnuelab/nets"
	"github.com/nnuelab/nnuelab/nets/train/vec"
)

// retrainPayload pins the payload SHA-256 (the float net's tensors) that
// TestRetrainCommittedSlice's training gives, per kernel set (the AVX2 and
// the pure-Go kernels agree up to float32 rounding, not bit for bit). A
// change of the trainer that moves it also changes what the shipped own
// nets' commands train (docs/training.md, "Retraining a shipped net"):
// retrain one, and update both.
var retrainPayload = map[string]string{
	"avx2":    "cd48f90825718bdb015de0a38e50f9eeb3bdccf5096adf8475fdb6fd957b6d57",
	"generic": "e5e43b8c9e469dc5fd9eb21411d67b6e1fc06ad55300128792956a891ce7f89b",
}

// TestRetrainCommittedSlice is the CI-sized form of retraining a shipped
// net from a clone (docs/training.md): chess768 with the shipped first
// nets' settings, one epoch on the first 50,000 positions of the committed
// Stockfish 15.1 self-play set, validated on the committed fresh-val set,
// read from the files and written as the trainer writes a net. On one
// thread and on two the payload is the same, and it is the one pinned
// above: a clone trains today what was recorded.
func TestRetrainCommittedSlice(t *testing.T) {
	if testing.Short() {
		t.Skip("trains from the committed data sets (a few seconds)")
	}
	root := filepath.Join("..", "..")
	payload := func(threads int) string {
		dir := t.TempDir()
		cfg := DefaultConfig()
		cfg.Arch = "chess768"
		cfg.Data = []string{filepath.Join(root, "datasets", "sf151-selfplay", "sf151-selfplay.txt.zst")}
		cfg.ValData = []string{filepath.Join(root, "datasets", "fresh-val", "fresh-sf500.bin")}
		cfg.ValFraction = 0
		cfg.MaxPositions = 50000
		cfg.Out = filepath.Join(dir, "net.nnue.zst")
		cfg.Epochs = 1
		// first-nets-train.toml's [train] (the shipped nets' header).
		cfg.Batch = 16384
		cfg.Optim.LR, cfg.Optim.MinLR = 0.001, 0.00001
		cfg.QAT = "off"
		cfg.Loss.Lambda = 0.5 // first-nets-train.toml's [loss], not today's default
		cfg.Export = "none"
		cfg.Threads = threads
		if _, err := Run(context.Background(), cfg, Options{}); err != nil {
			t.Fatal(err)
		}
		f, err := os.Open(cfg.Out)
		if err != nil {
			t.Fatal(err)
		}
		defer f.Close()
		h, _, err := nets.ReadFloat(f)
		if err != nil {
			t.Fatal(err)
		}
		return h.PayloadSHA256
	}
	one, two := payload(1), payload(2)
	t.Logf("kernels %s: payload sha256 %s (1 thread), %s (2 threads)", vec.Implementation(), one, two)
	if one != two {
		t.Fatalf("1 and 2 threads trained different nets: payload %s vs %s", one, two)
	}
	want, ok := retrainPayload[vec.Implementation()]
	if !ok {
		t.Skipf("no pinned payload for kernels %q", vec.Implementation())
	}
	if one != want {
		t.Fatalf("kernels %s: payload %s, pinned %s: the trainer no longer trains what it did (see retrainPayload)", vec.Implementation(), one, want)
	}
}
