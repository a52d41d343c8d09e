package datagen

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/datasets/internal/splitmix"
	"github.com/nnuelab/nnuelab/engine/board"
)

// testGenConfig is a small, fast configuration (few nodes per move).
func testGenConfig(games int64) Config {
	c := DefaultConfig()
	c.Seed = 7
	c.Games = games
	c.Nodes = 600
	c.HashMB = 1
	c.ChunkGames = 4
	c.Threads = 2
	return c
}

// TestMain runs a datagen child process when the kill test asks for one.
func TestMain(m *testing.M) {
	if spec := os.Getenv("NNUELAB_DATAGEN_CHILD"); spec != "" {
		var child struct {
			Cfg Config
			Out string
		}
		if err := json.Unmarshal([]byte(spec), &child); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(3)
		}
		child.Cfg.Threads = 2
		if _, err := Generate(context.Background(), child.Cfg, child.Out, Options{}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		os.Exit(0)
	}
	os.Exit(m.Run())
}

func generate(t *testing.T, cfg Config, out string) *Manifest {
	t.Helper()
	m, err := Generate(context.Background(), cfg, out, Options{Command: "test"})
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestGenConfigErrors(t *testing.T) {
	tests := []struct {
		name  string
		patch func(*Config)
		want  string
	}{
		{"no limit", func(c *Config) { c.Games = 0 }, "games or positions"},
		{"bad shard", func(c *Config) { c.Shard = 3; c.Shards = 2 }, "shard 3/2"},
		{"no nodes or depth", func(c *Config) { c.Nodes = 0 }, "nodes or depth"},
		{"threads", func(c *Config) { c.Threads = 0 }, "threads"},
		{"chunk", func(c *Config) { c.ChunkGames = 0 }, "chunk"},
		{"arch", func(c *Config) { c.Arch = "no-such-arch" }, "no-such-arch"},
		{"book", func(c *Config) { c.Book = "testdata/does-not-exist.epd" }, "does-not-exist"},
		{"seed", func(c *Config) { c.Seed = 1 << 63 }, "seed"},
		{"opening score", func(c *Config) { c.MaxOpeningScore = -1 }, "max opening score -1"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			cfg := testGenConfig(2)
			tc.patch(&cfg)
			_, err := Generate(context.Background(), cfg, filepath.Join(t.TempDir(), "x.bin"), Options{})
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("error %v, want %q", err, tc.want)
			}
		})
	}
	_, err := Generate(context.Background(), testGenConfig(2), filepath.Join(t.TempDir(), "x.dat"), Options{})
	if err == nil {
		t.Error("unknown output extension accepted")
	}
}

