package generations

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/bench/stats"
	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/datasets/datagen"
	"github.com/nnuelab/nnuelab/experiments/internal/exptest"
	"github.com/nnuelab/nnuelab/experiments/manifest"
	"github.com/nnuelab/nnuelab/experiments/metrics"
	"github.com/nnuelab/nnuelab/experiments/plan"
	"github.com/nnuelab/nnuelab/experiments/records"
	"github.com/nnuelab/nnuelab/experiments/runner"
	"github.com/nnuelab/nnuelab/internal/fsutil"
	"github.com/nnuelab/nnuelab/nets"
	"github.com/nnuelab/nnuelab/nets/train"
)

// shippedChess768 is the shipped chess768 net's file (a float net).
func shippedChess768(t *testing.T) string {
	t.Helper()
	path, err := filepath.Abs(filepath.Join(exptest.Root(), "nets", "chess768-first.nnue.zst"))
	if err != nil {
		t.Fatal(err)
	}
	return path
}

// genHead is a generations manifest of the shipped chess768 up to the end
// of [generations] (plans only: nothing of it is run).
func genHead(gen0 string) string {
	return fmt.Sprintf(`
name = "gens"
metrics = ["val_loss", "bench_nps", "elo"]
[generations]
count = 3
arch = "chess768"
gen0_net = %q
reference = "leorik-3.1"
positions = 400
shards = 2
seed = 101
nodes = 200
keep = "all"
`, gen0)
}

// genTail is the rest of genHead's manifest.
const genTail = `
[train]
epochs = 1
batch = 256
[elo]
nodes = 100
games = 4
max_games = 4
chunk = 2
`

