package train

import (
	"bytes"
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/datasets"
)

// testData splits the first n sample positions: every 8th for validation.
func testData(t testing.TB, n int) *Data {
	recs := testRecords(t, n)
	d := &Data{SHA256: "test"}
	for i, r := range recs {
		if i%8 == 7 {
			d.Val = append(d.Val, r)
		} else {
			d.Train = append(d.Train, r)
		}
	}
	return d
}

// tinyConfig trains spec (a tinySpecs key written to a temp file, or a
// built-in name) into dir.
func tinyConfig(t testing.TB, dir, spec string) Config {
	cfg := DefaultConfig()
	if src, ok := tinySpecs[spec]; ok {
		path := filepath.Join(dir, spec+".toml")
		if err := os.WriteFile(path, []byte(src), 0o644); err != nil {
			t.Fatal(err)
		}
		spec = path
	}
	cfg.Arch = spec
	cfg.Data = []string{"(in memory)"}
	cfg.Out = filepath.Join(dir, "net.nnue.zst")
	cfg.Batch = 256
	cfg.Epochs = 2
	cfg.Export = "none"
	return cfg
}

// sameMoments fails unless a and b hold the same Adam moments, bit for bit.
func sameMoments(t *testing.T, a, b *Model) {
	t.Helper()
	for i := range a.all {
		if !reflect.DeepEqual(a.all[i].M, b.all[i].M) || !reflect.DeepEqual(a.all[i].V, b.all[i].V) {
			t.Fatalf("%s: optimizer moments differ", a.all[i].Name)
		}
	}
}

func sameTensors(t *testing.T, a, b *Model) {
	t.Helper()
	for i, p := range a.all {
		q := b.all[i]
		for j := range p.Data {
			if math.Float32bits(p.Data[j]) != math.Float32bits(q.Data[j]) {
				t.Fatalf("%s[%d]: %g vs %g", p.Name, j, p.Data[j], q.Data[j])
			}
		}
	}
}

// TestOverfit trains every head kind on 64 positions, score-only MSE target,
// until the loss is near zero: the trainer can fit what it is shown.
func TestOverfit(t *testing.T) {
	data := &Data{SHA256: "test", Train: testRecords(t, 64)}
	for _, spec := range []string{"screlu-768", "relu-koivisto16", "crelu-stm-only", "sf12", "rengar"} {
		t.Run(spec, func(t *testing.T) {
			dir := t.TempDir()
			cfg := tinyConfig(t, dir, spec)
			cfg.Batch = 64
			cfg.Epochs = 1
			cfg.EpochSize = 64 * 800 // 800 steps, each on the whole set
			cfg.Loss = Loss{Kind: "mse", Scale: 2.5 / 400, Lambda: 1}
			cfg.QAT = "off" // the float model's capacity (QAT rounds the head to the int8/int16 grids)
			cfg.Optim.LR = 0.01
			cfg.Optim.WeightDecay = 0
			cfg.Optim.MinLR = 0.001
			spec, err := LoadSpec(&cfg)
			if err != nil {
				t.Fatal(err)
			}
			m0, err := NewModel(spec, cfg.Seed)
			if err != nil {
				t.Fatal(err)
			}
			first := newEngine(m0, cfg.Loss, 1).evalLoss(data.Train)
			res, err := Run(context.Background(), cfg, Options{Data: data})
			if err != nil {
				t.Fatal(err)
			}
			last := newEngine(res.Model, cfg.Loss, 1).evalLoss(data.Train)
			// Near zero: a root-mean-square error in win probability below
			// 1.4%, from about 34% at the start.
			t.Logf("loss %.3g -> %.3g", first, last)
			if last > 2e-4 {
				t.Fatalf("loss %.3g -> %.3g: did not overfit", first, last)
			}
		})
	}
}

// TestDeterministic checks that a seed gives the same net bit for bit, on
// one thread and on three, and that another seed does not.
func TestDeterministic(t *testing.T) {
	data := testData(t, 1200)
	run := func(threads int, seed uint64, spec string) *Model {
		dir := t.TempDir()
		cfg := tinyConfig(t, dir, spec)
		cfg.Threads, cfg.Seed = threads, seed
		res, err := Run(context.Background(), cfg, Options{Data: data})
		if err != nil {
			t.Fatal(err)
		}
		return res.Model
	}
	for _, spec := range []string{"screlu-leorik-buckets", "sf12", "rengar"} {
		t.Run(spec, func(t *testing.T) {
			a, b := run(1, 7, spec), run(3, 7, spec)
			sameTensors(t, a, b)
			c := run(2, 8, spec)
			if reflect.DeepEqual(a.all[0].Data, c.all[0].Data) {
				t.Fatal("seeds 7 and 8 gave the same net")
			}
		})
	}
}