// TestGameRules checks the recorded positions of a few games against the
// settings: ply, check, quiet best move, no mate score, result of the game.
func TestGameRules(t *testing.T) {
	cfg := testGenConfig(0)
	pl, err := newPlayer(&cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	terms := map[string]int{}
	for g := uint64(0); g < 6; g++ {
		game, err := pl.play(context.Background(), g)
		if err != nil {
			t.Fatal(err)
		}
		terms[game.Termination]++
		if game.Plies < cfg.RandomPlies || game.Termination == "" {
			t.Fatalf("game %d: %d plies, termination %q", g, game.Plies, game.Termination)
		}
		for i, r := range game.Records {
			if r.Ply() < cfg.MinPly {
				t.Errorf("game %d record %d at ply %d < %d", g, i, r.Ply(), cfg.MinPly)
			}
			if r.Result != game.Result {
				t.Errorf("game %d record %d: result %v, game %v", g, i, r.Result, game.Result)
			}
			p, err := r.Position()
			if err != nil {
				t.Fatal(err)
			}
			if p.InCheck() {
				t.Errorf("game %d record %d in check: %s", g, i, r.FEN())
			}
		}
		// Replaying the game gives the same records.
		again, err := pl.play(context.Background(), g)
		if err != nil {
			t.Fatal(err)
		}
		if len(again.Records) != len(game.Records) || again.Result != game.Result || again.Plies != game.Plies {
			t.Fatalf("game %d is not reproducible", g)
		}
		for i := range again.Records {
			if again.Records[i] != game.Records[i] {
				t.Fatalf("game %d record %d differs on replay", g, i)
			}
		}
	}
	t.Logf("terminations: %v", terms)
}

func TestGameOver(t *testing.T) {
	tests := []struct {
		fen  string
		term string
		res  datasets.Result
	}{
		{"7k/6Q1/6K1/8/8/8/8/8 b - - 0 1", TermCheckmate, datasets.WhiteWin},
		{"7k/5Q2/6K1/8/8/8/8/8 b - - 0 1", TermStalemate, datasets.Draw},
		{"7k/8/6K1/8/8/8/8/8 b - - 0 1", TermMaterial, datasets.Draw},
		{"7k/8/6K1/8/8/8/8/7R b - - 100 80", TermFiftyMoves, datasets.Draw},
		{"7k/8/6K1/8/8/8/8/7R b - - 0 80", "", datasets.Draw},
	}
	for _, tc := range tests {
		p, err := board.ParseFEN(tc.fen)
		if err != nil {
			t.Fatal(err)
		}
		term, res, over := gameOver(p, 10, 0)
		if term != tc.term || res != tc.res || over != (tc.term != "") {
			t.Errorf("%s: %q %v %v, want %q %v", tc.fen, term, res, over, tc.term, tc.res)
		}
	}
	p := board.StartPosition()
	if term, _, _ := gameOver(p, 600, 600); term != TermMaxPlies {
		t.Errorf("max plies: %q", term)
	}
	for _, m := range []string{"g1f3", "g8f6", "f3g1", "f6g8", "g1f3", "g8f6", "f3g1", "f6g8"} {
		mv, err := p.ParseUCIMove(m)
		if err != nil {
			t.Fatal(err)
		}
		p.MakeMove(mv)
	}
	if term, _, _ := gameOver(p, 8, 0); term != TermRepetition {
		t.Errorf("threefold: %q", term)
	}
}

func TestNoisy(t *testing.T) {
	p, err := board.ParseFEN("r3k2r/1P6/8/3pP3/8/8/8/R3K2R w KQkq d6 0 1")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		move  string
		noisy bool
	}{{"e5d6", true}, {"b7b8q", true}, {"b7a8n", true}, {"a1a8", true}, {"e1g1", false}, {"e5e6", false}, {"a1a2", false}} {
		m, err := p.ParseUCIMove(tc.move)
		if err != nil {
			t.Fatal(err)
		}
		if noisy(p, m) != tc.noisy {
			t.Errorf("%s: noisy %v", tc.move, !tc.noisy)
		}
	}
}

// TestGenerateDeterministic: thread count and output format do not change
// the positions; a finished run is not redone; other settings are refused.
func TestGenerateDeterministic(t *testing.T) {
	dir := t.TempDir()
	cfg := testGenConfig(10)
	cfg.Threads = 1
	m1 := generate(t, cfg, filepath.Join(dir, "a.txt"))
	cfg.Threads = 2
	m2 := generate(t, cfg, filepath.Join(dir, "b.txt"))
	a, _ := os.ReadFile(filepath.Join(dir, "a.txt"))
	b, _ := os.ReadFile(filepath.Join(dir, "b.txt"))
	if !bytes.Equal(a, b) || m1.SHA256 != m2.SHA256 {
		t.Fatal("1 and 2 threads give different output")
	}
	if m1.Summary.Games != 10 || m1.Summary.Positions == 0 || int64(bytes.Count(a, []byte{'\n'})) != m1.Summary.Positions {
		t.Fatalf("summary %+v for %d lines", m1.Summary, bytes.Count(a, []byte{'\n'}))
	}
	if _, err := os.Stat(datasets.PartsDir(filepath.Join(dir, "a.txt"))); !os.IsNotExist(err) {
		t.Error("parts directory left behind")
	}
	// The binary output holds the same records.
	generate(t, cfg, filepath.Join(dir, "c.bin"))
	recs := readAll(t, filepath.Join(dir, "c.bin"))
	var txt strings.Builder
	for _, r := range recs {
		txt.WriteString(r.Text() + "\n")
	}
	if txt.String() != string(a) {
		t.Fatal("binary output differs from text output")
	}
	// Rerunning a finished run returns its manifest.
	m3 := generate(t, cfg, filepath.Join(dir, "a.txt"))
	if m3.SHA256 != m1.SHA256 {
		t.Fatal("rerun changed the manifest")
	}
	cfg.Nodes++
	if _, err := Generate(context.Background(), cfg, filepath.Join(dir, "a.txt"), Options{}); err == nil {
		t.Fatal("other settings accepted for a finished run")
	}
}

