package train

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/datasets"
)

// writeParts writes recs as a binpack of parts blocks (parts files
// concatenated, as cat makes them) at path.
func writeParts(t testing.TB, path string, recs []datasets.Record, parts int) {
	t.Helper()
	var all []byte
	dir := t.TempDir()
	for k := range parts {
		part := filepath.Join(dir, "part.binpack")
		w, err := datasets.Create(part)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range recs[k*len(recs)/parts : (k+1)*len(recs)/parts] {
			if err := w.Write(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.Close(); err != nil {
			t.Fatal(err)
		}
		b, err := os.ReadFile(part)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, b...)
	}
	if err := os.WriteFile(path, all, 0o644); err != nil {
		t.Fatal(err)
	}
}

// streamFiles writes the first n sample positions as three binpack files
// of several blocks each and returns their paths.
func streamFiles(t testing.TB, n int) []string {
	t.Helper()
	recs := testRecords(t, n)
	dir := t.TempDir()
	var paths []string
	for k, parts := range []int{3, 1, 5} {
		p := filepath.Join(dir, []string{"a", "b", "c"}[k]+".binpack")
		writeParts(t, p, recs[k*n/3:(k+1)*n/3], parts)
		paths = append(paths, p)
	}
	return paths
}

// drawStream takes n positions from the start of the stream (in batches of
// batch) and returns their texts.
func drawStream(t *testing.T, sd *streamData, seed uint64, buffer, batch int, k0, n int64) []string {
	t.Helper()
	src := newStreamSource(sd, seed, buffer, batch, k0)
	defer src.close()
	var out []string
	for k := k0; k < k0+n; k += int64(batch) {
		b, err := src.next(k, batch)
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range b {
			out = append(out, r.Text())
		}
	}
	return out[:n]
}

// TestStreamPasses: every pass of the stream is a permutation of the
// training positions LoadData would hold in memory (same filter and
// validation split), a new one each pass; the stream depends on the seed,
// not on the scan's threads; a stream started at k equals the tail of one
// started at 0 (what a resume relies on), whatever the buffer size.
func TestStreamPasses(t *testing.T) {
	files := streamFiles(t, 3000)
	filter, err := datasets.ParseFilter("min-ply=12,one-in=2")
	if err != nil {
		t.Fatal(err)
	}
	cfg := Config{Data: files, ValFraction: 0.1, Filter: filter, ShuffleBuffer: 100}
	mem, err := LoadData(cfg.Data, nil, cfg.ValFraction, 0, false, cfg.Filter)
	if err != nil {
		t.Fatal(err)
	}
	var want []string
	for _, r := range mem.Train {
		want = append(want, r.Text())
	}
	slices.Sort(want)
	for _, buffer := range []int{1, 100, 100000} {
		d1, sd1, err := scanStream(&cfg, 1)
		if err != nil {
			t.Fatal(err)
		}
		d2, sd2, err := scanStream(&cfg, 2)
		if err != nil {
			t.Fatal(err)
		}
		if d1.SHA256 != mem.SHA256 || sd1.n != int64(len(mem.Train)) || len(d1.Val) != len(mem.Val) ||
			d1.Filtered != mem.Filtered || d2.SHA256 != d1.SHA256 || sd2.n != sd1.n {
			t.Fatalf("scan: %d training, %d validation, %d filtered, hash %.12s; in memory %d, %d, %d, %.12s",
				sd1.n, len(d1.Val), d1.Filtered, d1.SHA256, len(mem.Train), len(mem.Val), mem.Filtered, mem.SHA256)
		}
		n := sd1.n
		s1 := drawStream(t, sd1, 7, buffer, 50, 0, 2*n+150)
		s2 := drawStream(t, sd2, 7, buffer, 50, 0, 2*n+150)
		if !slices.Equal(s1, s2) {
			t.Fatalf("buffer %d: the stream depends on the scan's threads", buffer)
		}
		for pass := range 2 {
			got := slices.Clone(s1[int64(pass)*n : int64(pass+1)*n])
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Fatalf("buffer %d: pass %d is not a permutation of the training positions", buffer, pass+1)
			}
		}
		if slices.Equal(s1[:n], s1[n:2*n]) {
			t.Fatalf("buffer %d: two passes in the same order", buffer)
		}
		tail := drawStream(t, sd1, 7, buffer, 50, n+50, n)
		if !slices.Equal(tail, s1[n+50:2*n+50]) {
			t.Fatalf("buffer %d: the stream started at %d is not the tail of the whole stream", buffer, n+50)
		}
		if other := drawStream(t, sd1, 8, buffer, 50, 0, n); slices.Equal(other, s1[:n]) {
			t.Fatalf("buffer %d: seeds 7 and 8 give the same stream", buffer)
		}
	}
}

// streamConfig trains the tiny chess768-like net on files, streamed.
func streamConfig(t *testing.T, dir string, files []string) Config {
	cfg := tinyConfig(t, dir, "screlu-768")
	cfg.Data, cfg.ValFraction, cfg.ShuffleBuffer = files, 0.1, 300
	cfg.Epochs = 2
	return cfg
}

