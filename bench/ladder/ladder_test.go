package ladder

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/bench/match"
	"github.com/nnuelab/nnuelab/bench/stats"
	"github.com/nnuelab/nnuelab/internal/configerr"
	"github.com/nnuelab/nnuelab/internal/testtier"
	"github.com/nnuelab/nnuelab/internal/zstdfile"
)

const minimal = `
openings = "book.epd"
[[rung]]
arch = "classical"
levels = [1500, 1800]
`

// TestParseDefaults: the defaults a ladder file leaves out, and the
// rung names derived from arch, threads and clock.
func TestParseDefaults(t *testing.T) {
	c, err := Parse("testdata/l.toml", minimal+`
[[rung]]
arch = "classical"
threads = 2
tc = "10+0.1"
games = 4
levels = [2000]
stockfish_move_overhead = 30
`)
	if err != nil {
		t.Fatal(err)
	}
	if c.Stockfish != "/usr/games/stockfish" || c.TC != "5+0.05" || c.TimeMargin != 50 || c.Hash != 16 || c.Games != 100 ||
		c.Concurrency != 2 || c.StockfishOverhead != 10 || c.Chunk != 20 {
		t.Errorf("defaults: %+v", c)
	}
	if got := c.OpeningsPath(); got != filepath.Join("testdata", "book.epd") {
		t.Errorf("openings path %q, want it beside the ladder file", got)
	}
	want := []string{"classical-t1", "classical-t2-10p0.1"}
	for i, r := range c.Rungs {
		if r.Name != want[i] {
			t.Errorf("rung %d named %q, want %q", i, r.Name, want[i])
		}
	}
	if c.Rungs[0].Games != 100 || c.Rungs[1].Games != 4 || c.Rungs[0].Threads != 1 || c.Rungs[0].Chunk != 20 {
		t.Errorf("rung games/threads: %+v", c.Rungs)
	}
	// Stockfish's Move Overhead: the ladder's unless the rung sets one,
	// and the rung's is among the settings that decide its games.
	if c.Rungs[0].Overhead != 10 || c.Rungs[1].Overhead != 30 {
		t.Errorf("overheads %d, %d, want 10 (the ladder's) and 30 (the rung's)", c.Rungs[0].Overhead, c.Rungs[1].Overhead)
	}
	if s := c.settings(Cell{Rung: &c.Rungs[1], Level: 2000}, "x"); !strings.Contains(s, "sf_overhead=30 ") {
		t.Errorf("settings %q lack the rung's overhead", s)
	}
	// Games at once: the ladder's at one thread, one at two threads, and
	// a rung's own, which alone enters its settings (the matches kept
	// before rungs could set one do not name it).
	if c.Rungs[0].Concurrency != 2 || c.Rungs[1].Concurrency != 1 {
		t.Errorf("concurrency %d, %d, want 2 (the ladder's) and 1 (two threads)", c.Rungs[0].Concurrency, c.Rungs[1].Concurrency)
	}
	if s := c.settings(Cell{Rung: &c.Rungs[0], Level: 1500}, "x"); strings.Contains(s, "concurrency") {
		t.Errorf("settings %q name the default concurrency", s)
	}
	own, err := Parse("l.toml", minimal+"[[rung]]\nname = \"c1\"\narch = \"classical\"\nconcurrency = 1\nlevels = [2000]\n")
	if err != nil {
		t.Fatal(err)
	}
	if r := &own.Rungs[1]; r.Concurrency != 1 || !strings.HasSuffix(own.settings(Cell{Rung: r, Level: 2000}, "x"), " concurrency=1") {
		t.Errorf("a rung's own concurrency: %d, settings %q", r.Concurrency, own.settings(Cell{Rung: r, Level: 2000}, "x"))
	}
	cells, err := c.Cells(nil)
	if err != nil || len(cells) != 3 || cells[2].ID() != "classical-t2-10p0.1-e2000" {
		t.Fatalf("cells %v, %v", cells, err)
	}
	if cells, err := c.Cells([]string{"classical-t1"}); err != nil || len(cells) != 2 {
		t.Errorf("only classical-t1: %v, %v", cells, err)
	}
	if _, err := c.Cells([]string{"nope"}); err == nil || !strings.Contains(err.Error(), `"nope"`) {
		t.Errorf("unknown rung: %v", err)
	}
}