// TestGeneratePositions: a position target stops at the first chunk that
// reaches it.
func TestGeneratePositions(t *testing.T) {
	dir := t.TempDir()
	cfg := testGenConfig(0)
	cfg.Positions = 700
	m := generate(t, cfg, filepath.Join(dir, "p.txt"))
	s := m.Summary
	if s.Positions < 700 || s.Games%int64(cfg.ChunkGames) != 0 || s.Games < 2*int64(cfg.ChunkGames) {
		t.Fatalf("%d positions in %d games", s.Positions, s.Games)
	}
	// One chunk less would not have reached the target.
	cfg2 := testGenConfig(s.Games - int64(cfg.ChunkGames))
	m2 := generate(t, cfg2, filepath.Join(dir, "q.txt"))
	if m2.Summary.Positions >= 700 {
		t.Fatalf("the run went on after %d positions", m2.Summary.Positions)
	}
}

// TestShards: shards 1/2 and 2/2 play disjoint games that together are the
// one-shard run's games.
func TestShards(t *testing.T) {
	dir := t.TempDir()
	cfg := testGenConfig(9)
	full := generate(t, cfg, filepath.Join(dir, "full.txt"))
	var parts []*Manifest
	var lines []string
	played := map[uint64]int{}
	for k := 1; k <= 2; k++ {
		c := cfg
		c.Shard, c.Shards = k, 2
		out := filepath.Join(dir, fmt.Sprintf("s%d.txt", k))
		parts = append(parts, generate(t, c, out))
		b, _ := os.ReadFile(out)
		lines = append(lines, strings.Split(strings.TrimSpace(string(b)), "\n")...)
		r := &genRun{cfg: &c}
		for j := int64(0); j < c.localGames(); j++ {
			played[r.global(j)]++
		}
	}
	for g := uint64(0); g < 9; g++ {
		if played[g] != 1 {
			t.Errorf("game %d played %d times", g, played[g])
		}
	}
	if len(played) != 9 {
		t.Errorf("shards played %d games, want 9", len(played))
	}
	sum := func(f func(*Manifest) int64) int64 { return f(parts[0]) + f(parts[1]) }
	if sum(func(m *Manifest) int64 { return m.Summary.Games }) != full.Summary.Games ||
		sum(func(m *Manifest) int64 { return m.Summary.Positions }) != full.Summary.Positions ||
		sum(func(m *Manifest) int64 { return m.Summary.Plies }) != full.Summary.Plies {
		t.Fatalf("shard counts %+v + %+v != %+v", parts[0].Summary, parts[1].Summary, full.Summary)
	}
	for _, key := range []string{"1.0", "0.5", "0.0"} {
		if parts[0].Summary.GameResults[key]+parts[1].Summary.GameResults[key] != full.Summary.GameResults[key] ||
			parts[0].Summary.PosResults[key]+parts[1].Summary.PosResults[key] != full.Summary.PosResults[key] {
			t.Errorf("result %s counts differ", key)
		}
	}
	for term, n := range full.Summary.Terminations {
		if parts[0].Summary.Terminations[term]+parts[1].Summary.Terminations[term] != n {
			t.Errorf("termination %s counts differ", term)
		}
	}
	// The same positions, in another order.
	b, _ := os.ReadFile(filepath.Join(dir, "full.txt"))
	want := strings.Split(strings.TrimSpace(string(b)), "\n")
	sort.Strings(want)
	sort.Strings(lines)
	if strings.Join(want, "\n") != strings.Join(lines, "\n") {
		t.Fatal("the shards' positions are not the one-shard run's")
	}
}

