package experiments

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/experiments/internal/exptest"
	"github.com/nnuelab/nnuelab/experiments/manifest"
	"github.com/nnuelab/nnuelab/experiments/plan"
	"github.com/nnuelab/nnuelab/experiments/records"
	"github.com/nnuelab/nnuelab/internal/testtier"
)

func TestMain(m *testing.M) {
	code := m.Run()
	exptest.Cleanup()
	os.Exit(code)
}

// smallManifest is deterministic (no timing metrics): agreement,
// quantization error, validation loss and history shares on few positions,
// and a 4-game Elo test in two chunks per variant at a fixed node count.
func smallManifest(t *testing.T, dir string) string {
	t.Helper()
	k51, err := filepath.Abs(filepath.Join(exptest.Root(), "nets", "koivisto-5.1.net"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "small.toml")
	text := fmt.Sprintf(`
title = "runner test"
metrics = ["agreement", "quant_error", "val_loss", "history_shares", "elo"]
[base]
arch = "koivisto-7.4"
[[variant]]
name = "H1"
overrides = ["history=1"]
[[variant]]
name = "k51"
arch = "koivisto-5.13"
net = %q
[positions]
limit = 200
[speed]
positions = 2
nodes = 2000
[data]
val_limit = 500
[elo]
games = 4
chunk = 2
nodes = 300
`, k51)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

var (
	localOnce    sync.Once
	localResults []byte
	localDir     string
)

// localRun runs the small manifest with the local executor once and
// returns its results.jsonl (the reference the Slurm test compares with).
func localRun(t *testing.T) ([]byte, string) {
	t.Helper()
	localOnce.Do(func() {
		localDir = t.TempDir()
		smallManifest(t, localDir)
		exptest.Run(t, localDir, nil, "experiment", "run", "small.toml", "--out", "out", "--report-dir", "reports", "--cache", "cache")
		localResults = exptest.ReadFile(t, filepath.Join(localDir, "out", "results.jsonl"))
	})
	if localResults == nil {
		t.Fatal("the local run failed (see the first test that ran it)")
	}
	return localResults, localDir
}

func TestRunLocal(t *testing.T) {
	results, dir := localRun(t)
	recs, err := records.ReadResults(filepath.Join(dir, "out", "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]records.Record{}
	for _, r := range recs {
		got[r.Variant+" "+r.Metric] = r
		if r.Command != "nnuelab experiment run small.toml" {
			t.Errorf("record command %q", r.Command)
		}
		if r.ArchSHA256 == "" || r.Experiment != "small" {
			t.Errorf("record without arch hash or experiment: %+v", r)
		}
	}
	for _, want := range []string{
		"base agreement.mae_cp", "base agreement.sign", "H1 history_shares.d1", "H1 history_shares.refresh", "H1 history_shares.quiet_roots.refresh",
		"k51 quant_error.mean_cp", "k51 quant_error.max_cp", "base val_loss", "H1 elo", "k51 elo",
	} {
		if _, ok := got[want]; !ok {
			t.Errorf("no record %q", want)
		}
	}
	// Same net, same evaluations: the history depth changes only where
	// accumulators come from.
	if a, b := got["base agreement.mae_cp"], got["H1 agreement.mae_cp"]; a.Value != b.Value || a.N != 200 {
		t.Errorf("agreement differs between history depths: %v vs %v (n %d)", a.Value, b.Value, a.N)
	}
	if r := got["H1 history_shares.d2"]; r.Value != 0 {
		t.Errorf("H=1 served %v of updates from 2 plies back", r.Value)
	}
	if r := got["k51 quant_error.mean_cp"]; r.N != 200 || r.Value <= 0 || r.Value > 5 {
		t.Errorf("quantization error %+v", r)
	}
	if r := got["base quant_error.mean_cp"]; r.N != 0 || r.Detail["note"] == nil {
		t.Errorf("an int16 net has no quantization error: %+v", r)
	}
	if r := got["k51 elo"]; r.N != 4 || r.Detail["chunks"] != float64(2) {
		t.Errorf("Elo record: %d games, %v chunks", r.N, r.Detail["chunks"])
	}
	// Each chunk's games: compressed, complete (2 games a chunk), no plain
	// PGN or temporary file left beside them.
	games, _ := os.ReadDir(filepath.Join(dir, "out", "games"))
	if len(games) != 4 {
		t.Errorf("games/ holds %d files, want 4 chunks' .pgn.zst", len(games))
	}
	for _, g := range games {
		id, ok := strings.CutSuffix(g.Name(), ".pgn.zst")
		if !ok {
			t.Errorf("games/%s: not a chunk's compressed games", g.Name())
			continue
		}
		pgn, err := plan.ReadGames(filepath.Join(dir, "out"), id)
		if err != nil || bytes.Count(pgn, []byte("[Event ")) != 2 {
			t.Errorf("%s: %d games, %v", g.Name(), bytes.Count(pgn, []byte("[Event ")), err)
		}
	}

	// The report: markdown and plots; `report` rewrites it identically.
	md := filepath.Join(dir, "reports", "small.md")
	first := exptest.ReadFile(t, md)
	for _, want := range []string{"# runner test", "| variant | overrides |", "Where accumulator updates came from", "![history-shares](small/history-shares.svg)"} {
		if !bytes.Contains(first, []byte(want)) {
			t.Errorf("report lacks %q", want)
		}
	}
	svg := exptest.ReadFile(t, filepath.Join(dir, "reports", "small", "history-shares.svg"))
	if !bytes.HasPrefix(bytes.TrimSpace(svg), []byte("<?xml")) && !bytes.Contains(svg[:min(len(svg), 200)], []byte("<svg")) {
		t.Errorf("history-shares.svg is not SVG: %.100s", svg)
	}
	os.Remove(md)
	exptest.Run(t, dir, nil, "experiment", "report", "small.toml", "--out", "out", "--report-dir", "reports")
	if again := exptest.ReadFile(t, md); !bytes.Equal(first, again) {
		t.Error("experiment report wrote a different page from the same results")
	}

	// A second run reuses every task and writes the same results.
	out := exptest.Run(t, dir, nil, "experiment", "run", "small.toml", "--out", "out", "--report-dir", "reports", "--cache", "cache")
	if !strings.Contains(out, "already done") {
		t.Errorf("second run: %s", out)
	}
	if again := exptest.ReadFile(t, filepath.Join(dir, "out", "results.jsonl")); !bytes.Equal(results, again) {
		t.Error("a rerun changed results.jsonl")
	}
	if data := exptest.ReadFile(t, filepath.Join(dir, "out", "run.json")); !bytes.Contains(data, []byte(`"ran": [],`)) {
		t.Errorf("second run ran tasks: %s", data)
	}

	checkPartialReport(t, dir)

	// The dry run lists every task as done, and the cost.
	out = exptest.Run(t, dir, nil, "experiment", "run", "small.toml", "--out", "out", "--dry-run")
	for _, want := range []string{"variants:", "H1", "k51", "elo-k51-c001", "done", "cost estimate"} {
		if !strings.Contains(out, want) {
			t.Errorf("dry run lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "to run\n") {
		t.Errorf("dry run after a full run still has work:\n%s", out)
	}
}

// TestResumeAfterKill kills the runner (SIGKILL, no chance to clean up)
// after some tasks have finished, then reruns it: the finished tasks are
// not run again (their result files are untouched) and the results equal
// those of a run that was never interrupted.
func TestResumeAfterKill(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("needs Linux's parent-death signal to stop the killed run's tasks")
	}
	dir := t.TempDir()
	var variants strings.Builder
	for h := 1; h <= 5; h++ {
		fmt.Fprintf(&variants, "[[variant]]\nname = \"H%d\"\noverrides = [\"history=%d\"]\n", h, h)
	}
	manifest := filepath.Join(dir, "kill.toml")
	os.WriteFile(manifest, []byte(`title = "kill test"
metrics = ["agreement", "history_shares"]
[base]
arch = "koivisto-7.4"
[speed]
positions = 4
nodes = 20000
`+variants.String()), 0o644)

	cmd := exec.Command(exptest.Nnuelab(t), "experiment", "run", "kill.toml", "--out", "out", "--no-report", "--jobs", "1")
	cmd.Dir = dir
	var log bytes.Buffer
	cmd.Stdout, cmd.Stderr = &log, &log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tasks := filepath.Join(dir, "out", "tasks")
	finished := func() []string {
		m, _ := filepath.Glob(filepath.Join(tasks, "*.json"))
		return m
	}
	deadline := time.Now().Add(3 * time.Minute)
	for len(finished()) < 2 && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	cmd.Process.Signal(syscall.SIGKILL)
	cmd.Wait()
	done := finished()
	if len(done) < 2 || len(done) >= 6 {
		t.Fatalf("killed with %d of 6 tasks finished; want some but not all:\n%s", len(done), log.String())
	}
	t.Logf("killed the runner with %d of 6 tasks finished", len(done))
	before := map[string][]byte{}
	for _, f := range done {
		before[filepath.Base(f)] = exptest.ReadFile(t, f)
	}
	// The killed run's task processes die with it (no stray writers).
	time.Sleep(200 * time.Millisecond)
	n := len(finished())

	out := exptest.Run(t, dir, nil, "experiment", "run", "kill.toml", "--out", "out", "--no-report", "--jobs", "1")
	if !strings.Contains(out, fmt.Sprintf("%d already done", n)) {
		t.Errorf("rerun did not pick up %d finished tasks:\n%s", n, out)
	}
	for name, data := range before {
		if again := exptest.ReadFile(t, filepath.Join(tasks, name)); !bytes.Equal(data, again) {
			t.Errorf("finished task %s was run again", name)
		}
	}
	info := string(exptest.ReadFile(t, filepath.Join(dir, "out", "run.json")))
	for name := range before {
		id := strings.TrimSuffix(name, ".json")
		if !strings.Contains(info, `"`+id+`"`) {
			t.Errorf("run.json does not mention %s", id)
		}
	}

	// An uninterrupted run gives the same results file.
	exptest.Run(t, dir, nil, "experiment", "run", "kill.toml", "--out", "fresh", "--no-report")
	if a, b := exptest.ReadFile(t, filepath.Join(dir, "out", "results.jsonl")), exptest.ReadFile(t, filepath.Join(dir, "fresh", "results.jsonl")); !bytes.Equal(a, b) {
		t.Error("the resumed run's results differ from an uninterrupted run's")
	}
}

// TestSlurmExecutor runs the small manifest on a real one-node Slurm
// cluster (experiments/testdata/slurm-up.sh installs and starts it when
// missing) and requires the same results file as the local executor. One
// task fails on its first run, so the resubmission is exercised too.
func TestSlurmExecutor(t *testing.T) {
	slurmUp(t)
	want, _ := localRun(t)

	dir := t.TempDir()
	smallManifest(t, dir)
	start := time.Now()
	log := exptest.Run(t, dir, []string{plan.FailOnceEnv + "=measure-H1-s1"}, "experiment", "run", "small.toml",
		"--executor", "slurm", "--poll", "300ms", "--out", "out", "--report-dir", "reports", "--cache", "cache")
	t.Logf("slurm run: %s", time.Since(start).Round(time.Millisecond))
	for _, w := range []string{"slurm: submitted array", "retry  measure-H1-s1", "done   measure-H1-s1"} {
		if !strings.Contains(log, w) {
			t.Errorf("slurm run log lacks %q:\n%s", w, log)
		}
	}
	got := exptest.ReadFile(t, filepath.Join(dir, "out", "results.jsonl"))
	if !bytes.Equal(got, want) {
		t.Errorf("Slurm and local results differ:\nslurm:\n%s\nlocal:\n%s", got, want)
	}
	outs, _ := filepath.Glob(filepath.Join(dir, "out", "slurm", "*.out"))
	if len(outs) == 0 {
		t.Error("no Slurm output files collected")
	}
}

// slurmUp brings up the one-node test cluster (testdata/slurm-up.sh; a
// no-op when it answers already): the machine's as root, else a private
// one of the user, whose slurm.conf it puts in the environment of the
// commands the test runs. Where Slurm cannot be started (not installed and
// no root to install it) the test fails and says why: it skips only under
// -short, never silently.
func slurmUp(t *testing.T) {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: no Slurm cluster")
	}
	testtier.Needs(t, "a one-node Slurm cluster (slurm-wlm and munge, which testdata/slurm-up.sh installs as root)")
	cmd := exec.Command("bash", "testdata/slurm-up.sh")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		if ee, ok := err.(*exec.ExitError); ok && ee.ExitCode() == 2 {
			t.Fatalf("Slurm cannot be started on this machine, so the Slurm executor goes untested: %s"+
				"(the tests install it when run as root, as CI does; go test -short leaves this test out)", stderr.Bytes())
		}
		t.Fatalf("slurm-up.sh: %v\n%s%s", err, stdout.Bytes(), stderr.Bytes())
	}
	t.Logf("%s", bytes.TrimSpace(stderr.Bytes()))
	if conf, ok := slurmConf(stdout.String()); ok {
		t.Setenv("SLURM_CONF", conf)
	}
}

// slurmConf finds the SLURM_CONF=PATH line slurm-up.sh prints for a
// private cluster.
func slurmConf(stdout string) (string, bool) {
	for _, line := range strings.Split(stdout, "\n") {
		if conf, ok := strings.CutPrefix(strings.TrimSpace(line), "SLURM_CONF="); ok && conf != "" {
			return conf, true
		}
	}
	return "", false
}

// TestTrainCache trains tiny nets (two variants, two seeds) and runs the
// manifest again into another results folder with the same cache: the nets
// are found by content key, not retrained, and the results are the same.
func TestTrainCache(t *testing.T) {
	data, err := filepath.Abs(filepath.Join("data", "validation-sf151.txt.zst"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "tiny.toml"), []byte(fmt.Sprintf(`title = "tiny training"
metrics = ["agreement"]
seeds = [1, 2]
[base]
arch = "chess768"
overrides = ["accumulator.width=32"]
[[variant]]
name = "crelu"
overrides = ["head.activation=\"crelu\""]
[positions]
limit = 100
[data]
train = [%q]
max_positions = 3000
[train]
epochs = 2
batch = 512
threads = 1
`, data)), 0o644)
	exptest.Run(t, dir, nil, "experiment", "run", "tiny.toml", "--out", "a", "--cache", "cache", "--report-dir", "reports")
	nets, _ := filepath.Glob(filepath.Join(dir, "cache", "*", "net.nnue.zst"))
	if len(nets) != 4 {
		t.Fatalf("%d nets in the cache, want 4 (2 variants x 2 seeds)", len(nets))
	}
	exptest.Run(t, dir, nil, "experiment", "run", "tiny.toml", "--out", "b", "--cache", "cache", "--report-dir", "reports")
	logs, _ := filepath.Glob(filepath.Join(dir, "b", "logs", "train-*.log"))
	if len(logs) != 4 {
		t.Fatalf("%d train logs in the second run", len(logs))
	}
	for _, l := range logs {
		if !bytes.Contains(exptest.ReadFile(t, l), []byte("net in the cache")) {
			t.Errorf("%s: retrained:\n%s", l, exptest.ReadFile(t, l))
		}
	}
	a, b := exptest.ReadFile(t, filepath.Join(dir, "a", "results.jsonl")), exptest.ReadFile(t, filepath.Join(dir, "b", "results.jsonl"))
	if !bytes.Equal(a, b) {
		t.Error("results differ between the run that trained and the one that reused the cache")
	}
	if !bytes.Contains(a, []byte(`"metric":"train.val_loss"`)) {
		t.Error("no trainer validation loss in the results")
	}

	// A fresh clone: the results are there, the cache is not. With every
	// measurement finished nothing is retrained; with one of them gone,
	// exactly the net it needs is trained again, to the same results.
	if err := os.RemoveAll(filepath.Join(dir, "cache")); err != nil {
		t.Fatal(err)
	}
	if out := exptest.Run(t, dir, nil, "experiment", "run", "tiny.toml", "--out", "a", "--cache", "cache", "--report-dir", "reports"); strings.Contains(out, "redoing") {
		t.Errorf("retrained although nothing needs the nets:\n%s", out)
	}
	if err := os.Remove(filepath.Join(dir, "a", "tasks", "measure-crelu-s2.json")); err != nil {
		t.Fatal(err)
	}
	out := exptest.Run(t, dir, nil, "experiment", "run", "tiny.toml", "--out", "a", "--cache", "cache", "--report-dir", "reports")
	if strings.Count(out, "redoing") != 1 {
		t.Errorf("want one train task redone:\n%s", out)
	}
	if nets, _ := filepath.Glob(filepath.Join(dir, "cache", "*", "net.nnue.zst")); len(nets) != 1 {
		t.Errorf("%d nets in the cache after the rerun, want 1", len(nets))
	}
	if c := exptest.ReadFile(t, filepath.Join(dir, "a", "results.jsonl")); !bytes.Equal(a, c) {
		t.Error("results differ after retraining the lost net")
	}

	// A partial report draws what the full one does (it once lost the loss
	// curves: its records came from memory, not from results.jsonl).
	exptest.Run(t, dir, nil, "experiment", "report", "tiny.toml", "--out", "a", "--report-dir", "partial", "--partial")
	for _, d := range []string{"reports", "partial"} {
		if md := exptest.ReadFile(t, filepath.Join(dir, d, "tiny.md")); !bytes.Contains(md, []byte("![loss-curves](tiny/loss-curves.svg)")) {
			t.Errorf("%s/tiny.md has no loss curves", d)
		}
	}
}

// checkPartialReport reports a copy of the finished run in done with an
// Elo chunk and a measurement taken away: the page says so, the Elo cell
// counts the games played of those planned, and the plain report points to
// --partial. (TestRunLocal calls it while its run folder exists.)
func checkPartialReport(t *testing.T, done string) {
	t.Helper()
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(done)); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"elo-k51-c001", "measure-H1-s1"} {
		if err := os.Remove(filepath.Join(dir, "out", "tasks", id+".json")); err != nil {
			t.Fatal(err)
		}
	}
	os.Remove(filepath.Join(dir, "out", "results.jsonl"))
	cmd := exec.Command(exptest.Nnuelab(t), "experiment", "report", "small.toml", "--out", "out", "--report-dir", "reports")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err == nil || !strings.Contains(string(out), "--partial") {
		t.Fatalf("report without results.jsonl: %v\n%s", err, out)
	}
	exptest.Run(t, dir, nil, "experiment", "report", "small.toml", "--out", "out", "--report-dir", "reports", "--partial")
	md := string(exptest.ReadFile(t, filepath.Join(dir, "reports", "small.md")))
	for _, want := range []string{"**Partial results:**", "not yet run: 1 measure, 1 elo", "2 games of 4"} {
		if !strings.Contains(md, want) {
			t.Errorf("partial report lacks %q:\n%s", want, md)
		}
	}

	m, err := manifest.Load(filepath.Join(dir, "small.toml"))
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.New(m, plan.Options{Out: filepath.Join(dir, "out"), Cache: filepath.Join(dir, "cache")})
	if err != nil {
		t.Fatal(err)
	}
	recs, missing, err := records.MergePartial(p)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(missing, []string{"measure-H1-s1", "elo-k51-c001"}) {
		t.Errorf("missing tasks %v", missing)
	}
	for _, r := range recs {
		if r.Variant == "H1" && strings.HasPrefix(r.Metric, "history_shares") {
			t.Errorf("a record from the missing measurement: %+v", r)
		}
		if r.Variant == "k51" && r.Metric == "elo" && (r.N != 2 || r.Detail["games_planned"] != 4) {
			t.Errorf("partial Elo record: %d games, detail %v", r.N, r.Detail)
		}
	}
	if _, err := records.Merge(p); err == nil {
		t.Error("Merge accepted a plan with missing results")
	}
}

// TestSlurmConf: the private cluster's configuration is read from
// slurm-up.sh's output; the machine's cluster prints none.
func TestSlurmConf(t *testing.T) {
	for _, tc := range []struct {
		stdout, want string
		ok           bool
	}{
		{"", "", false},
		{"SLURM_CONF=/tmp/nnuelab-slurm-1000/slurm.conf\n", "/tmp/nnuelab-slurm-1000/slurm.conf", true},
		{"noise\n  SLURM_CONF=/x/slurm.conf  \n", "/x/slurm.conf", true},
		{"SLURM_CONF=\n", "", false},
	} {
		if got, ok := slurmConf(tc.stdout); got != tc.want || ok != tc.ok {
			t.Errorf("slurmConf(%q) = %q, %v; want %q, %v", tc.stdout, got, ok, tc.want, tc.ok)
		}
	}
}