// TestParseErrors: each bad ladder file is refused with the key at fault.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct {
		text, key string
	}{
		{"bogus = 1\n" + minimal, "bogus"},
		{`openings = "b.epd"` + "\n", "rung"},
		{`[[rung]]` + "\narch=\"classical\"\nlevels=[1500]\n", "openings"},
		{"games = 3\n" + minimal, "games"},
		{"hash = 0\n" + minimal, ""}, // 0 is the default, not an error
		{"hash = -1\n" + minimal, "hash"},
		{"tc = \"fast\"\n" + minimal, "tc"},
		{"concurrency = 100\n" + minimal, "concurrency"},
		{`openings = "b.epd"` + "\n[[rung]]\narch=\"x\"\nlevels=[1500]\nconcurrency=-1\n", "rung[1].concurrency"},
		{"chunk = 3\n" + minimal, "chunk"},
		{"chunk = -2\n" + minimal, "chunk"},
		{`openings = "b.epd"` + "\n[[rung]]\narch=\"x\"\nlevels=[1500]\nchunk=7\n", "rung[1].chunk"},
		{"timemargin = -5\n" + minimal, "timemargin"},
		{"stockfish_move_overhead = -1\n" + minimal, "stockfish_move_overhead"},
		{`openings = "b.epd"` + "\n[[rung]]\narch=\"x\"\nlevels=[1500]\nstockfish_move_overhead=6000\n", "rung[1].stockfish_move_overhead"},
		{`openings = "b.epd"` + "\n[[rung]]\nlevels=[1500]\n", "rung[1].arch"},
		{`openings = "b.epd"` + "\n[[rung]]\narch=\"x\"\n", "rung[1].levels"},
		{`openings = "b.epd"` + "\n[[rung]]\narch=\"x\"\nlevels=[1000]\n", "rung[1].levels"},
		{`openings = "b.epd"` + "\n[[rung]]\narch=\"x\"\nlevels=[3000]\n", "rung[1].levels"},
		{`openings = "b.epd"` + "\n[[rung]]\narch=\"x\"\nlevels=[1500, 1500]\n", "rung[1].levels"},
		{`openings = "b.epd"` + "\n[[rung]]\narch=\"x\"\nlevels=[1500]\ngames=5\n", "rung[1].games"},
		{`openings = "b.epd"` + "\n[[rung]]\narch=\"x\"\nlevels=[1500]\nthreads=-1\n", "rung[1].threads"},
		{`openings = "b.epd"` + "\n[[rung]]\narch=\"x\"\nlevels=[1500]\ntc=\"1+\"\n", "rung[1].tc"},
		{`openings = "b.epd"` + "\n[[rung]]\narch=\"x\"\nlevels=[1500]\nname=\"a b\"\n", "rung[1].name"},
		{`openings = "b.epd"` + "\n[[rung]]\narch=\"x\"\nlevels=[1500]\n[[rung]]\narch=\"x\"\nlevels=[1600]\n", "rung[2].name"},
		{"openings = \n", ""},
		{minimal + "[[clocks]]\nrungs=[\"classical-t1\"]\n", "clocks[1].name"},
		{minimal + "[[clocks]]\nname=\"a\"\n", "clocks[1].rungs"},
		{minimal + "[[clocks]]\nname=\"a\"\nrungs=[\"nope\"]\n", "clocks[1].rungs"},
		{minimal + "[[clocks]]\nname=\"a\"\nrungs=[\"classical-t1\"]\n[[clocks]]\nname=\"a\"\nrungs=[\"classical-t1\"]\n", "clocks[2].name"},
	} {
		_, err := Parse("l.toml", tc.text)
		if tc.key == "" {
			if tc.text == "hash = 0\n"+minimal && err != nil {
				t.Errorf("%q: %v", tc.text, err)
			}
			if tc.text != "hash = 0\n"+minimal && err == nil {
				t.Errorf("%q: accepted", tc.text)
			}
			continue
		}
		var ce *configerr.Error
		if !errors.As(err, &ce) || ce.Key != tc.key || ce.File != "l.toml" {
			t.Errorf("%q: err %v, want one at key %q of l.toml", tc.text, err, tc.key)
		}
	}
}