// TestKillAndResume kills a datagen child process (SIGKILL) twice at
// different points and reruns it; the result must be byte-identical to an
// uninterrupted run.
func TestKillAndResume(t *testing.T) {
	dir := t.TempDir()
	cfg := testGenConfig(24)
	ref := generate(t, cfg, filepath.Join(dir, "ref.bin"))
	refBytes, _ := os.ReadFile(filepath.Join(dir, "ref.bin"))

	out := filepath.Join(dir, "killed.bin")
	parts := datasets.PartsDir(out)
	spec, _ := json.Marshal(struct {
		Cfg Config
		Out string
	}{cfg, out})
	// Kill once early (some game files, no chunk yet, maybe) and once later.
	for i, wantFiles := range []int{2, 9} {
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), "NNUELAB_DATAGEN_CHILD="+string(spec))
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		deadline := time.Now().Add(60 * time.Second)
		for {
			n := countParts(parts)
			if n >= wantFiles {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("kill %d: child made only %d parts in 60 s; stderr: %s", i+1, n, stderr.String())
			}
			time.Sleep(5 * time.Millisecond)
		}
		if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
			t.Fatal(err)
		}
		err := cmd.Wait()
		if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() {
			t.Fatalf("kill %d: child was not killed (%v); it finished too early? stderr: %s", i+1, err, stderr.String())
		}
		if _, err := os.Stat(out); !os.IsNotExist(err) {
			t.Fatalf("kill %d: output exists after a kill", i+1)
		}
		t.Logf("kill %d: parts after kill: %d", i+1, countParts(parts))
	}
	m := generate(t, cfg, out)
	got, _ := os.ReadFile(out)
	if !bytes.Equal(got, refBytes) || m.SHA256 != ref.SHA256 || m.Summary.Positions != ref.Summary.Positions {
		t.Fatalf("resumed output (%d bytes, %d positions) differs from the uninterrupted run (%d bytes, %d positions)",
			len(got), m.Summary.Positions, len(refBytes), ref.Summary.Positions)
	}
}

// countParts counts game and chunk files (chunks count as ChunkGames=4
// games).
func countParts(dir string) int {
	ents, _ := os.ReadDir(dir)
	n := 0
	for _, e := range ents {
		switch {
		case strings.HasPrefix(e.Name(), "g-"):
			n++
		case strings.HasPrefix(e.Name(), "c-"):
			n += 4
		}
	}
	return n
}

// BenchmarkPlayGame plays default-settings games (5000 nodes per move);
// DATAGEN_BENCH_ARCH names another evaluator (e.g. chess768, the loop's
// player) and DATAGEN_BENCH_HASH_MB another table size.
func BenchmarkPlayGame(b *testing.B) {
	cfg := DefaultConfig()
	if arch := os.Getenv("DATAGEN_BENCH_ARCH"); arch != "" {
		cfg.Arch = arch
	}
	if mb := os.Getenv("DATAGEN_BENCH_HASH_MB"); mb != "" {
		fmt.Sscan(mb, &cfg.HashMB)
	}
	pl, err := newPlayer(&cfg, nil)
	if err != nil {
		b.Fatal(err)
	}
	positions := 0
	for i := 0; b.Loop(); i++ {
		g, err := pl.play(context.Background(), uint64(i))
		if err != nil {
			b.Fatal(err)
		}
		positions += len(g.Records)
	}
	b.ReportMetric(float64(positions)/b.Elapsed().Seconds(), "positions/s")
}

