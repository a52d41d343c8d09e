package experiments

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/datasets/datagen"
	"github.com/nnuelab/nnuelab/experiments/internal/exptest"
	"github.com/nnuelab/nnuelab/experiments/manifest"
	"github.com/nnuelab/nnuelab/experiments/plan"
)

// TestMadeData runs an experiment that makes its own training data: a
// self-play set in two shards, rescored by a UCI engine (nnuelab itself,
// so that the test needs no other engine) in two shards, then a net trained
// on it. The tasks chain through their needs, the trainer reads exactly the
// labelled shards, the report describes the data, and a rerun makes nothing
// again.
func TestMadeData(t *testing.T) {
	if testing.Short() {
		t.Skip("plays self-play games")
	}
	dir := t.TempDir()
	text := fmt.Sprintf(`
metrics = ["val_loss"]
[base]
arch = "chess768"
overrides = ["accumulator.width=32"]
[[datagen]]
name = "sp"
positions = 200
shards = 2
nodes = 200
[[label]]
name = "relabel"
inputs = ["datagen:sp"]
engine = %q
nodes = 100
shards = 2
[data]
train = ["label:relabel"]
val_limit = 300
[train]
epochs = 1
batch = 256
threads = 1
`, exptest.Nnuelab(t))
	if err := os.WriteFile(filepath.Join(dir, "made.toml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	dry := exptest.Run(t, dir, nil, "experiment", "run", "made.toml", "--out", "out", "--cache", "cache", "--report-dir", "reports", "--dry-run")
	for _, want := range []string{"datagen-sp-0001", "datagen-sp-0002", "label-relabel-0001", "label-relabel-0002", "datagen ", "label "} {
		if !strings.Contains(dry, want) {
			t.Errorf("dry run lacks %q:\n%s", want, dry)
		}
	}
	exptest.Run(t, dir, nil, "experiment", "run", "made.toml", "--out", "out", "--cache", "cache", "--report-dir", "reports")

	p, err := plan.Read(filepath.Join(dir, "out"))
	if err != nil {
		t.Fatal(err)
	}
	positions := map[string]int64{}
	var trainTask *plan.Task
	for _, task := range p.Tasks {
		r, ok := plan.ReadResult(p.Out, task)
		if !ok {
			t.Fatalf("task %s has no result", task.ID)
		}
		switch task.Kind {
		case plan.KindDatagen, plan.KindLabel:
			if r.Data == nil || r.Data.Positions <= 0 {
				t.Fatalf("task %s: %+v", task.ID, r.Data)
			}
			positions[task.Kind] += r.Data.Positions
		case plan.KindTrain:
			trainTask = task
		}
	}
	// Labelling keeps every position but those the engine scores as mate.
	if g, l := positions[plan.KindDatagen], positions[plan.KindLabel]; l > g || l < g*95/100 {
		t.Errorf("%d self-play positions, %d labelled", g, l)
	}
	if trainTask == nil {
		t.Fatal("no train task")
	}
	label := p.MadeData("label:relabel")
	if got := strings.Join(trainTask.Train.Config.Data, ","); got != strings.Join(label.Files, ",") {
		t.Errorf("trainer reads %s, want the labelled shards %s", got, strings.Join(label.Files, ","))
	}
	if want := strings.Join(label.Tasks, ","); strings.Join(trainTask.Needs, ",") != want {
		t.Errorf("train task needs %v, want %s", trainTask.Needs, want)
	}
	for _, id := range label.Tasks {
		if lt := p.Task(id); len(lt.Needs) != 2 || !strings.HasPrefix(lt.Needs[0], "datagen-sp-") {
			t.Errorf("label task %s needs %v, want both self-play shards", id, lt.Needs)
		}
	}
	md := string(exptest.ReadFile(t, filepath.Join(dir, "reports", "made.md")))
	if !strings.Contains(md, "Data `label:relabel`") || !strings.Contains(md, fmt.Sprintf("%d positions", positions[plan.KindLabel])) {
		t.Errorf("report does not describe the made data:\n%s", md)
	}

	// A second experiment folder with the same data: made once, in the
	// cache, so its shards come back at once with the same content.
	exptest.Run(t, dir, nil, "experiment", "run", "made.toml", "--out", "out2", "--cache", "cache", "--report-dir", "reports2")
	for _, task := range p.Tasks {
		if task.Data == nil {
			continue
		}
		a, _ := plan.ReadResult(p.Out, task)
		b, ok := plan.ReadResult(filepath.Join(dir, "out2"), task)
		if !ok || a.Data.SHA256 != b.Data.SHA256 {
			ja, _ := json.Marshal(a)
			jb, _ := json.Marshal(b)
			t.Errorf("task %s differs between runs sharing a cache:\n%s\n%s", task.ID, ja, jb)
		}
		if b.Seconds > 5 {
			t.Errorf("task %s took %.1f s with its output in the cache", task.ID, b.Seconds)
		}
	}
}

// TestMadeDataErrors: references to datasets are checked when the
// manifest is read.
func TestMadeDataErrors(t *testing.T) {
	head := "metrics = [\"val_loss\"]\n[base]\narch = \"chess768\"\n[train]\nepochs = 1\n"
	for _, c := range []struct{ name, text, key, want string }{
		{"unknown ref", head + "[data]\ntrain = [\"label:x\"]\n", "data.train", "no such"},
		{"ref as validation", head + "[[datagen]]\nname = \"g\"\npositions = 10\n[data]\ntrain = [\"datagen:g\"]\nvalidation = [\"datagen:g\"]\n", "data.validation", "validation is a file"},
		{"label before its input", head + "[[label]]\nname = \"a\"\ninputs = [\"label:b\"]\nnodes = 1\n[[label]]\nname = \"b\"\ninputs = [\"x.bin\"]\nnodes = 1\n[data]\ntrain = [\"label:a\"]\n", "label[0].inputs", "defined above"},
		{"no limit", head + "[[label]]\nname = \"a\"\ninputs = [\"x.bin\"]\n[data]\ntrain = [\"label:a\"]\n", "label[0].nodes", "nodes or depth"},
		{"no size", head + "[[datagen]]\nname = \"g\"\n[data]\ntrain = [\"datagen:g\"]\n", "datagen[0].positions", "positions or games"},
		{"twice", head + "[[datagen]]\nname = \"g\"\npositions = 1\n[[datagen]]\nname = \"g\"\npositions = 1\n[data]\ntrain = [\"datagen:g\"]\n", "datagen[1].name", "twice"},
		{"unknown key", head + "[[datagen]]\nname = \"g\"\npositions = 1\nnode = 5\n[data]\ntrain = [\"datagen:g\"]\n", "datagen.node", "unknown key"},
		{"negative opening bound", head + "[[datagen]]\nname = \"g\"\npositions = 1\nmax_opening_score = -3\n[data]\ntrain = [\"datagen:g\"]\n", "datagen[0].max_opening_score", "centipawns"},
		{"soft above hard", head + "[[datagen]]\nname = \"g\"\npositions = 1\nnodes = 1000\nsoft_nodes = 2000\n[data]\ntrain = [\"datagen:g\"]\n", "datagen[0].soft_nodes", "above the hard limit"},
		{"unknown start", head + "[[datagen]]\nname = \"g\"\npositions = 1\nstart = \"960\"\n[data]\ntrain = [\"datagen:g\"]\n", "datagen[0].start", "not one of"},
		{"negative adjudication", head + "[[datagen]]\nname = \"g\"\npositions = 1\nwin_score = -1\n[data]\ntrain = [\"datagen:g\"]\n", "datagen[0]", "must be >= 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := manifest.Parse("m.toml", t.TempDir(), []byte(c.text))
			if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("%q", c.key)) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want key %q and %q", err, c.key, c.want)
			}
		})
	}
}