// TestChunks: a match splits into chunks of the rung's size, the last
// one the rest.
func TestChunks(t *testing.T) {
	for _, tc := range []struct {
		games, chunk int
		want         string
	}{
		{100, 20, "[20 20 20 20 20]"},
		{40, 10, "[10 10 10 10]"},
		{10, 4, "[4 4 2]"},
		{2, 20, "[2]"},
	} {
		if got := fmt.Sprint(chunks(&Rung{Games: tc.games, Chunk: tc.chunk})); got != tc.want {
			t.Errorf("%d games in chunks of %d: %s, want %s", tc.games, tc.chunk, got, tc.want)
		}
	}
}

// chunkResult is a kept chunk whose summary has the given counts.
func chunkResult(t *testing.T, engines [2]string, w, d, l int, penta stats.Penta, tf int) *Result {
	t.Helper()
	s := &match.Summary{Engines: engines, Limits: "tc=5+0.05", Planned: w + d + l, Wins: w, Draws: d, Losses: l, Penta: penta,
		Terminations: map[string]int{"adjudication": w + d + l - tf, "time forfeit": tf},
		Faults:       map[string]*match.FaultCounts{engines[0]: {TimeForfeits: tf}, engines[1]: {}}}
	js, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	return &Result{Summary: js, Revision: "r1"}
}

// TestMergeChunks: the merged summary adds the chunks' counts and takes
// its Elo from the pentanomial counts of all pairs; chunks of other
// engines are refused.
func TestMergeChunks(t *testing.T) {
	e := [2]string{"nnuelab", "sf"}
	a := chunkResult(t, e, 3, 4, 1, stats.Penta{0, 1, 1, 2, 0}, 1)
	b := chunkResult(t, e, 1, 2, 1, stats.Penta{0, 1, 0, 1, 0}, 0)
	m, err := mergeChunks([]*Result{a, b})
	if err != nil {
		t.Fatal(err)
	}
	want := stats.Penta{0, 2, 1, 3, 0}
	if m.Wins != 4 || m.Draws != 6 || m.Losses != 2 || m.Planned != 12 || m.Penta != want ||
		m.Faults["nnuelab"].TimeForfeits != 1 || m.Terminations["adjudication"] != 11 {
		t.Errorf("merged %+v", m)
	}
	if got, w := m.Elo(), want.Elo(); got != w {
		t.Errorf("Elo %+v, want the pentanomial estimate of the sum %+v", got, w)
	}
	c := chunkResult(t, [2]string{"nnuelab", "other"}, 1, 0, 1, stats.Penta{0, 0, 1, 0, 0}, 0)
	if _, err := mergeChunks([]*Result{a, c}); err == nil || !strings.Contains(err.Error(), "chunk 2") {
		t.Errorf("chunks of other engines: %v", err)
	}
	partial := chunkResult(t, e, 1, 0, 0, stats.Penta{}, 0)
	partial.Summary = []byte(strings.Replace(string(partial.Summary), `"planned":1`, `"planned":2`, 1))
	if _, err := mergeChunks([]*Result{partial}); err == nil {
		t.Error("a chunk with games missing was merged")
	}
	if got := revisions([]*Result{{Revision: "a"}, {Revision: "b"}, {Revision: "a"}}); got != "a + b" {
		t.Errorf("revisions %q", got)
	}
	if got := short("0123456789abcdef+dirty + fedcba9876543210"); got != "0123456+dirty + fedcba9" {
		t.Errorf("short of two revisions: %q", got)
	}
}

func ptr(f float64) *float64 { return &f }

// cancelOn is a log that cancels a run once a line containing marker is
// written.
type cancelOn struct {
	strings.Builder
	marker string
	cancel context.CancelFunc
}

func (w *cancelOn) Write(p []byte) (int, error) {
	n, err := w.Builder.Write(p)
	if strings.Contains(w.String(), w.marker) {
		w.cancel()
	}
	return n, err
}

// fenTags lists the FEN tags of a PGN's games in order.
func fenTags(pgn string) []string {
	var fens []string
	for _, l := range strings.Split(pgn, "\n") {
		if strings.HasPrefix(l, "[FEN ") {
			fens = append(fens, l)
		}
	}
	return fens
}