// TestGenerateKilledWhileCleaningUp: a run killed while removing its parts
// directory (output and manifest written) is finished on rerun without
// playing again.
func TestGenerateKilledWhileCleaningUp(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "a.bin")
	cfg := testGenConfig(4)
	m := generate(t, cfg, out)
	// A half-removed parts directory: no settings, one stray file.
	os.MkdirAll(datasets.PartsDir(out), 0o755)
	os.WriteFile(filepath.Join(datasets.PartsDir(out), "c-00000000.txt.zst"), []byte("junk"), 0o644)
	m2 := generate(t, cfg, out)
	if m2.SHA256 != m.SHA256 {
		t.Fatal("output changed")
	}
	if _, err := os.Stat(datasets.PartsDir(out)); !os.IsNotExist(err) {
		t.Fatal("parts directory not removed")
	}
}

// TestBalancedOpenings: with MaxOpeningScore every game starts from an
// opening its search scores within the bound, the unbalanced ones thrown
// away are counted, the output stays independent of the thread count, and
// without it the openings are exactly those of before (the first attempt
// of each game's random stream).
func TestBalancedOpenings(t *testing.T) {
	cfg := testGenConfig(12)
	cfg.MaxOpeningScore = 40
	pl, err := newPlayer(&cfg, nil)
	if err != nil {
		t.Fatal(err)
	}
	off := cfg
	off.MaxOpeningScore = 0
	plOff, err := newPlayer(&off, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	rejected := 0
	for g := uint64(0); g < 12; g++ {
		p, n, err := pl.opening(ctx, splitmix.New(cfg.Seed, g))
		if err != nil {
			t.Fatal(err)
		}
		rejected += n
		sr, err := pl.search(ctx, p)
		if err != nil {
			t.Fatal(err)
		}
		if sr.Score > cfg.MaxOpeningScore || sr.Score < -cfg.MaxOpeningScore {
			t.Errorf("game %d opens at %s, scored %d beyond ±%d", g, p.FEN(), sr.Score, cfg.MaxOpeningScore)
		}
		q, n0, err := plOff.opening(ctx, splitmix.New(cfg.Seed, g))
		if err != nil || n0 != 0 {
			t.Fatalf("without the bound: %d rejected, %v", n0, err)
		}
		if n == 0 && q.FEN() != p.FEN() {
			t.Errorf("game %d: nothing rejected, yet the opening differs from the unbounded one", g)
		}
	}
	if rejected == 0 {
		t.Fatal("no opening rejected at ±40 cp after 10 random plies: the bound is not applied")
	}

	dir := t.TempDir()
	cfg.Threads = 1
	m1 := generate(t, cfg, filepath.Join(dir, "a.txt"))
	cfg.Threads = 2
	m2 := generate(t, cfg, filepath.Join(dir, "b.txt"))
	if m1.SHA256 != m2.SHA256 || m1.Summary.OpeningsRejected != int64(rejected) || m2.Summary.OpeningsRejected != int64(rejected) {
		t.Errorf("sha %s / %s, rejected %d / %d, want %d both", m1.SHA256, m2.SHA256, m1.Summary.OpeningsRejected, m2.Summary.OpeningsRejected, rejected)
	}
	mf, err := os.ReadFile(datasets.ManifestPath(filepath.Join(dir, "a.txt")))
	if err != nil || !bytes.Contains(mf, []byte("max_opening_score = 40")) || !bytes.Contains(mf, []byte(fmt.Sprintf("openings_rejected = %d", rejected))) {
		t.Errorf("manifest lacks the bound or the count (%v):\n%s", err, mf)
	}
	// Without the bound the manifest has neither key (old manifests read alike).
	mOff := generate(t, off, filepath.Join(dir, "c.txt"))
	mf, _ = os.ReadFile(datasets.ManifestPath(filepath.Join(dir, "c.txt")))
	if mOff.Summary.OpeningsRejected != 0 || bytes.Contains(mf, []byte("max_opening_score")) || bytes.Contains(mf, []byte("openings_rejected")) {
		t.Errorf("unbounded run mentions openings:\n%s", mf)
	}
}

// TestGenerateLocked: a second Generate of the same output while a first
// one runs refuses with an error naming the first (its process ID and
// command), whether it has the same settings (it would play the same games
// again beside the first) or other ones (a different seed: one output with
// both runs' games); it plays no game. The first run is not disturbed.
func TestGenerateLocked(t *testing.T) {
	out := filepath.Join(t.TempDir(), "x.bin")
	cfg := testGenConfig(100000)
	cfg.Threads = 1
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	started, release := make(chan struct{}), make(chan struct{})
	first := make(chan error, 1)
	go func() {
		var once bool
		_, err := Generate(ctx, cfg, out, Options{Command: "nnuelab datagen --out first", Progress: func(Progress) {
			if !once {
				once = true
				close(started)
				<-release
			}
		}})
		first <- err
	}()
	select {
	case <-started:
	case err := <-first:
		t.Fatalf("first run ended: %v", err)
	}
	other := cfg
	other.Seed++
	for _, c := range []struct {
		name string
		cfg  Config
	}{{"same settings", cfg}, {"another seed", other}} {
		// A second run that gets to play is stopped at its first progress
		// report (instead of playing the first's 100,000 games).
		ctx2, cancel2 := context.WithCancel(context.Background())
		played := false
		_, err := Generate(ctx2, c.cfg, out, Options{Command: "second", Progress: func(Progress) { played = true; cancel2() }})
		cancel2()
		if played {
			t.Errorf("%s: a second run of %s played games beside the first (then: %v)", c.name, out, err)
			continue
		}
		if err == nil {
			t.Errorf("%s: second run of %s succeeded", c.name, out)
			continue
		}
		for _, want := range []string{datasets.PartsDir(out), fmt.Sprintf("pid %d", os.Getpid()), "nnuelab datagen --out first"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("%s: error %q does not name %q", c.name, err, want)
			}
		}
	}
	close(release)
	cancel()
	if err := <-first; err == nil || ctx.Err() == nil {
		t.Errorf("first run: %v, want it cancelled", err)
	}
}