// writeManifest writes a manifest into dir and loads it.
func writeManifest(t *testing.T, dir, name, text string) *manifest.Manifest {
	t.Helper()
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	m, err := manifest.Load(path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// genRunnerOf plans nothing yet: it resolves a generations manifest into
// a runner with its results and cache in temporary folders.
func genRunnerOf(t *testing.T, m *manifest.Manifest, out, cache string) *genRunner {
	t.Helper()
	r, err := newGenRunner(m, runner.RunOptions{Options: plan.Options{Out: out, Cache: cache, Binary: "/bin/nnuelab",
		Command: "nnuelab experiment run gens.toml"}, Executor: &runner.Local{Jobs: 2}})
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// planGen plans generation k of r and appends it.
func planGen(t *testing.T, r *genRunner, k int) *generation {
	t.Helper()
	g, err := r.plan(k)
	if err != nil {
		t.Fatalf("generation %d: %v", k, err)
	}
	r.gens = append(r.gens, g)
	return g
}

func TestGenerationsManifest(t *testing.T) {
	dir := t.TempDir()
	m := writeManifest(t, dir, "g.toml", genHead(shippedChess768(t))+genTail)
	g := m.Generations
	if !g.WarmStart || g.Filter != "default" || g.Seed != 101 || g.RandomPlies != 10 || g.Keep != datagen.KeepAll {
		t.Errorf("defaults: %+v", g)
	}
	if e := m.Elo; e.Games != 4 || e.MaxGames != 4 || e.SPRT == nil || e.SPRT.Elo0 != 0 || e.SPRT.Elo1 != 10 || e.SPRT.Model != "normalized" {
		t.Errorf("elo defaults: %+v (sprt %+v)", e, e.SPRT)
	}
	if gate, fixed := m.GateElo(), m.FixedElo(); gate.Games != 0 || gate.SPRT == nil || fixed.SPRT != nil || fixed.MaxGames != 0 || fixed.Games != 4 {
		t.Errorf("gate %+v, fixed %+v", gate, fixed)
	}
	// Keep quiet: no filter by default; the Elo test's defaults.
	m = writeManifest(t, dir, "q.toml", strings.Replace(genHead(shippedChess768(t)), `keep = "all"`, `keep = "quiet"`, 1)+"[train]\nepochs = 1\n[elo]\nnodes = 100\n")
	if g := m.Generations; g.Filter != "none" || g.Keep != "" || m.Elo.Games != manifest.GenGamesDefault || m.Elo.MaxGames != manifest.GenMaxGamesDefault {
		t.Errorf("keep quiet: filter %q, keep %q, games %d, max games %d", g.Filter, g.Keep, m.Elo.Games, m.Elo.MaxGames)
	}

	head := genHead(shippedChess768(t))
	for _, c := range []struct{ name, text, key, want string }{
		{"unknown key", strings.Replace(head, "count = 3", "count = 3\ncounts = 4", 1) + genTail, "generations.counts", "unknown key"},
		{"upper case", strings.Replace(head, "count = 3", "Count = 3", 1) + genTail, "generations.Count", "lower case"},
		{"bad count", strings.Replace(head, "count = 3", "count = 0", 1) + genTail, "generations.count", "must be 1..1000"},
		{"negative count", strings.Replace(head, "count = 3", "count = -2", 1) + genTail, "generations.count", "must be 1..1000"},
		{"missing arch", strings.Replace(head, `arch = "chess768"`, "", 1) + genTail, "generations.arch", "missing"},
		{"unknown arch", strings.Replace(head, `arch = "chess768"`, `arch = "chess769"`, 1) + genTail, "generations.arch", "chess769"},
		{"bad override", strings.Replace(head, `arch = "chess768"`, "arch = \"chess768\"\noverrides = [\"accumulator.widht=2\"]", 1) + genTail, "generations.overrides", "widht"},
		{"bad reference", strings.Replace(head, `"leorik-3.1"`, `"leorik-9"`, 1) + genTail, "generations.reference", "leorik-9"},
		{"reference without a net", strings.Replace(head, `"leorik-3.1"`, `"koivisto-16"`, 1) + genTail, "generations.reference", "ships no network"},
		{"no positions", strings.Replace(head, "positions = 400", "", 1) + genTail, "generations.positions", "positions or games"},
		{"bad keep", strings.Replace(head, `keep = "all"`, `keep = "most"`, 1) + genTail, "generations.keep", "most"},
		{"bad filter", head + "filter = \"min-ply\"\n" + genTail, "generations.filter", "min-ply"},
		{"negative window", head + "window = -1\n" + genTail, "generations.window", ">= 0"},
		{"ref as extra data", head + "extra_data = [\"datagen:x\"]\n" + genTail, "generations.extra_data", "files"},
		{"gen twice", head + "[[generations.gen]]\ngen = 2\npositions = 10\n[[generations.gen]]\ngen = 2\n" + genTail, "generations.gen[1].gen", "twice"},
		{"gen unknown key", head + "[[generations.gen]]\ngen = 2\nseed = 4\n" + genTail, "generations.gen.seed", "unknown key"},
		{"base", head + "[base]\narch = \"chess768\"\n" + genTail, "base", "not allowed"},
		{"variant", head + genTail + "[[variant]]\nname = \"x\"\n", "variant", "not allowed"},
		{"datagen", head + genTail + "[[datagen]]\nname = \"x\"\npositions = 1\n", "datagen", "not allowed"},
		{"data train", head + "[data]\ntrain = [\"a.bin\"]\n" + genTail, "data.train", "extra_data"},
		{"no train", head + "[elo]\nnodes = 100\n", "train", "missing"},
		{"train init", head + "[train]\nepochs = 1\ninit = \"x.nnue.zst\"\n[elo]\nnodes = 100\n", "train.init", "warm_start"},
		{"metric", strings.Replace(head, `"bench_nps"`, `"agreement"`, 1) + genTail, "metrics", "agreement"},
		{"two seeds", "seeds = [1, 2]\n" + head + genTail, "seeds", "one seed"},
		{"no elo section", head + "[train]\nepochs = 1\n", "elo", "needs an [elo] section"},
		{"elo variants", head + genTail + "variants = [\"gen1\"]\n", "elo", "opponent and variants"},
		{"odd games", strings.Replace(head+genTail, "games = 4\n", "games = 3\n", 1), "elo.games", "even"},
		{"bad sprt", head + genTail + "[elo.sprt]\nelo0 = 5\nelo1 = 0\n", "elo.sprt.elo1", "above elo0"},
		{"negative opening bound", head + "max_opening_score = -1\n" + genTail, "generations.max_opening_score", "centipawns"},
		{"negative gen opening bound", head + "[[generations.gen]]\ngen = 2\nmax_opening_score = -5\n" + genTail, "generations.gen[0].max_opening_score", "centipawns"},
		{"negative win score", head + "win_score = -1\n" + genTail, "generations.win_score", "centipawns"},
		{"negative gen win plies", head + "[[generations.gen]]\ngen = 2\nwin_plies = -3\n" + genTail, "generations.gen[0].win_plies", "plies"},
		{"bad start", head + "start = \"960\"\n" + genTail, "generations.start", `"960" is not one of`},
		{"bad gen start", head + "[[generations.gen]]\ngen = 2\nstart = \"frc\"\n" + genTail, "generations.gen[0].start", `"frc" is not one of`},
		{"negative gen random plies", head + "[[generations.gen]]\ngen = 2\nrandom_plies = -1\n" + genTail, "generations.gen[0].random_plies", ">= 0"},
		{"unknown gen arch", head + "[[generations.gen]]\ngen = 2\narch = \"nosuch\"\n" + genTail, "generations.gen[0].arch", "nosuch"},
		{"bad gen overrides", head + "[[generations.gen]]\ngen = 2\noverrides = [\"accumulator.nosuch=1\"]\n" + genTail, "generations.gen[0].overrides", "nosuch"},
		{"warm start across archs", head + "[[generations.gen]]\ngen = 2\noverrides = [\"accumulator.width=32\"]\nwarm_start = true\n" + genTail, "generations.gen[0].warm_start", "(chess768 to chess768 (accumulator.width=32)): the previous net cannot warm-start"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := manifest.Parse("g.toml", dir, []byte(c.text))
			if err == nil || !strings.Contains(err.Error(), "g.toml") || !strings.Contains(err.Error(), fmt.Sprintf("%q", c.key)) || !strings.Contains(err.Error(), c.want) {
				t.Fatalf("error %v, want file g.toml, key %q and %q", err, c.key, c.want)
			}
		})
	}

	// A bad gen0 net is found when the loop is planned, naming the key.
	m = writeManifest(t, dir, "bad0.toml", genHead(filepath.Join(dir, "none.nnue.zst"))+genTail)
	if _, err := newGenRunner(m, runner.RunOptions{Options: plan.Options{Out: t.TempDir(), Cache: t.TempDir()}}); err == nil || !strings.Contains(err.Error(), `"generations.gen0_net"`) {
		t.Errorf("missing gen0 net: %v", err)
	}
	if _, err := plan.New(writeManifest(t, dir, "g2.toml", genHead(shippedChess768(t))+genTail), plan.Options{}); err == nil {
		t.Error("New planned a generations manifest as an ordinary one")
	}
}

// TestGenerationsPlan: how generations expand into sub-plans and tasks.
func TestGenerationsPlan(t *testing.T) {
	dir := t.TempDir()
	m := writeManifest(t, dir, "gens.toml", genHead(shippedChess768(t))+"window = 2\n"+genTail)
	r := genRunnerOf(t, m, filepath.Join(dir, "out"), filepath.Join(dir, "cache"))
	if !r.gen0.Shipped || !r.gen0.Float {
		t.Fatalf("gen 0 is the shipped chess768 net, a float net: %+v", r.gen0)
	}

	// Generation 1: self-play by gen 0, which is the shipped net, so
	// datagen plays without an EvalFile, as `nnuelab datagen --arch
	// chess768` does; every position kept, in binpack shards.
	g1 := planGen(t, r, 1)
	if g1.Player != r.gen0 || g1.Init != r.gen0 || !slices.Equal(g1.Window, []int{1}) {
		t.Fatalf("generation 1: player %s, init %v, window %v", g1.Player.Name, g1.Init, g1.Window)
	}
	var shards []string
	for _, tk := range g1.Train.Tasks {
		if tk.Kind == plan.KindDatagen {
			shards = append(shards, tk.ID)
			gc := tk.Data.Gen
			if gc.EvalFile != "" || gc.Arch != "chess768" || gc.Keep != datagen.KeepAll || gc.Seed != 101 || gc.Shards != 2 || gc.Positions != 400 || gc.Nodes != 200 {
				t.Errorf("%s: %+v", tk.ID, gc)
			}
			if !strings.HasSuffix(tk.Data.Out, ".binpack") {
				t.Errorf("%s writes %s, want a .binpack shard", tk.ID, tk.Data.Out)
			}
		}
	}
	if !slices.Equal(shards, []string{"datagen-gen1-0001", "datagen-gen1-0002"}) {
		t.Fatalf("generation 1's self-play tasks: %v", shards)
	}
	tr := g1.Train.Task(g1.Train.Variant("gen1").Nets[0].Train)
	if !slices.Equal(tr.Needs, shards) {
		t.Errorf("training needs %v, want the shards %v", tr.Needs, shards)
	}
	if tr.Train.Config.Init != shippedChess768(t) || tr.Train.Config.Filter == nil || *tr.Train.Config.Filter != datasets.DefaultFilter {
		t.Errorf("training: init %q, filter %v", tr.Train.Config.Init, tr.Train.Config.Filter)
	}
	if got := strings.Join(tr.Train.Config.Data, ","); got != strings.Join(g1.Data.Files, ",") {
		t.Errorf("training reads %s, want generation 1's shards", got)
	}
	for _, tk := range g1.Train.Tasks {
		if tk.Kind == plan.KindElo && (!slices.Contains(tk.Needs, tr.ID) || tk.Variant != "gen1") {
			t.Errorf("gate chunk %s (variant %s) needs %v", tk.ID, tk.Variant, tk.Needs)
		}
	}
	if b := g1.Train.BaseVariant(); b.Name != "gen0" || b.Nets[0].Path != shippedChess768(t) || b.Trained {
		t.Errorf("the gate's base: %+v", b)
	}
	// vs gen 0 and vs the reference: fixed games; gen 0 also meets the
	// reference in generation 1 (the curve's start).
	if v := g1.VsGen0; v.BaseVariant().Name != "gen0" || len(v.Variants) != 2 || v.Variants[1].Nets[0].SHA256 != g1.Net.ID {
		t.Errorf("vs gen 0: base %s, variants %d", v.BaseVariant().Name, len(v.Variants))
	}
	var refPlayers []string
	for _, v := range g1.VsRef.Variants[1:] {
		refPlayers = append(refPlayers, v.Name)
	}
	if g1.VsRef.BaseVariant().Name != "leorik-3.1" || !slices.Equal(refPlayers, []string{"gen1", "gen0"}) || g1.VsRef.Manifest.Elo.SPRT != nil {
		t.Errorf("vs the reference: base %s, players %v", g1.VsRef.BaseVariant().Name, refPlayers)
	}

	// Generation 2 is planned once generation 1's gate has decided (here
	// by hand: not promoted). Its self-play is still gen 0's; it starts
	// from generation 1's net (the previous one, whatever its gate).
	g1.Decided, g1.Promoted = true, false
	g2 := planGen(t, r, 2)
	if g2.Player != r.gen0 || g2.Init != g1.Net {
		t.Errorf("generation 2: player %s, init %v", g2.Player.Name, g2.Init)
	}
	tr2 := g2.Train.Task(g2.Train.Variant("gen2").Nets[0].Train)
	if tr2.Train.Config.Init != g1.Net.Path || tr2.ID == tr.ID {
		t.Errorf("generation 2 starts from %q (generation 1's net is %s)", tr2.Train.Config.Init, g1.Net.Path)
	}
	// It trains on generations 1 and 2; generation 1's shards are made by
	// generation 1's plan, not again by this one.
	want := append(append([]string(nil), g1.Data.Files...), g2.Data.Files...)
	if got := tr2.Train.Config.Data; !slices.Equal(got, want) {
		t.Errorf("generation 2 trains on %v, want %v", got, want)
	}
	for _, tk := range g2.Train.Tasks {
		if strings.HasPrefix(tk.ID, "datagen-gen1") {
			t.Errorf("generation 2's plan makes generation 1's shard %s", tk.ID)
		}
	}
	if !slices.Equal(tr2.Needs, []string{"datagen-gen2-0001", "datagen-gen2-0002"}) {
		t.Errorf("generation 2's training needs %v", tr2.Needs)
	}
	if ins := externalInputs(g2.Train); !slices.Contains(ins, g1.Net.Path) || !slices.Contains(ins, g1.Data.Files[0]) {
		t.Errorf("generation 2's inputs from earlier generations: %v", ins)
	}
	if seed := g2.Train.Task("datagen-gen2-0001").Data.Gen.Seed; seed != 102 {
		t.Errorf("generation 2 plays seed %d, want 102", seed)
	}
	if g2.VsRef != nil && len(g2.VsRef.Variants) != 2 {
		t.Errorf("generation 2 vs the reference: %d variants", len(g2.VsRef.Variants))
	}

	// Promoted this time: generation 3's self-play is generation 2's net,
	// given by path, keyed by its identity; the window drops generation 1.
	g2.Decided, g2.Promoted = true, true
	g3 := planGen(t, r, 3)
	if g3.Player != g2.Net || !slices.Equal(g3.Window, []int{2, 3}) {
		t.Fatalf("generation 3: player %s, window %v", g3.Player.Name, g3.Window)
	}
	gc := g3.Train.Task("datagen-gen3-0001").Data.Gen
	if gc.EvalFile != g2.Net.Path {
		t.Errorf("generation 3's self-play plays %q, want generation 2's net %s", gc.EvalFile, g2.Net.Path)
	}
	if b := g3.Train.BaseVariant(); b.Name != "gen2" || b.Nets[0].SHA256 != g2.Net.ID {
		t.Errorf("generation 3's gate is against %s (%s)", b.Name, b.Nets[0].SHA256)
	}
	want = append(append([]string(nil), g2.Data.Files...), g3.Data.Files...)
	if got := g3.Train.Task(g3.Train.Variant("gen3").Nets[0].Train).Train.Config.Data; !slices.Equal(got, want) {
		t.Errorf("generation 3 trains on %v, want generations 2 and 3: %v", got, want)
	}

	// Per-generation settings and rescoring.
	m = writeManifest(t, dir, "label.toml", genHead(shippedChess768(t))+"label_nodes = 50\nlabel_engine = \"/bin/sh\"\n[[generations.gen]]\ngen = 2\npositions = 1000\nshards = 3\n"+genTail)
	r = genRunnerOf(t, m, filepath.Join(dir, "out2"), filepath.Join(dir, "cache"))
	l1 := planGen(t, r, 1)
	l1.Decided = true
	l2 := planGen(t, r, 2)
	if l1.Data.Ref != "label:gen1" || !strings.HasSuffix(l1.Data.Files[0], ".binpack") {
		t.Errorf("rescored generation 1 trains on %s %v", l1.Data.Ref, l1.Data.Files)
	}
	ltr := l1.Train.Task(l1.Train.Variant("gen1").Nets[0].Train)
	if !slices.Equal(ltr.Needs, []string{"label-gen1-0001", "label-gen1-0002"}) {
		t.Errorf("training of rescored data needs %v", ltr.Needs)
	}
	if gc := l2.Train.Task("datagen-gen2-0001").Data.Gen; gc.Positions != 1000 || gc.Shards != 3 || l2.Train.Task("label-gen2-0003") == nil {
		t.Errorf("generation 2's own settings: %+v", gc)
	}
	if l1.Train.Task("datagen-gen1-0001").Data.Gen.Positions != 400 {
		t.Error("generation 2's settings changed generation 1")
	}

	// Rescoring from generation 2 on: generation 1 keeps the data and the
	// net (so the keys) of the loop that never rescored; generation 2's
	// own self-play is rescored and trains beside generation 1's as made.
	plain := writeManifest(t, dir, "plain.toml", genHead(shippedChess768(t))+genTail)
	p1 := planGen(t, genRunnerOf(t, plain, filepath.Join(dir, "out3"), filepath.Join(dir, "cache")), 1)
	m = writeManifest(t, dir, "label2.toml", genHead(shippedChess768(t))+"label_engine = \"/bin/sh\"\n[[generations.gen]]\ngen = 2\nlabel_nodes = 50\n"+genTail)
	r = genRunnerOf(t, m, filepath.Join(dir, "out4"), filepath.Join(dir, "cache"))
	k1 := planGen(t, r, 1)
	k1.Decided = true
	k2 := planGen(t, r, 2)
	if k1.Data.Ref != "datagen:gen1" || k1.Data.Key != p1.Data.Key || k1.Net.ID != p1.Net.ID {
		t.Errorf("generation 1 of a loop rescoring from generation 2: %s key %s net %s; without rescoring: key %s net %s",
			k1.Data.Ref, k1.Data.Key, k1.Net.ID, p1.Data.Key, p1.Net.ID)
	}
	// Balanced openings from generation 2 on: generation 1 keeps its data
	// key, generation 2's self-play carries the bound (and so another key).
	m = writeManifest(t, dir, "bal.toml", genHead(shippedChess768(t))+"[[generations.gen]]\ngen = 2\nmax_opening_score = 300\n"+genTail)
	r = genRunnerOf(t, m, filepath.Join(dir, "out5"), filepath.Join(dir, "cache"))
	b1 := planGen(t, r, 1)
	b1.Decided = true
	b2 := planGen(t, r, 2)
	if b1.Data.Key != p1.Data.Key || b1.Train.Task("datagen-gen1-0001").Data.Gen.MaxOpeningScore != 0 {
		t.Errorf("generation 1 of a loop bounding openings from generation 2: key %s, want %s", b1.Data.Key, p1.Data.Key)
	}
	if gc := b2.Train.Task("datagen-gen2-0001").Data.Gen; gc.MaxOpeningScore != 300 {
		t.Errorf("generation 2's self-play: max opening score %d, want 300", gc.MaxOpeningScore)
	}
	if g := m.Generations; g.OpeningBoundOf(1) != 0 || g.OpeningBoundOf(2) != 300 || g.OpeningBoundOf(5) != 300 {
		t.Errorf("OpeningBoundOf: %d %d %d", g.OpeningBoundOf(1), g.OpeningBoundOf(2), g.OpeningBoundOf(5))
	}
	// A new recipe from generation 2 on (nodes, soft limit, starts, random
	// plies, win adjudication, size): generation 1 keeps its data key,
	// generations 2 and 3 play the new recipe.
	m = writeManifest(t, dir, "recipe.toml", genHead(shippedChess768(t))+"[[generations.gen]]\ngen = 2\nnodes = 400\nsoft_nodes = 100\nstart = \"dfrc\"\nrandom_plies = 0\nwin_score = 1000\nwin_plies = 3\npositions = 800\nshards = 1\n"+genTail)
	r = genRunnerOf(t, m, filepath.Join(dir, "out6"), filepath.Join(dir, "cache"))
	c1 := planGen(t, r, 1)
	c1.Decided = true
	c2 := planGen(t, r, 2)
	c2.Decided = true
	c3 := planGen(t, r, 3)
	if c1.Data.Key != p1.Data.Key {
		t.Errorf("generation 1 of a loop changing its recipe from generation 2: key %s, want %s", c1.Data.Key, p1.Data.Key)
	}
	for _, g := range []*generation{c2, c3} {
		gc := g.Train.Task(fmt.Sprintf("datagen-gen%d-0001", g.K)).Data.Gen
		if gc.Nodes != 400 || gc.SoftNodes != 100 || gc.Start != "dfrc" || gc.RandomPlies != 0 || gc.WinScore != 1000 || gc.WinPlies != 3 || gc.Positions != 800 || gc.Shards != 1 {
			t.Errorf("generation %d's self-play: %+v, want the recipe of generation 2 on", g.K, gc)
		}
	}
	if k2.Data.Ref != "label:gen2" || k2.Train.Task("label-gen2-0001") == nil {
		t.Errorf("generation 2 rescored: trains on %s", k2.Data.Ref)
	}
	got := k2.Train.Task(k2.Train.Variant("gen2").Nets[0].Train).Train.Config.Data
	if want := append(append([]string(nil), k1.Data.Files...), k2.Data.Files...); !slices.Equal(got, want) {
		t.Errorf("generation 2 trains on %v, want generation 1's self-play and generation 2's rescored: %v", got, want)
	}
}

// TestGenerationsArchChange: a [[generations.gen]] arch or overrides
// change the trained architecture from that generation on. The
// generations before keep their keys; the first generation of the new
// architecture trains from random weights (the previous net does not fit
// it), the next warm-starts from it; a net plays self-play and gates with
// its own architecture, whichever generation's self-play it plays.
func TestGenerationsArchChange(t *testing.T) {
	dir := t.TempDir()
	plain := writeManifest(t, dir, "plain.toml", genHead(shippedChess768(t))+genTail)
	p1 := planGen(t, genRunnerOf(t, plain, filepath.Join(dir, "out0"), filepath.Join(dir, "cache")), 1)
	m := writeManifest(t, dir, "wide.toml", genHead(shippedChess768(t))+"[[generations.gen]]\ngen = 2\noverrides = [\"accumulator.width=32\"]\n"+genTail)
	r := genRunnerOf(t, m, filepath.Join(dir, "out1"), filepath.Join(dir, "cache"))
	g1 := planGen(t, r, 1)
	if g1.Net.ID != p1.Net.ID || g1.Data.Key != p1.Data.Key {
		t.Errorf("generation 1 of a loop widening from generation 2: net %s data %s, without: net %s data %s", g1.Net.ID, g1.Data.Key, p1.Net.ID, p1.Data.Key)
	}
	g1.Decided, g1.Promoted = true, true
	g2 := planGen(t, r, 2)
	v2 := g2.Train.Variant("gen2")
	if g2.Init != nil || v2.Arch != "chess768" || !slices.Equal(v2.Overrides, []string{"accumulator.width=32"}) || !strings.Contains(v2.Spec, "width = 32") {
		t.Fatalf("generation 2: init %v, trains %s %v", g2.Init, v2.Arch, v2.Overrides)
	}
	if tr := g2.Train.Task(v2.Nets[0].Train); tr.Train.Config.Init != "" {
		t.Errorf("generation 2 starts from %q, want random weights", tr.Train.Config.Init)
	}
	// Its self-play and gate are generation 1's net, with generation 1's arch.
	if gc := g2.Train.Task("datagen-gen2-0001").Data.Gen; gc.Arch != "chess768" || gc.EvalFile != g1.Net.Path {
		t.Errorf("generation 2's self-play: arch %s, net %s", gc.Arch, gc.EvalFile)
	}
	if b := g2.Train.BaseVariant(); b.Name != "gen1" || len(b.Overrides) != 0 {
		t.Errorf("generation 2's gate base: %s %v", b.Name, b.Overrides)
	}
	// Promoted: generation 3 is played by generation 2's net with the
	// narrow arch, written to the cache for datagen, and warm-starts from it.
	g2.Decided, g2.Promoted = true, true
	g3 := planGen(t, r, 3)
	gc := g3.Train.Task("datagen-gen3-0001").Data.Gen
	if gc.EvalFile != g2.Net.Path || !strings.HasSuffix(gc.Arch, ".toml") || gc.Arch != g2.Net.Arch.archFile {
		t.Errorf("generation 3's self-play: arch %s, net %s", gc.Arch, gc.EvalFile)
	}
	if g3.Init != g2.Net || !slices.Equal(g3.Train.Variant("gen3").Overrides, []string{"accumulator.width=32"}) {
		t.Errorf("generation 3: init %v, overrides %v", g3.Init, g3.Train.Variant("gen3").Overrides)
	}
	if b := g3.Train.BaseVariant(); b.Name != "gen2" || !slices.Equal(b.Overrides, []string{"accumulator.width=32"}) {
		t.Errorf("generation 3's gate base: %s %v", b.Name, b.Overrides)
	}
	// ensure writes the narrow arch's file for self-play.
	if err := r.ensure(context.Background(), []string{gc.Arch}, 0); err != nil {
		t.Fatal(err)
	}
	if text, err := os.ReadFile(gc.Arch); err != nil || !strings.Contains(string(text), "width = 32") {
		t.Errorf("the arch file for self-play: %v\n%s", err, text)
	}
	if s := archChangesText(m.Generations); !strings.Contains(s, "from generation 2: chess768 (accumulator.width=32)") {
		t.Errorf("the plan's text: %q", s)
	}
}

// TestArchOf: a [[generations.gen]] arch or overrides hold from their
// generation on, in generation order whatever the tables' order; a new
// arch without overrides drops the earlier overrides.
func TestArchOf(t *testing.T) {
	g := &manifest.GenerationsSpec{Arch: "chess768", Overrides: []string{"quant.qa=127"}, Gen: []manifest.GenSettings{
		{Gen: 9, Arch: "y", Overrides: []string{"a"}},
		{Gen: 3, Overrides: []string{"accumulator.width=512"}},
		{Gen: 7, Overrides: []string{"accumulator.width=64"}},
		{Gen: 5, Arch: "x"},
		{Gen: 6, Nodes: 100},
	}}
	for _, c := range []struct {
		k    int
		arch string
		ovr  []string
	}{
		{0, "chess768", []string{"quant.qa=127"}},
		{2, "chess768", []string{"quant.qa=127"}},
		{3, "chess768", []string{"accumulator.width=512"}},
		{4, "chess768", []string{"accumulator.width=512"}},
		{5, "x", nil},
		{6, "x", nil},
		{7, "x", []string{"accumulator.width=64"}},
		{9, "y", []string{"a"}},
		{12, "y", []string{"a"}},
	} {
		if arch, ovr := g.ArchOf(c.k); arch != c.arch || !slices.Equal(ovr, c.ovr) {
			t.Errorf("ArchOf(%d) = %s %v, want %s %v", c.k, arch, ovr, c.arch, c.ovr)
		}
	}
}

// TestGenerationsKeys: tasks are keyed by content, never by path.
func TestGenerationsKeys(t *testing.T) {
	dir := t.TempDir()
	shipped := shippedChess768(t)
	keys := func(m *manifest.Manifest) (string, string) {
		r := genRunnerOf(t, m, filepath.Join(t.TempDir(), "out"), filepath.Join(t.TempDir(), "cache"))
		g := planGen(t, r, 1)
		return g.Data.Key, g.Net.ID
	}
	data, net := keys(writeManifest(t, dir, "a.toml", genHead(shipped)+genTail))
	// Same settings, other folders: the same keys.
	if d, n := keys(writeManifest(t, dir, "b.toml", genHead(shipped)+genTail)); d != data || n != net {
		t.Errorf("same settings, other folders: keys %s %s vs %s %s", d, n, data, net)
	}
	// A copy of the shipped net elsewhere, or no gen0_net at all (the
	// shipped net): the same self-play and the same warm start.
	cp := filepath.Join(dir, "copy.nnue.zst")
	if err := os.WriteFile(cp, exptest.ReadFile(t, shipped), 0o644); err != nil {
		t.Fatal(err)
	}
	if d, n := keys(writeManifest(t, dir, "c.toml", genHead(cp)+genTail)); d != data || n != net {
		t.Errorf("a copy of gen 0 changed the keys")
	}
	noGen0 := strings.Replace(genHead(shipped), fmt.Sprintf("gen0_net = %q\n", shipped), "", 1)
	if d, n := keys(writeManifest(t, dir, "d.toml", noGen0+genTail)); d != data || n != net {
		t.Errorf("the shipped net without gen0_net changed the keys")
	}
	// Another gen 0 net (the same tensors, another header): other
	// self-play, another warm start, other keys.
	f, err := os.Open(shipped)
	if err != nil {
		t.Fatal(err)
	}
	h, ts, err := nets.ReadFloat(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	h.Created = "2000-01-01T00:00:00Z"
	other := filepath.Join(dir, "other.nnue.zst")
	if err := nets.WriteFloat(other, *h, ts); err != nil {
		t.Fatal(err)
	}
	if d, n := keys(writeManifest(t, dir, "e.toml", genHead(other)+genTail)); d == data || n == net {
		t.Errorf("another gen 0 net kept the keys")
	}
	// Without a warm start the net's key changes, the data's does not.
	if d, n := keys(writeManifest(t, dir, "f.toml", genHead(shipped)+"warm_start = false\n"+genTail)); d != data || n == net {
		t.Errorf("warm_start = false: data key same %v, net key same %v", d == data, n == net)
	}

	// An ordinary [train] init and filter: by content.
	for _, f := range []string{"a.txt", "v.txt"} {
		if err := os.WriteFile(filepath.Join(dir, f), []byte(f), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	trainKey := func(extra string) (string, error) {
		path := filepath.Join(dir, "o.toml")
		os.WriteFile(path, []byte("metrics = [\"val_loss\"]\n[base]\narch = \"chess768\"\n[data]\ntrain = [\"a.txt\"]\nvalidation = [\"v.txt\"]\n[train]\nepochs = 1\n"+extra), 0o644)
		m, err := manifest.Load(path)
		if err != nil {
			return "", err
		}
		p, err := plan.New(m, plan.Options{Out: t.TempDir(), Cache: t.TempDir()})
		if err != nil {
			return "", err
		}
		return p.Variants[0].Nets[0].SHA256, nil
	}
	plain, err := trainKey("")
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		extra string
		same  bool
	}{
		{"filter = \"none\"\n", true},
		{"filter = \"default\"\n", false},
		{fmt.Sprintf("init = %q\n", shipped), false},
	} {
		if k, err := trainKey(c.extra); err != nil || (k == plain) != c.same {
			t.Errorf("%q: key %s (without: %s), err %v", c.extra, k, plain, err)
		}
	}
	a, _ := trainKey(fmt.Sprintf("init = %q\n", shipped))
	b, _ := trainKey(fmt.Sprintf("init = %q\n", cp))
	c, _ := trainKey(fmt.Sprintf("init = %q\n", other))
	if a != b || a == c {
		t.Errorf("init by content: a copy gives %v, other content %v", a == b, a != c)
	}
	k74, _ := filepath.Abs(filepath.Join(exptest.Root(), "nets", "koivisto-7.4.net"))
	if _, err := trainKey(fmt.Sprintf("init = %q\n", k74)); err == nil || !strings.Contains(err.Error(), "train.init") || !strings.Contains(err.Error(), "not a float net") {
		t.Errorf("an init net that is not a float net: %v", err)
	}
}

// fakeResults writes results for every task of a plan, with the gate's
// chunks scoring pen each (so that its SPRT decides at once).
func fakeResults(t *testing.T, p *plan.Plan, pen stats.Penta) {
	t.Helper()
	if err := os.MkdirAll(filepath.Join(p.Out, "tasks"), 0o755); err != nil {
		t.Fatal(err)
	}
	for _, tk := range p.Tasks {
		r := plan.TaskResult{ID: tk.ID, Kind: tk.Kind, Key: tk.Key, Variant: tk.Variant, Seed: tk.Seed}
		switch tk.Kind {
		case plan.KindDatagen, plan.KindLabel:
			r.Data = &plan.DataResult{Out: tk.Data.Out, Positions: 200}
		case plan.KindTrain:
			r.Train = &plan.TrainResult{Key: tk.Key, History: []train.EpochStats{{Epoch: 1, Positions: 380, TrainLoss: 0.02, ValLoss: 0.03}}}
		case plan.KindMeasure:
			r.Measure = &metrics.MeasureResult{ValLoss: &metrics.ValLoss{Loss: 0.03, N: 100}}
		case plan.KindSpeed:
			r.Speed = &metrics.SpeedResult{}
			for _, v := range p.Variants {
				r.Speed.Variants = append(r.Speed.Variants, metrics.VariantSpeed{Name: v.Name, BenchNPS: []float64{1e6}})
			}
		case plan.KindElo:
			w, l := pen[4]*2, pen[0]*2
			r.Elo = &plan.EloResult{Wins: w, Losses: l, Draws: tk.Games - w - l, Penta: pen}
		}
		data, err := json.Marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(plan.ResultPath(p.Out, tk.ID), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestGenerationsGate: the gate's decision, read back from the results,
// decides which net plays the next self-play; the dry run plans no further
// than the first undecided gate; the report shows the decision.
func TestGenerationsGate(t *testing.T) {
	for _, c := range []struct {
		name     string
		pen      stats.Penta
		promoted bool
	}{{"H1", stats.Penta{0, 0, 0, 0, 50}, true}, {"H0", stats.Penta{50, 0, 0, 0, 0}, false}} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			m := writeManifest(t, dir, "gens.toml", genHead(shippedChess768(t))+genTail)
			out, cache := filepath.Join(dir, "out"), filepath.Join(dir, "cache")
			dry := func() string {
				var b bytes.Buffer
				r := genRunnerOf(t, m, out, cache)
				r.opt.Stdout = &b
				if err := r.dryRun(); err != nil {
					t.Fatal(err)
				}
				return b.String()
			}
			if s := dry(); !strings.Contains(s, "generations 2-3: planned once generation 1's gate has decided") || strings.Contains(s, "---- generation 2") {
				t.Fatalf("dry run before the gate:\n%s", s)
			}

			r := genRunnerOf(t, m, out, cache)
			g1 := planGen(t, r, 1)
			if g1.Decided {
				t.Fatal("decided without results")
			}
			// 50 game pairs a chunk, all won or all lost: the first decides.
			fakeResults(t, g1.Train, c.pen)
			if d, p, v := r.decision(g1); !d || p != c.promoted {
				t.Fatalf("decision %v, promoted %v (%s)", d, p, v)
			}
			g1.Decided, g1.Promoted, g1.Decision = r.decision(g1)
			g2 := planGen(t, r, 2)
			wantPlayer := r.gen0
			if c.promoted {
				wantPlayer = g1.Net
			}
			if g2.Player != wantPlayer || g2.Train.BaseVariant().Name != wantPlayer.Name {
				t.Errorf("generation 2's self-play by %s, want %s", g2.Player.Name, wantPlayer.Name)
			}
			gc := g2.Train.Task("datagen-gen2-0001").Data.Gen
			if (gc.EvalFile == g1.Net.Path) != c.promoted || c.promoted == (gc.EvalFile == "") {
				t.Errorf("generation 2 plays EvalFile %q", gc.EvalFile)
			}
			if s := dry(); !strings.Contains(s, "---- generation 2, train") || !strings.Contains(s, "generation 3: planned once generation 2's gate") {
				t.Errorf("dry run after generation 1's gate:\n%s", s)
			}

			// The results and the report, from fake results of every part.
			fakeResults(t, g1.VsGen0, stats.Penta{0, 0, 1, 0, 0})
			fakeResults(t, g1.VsRef, stats.Penta{0, 1, 0, 0, 0})
			r.opt.ReportDir = filepath.Join(dir, "reports")
			if err := r.writeSummary(); err != nil {
				t.Fatal(err)
			}
			md := string(exptest.ReadFile(t, filepath.Join(dir, "reports", "gens.md")))
			verdict := "H0 accepted"
			if c.promoted {
				verdict = "H1 accepted"
			}
			for _, want := range []string{"| **gen 0** |", "| **gen 1** | gen0 | 400 | 400 |", "SPRT " + verdict, "vs gen0: ", "own search (chess768, 200 nodes)", "warm"} {
				if want == "warm" {
					want = "| gen0 | 380 (380) |"
				}
				if !strings.Contains(md, want) {
					t.Errorf("report lacks %q:\n%s", want, md)
				}
			}
			if c.promoted != strings.Contains(md, "**gen1** (promoted)") {
				t.Errorf("report and promotion disagree:\n%s", md)
			}
		})
	}
}

// tinyGen0 trains a tiny chess768 (width 32) for one epoch: gen 0 of the
// end-to-end test.
func tinyGen0(t *testing.T, dir string) string {
	t.Helper()
	data, err := filepath.Abs(filepath.Join(exptest.Root(), "experiments", "data", "validation-sf151.txt.zst"))
	if err != nil {
		t.Fatal(err)
	}
	cfg := train.DefaultConfig()
	cfg.Arch, cfg.Overrides = "chess768", []string{"accumulator.width=32"}
	cfg.Data, cfg.MaxPositions, cfg.Epochs, cfg.Batch, cfg.Threads = []string{data}, 2000, 1, 256, 1
	cfg.Out, cfg.Export = filepath.Join(dir, "gen0.nnue.zst"), "none"
	if _, err := train.Run(context.Background(), cfg, train.Options{}); err != nil {
		t.Fatal(err)
	}
	return cfg.Out
}

// TestGenerationsEndToEnd runs a tiny loop through the local executor:
// self-play in binpack shards, training with a warm start, the gate and
// the Elo tests at a few nodes; then a rerun that runs nothing, a raised
// count that runs only the new generation, the report rewritten from the
// results alone, and a fresh clone (no cache) that remakes exactly what a
// missing Elo chunk needs of earlier generations.
func TestGenerationsEndToEnd(t *testing.T) {
	if testing.Short() {
		t.Skip("plays self-play games and trains nets")
	}
	start := time.Now()
	dir := t.TempDir()
	gen0 := tinyGen0(t, dir)
	manifest := func(count int) {
		text := fmt.Sprintf(`
name = "tiny-gens"
title = "tiny generations"
metrics = ["val_loss", "bench_nps", "elo"]
[generations]
count = %d
arch = "chess768"
overrides = ["accumulator.width=32"]
gen0_net = %q
reference = "leorik-3.1"
games = 4
shards = 2
seed = 7
nodes = 100
keep = "all"
[speed]
rounds = 1
bench_depth = 3
[data]
val_limit = 300
[train]
epochs = 1
batch = 256
threads = 1
[elo]
nodes = 100
games = 2
max_games = 2
chunk = 2
`, count, gen0)
		if err := os.WriteFile(filepath.Join(dir, "tiny.toml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"experiment", "run", "tiny.toml", "--out", "out", "--cache", "cache", "--report-dir", "reports"}
	manifest(1)
	dry := exptest.Run(t, dir, nil, append(args, "--dry-run")...)
	for _, want := range []string{"---- generation 1, train", "datagen-gen1-0002", "---- generation 1, vs-reference", "elo-gen0-c000", "generations planned so far: 1 of 1"} {
		if !strings.Contains(dry, want) {
			t.Errorf("dry run lacks %q:\n%s", want, dry)
		}
	}
	exptest.Run(t, dir, nil, args...)
	t.Logf("generation 1: %s", time.Since(start).Round(time.Millisecond))

	// The shards are binpack, the training started from gen 0.
	shards, _ := filepath.Glob(filepath.Join(dir, "cache", "datagen-*", "shard-*.binpack"))
	if len(shards) != 2 {
		t.Fatalf("self-play shards in the cache: %v", shards)
	}
	p1, err := plan.Read(filepath.Join(dir, "out", "gen-1", "train"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tk := range p1.Tasks {
		if tk.Kind == plan.KindTrain {
			res, ok := plan.ReadResult(p1.Out, tk)
			if !ok || tk.Train.Config.Init != gen0 || res.Train == nil {
				t.Fatalf("training %s: init %q, done %v", tk.ID, tk.Train.Config.Init, ok)
			}
			// The loop keeps the net beside the results, byte for byte.
			kept := filepath.Join(plan.NetCopyDir(p1.Out, tk.ID), filepath.Base(tk.Train.Config.Out))
			if sum, _, err := fsutil.FileSHA256(kept); err != nil || sum != res.Train.NetSHA256 {
				t.Errorf("kept net %s: sha256 %s (%v), the task's net %s", kept, sum, err, res.Train.NetSHA256)
			}
		}
	}

	// Count raised: generation 1 is read back, only generation 2 runs.
	info1 := exptest.ReadFile(t, filepath.Join(dir, "out", "gen-1", "train", "run.json"))
	manifest(2)
	out := exptest.Run(t, dir, nil, args...)
	for _, want := range []string{"generation 1, train: done", "generation 1, vs-reference: done", "generation 2 done"} {
		if !strings.Contains(out, want) {
			t.Errorf("second run lacks %q:\n%s", want, out)
		}
	}
	if !bytes.Equal(info1, exptest.ReadFile(t, filepath.Join(dir, "out", "gen-1", "train", "run.json"))) {
		t.Error("generation 1's train part ran again")
	}
	p2, err := plan.Read(filepath.Join(dir, "out", "gen-2", "train"))
	if err != nil {
		t.Fatal(err)
	}
	if len(p2.Tasks) == 0 || p2.Task("datagen-gen1-0001") != nil {
		t.Errorf("generation 2's plan: %d tasks, remakes generation 1's data: %v", len(p2.Tasks), p2.Task("datagen-gen1-0001") != nil)
	}

	results := exptest.ReadFile(t, filepath.Join(dir, "out", "results.jsonl"))
	recs, err := records.ReadResults(filepath.Join(dir, "out", "results.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]records.Record{}
	for _, rec := range recs {
		got[rec.Variant+" "+rec.Metric] = rec
	}
	for _, want := range []string{"gen0 generation", "gen0 val_loss", "gen0 elo.vs_reference", "gen1 selfplay.positions", "gen1 train.positions",
		"gen1 train.val_loss", "gen1 val_loss", "gen1 bench_nps.nps", "gen1 elo.gate", "gen1 elo.vs_gen0", "gen1 elo.vs_reference",
		"gen2 generation", "gen2 elo.gate", "gen2 elo.vs_reference"} {
		if _, ok := got[want]; !ok {
			t.Errorf("no record %q", want)
		}
	}
	if a, b := got["gen1 selfplay.positions"], got["gen2 selfplay.positions"]; a.Value < 200 || b.Detail["cumulative"] != a.Value+b.Value {
		t.Errorf("self-play positions: gen 1 %v, gen 2 %v (cumulative %v)", a.Value, b.Value, b.Detail["cumulative"])
	}
	if init := got["gen2 generation"].Detail["init"]; init != "gen1" {
		t.Errorf("generation 2 starts from %v", init)
	}

	// A rerun runs nothing and writes the same results; the report command
	// rewrites the same page from them.
	out = exptest.Run(t, dir, nil, args...)
	if strings.Contains(out, "done   ") || !strings.Contains(out, "generation 2, vs-reference: done") {
		t.Errorf("a rerun ran tasks:\n%s", out)
	}
	if !bytes.Equal(results, exptest.ReadFile(t, filepath.Join(dir, "out", "results.jsonl"))) {
		t.Error("a rerun changed the results")
	}
	md := filepath.Join(dir, "reports", "tiny-gens.md")
	page := exptest.ReadFile(t, md)
	for _, want := range []string{"# tiny generations", "| **gen 2** |", "![loss-curves](tiny-gens/loss-curves.svg)", "![elo-vs-positions](tiny-gens/elo-vs-positions.svg)", "**Status:** 2 of 2 generation(s) finished"} {
		if !bytes.Contains(page, []byte(want)) {
			t.Errorf("report lacks %q:\n%s", want, page)
		}
	}
	os.Remove(md)
	exptest.Run(t, dir, nil, "experiment", "report", "tiny.toml", "--out", "out", "--report-dir", "reports")
	if !bytes.Equal(page, exptest.ReadFile(t, md)) {
		t.Error("experiment report wrote another page from the same results")
	}

	// A fresh clone: the results, not the cache. One Elo chunk of
	// generation 2 is missing: it needs generation 2's net, which needs its
	// data and generation 1's net and data, made again from their keys.
	if err := os.RemoveAll(filepath.Join(dir, "cache")); err != nil {
		t.Fatal(err)
	}
	refOut := filepath.Join(dir, "out", "gen-2", "vs-reference")
	before := exptest.ReadFile(t, filepath.Join(refOut, "results.jsonl"))
	chunk := filepath.Join(refOut, "tasks", "elo-gen2-c000.json")
	if err := os.Remove(chunk); err != nil {
		t.Fatal(err)
	}
	out = exptest.Run(t, dir, nil, args...)
	for _, want := range []string{"generation 2's train-", "generation 1's ", "not in the cache: making it again"} {
		if !strings.Contains(out, want) {
			t.Errorf("fresh-clone run lacks %q:\n%s", want, out)
		}
	}
	if !bytes.Equal(before, exptest.ReadFile(t, filepath.Join(refOut, "results.jsonl"))) {
		t.Errorf("the chunk replayed on remade nets gives other results:\n%s\n%s", before, exptest.ReadFile(t, filepath.Join(refOut, "results.jsonl")))
	}
	// The nets were not trained again: the kept copies were adopted.
	for _, k := range []int{1, 2} {
		logs, _ := filepath.Glob(filepath.Join(dir, "out", fmt.Sprintf("gen-%d", k), "train", "logs", "train-*.log"))
		if len(logs) != 1 || !bytes.Contains(exptest.ReadFile(t, logs[0]), []byte("adopted the kept net")) {
			t.Errorf("generation %d's net was trained again rather than adopted (logs %v)", k, logs)
		}
	}

	// A damaged kept net is never adopted: the run stops naming it.
	kept, _ := filepath.Glob(filepath.Join(dir, "out", "gen-1", "train", "nets", "train-*", "net.nnue.zst"))
	if len(kept) != 1 {
		t.Fatalf("kept nets of generation 1: %v", kept)
	}
	buf := exptest.ReadFile(t, kept[0])
	buf[len(buf)-9] ^= 1
	if err := os.WriteFile(kept[0], buf, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(filepath.Join(dir, "cache")); err != nil {
		t.Fatal(err)
	}
	if err := os.Remove(filepath.Join(refOut, "tasks", "elo-gen2-c000.json")); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exptest.Nnuelab(t), args...)
	cmd.Dir = dir
	if msg, err := cmd.CombinedOutput(); err == nil || !bytes.Contains(msg, []byte(kept[0])) {
		t.Errorf("a damaged kept net: exit %v, output\n%s\nwant a failure naming %s", err, msg, kept[0])
	}
	t.Logf("end to end: %s", time.Since(start).Round(time.Millisecond))
}

// TestShippedGenerations: generation 1 of experiments/generations.toml is
// exactly the self-play of `nnuelab datagen --out sK-of-4.binpack
// --positions 4000000 --shard K/4 --seed 101 --arch chess768 --keep all`,
// so that shards made by that command can be adopted into the cache, and it
// trains from random weights (generation 1's override).
func TestShippedGenerations(t *testing.T) {
	t.Chdir(filepath.Join(exptest.Root(), "experiments")) // the shipped manifests and their results
	m, err := manifest.Load("generations.toml")
	if err != nil {
		t.Fatal(err)
	}
	r := genRunnerOf(t, m, filepath.Join(t.TempDir(), "out"), filepath.Join(t.TempDir(), "cache"))
	g := planGen(t, r, 1)
	n := 0
	for _, tk := range g.Train.Tasks {
		if tk.Kind != plan.KindDatagen {
			continue
		}
		n++
		want := datagen.DefaultConfig() // the flags' defaults, as cmd/nnuelab/datagen.go sets them
		want.Positions, want.Seed, want.Arch, want.Keep = 4000000, 101, "chess768", datagen.KeepAll
		want.Shard, want.Shards = n, 4
		got := *tk.Data.Gen
		got.Threads, want.Threads = 0, 0 // not a setting (toml:"-"): it does not change the games
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("%s: %+v\nwant %+v", tk.ID, got, want)
		}
		if name := fmt.Sprintf("shard-%04d.binpack", n); filepath.Base(tk.Data.Out) != name {
			t.Errorf("%s writes %s, want %s", tk.ID, tk.Data.Out, name)
		}
	}
	if n != 4 {
		t.Errorf("%d self-play shards, want 4", n)
	}
	if g.Init != nil || !r.gen0.Shipped {
		t.Errorf("generation 1 starts from %v (gen 0 shipped: %v), want random weights", g.Init, r.gen0.Shipped)
	}
}

// TestRecipeSharesGenerationOne: experiments/recipe.toml trains on exactly
// generation 1's self-play of generations.toml (same dataset key), so the
// two manifests share the cache's shards instead of playing them twice.
func TestRecipeSharesGenerationOne(t *testing.T) {
	t.Chdir(filepath.Join(exptest.Root(), "experiments")) // the shipped manifests and their results
	gm, err := manifest.Load("generations.toml")
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	g := planGen(t, genRunnerOf(t, gm, filepath.Join(t.TempDir(), "out"), cache), 1)
	rm, err := manifest.Load("recipe.toml")
	if err != nil {
		t.Fatal(err)
	}
	p, err := plan.New(rm, plan.Options{Out: t.TempDir(), Cache: cache})
	if err != nil {
		t.Fatal(err)
	}
	d := p.MadeData(manifest.RefDatagen + "gen1")
	if d == nil || g.Data == nil {
		t.Fatalf("recipe gen1 %v, generations gen 1 %v", d, g.Data)
	}
	if d.Key != g.Data.Key || fmt.Sprint(d.Files) != fmt.Sprint(g.Data.Files) {
		t.Errorf("recipe's gen1 is %s %v, generations' %s %v", d.Key[:16], d.Files, g.Data.Key[:16], g.Data.Files)
	}
}