// TestResume interrupts a run after its first epoch and resumes it: the net,
// the optimizer state and the history equal those of an uninterrupted run.
func TestResume(t *testing.T) {
	data := testData(t, 1200)
	dirA, dirB := t.TempDir(), t.TempDir()
	cfgA := tinyConfig(t, dirA, "screlu-leorik-buckets")
	cfgA.Epochs = 3
	full, err := Run(context.Background(), cfgA, Options{Data: data})
	if err != nil {
		t.Fatal(err)
	}
	cfgB := tinyConfig(t, dirB, "screlu-leorik-buckets")
	cfgB.Arch = cfgA.Arch // same TOML file
	cfgB.Epochs = 3
	// Interrupt (as SIGINT would) once the first epoch is saved.
	ctx, cancel := context.WithCancel(context.Background())
	log := &watchWriter{want: "epoch 1/3:", fn: cancel}
	if _, err := Run(ctx, cfgB, Options{Data: data, Log: log}); err == nil || !strings.Contains(err.Error(), "interrupted in epoch 2 at step") {
		t.Fatalf("interrupted run: %v", err)
	}
	// Starting again without --resume refuses to overwrite the checkpoint.
	if _, err := Run(context.Background(), cfgB, Options{Data: data}); err == nil || !strings.Contains(err.Error(), "--resume") {
		t.Fatalf("restart over a checkpoint: %v", err)
	}
	cfgB.Threads = 1 // the thread count may change
	resumed, err := Run(context.Background(), cfgB, Options{Data: data, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	sameTensors(t, full.Model, resumed.Model)
	sameMoments(t, full.Model, resumed.Model)
	if len(resumed.History) != 3 {
		t.Fatalf("history has %d epochs", len(resumed.History))
	}
	for i, h := range full.History {
		r := resumed.History[i]
		if h.TrainLoss != r.TrainLoss || h.ValLoss != r.ValLoss || h.Step != r.Step || h.LR != r.LR {
			t.Fatalf("epoch %d: %+v vs %+v", i+1, h, r)
		}
	}
	hist, err := ReadHistory(PathsFor(cfgB.Out).History)
	if err != nil {
		t.Fatal(err)
	}
	if len(hist) != 3 || hist[2].ValLoss != full.History[2].ValLoss {
		t.Fatalf("CSV history %+v", hist)
	}
	// A resume on other data is refused.
	other := testData(t, 1300)
	other.SHA256 = "other"
	if _, err := Run(context.Background(), cfgB, Options{Data: other, Resume: true}); err == nil || !strings.Contains(err.Error(), "SHA-256") {
		t.Fatalf("resume on other data: %v", err)
	}
	// A resume with another setting is refused with the difference named.
	cfgB.Optim.LR = 0.002
	cfgB.Epochs = 4
	if _, err := Run(context.Background(), cfgB, Options{Data: data, Resume: true}); err == nil || !strings.Contains(err.Error(), "optim") {
		t.Fatalf("resume with another lr: %v", err)
	}
}

// watchWriter calls fn once the text written to it contains want.
type watchWriter struct {
	buf  strings.Builder
	want string
	fn   func()
}

func (w *watchWriter) Write(p []byte) (int, error) {
	w.buf.Write(p)
	if w.fn != nil && strings.Contains(w.buf.String(), w.want) {
		w.fn()
		w.fn = nil
	}
	return len(p), nil
}

// TestCheckpointErrors feeds damaged and foreign files to --resume.
func TestCheckpointErrors(t *testing.T) {
	data := testData(t, 600)
	dir := t.TempDir()
	cfg := tinyConfig(t, dir, "screlu-768")
	cfg.Epochs = 1
	if _, err := Run(context.Background(), cfg, Options{Data: data}); err != nil {
		t.Fatal(err)
	}
	paths := PathsFor(cfg.Out)
	good, err := os.ReadFile(paths.Checkpoint)
	if err != nil {
		t.Fatal(err)
	}
	netBytes, _ := os.ReadFile(paths.Net)
	cfg.Epochs = 2
	for _, tc := range []struct {
		name string
		data []byte
		want string
	}{
		{"truncated", good[:len(good)/2], "checkpoint"},
		{"flipped payload byte", func() []byte { b := bytes.Clone(good); b[len(b)-40] ^= 0xFF; return b }(), "checkpoint"},
		{"not a net", []byte("hello"), "not an nnuelab float net"},
		{"a trained net, not a checkpoint", netBytes, "not a training checkpoint"},
		{"missing", nil, "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(paths.Checkpoint)
			if tc.data != nil {
				os.WriteFile(paths.Checkpoint, tc.data, 0o644)
			}
			_, err := Run(context.Background(), cfg, Options{Data: data, Resume: true})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
	// Another architecture's checkpoint.
	os.WriteFile(paths.Checkpoint, good, 0o644)
	cfg2 := tinyConfig(t, dir, "crelu-stm-only")
	cfg2.Out = cfg.Out
	if _, err := Run(context.Background(), cfg2, Options{Data: data, Resume: true}); err == nil || !strings.Contains(err.Error(), "architecture") {
		t.Fatalf("foreign checkpoint: %v", err)
	}
}

// TestConfigErrors checks that bad settings are refused with a reason.
func TestConfigErrors(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		name string
		mod  func(c *Config)
		want string
	}{
		{"batch", func(c *Config) { c.Batch = 0 }, "batch size"},
		{"epochs", func(c *Config) { c.Epochs = 0 }, "epochs"},
		{"loss", func(c *Config) { c.Loss.Kind = "l1" }, `unknown loss "l1"`},
		{"power", func(c *Config) { c.Loss.Power = 0 }, "power"},
		{"lambda", func(c *Config) { c.Loss.Lambda = 1.5 }, "lambda"},
		{"scale", func(c *Config) { c.Loss.Scale = -1 }, "sigmoid scale"},
		{"optimizer", func(c *Config) { c.Optim.Kind = "sgd" }, `unknown optimizer "sgd"`},
		{"lr", func(c *Config) { c.Optim.LR = 0 }, "learning rate"},
		{"schedule", func(c *Config) { c.Optim.Schedule = "linear" }, `unknown schedule "linear"`},
		{"step gamma", func(c *Config) { c.Optim.Schedule = "step"; c.Optim.Gamma = 2 }, "gamma"},
		{"min lr", func(c *Config) { c.Optim.MinLR = 1 }, "min lr"},
		{"qat", func(c *Config) { c.QAT = "yes" }, `qat "yes"`},
		{"arch", func(c *Config) { c.Arch = "nonesuch" }, `unknown architecture "nonesuch"`},
		{"sf15", func(c *Config) { c.Arch = "sf15.1" }, `head type "sf15" is not supported`},
		{"override", func(c *Config) { c.Arch = "chess768"; c.Overrides = []string{"accumulator.width=33"} }, "multiple of 32"},
		{"out folder", func(c *Config) { c.Arch = "chess768"; c.Out = filepath.Join(dir, "no", "x.nnue.zst") }, "does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := tinyConfig(t, dir, "screlu-768")
			tc.mod(&cfg)
			_, err := Run(context.Background(), cfg, Options{Data: testData(t, 100)})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
	// Bad data files name the file and line.
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(bad, []byte("8/8/8/8/8/8/8/K6k w - - 0 1 [0.5] 12\nnot a fen [1.0] 5\n"), 0o644)
	if _, err := LoadData([]string{bad}, nil, 0.1, 0, false, nil); err == nil || !strings.Contains(err.Error(), "bad.txt") || !strings.Contains(err.Error(), "2") {
		t.Fatalf("bad data: %v", err)
	}
	if d, err := LoadData([]string{bad}, nil, 0, 0, true, nil); err != nil || d.Skipped != 1 || len(d.Train) != 1 {
		t.Fatalf("skipping bad data: %v", err)
	}
	if _, err := LoadData([]string{filepath.Join(dir, "absent.txt")}, nil, 0.1, 0, false, nil); err == nil {
		t.Fatal("missing file accepted")
	}
}

// TestLoadDataSplit checks the validation split by board hash: stable,
// about the fraction asked, and the same position always on one side.
func TestLoadDataSplit(t *testing.T) {
	d, err := LoadData([]string{"testdata/sample.txt.zst"}, nil, 0.1, 0, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	n := len(d.Train) + len(d.Val)
	if n != 20000 || math.Abs(float64(len(d.Val))/float64(n)-0.1) > 0.01 {
		t.Fatalf("%d train, %d val", len(d.Train), len(d.Val))
	}
	val := map[uint64]bool{}
	for _, r := range d.Val {
		val[r.BoardHash()] = true
	}
	for _, r := range d.Train {
		if val[r.BoardHash()] {
			t.Fatalf("%s is in both splits", r.Text())
		}
	}
	if d.SHA256 != d.Files[0].SHA256 || len(d.SHA256) != 64 {
		t.Fatalf("data hash %q", d.SHA256)
	}
	d2, _ := LoadData([]string{"testdata/sample.txt.zst"}, nil, 0.1, 500, false, nil)
	if len(d2.Train)+len(d2.Val) != 500 {
		t.Fatalf("limit 500 read %d", len(d2.Train)+len(d2.Val))
	}
	_ = datasets.RecordSize
}

// TestLoadDataOneIn: a one-in filter thins the training positions to the
// ones its subsample keeps and leaves the validation split whole.
func TestLoadDataOneIn(t *testing.T) {
	whole, err := LoadData([]string{"testdata/sample.txt.zst"}, nil, 0.1, 0, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	f := datasets.Filter{OneIn: 4}
	d, err := LoadData([]string{"testdata/sample.txt.zst"}, nil, 0.1, 0, false, &f)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Val) != len(whole.Val) {
		t.Fatalf("validation %d positions, want all %d", len(d.Val), len(whole.Val))
	}
	want := 0
	for i := range whole.Train {
		if f.Sampled(&whole.Train[i]) {
			want++
		}
	}
	if len(d.Train) != want || d.Filtered != int64(len(whole.Train)-want) || want > len(whole.Train)/3 || want < len(whole.Train)/5 {
		t.Fatalf("one-in=4 kept %d of %d training positions (want %d), filtered %d", len(d.Train), len(whole.Train), want, d.Filtered)
	}
	if f.OneIn != 4 {
		t.Fatalf("LoadData changed the caller's filter: %+v", f)
	}
}

// TestLoadDataExcludesValidation: with validation files, a training
// position that is also in them is left out, and counted.
func TestLoadDataExcludesValidation(t *testing.T) {
	all, err := LoadData([]string{"testdata/sample.txt.zst"}, nil, 0, 0, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	// The first 300 positions as the validation file (a cut of the same
	// source, as the experiments' built-in validation set is).
	valFile := filepath.Join(t.TempDir(), "val.bin")
	w, err := datasets.Create(valFile)
	if err != nil {
		t.Fatal(err)
	}
	inVal := map[uint64]bool{}
	for i := range all.Train[:300] {
		inVal[all.Train[i].BoardHash()] = true
		if err := w.Write(all.Train[i]); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	d, err := LoadData([]string{"testdata/sample.txt.zst"}, []string{valFile}, 0, 0, false, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := int64(0)
	for i := range all.Train {
		if inVal[all.Train[i].BoardHash()] {
			want++
		}
	}
	if want < 300 || d.Excluded != want || len(d.Train) != len(all.Train)-int(want) || len(d.Val) != 300 {
		t.Fatalf("excluded %d (want %d), %d train, %d val", d.Excluded, want, len(d.Train), len(d.Val))
	}
	for i := range d.Train {
		if inVal[d.Train[i].BoardHash()] {
			t.Fatalf("%s is in training and validation", d.Train[i].Text())
		}
	}
}

// TestMeasure runs a throughput measurement over an epoch boundary: it
// counts every step and writes no file.
func TestMeasure(t *testing.T) {
	dir := t.TempDir()
	cfg := tinyConfig(t, dir, "screlu-768")
	cfg.Batch = 100
	res, err := Run(context.Background(), cfg, Options{Data: testData(t, 800), StopAfter: 10})
	if err != nil {
		t.Fatal(err)
	}
	h := res.History[len(res.History)-1]
	if h.Step != 10 || h.Positions != 1000 || h.PosPerSec <= 0 || h.Seconds <= 0 {
		t.Fatalf("measurement %+v", h)
	}
	if files, _ := os.ReadDir(dir); len(files) != 1 { // the TOML only
		t.Fatalf("a measurement wrote files: %v", files)
	}
}