// readAll reads every record of the file at path.
func readAll(t testing.TB, path string) []datasets.Record {
	t.Helper()
	var recs []datasets.Record
	for r, err := range datasets.Records(path, datasets.Options{}).All() {
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	return recs
}

// TestNoMoveLoopPruning: CudAD's setting changes the games at the same node
// limit (the searches are narrower trees), is recorded in the manifest, and
// leaves no trace in the manifest of a run without it (old keys unchanged).
func TestNoMoveLoopPruning(t *testing.T) {
	dir := t.TempDir()
	cfg := testGenConfig(4)
	cfg.Nodes = 2000
	mOn := generate(t, cfg, filepath.Join(dir, "pruned.txt"))
	cfg.NoMoveLoopPruning = true
	mOff := generate(t, cfg, filepath.Join(dir, "full.txt"))
	if mOn.SHA256 == mOff.SHA256 {
		t.Fatal("the same games with and without move-loop pruning: the setting is not applied")
	}
	if mOff.Summary.Positions == 0 {
		t.Fatal("no positions without move-loop pruning")
	}
	on, _ := os.ReadFile(datasets.ManifestPath(filepath.Join(dir, "pruned.txt")))
	off, err := os.ReadFile(datasets.ManifestPath(filepath.Join(dir, "full.txt")))
	if err != nil || !bytes.Contains(off, []byte("no_move_loop_pruning = true")) || bytes.Contains(on, []byte("no_move_loop_pruning")) {
		t.Errorf("manifests: with the setting (%v)\n%s\nwithout\n%s", err, off, on)
	}
}