// datagenShard plans a one-set manifest whose [[datagen]] set "g" has the
// extra line (a key = value and newline, or nothing) and returns its first
// shard's task.
func datagenShard(t *testing.T, line string) *plan.Task {
	t.Helper()
	dir := t.TempDir()
	text := []byte("metrics = [\"val_loss\"]\n[base]\narch = \"chess768\"\n[train]\nepochs = 1\n" +
		"[[datagen]]\nname = \"g\"\npositions = 10\n" + line + "[data]\ntrain = [\"datagen:g\"]\n")
	file := filepath.Join(dir, "m.toml")
	if err := os.WriteFile(file, text, 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Parse(file, dir, text)
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.New(m, plan.Options{Out: t.TempDir(), Cache: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	return p.Task("datagen-g-0001")
}

// TestDatagenRandomPlies: random_plies = 0 in [[datagen]] is a value (no
// random plies), not "the default"; leaving it out is the default.
func TestDatagenRandomPlies(t *testing.T) {
	for _, c := range []struct {
		line string
		want int
	}{{"random_plies = 0\n", 0}, {"random_plies = 3\n", 3}, {"", datagen.DefaultConfig().RandomPlies}} {
		if got := datagenShard(t, c.line).Data.Gen.RandomPlies; got != c.want {
			t.Errorf("%q: the shard plays %d random plies, want %d", c.line, got, c.want)
		}
	}
}

// TestDatagenNoMoveLoopPruning: the [[datagen]] key reaches the shards'
// settings and the set's key, and a set without it keeps the key it had.
func TestDatagenNoMoveLoopPruning(t *testing.T) {
	keys := map[string]string{}
	for _, c := range []struct {
		name, line string
		want       bool
	}{{"absent", "", false}, {"false", "no_move_loop_pruning = false\n", false}, {"true", "no_move_loop_pruning = true\n", true}} {
		task := datagenShard(t, c.line)
		if got := task.Data.Gen.NoMoveLoopPruning; got != c.want {
			t.Errorf("%s: the shard's no_move_loop_pruning is %v, want %v", c.name, got, c.want)
		}
		keys[c.name] = task.Key
	}
	if keys["absent"] != keys["false"] || keys["true"] == keys["absent"] {
		t.Errorf("keys: absent %s, false %s, true %s; want the first two equal and the third different", keys["absent"], keys["false"], keys["true"])
	}
}

// TestDatagenAdoptsCommitted: in a fresh clone (results without the
// cache), a self-play shard committed under the repository's datasets/
// with the task's settings is adopted instead of played: the same bytes,
// no game played, the same net trained on it. A damaged committed shard
// stops the run with an error naming it.
func TestDatagenAdoptsCommitted(t *testing.T) {
	if testing.Short() {
		t.Skip("plays self-play games")
	}
	root := t.TempDir()
	exp := filepath.Join(root, "experiments")
	if err := os.MkdirAll(exp, 0o755); err != nil {
		t.Fatal(err)
	}
	text := `
metrics = ["val_loss"]
[base]
arch = "chess768"
overrides = ["accumulator.width=32"]
[[datagen]]
name = "sp"
positions = 200
shards = 2
nodes = 200
keep = "all"
[data]
train = ["datagen:sp"]
val_limit = 300
[train]
epochs = 1
batch = 256
threads = 1
`
	if err := os.WriteFile(filepath.Join(exp, "sp.toml"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	run := func(n string) *plan.Plan {
		exptest.Run(t, exp, nil, "experiment", "run", "sp.toml", "--out", "out"+n, "--cache", "cache"+n, "--report-dir", "reports"+n)
		p, err := plan.Read(filepath.Join(exp, "out"+n))
		if err != nil {
			t.Fatal(err)
		}
		return p
	}
	p1 := run("1")
	var shards []*plan.Task
	for _, task := range p1.Tasks {
		if task.Kind == plan.KindDatagen {
			shards = append(shards, task)
			dst := filepath.Join(root, "datasets", "selfplay-sp", filepath.Base(task.Data.Out))
			if err := datagen.AdoptCommitted(task.Data.Out, dst); err != nil {
				t.Fatal(err)
			}
		}
	}
	if len(shards) != 2 {
		t.Fatalf("%d datagen tasks, want 2", len(shards))
	}

	// The dry run of a fresh folder says so, and charges them nothing.
	dry := exptest.Run(t, exp, nil, "experiment", "run", "sp.toml", "--out", "out2", "--cache", "cache2", "--dry-run")
	for _, task := range shards {
		if !strings.Contains(dry, task.ID) || !regexp.MustCompile(task.ID+`.*adopt from .*selfplay-sp/`).MatchString(dry) {
			t.Errorf("the dry run does not show %s adopted:\n%s", task.ID, dry)
		}
	}
	p2 := run("2")
	for _, task := range shards {
		a, _ := plan.ReadResult(p1.Out, task)
		b, ok := plan.ReadResult(p2.Out, p2.Task(task.ID))
		if !ok || b.Data.SHA256 != a.Data.SHA256 || b.Data.NewPositions != 0 || b.Data.CPUSeconds != 0 {
			ja, _ := json.Marshal(a.Data)
			jb, _ := json.Marshal(b.Data)
			t.Errorf("task %s: first run %s, adopting run %s; want the same shard and no game played", task.ID, ja, jb)
		}
		if tl := string(exptest.ReadFile(t, filepath.Join(p2.Out, "logs", task.ID+".log"))); !strings.Contains(tl, task.ID+": adopted ") {
			t.Errorf("the task's log does not say that %s was adopted:\n%s", task.ID, tl)
		}
	}
	for _, task := range p1.Tasks {
		if task.Kind != plan.KindMeasure {
			continue
		}
		a, _ := plan.ReadResult(p1.Out, task)
		b, _ := plan.ReadResult(p2.Out, p2.Task(task.ID))
		ja, _ := json.Marshal(a.Measure)
		jb, _ := json.Marshal(b.Measure)
		if string(ja) != string(jb) {
			t.Errorf("%s: %s from played data, %s from adopted data", task.ID, ja, jb)
		}
	}

	// A damaged committed shard is never adopted: the run stops naming it.
	bad := filepath.Join(root, "datasets", "selfplay-sp", filepath.Base(shards[0].Data.Out))
	data := exptest.ReadFile(t, bad)
	data[len(data)/2] ^= 0x04
	if err := os.WriteFile(bad, data, 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exptest.Nnuelab(t), "experiment", "run", "sp.toml", "--out", "out3", "--cache", "cache3", "--report-dir", "reports3")
	cmd.Dir = exp
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), bad) {
		t.Errorf("a damaged committed shard: exit %v, output\n%s\nwant a failure naming %s", err, out, bad)
	}
}