// TestCombine: the rating is the inverse-variance mean of level + Elo;
// levels without a finite interval are left out.
func TestCombine(t *testing.T) {
	o := func(v, lo, hi float64) *outcome {
		var x outcome
		x.Elo.Value, x.Elo.Lower, x.Elo.Upper = ptr(v), ptr(lo), ptr(hi)
		return &x
	}
	// Two levels measured alike: the plain mean, the SE shrunk by sqrt(2).
	r, ok := combine([]int{2000, 2400}, []*outcome{o(300, 250, 350), o(-100, -150, -50)})
	if !ok || math.Abs(r.Value-2300) > 1e-9 || r.Levels != 2 {
		t.Fatalf("rating %+v, %v", r, ok)
	}
	se := 50 / z95 / math.Sqrt2
	if math.Abs((r.Upper-r.Value)-z95*se) > 1e-9 {
		t.Errorf("interval %+v, want ±%.3f", r, z95*se)
	}
	// The tighter level weighs more.
	r, _ = combine([]int{2000, 2400}, []*outcome{o(340, 240, 440), o(-100, -125, -75)})
	if want := 2300 + 40.0/17; math.Abs(r.Value-want) > 1e-9 {
		t.Errorf("weighted rating %.3f, want %.3f (the 2400 level 16x the weight)", r.Value, want)
	}
	// A one-sided match (no interval) and a missing one are left out.
	var oneSided outcome
	r, ok = combine([]int{1500, 2000, 2400}, []*outcome{&oneSided, nil, o(-100, -150, -50)})
	if !ok || r.Levels != 1 || math.Abs(r.Value-2300) > 1e-9 {
		t.Errorf("with gaps: %+v, %v", r, ok)
	}
	if _, ok := combine([]int{1500}, []*outcome{nil}); ok {
		t.Error("no measured level gave a rating")
	}
}