// TestStreamTrain: a streamed run gives the same net on 1 and 2 threads,
// and a run interrupted within an epoch resumes to the same net, optimizer
// state and loss history as an uninterrupted one.
func TestStreamTrain(t *testing.T) {
	files := streamFiles(t, 3000)
	ref, err := Run(context.Background(), streamConfig(t, t.TempDir(), files), Options{})
	if err != nil {
		t.Fatal(err)
	}
	if ref.Data.Streamed == 0 || len(ref.Data.Train) != 0 {
		t.Fatalf("not streamed: %d in memory", len(ref.Data.Train))
	}
	cfg := streamConfig(t, t.TempDir(), files)
	cfg.Threads = 1
	one, err := Run(context.Background(), cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	sameTensors(t, ref.Model, one.Model)

	// Interrupted at step 13 of 22 (epoch 2), with checkpoints every 4 steps
	// before: the one written at the interruption resumes.
	for _, name := range []string{"interrupted", "killed"} {
		t.Run(name, func(t *testing.T) {
			cfg := streamConfig(t, t.TempDir(), files)
			ctx, cancel := context.WithCancel(context.Background())
			opt := Options{checkpointSteps: 4, afterStep: func(step int) {
				if step == 13 {
					cancel()
				}
			}}
			if name == "killed" {
				// As kill -9 would: the last checkpoint is step 12's; the
				// run's own interruption checkpoint is not written.
				opt.afterStep = func(step int) {
					if step == 13 {
						panic(errKilled)
					}
				}
			}
			err := runRecovering(ctx, cfg, opt)
			if name == "interrupted" && (err == nil || !strings.Contains(err.Error(), "interrupted in epoch 2 at step 13")) {
				t.Fatalf("interrupted run: %v", err)
			}
			cfg.Threads = 1
			resumed, err := Run(context.Background(), cfg, Options{Resume: true})
			if err != nil {
				t.Fatal(err)
			}
			sameTensors(t, ref.Model, resumed.Model)
			sameMoments(t, ref.Model, resumed.Model)
			for i, h := range ref.History {
				r := resumed.History[i]
				if h.TrainLoss != r.TrainLoss || h.ValLoss != r.ValLoss || h.Step != r.Step || h.Positions != r.Positions {
					t.Fatalf("epoch %d: %+v vs %+v", i+1, h, r)
				}
			}
		})
	}
}

var errKilled = errors.New("killed")

// runRecovering runs Run, turning a panic(errKilled) from a hook into an
// error (a process killed at that point).
func runRecovering(ctx context.Context, cfg Config, opt Options) (err error) {
	defer func() {
		if r := recover(); r != nil {
			if r != errKilled {
				panic(r)
			}
			err = errKilled
		}
	}()
	_, err = Run(ctx, cfg, opt)
	return err
}

// TestMemoryResumeWithinEpoch: the in-memory path resumes within an epoch
// to the same net too.
func TestMemoryResumeWithinEpoch(t *testing.T) {
	data := testData(t, 1200)
	cfg := tinyConfig(t, t.TempDir(), "screlu-768")
	full, err := Run(context.Background(), cfg, Options{Data: data})
	if err != nil {
		t.Fatal(err)
	}
	cfg = tinyConfig(t, t.TempDir(), "screlu-768")
	opt := Options{Data: data, checkpointSteps: 2, afterStep: func(step int) {
		if step == 3 {
			panic(errKilled)
		}
	}}
	if err := runRecovering(context.Background(), cfg, opt); err != errKilled {
		t.Fatalf("killed run: %v", err)
	}
	resumed, err := Run(context.Background(), cfg, Options{Data: data, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	sameTensors(t, full.Model, resumed.Model)
	if full.History[0].TrainLoss != resumed.History[0].TrainLoss {
		t.Fatalf("epoch 1 train loss %g, resumed %g", full.History[0].TrainLoss, resumed.History[0].TrainLoss)
	}
}

// TestStreamBadData: bad training files stop a streamed run with the file
// named (and the byte, where there is one), before or during training,
// never as a shorter epoch.
func TestStreamBadData(t *testing.T) {
	files := streamFiles(t, 3000)
	dir := t.TempDir()
	good, err := os.ReadFile(files[1])
	if err != nil {
		t.Fatal(err)
	}
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	corrupt := slices.Clone(good)
	corrupt[len(corrupt)/2] ^= 0x5a
	cases := []struct {
		name string
		file string
		want []string
	}{
		{"truncated", write("trunc.binpack", good[:len(good)-7]), []string{"trunc.binpack", "byte", "truncated"}},
		{"corrupt", write("corrupt.binpack", corrupt), []string{"corrupt.binpack", "byte"}},
		{"empty", write("empty.binpack", nil), []string{"empty.binpack", "empty"}},
		{"missing", filepath.Join(dir, "missing.binpack"), []string{"missing.binpack"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			cfg := streamConfig(t, t.TempDir(), []string{files[0], c.file, files[2]})
			_, err := Run(context.Background(), cfg, Options{})
			if err == nil {
				t.Fatal("trained on a bad file")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Fatalf("error %q does not say %q", err, w)
				}
			}
		})
	}

	// Files that change while training runs: removed, cut short, replaced,
	// as the stream starts its second pass (a point it has not read past,
	// however far ahead of the trainer it runs).
	for _, change := range []string{"removed", "truncated", "replaced"} {
		t.Run(change, func(t *testing.T) {
			mine := write(change+".binpack", good)
			cfg := streamConfig(t, t.TempDir(), []string{files[0], mine, files[2]})
			cfg.Epochs = 3
			opt := Options{beforePass: func(pass int64) {
				if pass != 1 {
					return
				}
				var err error
				switch change {
				case "removed":
					err = os.Remove(mine)
				case "truncated":
					err = os.WriteFile(mine, good[:len(good)/2], 0o644)
				case "replaced":
					err = os.WriteFile(mine, corrupt, 0o644)
				}
				if err != nil {
					t.Error(err)
				}
			}}
			_, err := Run(context.Background(), cfg, opt)
			if err == nil || !strings.Contains(err.Error(), mine) {
				t.Fatalf("error %v, want one naming %s", err, mine)
			}
		})
	}
}
