package label

import (
	"bufio"
	"context"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/internal/fsutil"
	"github.com/nnuelab/nnuelab/internal/testtier"
)

// fakeUCI is a minimal UCI engine for tests: it scores a position by
// material from the side to move's view, says "mate 3" for positions with a
// queen count of 3 or more, has no move when the FEN's halfmove clock is 99,
// and hangs on the FEN in $NNUELAB_FAKE_HANG. Every search is logged to
// $NNUELAB_FAKE_LOG.
func fakeUCI() {
	var log *os.File
	if p := os.Getenv("NNUELAB_FAKE_LOG"); p != "" {
		log, _ = os.OpenFile(p, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	}
	hang := os.Getenv("NNUELAB_FAKE_HANG")
	in := bufio.NewScanner(os.Stdin)
	fen := ""
	for in.Scan() {
		l := in.Text()
		switch {
		case l == "uci":
			fmt.Println("id name FakeEngine 1.0")
			fmt.Println("uciok")
		case l == "isready":
			fmt.Println("readyok")
		case l == "quit":
			return
		case strings.HasPrefix(l, "position fen "):
			fen = strings.TrimPrefix(l, "position fen ")
		case strings.HasPrefix(l, "go"):
			if log != nil {
				fmt.Fprintln(log, fen)
			}
			if fen == hang {
				time.Sleep(time.Hour)
			}
			r, err := datasets.ParseFEN(fen)
			if err != nil {
				fmt.Println("info string bad fen")
				fmt.Println("bestmove 0000")
				continue
			}
			if r.HalfmoveClock() == 99 {
				fmt.Println("info depth 0 score mate 0")
				fmt.Println("bestmove (none)")
				continue
			}
			val := map[byte]int{'P': 100, 'N': 300, 'B': 300, 'R': 500, 'Q': 900, 'p': -100, 'n': -300, 'b': -300, 'r': -500, 'q': -900}
			board := strings.Fields(fen)[0]
			cp, queens := 0, 0
			for i := 0; i < len(board); i++ {
				cp += val[board[i]]
				if board[i] == 'Q' || board[i] == 'q' {
					queens++
				}
			}
			if strings.Fields(fen)[1] == "b" {
				cp = -cp
			}
			fmt.Println("info depth 1 score cp 77 lowerbound nodes 10")
			if queens >= 3 {
				fmt.Println("info depth 2 score mate 3 nodes 20 pv e2e4")
			} else {
				fmt.Printf("info depth 2 seldepth 3 multipv 1 score cp %d nodes 20 pv e2e4\n", cp)
			}
			fmt.Println("info string done")
			fmt.Println("bestmove e2e4")
		}
	}
}

// TestMain runs the fake UCI engine when a test starts this binary as one.
func TestMain(m *testing.M) {
	if os.Getenv("NNUELAB_FAKE_UCI") != "" {
		fakeUCI()
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// sampleRecords are the records of datasets' sample file (testdata/sample.txt
// there).
func sampleRecords(t testing.TB) []datasets.Record {
	t.Helper()
	var recs []datasets.Record
	for r, err := range datasets.Records("../testdata/sample.txt", datasets.Options{}).All() {
		if err != nil {
			t.Fatal(err)
		}
		recs = append(recs, r)
	}
	return recs
}

// writeAll writes recs to path (format by name).
func writeAll(t testing.TB, path string, recs []datasets.Record) {
	t.Helper()
	w, err := datasets.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
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

// fakeEngine is a Config running this test binary as the fake engine.
func fakeEngine(t *testing.T, env ...string) Config {
	t.Setenv("NNUELAB_FAKE_UCI", "1")
	for i := 0; i+1 < len(env); i += 2 {
		t.Setenv(env[i], env[i+1])
	}
	return Config{Engine: os.Args[0], Args: []string{"-test.run=^$"}, Nodes: 1, ChunkRecords: 50, Processes: 2, Timeout: 10 * time.Second}
}

// labelInput writes the first n sample records, two of them changed to be
// dropped (a mate and a no-move position).
func labelInput(t *testing.T, dir string, n int) (string, []datasets.Record) {
	recs := sampleRecords(t)[:n]
	var err error
	recs[10], err = datasets.ParseText("3qk3/8/8/8/8/8/8/2QQK3 w - - 0 40 [1.0] 900")
	if err != nil {
		t.Fatal(err)
	}
	recs[20], err = datasets.ParseText("4k3/8/8/8/8/8/8/4K3 b - - 99 80 [0.5] 0")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "in.bin")
	writeAll(t, path, recs)
	return path, recs
}

func TestLabelFakeEngine(t *testing.T) {
	dir := t.TempDir()
	in, recs := labelInput(t, dir, 230)
	cfg := fakeEngine(t)
	out := filepath.Join(dir, "out.txt")
	m, err := Run(context.Background(), []string{in}, out, cfg)
	if err != nil {
		t.Fatal(err)
	}
	s := m.Summary
	if s.Read != 230 || s.Labelled != 228 || s.Mate != 1 || s.NoMove != 1 || m.Settings.EngineName != "FakeEngine 1.0" {
		t.Fatalf("summary %+v, engine %q", s, m.Settings.EngineName)
	}
	got := readAll(t, out)
	j := 0
	for i, r := range recs {
		if i == 10 || i == 20 {
			continue
		}
		g := got[j]
		j++
		if g.FEN() != r.FEN() || g.Result != r.Result {
			t.Fatalf("record %d: %q, want the input's position and result %q", i+1, g.Text(), r.Text())
		}
		// The fake engine's score is material; from White's view it
		// does not depend on the side to move.
		want := 0
		r.Pieces(func(p board.Piece, _ board.Square) {
			want += [6]int{100, 300, 300, 500, 900, 0}[p.Type()] * (1 - 2*int(p.Color()))
		})
		if int(g.Score) != want {
			t.Fatalf("record %d: score %d, want %d (White's view)", i+1, g.Score, want)
		}
	}
	// Processes do not change the output; a finished run is not redone.
	cfg.Processes = 1
	out1 := filepath.Join(dir, "out1.txt")
	if _, err := Run(context.Background(), []string{in}, out1, cfg); err != nil {
		t.Fatal(err)
	}
	a, _ := os.ReadFile(out)
	b, _ := os.ReadFile(out1)
	if string(a) != string(b) {
		t.Fatal("1 and 2 processes give different output")
	}
	m2, err := Run(context.Background(), []string{in}, out, cfg)
	if err != nil || m2.SHA256 != m.SHA256 {
		t.Fatalf("rerun of a finished run: %v", err)
	}
	cfg.Nodes = 2
	if _, err := Run(context.Background(), []string{in}, out, cfg); err == nil {
		t.Fatal("other settings accepted for a finished run")
	}
}

// TestLabelShards: the shards of a run label disjoint chunks, and their
// outputs, chunk by chunk, are the whole run's output.
func TestLabelShards(t *testing.T) {
	dir := t.TempDir()
	in, _ := labelInput(t, dir, 230) // 5 chunks of 50
	cfg := fakeEngine(t)
	whole := filepath.Join(dir, "whole.txt")
	if _, err := Run(context.Background(), []string{in}, whole, cfg); err != nil {
		t.Fatal(err)
	}
	wantLines := strings.SplitAfter(readText(t, whole), "\n")
	// Chunk c of the whole run is records [50c, 50c+50), minus the two
	// dropped ones (records 11 and 21, both in chunk 0).
	chunkOf := func(line int) int {
		if line < 48 {
			return 0
		}
		return (line + 2) / 50
	}
	const shards = 3
	var total int64
	for k := 1; k <= shards; k++ {
		c := cfg
		c.Shard, c.Shards = k, shards
		out := filepath.Join(dir, fmt.Sprintf("shard%d.txt", k))
		m, err := Run(context.Background(), []string{in}, out, c)
		if err != nil {
			t.Fatal(err)
		}
		total += m.Summary.Labelled
		var want strings.Builder
		for i, l := range wantLines {
			if l != "" && chunkOf(i)%shards == k-1 {
				want.WriteString(l)
			}
		}
		if got := readText(t, out); got != want.String() {
			t.Fatalf("shard %d/%d: %d bytes, want chunks %d mod %d of the whole run (%d bytes)", k, shards, len(got), k-1, shards, want.Len())
		}
	}
	if total != 228 {
		t.Fatalf("shards labelled %d records in all, want 228", total)
	}
	cfg.Shard, cfg.Shards = 4, 3
	if _, err := Run(context.Background(), []string{in}, filepath.Join(dir, "bad.txt"), cfg); err == nil || !strings.Contains(err.Error(), "shard 4/3") {
		t.Fatalf("shard 4 of 3: %v", err)
	}
}

func readText(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestLabelResume: an engine that hangs on one position is killed after
// the timeout and the run stops with an error naming the record; the rerun
// labels only what is missing and gives the uninterrupted output.
func TestLabelResume(t *testing.T) {
	dir := t.TempDir()
	in, recs := labelInput(t, dir, 230)
	log := filepath.Join(dir, "searches.log")
	cfg := fakeEngine(t, "NNUELAB_FAKE_HANG", recs[129].FEN(), "NNUELAB_FAKE_LOG", log)
	cfg.Timeout = 300 * time.Millisecond
	cfg.Processes = 1
	out := filepath.Join(dir, "out.bin")
	_, err := Run(context.Background(), []string{in}, out, cfg)
	if err == nil || !strings.Contains(err.Error(), "input record 130") || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("want a timeout at input record 130, got %v", err)
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Fatal("output written by a failed run")
	}
	os.Remove(log)
	t.Setenv("NNUELAB_FAKE_HANG", "")
	m, err := Run(context.Background(), []string{in}, out, cfg)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(log)
	if n := strings.Count(string(b), "\n"); n != 230-100 {
		t.Errorf("rerun searched %d positions, want the 130 of chunks 3..5", n)
	}
	ref := filepath.Join(dir, "ref.bin")
	mr, err := Run(context.Background(), []string{in}, ref, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if m.SHA256 != mr.SHA256 || m.Summary != mr.Summary {
		t.Fatalf("resumed output %s %+v differs from %s %+v", m.SHA256, m.Summary, mr.SHA256, mr.Summary)
	}
}

func TestLabelErrors(t *testing.T) {
	dir := t.TempDir()
	in, _ := labelInput(t, dir, 30)
	out := filepath.Join(dir, "o.bin")
	tests := []struct {
		name string
		cfg  Config
		ins  []string
		want string
	}{
		{"no engine", Config{Nodes: 1}, []string{in}, "no engine"},
		{"no limit", Config{Engine: "x"}, []string{in}, "nodes or depth"},
		{"missing engine", Config{Engine: filepath.Join(dir, "nope"), Nodes: 1}, []string{in}, "nope"},
		{"not an engine", Config{Engine: "/bin/true", Nodes: 1, Timeout: time.Second}, []string{in}, "exited|broken pipe"},
		{"missing input", Config{Engine: "/bin/true", Nodes: 1}, []string{filepath.Join(dir, "x.txt")}, "x.txt"},
	}
	for _, tc := range tests {
		if _, err := Run(context.Background(), tc.ins, out, tc.cfg); err == nil || !regexp.MustCompile(tc.want).MatchString(err.Error()) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
	}
}

// TestLabelStockfish labels 300 positions of Stockfish 15.1's own self-play
// data with Stockfish 15.1 at 2000 nodes: results and positions are kept,
// and the new scores agree with the data's (5000-node) scores.
func TestLabelStockfish(t *testing.T) {
	testtier.Needs(t, "Stockfish 15.1 (Debian's stockfish)")
	const sf = "/usr/games/stockfish"
	if _, err := exec.LookPath(sf); err != nil {
		t.Fatalf("Stockfish 15.1 is needed at %s for this test (run 'make deps'): %v", sf, err)
	}
	dir := t.TempDir()
	recs := sampleRecords(t)[:300]
	in := filepath.Join(dir, "in.txt.zst")
	writeAll(t, in, recs)
	cfg := Config{Engine: sf, Options: [][2]string{{"Threads", "1"}, {"Hash", "16"}}, Nodes: 2000, ChunkRecords: 60, Processes: 2, Timeout: 30 * time.Second}
	out := filepath.Join(dir, "sf.bin")
	m, err := Run(context.Background(), []string{in}, out, cfg)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(m.Settings.EngineName, "Stockfish 15.1") {
		t.Fatalf("engine %q, want Stockfish 15.1", m.Settings.EngineName)
	}
	got := readAll(t, out)
	s := m.Summary
	if s.Read != 300 || s.Labelled+s.Mate+s.NoMove != 300 || int64(len(got)) != s.Labelled || s.Labelled < 280 {
		t.Fatalf("summary %+v, %d records", s, len(got))
	}
	// Match records to inputs in order (dropped ones are skipped).
	var xs, ys []float64
	j := 0
	signAgree, signTotal := 0, 0
	for _, r := range recs {
		if j == len(got) {
			break
		}
		g := got[j]
		if g.FEN() != r.FEN() {
			continue // dropped (mate)
		}
		j++
		if g.Result != r.Result {
			t.Fatalf("%s: result %v, input %v", g.FEN(), g.Result, r.Result)
		}
		xs = append(xs, float64(r.Score))
		ys = append(ys, float64(g.Score))
		if math.Abs(float64(r.Score)) >= 150 {
			signTotal++
			if (r.Score > 0) == (g.Score > 0) {
				signAgree++
			}
		}
	}
	if j != len(got) {
		t.Fatalf("output records are not the inputs in order (%d of %d matched)", j, len(got))
	}
	corr := correlation(xs, ys)
	t.Logf("%d positions: correlation with the data's scores %.3f; sign agrees on %d of %d with |score| >= 150", len(xs), corr, signAgree, signTotal)
	if corr < 0.8 || float64(signAgree) < 0.9*float64(signTotal) {
		t.Fatalf("Stockfish's new scores disagree with the data's: correlation %.3f, sign %d/%d (White's view lost?)", corr, signAgree, signTotal)
	}
	// Deterministic: one process gives the same file.
	cfg.Processes = 1
	m1, err := Run(context.Background(), []string{in}, filepath.Join(dir, "sf1.bin"), cfg)
	if err != nil {
		t.Fatal(err)
	}
	if m1.SHA256 != m.SHA256 {
		t.Error("1 and 2 Stockfish processes give different output")
	}
}

func correlation(x, y []float64) float64 {
	n := float64(len(x))
	var sx, sy, sxx, syy, sxy float64
	for i := range x {
		sx += x[i]
		sy += y[i]
		sxx += x[i] * x[i]
		syy += y[i] * y[i]
		sxy += x[i] * y[i]
	}
	return (n*sxy - sx*sy) / math.Sqrt((n*sxx-sx*sx)*(n*syy-sy*sy))
}

// TestLabelLocked: while another process holds the lock of an output's
// parts folder (a label run writing it), Label refuses with an error
// naming that holder and labels nothing; once it is released, Label runs.
func TestLabelLocked(t *testing.T) {
	dir := t.TempDir()
	in, _ := labelInput(t, dir, 60)
	cfg := fakeEngine(t)
	out := filepath.Join(dir, "out.txt")
	if err := os.MkdirAll(datasets.PartsDir(out), 0o755); err != nil {
		t.Fatal(err)
	}
	unlock, err := fsutil.Lock(filepath.Join(datasets.PartsDir(out), "lock"), "nnuelab label --out first")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Run(context.Background(), []string{in}, out, cfg)
	if err == nil || !strings.Contains(err.Error(), "nnuelab label --out first") || !strings.Contains(err.Error(), datasets.PartsDir(out)) {
		t.Errorf("Label of a locked output: %v, want an error naming the holder", err)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("the refused run wrote the output")
	}
	unlock()
	if _, err := Run(context.Background(), []string{in}, out, cfg); err != nil {
		t.Errorf("Label after the lock was released: %v", err)
	}
}