// TestSplice: the table replaces what stood between the markers, and a
// page without them is refused.
func TestSplice(t *testing.T) {
	page := "# S\n\nby hand\n\n<!-- ladder:begin -->\nold\n<!-- ladder:end -->\n\nafter\n"
	got, err := Splice(page, "| t |\n")
	if err != nil {
		t.Fatal(err)
	}
	want := "# S\n\nby hand\n\n" + BeginMarker + "\n\n| t |\n\n<!-- ladder:end -->\n\nafter\n"
	if got != want {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if again, _ := Splice(got, "| t |\n"); again != got {
		t.Error("splicing twice changed the page")
	}
	for _, bad := range []string{"no markers", "<!-- ladder:end -->\n<!-- ladder:begin -->"} {
		if _, err := Splice(bad, "x"); err == nil {
			t.Errorf("%q: accepted", bad)
		}
	}
}

// TestRunAgainstStockfish plays a two-game ladder of one rung against
// Stockfish 15.1, keeps the match, reports it, replays nothing on a
// rerun and refuses a kept match whose settings changed.
func TestRunAgainstStockfish(t *testing.T) {
	testtier.Needs(t, "Stockfish 15.1 (Debian's stockfish)")
	const sf = "/usr/games/stockfish"
	if _, err := os.Stat(sf); err != nil {
		t.Fatalf("Stockfish is required at %s (apt-get install -y stockfish): %v", sf, err)
	}
	bin := filepath.Join(t.TempDir(), "nnuelab")
	if out, err := exec.Command("go", "build", "-o", bin, "github.com/nnuelab/nnuelab/cmd/nnuelab").CombinedOutput(); err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	text := `
openings = "book.epd"
tc = "1+0.01"
games = 2
concurrency = 1
[[rung]]
arch = "classical"
levels = [1350]
[[clocks]]
name = "fast"
title = "1+0.01"
rungs = ["classical-t1"]
`
	c, err := Parse("testdata/ladder.toml", text)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	var log strings.Builder
	if err := Run(context.Background(), c, Options{Binary: bin, Out: out, Log: &log}); err != nil {
		t.Fatalf("%v\n%s", err, log.String())
	}
	res, err := readResult(filepath.Join(out, "classical-t1-e1350.json"))
	if err != nil {
		t.Fatal(err)
	}
	var o outcome
	if err := json.Unmarshal(res.Summary, &o); err != nil {
		t.Fatal(err)
	}
	if o.Games != 2 || o.Wins+o.Draws+o.Losses != 2 || o.Engines[1] != "sf15.1-elo1350" {
		t.Errorf("kept match: %+v", o)
	}
	pgn, err := zstdfile.ReadFile(filepath.Join(out, "classical-t1-e1350.pgn.zst"))
	if err != nil || strings.Count(string(pgn), "[Event ") != 2 {
		t.Errorf("PGN: %d games, %v", strings.Count(string(pgn), "[Event "), err)
	}
	if _, err := os.Stat(filepath.Join(out, "classical-t1-e1350.pgn.part")); !os.IsNotExist(err) {
		t.Errorf("the plain PGN was left beside the compressed one (%v)", err)
	}
	rep, err := Report(c, out, "figs")
	if err != nil {
		t.Fatal(err)
	}
	row := fmt.Sprintf("| classical-t1 | 1350 | 2 | %d-%d-%d |", o.Wins, o.Draws, o.Losses)
	if !strings.Contains(rep, row) {
		t.Errorf("report lacks %q:\n%s", row, rep)
	}
	// The clock figure: linked under figDir, with the clock table of both
	// engines over the match's two games, and drawn by Figures.
	// The depth table's row of the match: pick depth 1 at UCI_Elo 1350.
	for _, want := range []string{"![1+0.01](figs/clocks-fast.svg)", "| nnuelab-classical-t1 | 2 |", "| sf15.1-elo1350 | 2 |", "| classical-t1 | 1+0.01 | 1350 | 1 |"} {
		if !strings.Contains(rep, want) {
			t.Errorf("report lacks %q:\n%s", want, rep)
		}
	}
	figs, err := Figures(c, out)
	if err != nil || len(figs) != 1 || figs[0].Path != filepath.Join(out, "clocks-fast.svg") || !strings.Contains(string(figs[0].SVG), "<svg") {
		t.Errorf("figures %v, %v", figs, err)
	}
	// A rerun plays nothing.
	log.Reset()
	if err := Run(context.Background(), c, Options{Binary: bin, Out: out, Log: &log}); err != nil || !strings.Contains(log.String(), "classical-t1-e1350: done") {
		t.Errorf("rerun: %v\n%s", err, log.String())
	}
	// Other settings for a kept match are refused, naming it.
	c2, err := Parse("testdata/ladder.toml", strings.Replace(text, "games = 2", "games = 4", 1))
	if err != nil {
		t.Fatal(err)
	}
	if err := Run(context.Background(), c2, Options{Binary: bin, Out: out}); err == nil || !strings.Contains(err.Error(), "classical-t1-e1350") {
		t.Errorf("changed settings: %v", err)
	}
	// A match in chunks: stopped during its second chunk, it keeps the
	// first; the rerun plays only the second, then merges both into the
	// cell's result and PGN and removes the chunks.
	chunked := strings.Replace(text, "games = 2", "games = 4\nchunk = 2", 1)
	c4, err := Parse("testdata/ladder.toml", chunked)
	if err != nil {
		t.Fatal(err)
	}
	out4 := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	stop := &cancelOn{marker: "chunk 2 of 2", cancel: cancel}
	err = Run(ctx, c4, Options{Binary: bin, Out: out4, Log: stop})
	cancel()
	if err == nil || !strings.Contains(err.Error(), "chunk 2 interrupted") {
		t.Fatalf("stopped run: %v\n%s", err, stop.String())
	}
	if _, err := readResult(filepath.Join(out4, "classical-t1-e1350.parts", "c001.json")); err != nil {
		t.Fatalf("the first chunk was not kept: %v", err)
	}
	log.Reset()
	if err := Run(context.Background(), c4, Options{Binary: bin, Out: out4, Log: &log}); err != nil {
		t.Fatalf("resumed run: %v\n%s", err, log.String())
	}
	if strings.Contains(log.String(), "chunk 1 of 2") || !strings.Contains(log.String(), "chunk 2 of 2") {
		t.Errorf("the resumed run did not play exactly the missing chunk:\n%s", log.String())
	}
	res4, err := readResult(filepath.Join(out4, "classical-t1-e1350.json"))
	if err != nil {
		t.Fatal(err)
	}
	var o4 outcome
	if err := json.Unmarshal(res4.Summary, &o4); err != nil || o4.Games != 4 || o4.Wins+o4.Draws+o4.Losses != 4 {
		t.Errorf("merged match: %+v, %v", o4, err)
	}
	pgn4, err := zstdfile.ReadFile(filepath.Join(out4, "classical-t1-e1350.pgn.zst"))
	if err != nil || strings.Count(string(pgn4), "[Event ") != 4 {
		t.Fatalf("merged PGN: %d games, %v", strings.Count(string(pgn4), "[Event "), err)
	}
	// The chunks play the one match's openings: the first chunk the
	// unchunked match's opening, the second the next of the same order.
	fens, fens2 := fenTags(string(pgn4)), fenTags(string(pgn))
	if len(fens) != 4 || len(fens2) != 2 || fens[0] != fens[1] || fens[2] != fens[3] || fens[0] != fens2[0] || fens[2] == fens[0] {
		t.Errorf("openings of the chunks %q, of the match in one piece %q", fens, fens2)
	}
	if _, err := os.Stat(filepath.Join(out4, "classical-t1-e1350.parts")); !os.IsNotExist(err) {
		t.Errorf("the chunks were left after the merge (%v)", err)
	}
	// An arch the binary does not offer is refused before any game.
	c3, err := Parse("testdata/ladder.toml", strings.ReplaceAll(text, "classical", "nosuch"))
	if err != nil {
		t.Fatal(err)
	}
	if err := Run(context.Background(), c3, Options{Binary: bin, Out: t.TempDir()}); err == nil || !strings.Contains(err.Error(), `"nosuch"`) {
		t.Errorf("unknown arch: %v", err)
	}
}

// TestStates: games kept count a finished match whole and an unfinished
// one by its kept chunks; the estimate of the rest scales with the games
// left and the concurrency, a game lasting as long as the kept games at
// its clock did, or as the model says at a clock without any.
func TestStates(t *testing.T) {
	c, err := Parse("testdata/l.toml", `
openings = "book.epd"
games = 40
chunk = 10
[[rung]]
arch = "classical"
levels = [1500, 1800, 2100]
[[rung]]
arch = "classical"
threads = 2
tc = "10+0.1"
levels = [1500]
`)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	// Two games whose moves took 1 + 2 + 3 + 4 s and 2 + 2 s: 7 s a game.
	pgn := "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n[TimeControl \"5+0.05\"]\n\n1. e4 {1.000s} e5 {2.000s} 2. Nf3 {3.000s} Nc6 {4.000s} 1-0\n\n" +
		"[White \"b\"]\n[Black \"a\"]\n[Result \"0-1\"]\n[TimeControl \"5+0.05\"]\n\n1. d4 {2.000s} d5 {2.000s} 0-1\n\n"
	write := func(name, text string) {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(out, name)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := zstdfile.WriteFile(filepath.Join(out, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("classical-t1-e1500.json", "{}")
	write("classical-t1-e1500.pgn.zst", pgn)
	write("classical-t1-e1800.parts/c001.json", "{}")
	write("classical-t1-e1800.parts/c001.pgn.zst", pgn)
	write("classical-t1-e1800.parts/c003.json", "{}")
	write("classical-t1-e1800.parts/c003.pgn.zst", pgn)
	st, err := c.States(out, nil)
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(st[0].Kept, st[1].Kept, st[2].Kept, st[3].Kept)
	if got != "40 20 0 0" {
		t.Errorf("kept %s, want 40 20 0 0", got)
	}
	// 5+0.05: 7 s a game, two at once. 10+0.1 has no kept games: the
	// model's 2 x 0.9 x (10 + 65 x 0.1) = 29.7 s a game, one at a time.
	if st[0].Left != 0 || math.Abs(st[1].Left-20*7.0/2) > 1e-9 || math.Abs(st[2].Left-40*7.0/2) > 1e-9 || math.Abs(st[3].Left-40*29.7) > 1e-9 {
		t.Errorf("estimates %v, %v, %v, %v", st[0].Left, st[1].Left, st[2].Left, st[3].Left)
	}
	if !st[1].Measured || !st[2].Measured || st[3].Measured {
		t.Errorf("measured %v %v %v, want true true false", st[1].Measured, st[2].Measured, st[3].Measured)
	}
	// A kept chunk whose games are missing is an error naming the clock.
	if err := os.Remove(filepath.Join(out, "classical-t1-e1800.parts/c003.pgn.zst")); err != nil {
		t.Fatal(err)
	}
	if _, err := c.States(out, nil); err == nil || !strings.Contains(err.Error(), "c003.pgn.zst") {
		t.Errorf("a chunk without its games: %v", err)
	}
}

// TestReportClocksNotPlayed: a clock figure without a finished match says
// so in the report and draws nothing.
func TestReportClocksNotPlayed(t *testing.T) {
	c, err := Parse("l.toml", minimal+"[[clocks]]\nname = \"a\"\nrungs = [\"classical-t1\"]\n")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	rep, err := Report(c, out, "x")
	if err != nil || !strings.Contains(rep, "**5+0.05** (classical-t1): not played yet.") {
		t.Errorf("report %v:\n%s", err, rep)
	}
	if figs, err := Figures(c, out); err != nil || len(figs) != 0 {
		t.Errorf("figures %v, %v", figs, err)
	}
	// A finished match whose games are missing is an error naming it.
	if err := os.WriteFile(filepath.Join(out, "classical-t1-e1500.json"), []byte(`{"summary":{}}`), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Figures(c, out); err == nil || !strings.Contains(err.Error(), "classical-t1-e1500") {
		t.Errorf("missing PGN: %v", err)
	}
}

// TestReportClocksControl: a rung with its own concurrency (a control
// replaying another rung one game at a time) gets it in nnuelab's name in
// the clock table, so its games stay apart; Stockfish's games of both
// rungs are one row.
func TestReportClocksControl(t *testing.T) {
	text := minimal + "[[rung]]\nname = \"c1\"\narch = \"classical\"\nconcurrency = 1\nlevels = [1500]\n" +
		"[[clocks]]\nname = \"a\"\nrungs = [\"classical-t1\", \"c1\"]\n"
	c, err := Parse("l.toml", text)
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	for _, id := range []string{"classical-t1-e1500", "c1-e1500"} {
		res := `{"summary":{"engines":["nnuelab-classical-t1","sf15.1-elo1500"],"games":1,"wins":1}}`
		if err := os.WriteFile(filepath.Join(out, id+".json"), []byte(res), 0o644); err != nil {
			t.Fatal(err)
		}
		pgn := "[White \"nnuelab-classical-t1\"]\n[Black \"sf15.1-elo1500\"]\n[Result \"1-0\"]\n[TimeControl \"5+0.05\"]\n\n" +
			"1. e4 {+0.30/12 0.1s} e5 {-0.20/6 0.1s} 1-0\n\n"
		if err := zstdfile.WriteFile(filepath.Join(out, id+".pgn.zst"), []byte(pgn), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := Report(c, out, "x")
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"| nnuelab-classical-t1 | 1 | 1 | 0 |", "| nnuelab-classical-t1 (1 at a time) | 1 | 1 | 0 |", "| sf15.1-elo1500 | 2 | 2 | 0 |"} {
		if !strings.Contains(rep, want) {
			t.Errorf("report lacks %q:\n%s", want, rep)
		}
	}
}

// TestPickDepth: Stockfish 15.1's pick depth for UCI_Elo levels the
// ladder plays, from its skill formula, and none once the level reaches 20.
func TestPickDepth(t *testing.T) {
	for _, c := range []struct{ elo, want int }{
		{1350, 1}, // level 0.01
		{1900, 6}, // 5.34
		{2000, 7},
		{2300, 11},
		{2600, 15}, // 14.93
		{2850, 19}, // 18.46
		{3200, 0},  // level 23.8: not limited
	} {
		if got := PickDepth(c.elo); got != c.want {
			t.Errorf("PickDepth(%d) = %d, want %d", c.elo, got, c.want)
		}
	}
}

// TestReportDepths: a finished match's row of the depth table, from its
// PGN's depth comments, and its errors.
func TestReportDepths(t *testing.T) {
	c, err := Parse("l.toml", "openings = \"book.epd\"\n[[rung]]\narch = \"classical\"\nlevels = [2000]\n")
	if err != nil {
		t.Fatal(err)
	}
	out := t.TempDir()
	res := `{"summary":{"engines":["nn","sf"],"games":2,"wins":1,"draws":1,"losses":0}}`
	if err := os.WriteFile(filepath.Join(out, "classical-t1-e2000.json"), []byte(res), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Report(c, out, "x"); err == nil || !strings.Contains(err.Error(), "classical-t1-e2000") {
		t.Errorf("a finished match without its games: %v", err)
	}
	// Stockfish's depths 6, 9 and 7 (its mate score and its move without
	// a depth left out): median 7, two of three at its pick depth 7 or
	// deeper; nnuelab's 12, 13, 14 and 1: median (the upper middle) 13.
	pgn := "[White \"nn\"]\n[Black \"sf\"]\n[Result \"1-0\"]\n[TimeControl \"5+0.05\"]\n\n" +
		"1. e4 {+0.30/12 0.1s} e5 {-0.20/6 0.1s} 2. Nf3 {+0.25/13 0.1s} Nc6 {0.1s} 3. Bc4 {+0.4/14 0.1s} Nf6 {-0.3/9 0.1s} 4. Ng5 {+0.5/1 0.1s} d5 {-M3/20 0.1s} 1-0\n\n" +
		"[White \"sf\"]\n[Black \"nn\"]\n[Result \"1/2-1/2\"]\n[TimeControl \"5+0.05\"]\n\n1. d4 {+0.1/7 0.1s} 1/2-1/2\n\n"
	if err := zstdfile.WriteFile(filepath.Join(out, "classical-t1-e2000.pgn.zst"), []byte(pgn), 0o644); err != nil {
		t.Fatal(err)
	}
	rep, err := Report(c, out, "x")
	if want := "| classical-t1 | 5+0.05 | 2000 | 7 | 7 | 66.7% | 13 |"; err != nil || !strings.Contains(rep, want) {
		t.Errorf("report lacks %q (%v):\n%s", want, err, rep)
	}
	// A player that is neither engine of the match is refused.
	bad := strings.ReplaceAll(pgn, "\"nn\"", "\"other\"")
	if err := zstdfile.WriteFile(filepath.Join(out, "classical-t1-e2000.pgn.zst"), []byte(bad), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Report(c, out, "x"); err == nil || !strings.Contains(err.Error(), `"other"`) {
		t.Errorf("a stranger in the games: %v", err)
	}
}

// FuzzParse: any ladder file parses or is refused with a configerr.Error
// naming it; never a panic. A file that parses has rungs with levels in
// Stockfish's range and clock figures naming only its rungs.
func FuzzParse(f *testing.F) {
	f.Add(minimal)
	f.Add(minimal + "[[clocks]]\nname = \"a\"\nrungs = [\"classical-t1\"]\n")
	f.Add("stockfish_move_overhead = 10\n" + minimal + "[[rung]]\narch=\"x\"\nthreads=2\ntc=\"40/60\"\nlevels=[2850]\nchunk=10\ngames=40\nstockfish_move_overhead=30\n")
	f.Add(minimal + "[[rung]]\nname=\"c1\"\narch=\"x\"\nconcurrency=1\nlevels=[2850]\n")
	if data, err := os.ReadFile("../../docs/strength/ladder.toml"); err == nil {
		f.Add(string(data))
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := Parse("fuzz.toml", s)
		if err != nil {
			var ce *configerr.Error
			if !errors.As(err, &ce) || ce.File != "fuzz.toml" {
				t.Fatalf("error %v is not a configerr.Error naming the file", err)
			}
			return
		}
		names := map[string]bool{}
		for _, r := range c.Rungs {
			names[r.Name] = true
			for _, l := range r.Levels {
				if l < minUCIElo || l > maxUCIElo {
					t.Fatalf("rung %s: level %d accepted", r.Name, l)
				}
			}
		}
		for _, fig := range c.Clocks {
			for _, n := range fig.Rungs {
				if !names[n] {
					t.Fatalf("figure %s names rung %q, not in the file", fig.Name, n)
				}
			}
		}
	})
}
