package plugin

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/eval"
	"github.com/nnuelab/nnuelab/engine/eval/plugin/plugintest"
	"github.com/nnuelab/nnuelab/plugins/sdk"
	"github.com/nnuelab/nnuelab/plugins/sdk/pluginpb"
)

// pluginDir holds the example plugins, built once for the whole package.
var pluginDir string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "nnuelab-plugins-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	if err := plugintest.Build(dir); err != nil {
		fmt.Fprintln(os.Stderr, "building the example plugins:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	pluginDir = dir
	os.Setenv(EnvDirs, dir)
	// A loaded machine (CI beside other jobs) can take more than the
	// default 5 s for one round trip to a plugin that wraps Stockfish; the
	// tests of hangs set their own short timeouts.
	if os.Getenv(EnvTimeout) == "" {
		os.Setenv(EnvTimeout, "60s")
	}
	code := m.Run()
	Shutdown()
	os.RemoveAll(dir)
	os.Exit(code)
}

// roots are the start positions of the playouts: castling both ways, en
// passant, promotions, checks.
var roots = []string{
	board.StartFEN,
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
	"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
	"rnbqkb1r/pp1p1ppp/2p5/4P3/2B5/8/PPP1NnPP/RNBQK2R w KQkq - 0 6",
	"4k3/1P6/8/3pP3/8/8/6p1/4K2R w K d6 0 40",
}

// evalRecord is one evaluation made during a playout.
type evalRecord struct {
	fen   string
	score int
}

// playout walks random lines from each root through ev the way search
// does (Reset, Push after each make, Pop after each unmake, null moves,
// evaluations at random nodes) and records every evaluation.
func playout(t *testing.T, ev eval.Evaluator, seed uint64, evals int) []evalRecord {
	t.Helper()
	rng := rand.New(rand.NewPCG(seed, 99))
	var out []evalRecord
	per := max(evals/len(roots), 1)
	for _, fen := range roots {
		p, err := board.ParseFEN(fen)
		if err != nil {
			t.Fatal(err)
		}
		ev.Reset(p)
		type step struct{ null bool }
		var stack []step
		for n := 0; n < per; {
			var ml board.MoveList
			p.GenerateLegal(&ml)
			switch r := rng.IntN(10); {
			case r < 6 && ml.N > 0 && len(stack) < 12:
				p.MakeMove(ml.Moves[rng.IntN(ml.N)])
				ev.Push(p.LastDelta())
				stack = append(stack, step{})
			case r == 6 && !p.InCheck() && len(stack) < 12:
				p.MakeNullMove()
				ev.Push(p.LastDelta())
				stack = append(stack, step{null: true})
			case r < 9 && len(stack) > 0:
				if stack[len(stack)-1].null {
					p.UnmakeNullMove()
				} else {
					p.UnmakeMove()
				}
				ev.Pop()
				stack = stack[:len(stack)-1]
			default:
				out = append(out, evalRecord{p.FEN(), ev.Evaluate(p)})
				n++
			}
		}
	}
	return out
}

// conformance lists the example evaluators with how many evaluations each
// gets (Stockfish's eval command takes milliseconds).
var conformance = []struct {
	name  string
	evals int
}{
	{"gofloat", 600},
	{"nodepst", 600},
	{"sfeval", 36},
}

func openStrict(t *testing.T, name string) *Evaluator {
	t.Helper()
	ev, err := Open(name, "")
	if err != nil {
		t.Fatal(err)
	}
	ev.SetNotify(func(msg string) { t.Errorf("unexpected notice: %s", msg) })
	t.Cleanup(func() { ev.Close() })
	return ev
}

func TestConformance(t *testing.T) {
	for _, c := range conformance {
		t.Run(c.name, func(t *testing.T) {
			plugintest.Needs(t, c.name)
			ev := openStrict(t, c.name)
			t.Run("describe", func(t *testing.T) {
				d := ev.Description()
				if d.Name != c.name || d.Version == "" || d.Summary == "" {
					t.Errorf("description %v: want name %q, a version and a summary", d, c.name)
				}
			})
			t.Run("session equals batch", func(t *testing.T) {
				recs := playout(t, ev, 1, c.evals)
				ps := make([]*board.Position, len(recs))
				for i, r := range recs {
					ps[i], _ = board.ParseFEN(r.fen)
				}
				got := make([]int, len(ps))
				if err := ev.EvaluateBatch(context.Background(), ps, got); err != nil {
					t.Fatal(err)
				}
				for i, r := range recs {
					if got[i] != r.score {
						t.Errorf("%s: batch %d, session %d", r.fen, got[i], r.score)
					}
				}
				t.Logf("%d evaluations agree", len(recs))
			})
			t.Run("raw protocol", func(t *testing.T) { testRaw(t, c.name, c.evals/4) })
		})
	}
}

// testRaw speaks the protocol directly: FEN and packed batches agree, and
// bad input is an InvalidArgument error that leaves the plugin serving.
func testRaw(t *testing.T, name string, n int) {
	path, err := Find(name)
	if err != nil {
		t.Fatal(err)
	}
	cl, err := sdk.Launch(sdk.LaunchConfig{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Kill()
	api, err := cl.Evaluator()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	ev := &recorder{}
	recs := playout(t, ev, 2, n)
	var fens []string
	packed := make([]byte, 0, len(recs)*sdk.PackedSize)
	for _, r := range recs {
		p, _ := board.ParseFEN(r.fen)
		var buf [sdk.PackedSize]byte
		Pack(p, buf[:])
		packed = append(packed, buf[:]...)
		fens = append(fens, r.fen)
	}
	byFEN, err := api.EvaluateBatch(ctx, &pluginpb.BatchRequest{Fens: fens})
	if err != nil {
		t.Fatal(err)
	}
	byPacked, err := api.EvaluateBatch(ctx, &pluginpb.BatchRequest{Packed: packed})
	if err != nil {
		t.Fatal(err)
	}
	if len(byFEN.Scores) != len(fens) || len(byPacked.Scores) != len(fens) {
		t.Fatalf("%d positions, %d and %d scores", len(fens), len(byFEN.Scores), len(byPacked.Scores))
	}
	for i := range fens {
		if byFEN.Scores[i] != byPacked.Scores[i] {
			t.Errorf("%s: FEN %v, packed %v", fens[i], byFEN.Scores[i], byPacked.Scores[i])
		}
	}
	empty, err := api.EvaluateBatch(ctx, &pluginpb.BatchRequest{})
	if err != nil || len(empty.Scores) != 0 {
		t.Errorf("empty batch: %v, %v", empty, err)
	}

	for _, bad := range []struct {
		name string
		req  *pluginpb.BatchRequest
	}{
		{"bad FEN", &pluginpb.BatchRequest{Fens: []string{board.StartFEN, "rnbqkbnr/pppppppp/8/8 w - - 0 1"}}},
		{"no kings", &pluginpb.BatchRequest{Fens: []string{"8/8/8/8/8/8/8/8 w - - 0 1"}}},
		{"short packed", &pluginpb.BatchRequest{Packed: packed[:sdk.PackedSize+3]}},
		{"bad nibble", &pluginpb.BatchRequest{Packed: append([]byte{0xff}, packed[1:sdk.PackedSize]...)}},
		{"both forms", &pluginpb.BatchRequest{Fens: fens[:1], Packed: packed[:sdk.PackedSize]}},
	} {
		_, err := api.EvaluateBatch(ctx, bad.req)
		if status.Code(err) != codes.InvalidArgument {
			t.Errorf("batch with %s: got %v, want InvalidArgument", bad.name, err)
		}
	}

	root := &pluginpb.Op{Op: &pluginpb.Op_NewGame{NewGame: &pluginpb.NewGame{Position: &pluginpb.Position{Fen: board.StartFEN}}}}
	pop := &pluginpb.Op{Op: &pluginpb.Op_Pop{Pop: &pluginpb.Pop{}}}
	push := func(rem, add []byte) *pluginpb.Op {
		return &pluginpb.Op{Op: &pluginpb.Op_Push{Push: &pluginpb.Delta{Removed: rem, Added: add}}}
	}
	e2e4 := push([]byte{0, 12}, []byte{0, 28})
	for _, c := range []struct {
		name string
		ops  []*pluginpb.Op
		ok   bool
	}{
		{"e2e4 and back", []*pluginpb.Op{root, e2e4, pop}, true},
		{"pop at the root", []*pluginpb.Op{root, pop}, false},
		{"push before new game", []*pluginpb.Op{e2e4}, false},
		{"piece not there", []*pluginpb.Op{root, push([]byte{0, 20}, []byte{0, 28})}, false},
		{"square taken", []*pluginpb.Op{root, push([]byte{1, 1}, []byte{1, 11})}, false},
		{"odd delta", []*pluginpb.Op{root, push([]byte{0}, nil)}, false},
		{"bad root", []*pluginpb.Op{{Op: &pluginpb.Op_NewGame{NewGame: &pluginpb.NewGame{Position: &pluginpb.Position{Fen: "nonsense"}}}}}, false},
		{"empty op", []*pluginpb.Op{root, {}}, false},
	} {
		s, err := api.Session(ctx)
		if err != nil {
			t.Fatal(err)
		}
		err = s.Send(&pluginpb.SessionRequest{Ops: c.ops, Eval: true})
		var resp *pluginpb.SessionResponse
		if err == nil {
			resp, err = s.Recv()
		}
		switch {
		case c.ok && err != nil:
			t.Errorf("session %s: %v", c.name, err)
		case c.ok && byFEN.Scores != nil && c.name == "e2e4 and back":
			// Back at the root: the start position's score.
			start, _ := api.EvaluateBatch(ctx, &pluginpb.BatchRequest{Fens: []string{board.StartFEN}})
			if resp.Score != start.Scores[0] {
				t.Errorf("session %s: %v, batch says %v", c.name, resp.Score, start.Scores[0])
			}
		case !c.ok && status.Code(err) != codes.InvalidArgument:
			t.Errorf("session %s: got %v, want InvalidArgument", c.name, err)
		}
		_ = s.CloseSend()
	}
	if _, err := api.Describe(ctx, &pluginpb.DescribeRequest{}); err != nil || cl.Exited() {
		t.Errorf("after bad input the plugin should still serve: %v (exited %v)", err, cl.Exited())
	}
}

// recorder is an evaluator that evaluates nothing (playout positions only).
type recorder struct{}

func (recorder) Reset(*board.Position)        {}
func (recorder) Push(*board.Delta)            {}
func (recorder) Pop()                         {}
func (recorder) Evaluate(*board.Position) int { return 0 }

// The Node.js plugin is a port of gofloat: the two must agree exactly,
// which checks the wire formats in both languages against each other.
func TestNodeAgreesWithGo(t *testing.T) {
	plugintest.Needs(t, "nodepst")
	gof, node := openStrict(t, "gofloat"), openStrict(t, "nodepst")
	recs := playout(t, &recorder{}, 3, 400)
	ps := make([]*board.Position, len(recs))
	for i, r := range recs {
		ps[i], _ = board.ParseFEN(r.fen)
	}
	a, b := make([]int, len(ps)), make([]int, len(ps))
	if err := gof.EvaluateBatch(context.Background(), ps, a); err != nil {
		t.Fatal(err)
	}
	if err := node.EvaluateBatch(context.Background(), ps, b); err != nil {
		t.Fatal(err)
	}
	for i := range ps {
		if a[i] != b[i] {
			t.Errorf("%s: gofloat %d, nodepst %d", recs[i].fen, a[i], b[i])
		}
	}
}

// Stockfish's numbers cross the boundary in pawns from White's view; the
// host turns them into centipawns for the side to move.
func TestUnitsAndPointOfView(t *testing.T) {
	plugintest.Needs(t, "sfeval")
	ev := openStrict(t, "sfeval")
	// The same position with either side to move, and its colour mirror.
	fens := []string{
		"rnbqkbnr/pppp1ppp/8/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R b KQkq - 1 2",
		"rnbqkb1r/pppp1ppp/5n2/4p3/4P3/8/PPPP1PPP/RNBQKBNR w KQkq - 2 2",
		"4k3/8/8/8/8/8/8/QQQ1K3 w - - 0 1",
		"4k3/8/8/8/8/8/8/QQQ1K3 b - - 0 1",
	}
	ps := make([]*board.Position, len(fens))
	for i, f := range fens {
		ps[i], _ = board.ParseFEN(f)
	}
	got := make([]int, len(ps))
	if err := ev.EvaluateBatch(context.Background(), ps, got); err != nil {
		t.Fatal(err)
	}
	// Mirrored openings: the same score for the side to move, give or take
	// Stockfish's own asymmetry.
	if d := got[0] - got[1]; d < -30 || d > 30 {
		t.Errorf("mirrored positions score %d and %d", got[0], got[1])
	}
	if got[2] < 1000 || got[3] > -1000 {
		t.Errorf("three queens up: %d with White to move, %d with Black to move; want large and of opposite signs", got[2], got[3])
	}
}

func TestResolverAndDiscovery(t *testing.T) {
	for _, name := range plugintest.Evaluators {
		if _, err := Find(name); err != nil {
			t.Errorf("Find(%q): %v", name, err)
		}
	}
	if _, err := FindMetric("accuracy"); err != nil {
		t.Error(err)
	}
	names := Names()
	if strings.Join(names, " ") != "gofloat nodepst sfeval" {
		t.Errorf("Names() = %v (metrics must not be listed)", names)
	}
	ev, err := eval.New(Prefix+"gofloat", "")
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ev.(eval.Notifier); !ok {
		t.Error("a plugin evaluator should be an eval.Notifier")
	}
	if _, err := eval.New(Prefix+filepath.Join(pluginDir, "gofloat"), ""); err != nil {
		t.Errorf("by path: %v", err)
	}
	for _, bad := range []string{Prefix + "nosuch", Prefix, Prefix + "/nonexistent/binary", Prefix + filepath.Join(pluginDir, "metrics")} {
		if _, err := eval.New(bad, ""); err == nil {
			t.Errorf("eval.New(%q) succeeded", bad)
		}
	}
	// A metric plugin is not an evaluator: a clear error, no hang.
	if _, err := eval.New(Prefix+filepath.Join(pluginDir, "metrics", "accuracy"), ""); err == nil ||
		!strings.Contains(err.Error(), "describe") {
		t.Errorf("opening a metric plugin as an evaluator: %v", err)
	}
}

func TestMetricPlugin(t *testing.T) {
	path, err := FindMetric("accuracy")
	if err != nil {
		t.Fatal(err)
	}
	cl, err := sdk.Launch(sdk.LaunchConfig{Path: path})
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Kill()
	m, err := cl.Metric()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	d, err := m.DescribeMetric(ctx, &pluginpb.DescribeRequest{})
	if err != nil || d.Name != "accuracy" || len(d.Outputs) == 0 {
		t.Fatalf("describe: %v, %v", d, err)
	}
	req := &pluginpb.MetricRequest{
		Net: "none", Arch: "classical",
		Fens:          []string{board.StartFEN, roots[1]},
		Scores:        []float32{20, -40},
		TargetScores:  []float32{10, -40},
		TargetResults: []float32{0.5, 0},
		Params:        map[string]string{"scale": "400"},
	}
	r, err := m.Compute(ctx, req)
	if err != nil {
		t.Fatal(err)
	}
	for k, want := range map[string]float64{"positions": 2, "mean_cp": -10, "mae_cp": 5, "sign_agreement": 1} {
		if r.Values[k] != want {
			t.Errorf("%s = %v, want %v", k, r.Values[k], want)
		}
	}
	req.Scores = req.Scores[:1]
	if _, err := m.Compute(ctx, req); status.Code(err) != codes.InvalidArgument {
		t.Errorf("mismatched lengths: %v", err)
	}
}

// A plugin killed between calls: the next evaluation reports it, falls
// back, and the next search gets a restarted process.
func TestCrashFallbackRestart(t *testing.T) {
	for _, name := range []string{"gofloat", "nodepst"} {
		t.Run(name, func(t *testing.T) {
			plugintest.Needs(t, name)
			ev, err := Open(name, "")
			if err != nil {
				t.Fatal(err)
			}
			defer ev.Close()
			var notes []string
			ev.SetNotify(func(m string) { notes = append(notes, m) })
			p := board.StartPosition()
			ev.Reset(p)
			want := ev.Evaluate(p)
			pid := ev.Pid()
			if pid == 0 {
				t.Fatal("no plugin process")
			}
			proc, _ := os.FindProcess(pid)
			if err := proc.Kill(); err != nil {
				t.Fatal(err)
			}
			m, _ := p.ParseUCIMove("e2e4")
			p.MakeMove(m)
			ev.Push(p.LastDelta())
			fb := eval.NewPeSTO()
			fb.Reset(p)
			if got := ev.Evaluate(p); got != fb.Evaluate(p) {
				t.Errorf("after the crash: %d, want the classical %d", got, fb.Evaluate(p))
			}
			// Callers that must not mix evaluations see the fault.
			if err := eval.Fault(ev); err == nil || !strings.Contains(err.Error(), fmt.Sprintf("(pid %d) died", pid)) {
				t.Errorf("Fault after the crash: %v", err)
			}
			if len(notes) != 1 || !strings.Contains(notes[0], "died") || !strings.Contains(notes[0], fmt.Sprint(pid)) {
				t.Fatalf("notices %q: want one saying pid %d died", notes, pid)
			}
			t.Log(notes[0])
			ev.Pop()
			p.UnmakeMove()
			// Still on the fallback until the next search.
			fb.Reset(p)
			if got := ev.Evaluate(p); got != fb.Evaluate(p) {
				t.Errorf("fallback at the root: %d, want %d", got, fb.Evaluate(p))
			}
			// The next search restarts the plugin after the backoff.
			time.Sleep(minBackoff + 50*time.Millisecond)
			ev.Reset(p)
			if got := ev.Evaluate(p); got != want {
				t.Errorf("after the restart: %d, want %d (notices %q)", got, want, notes)
			}
			if err := ev.Fault(); err != nil {
				t.Errorf("Fault after the restart: %v", err)
			}
			if ev.Pid() == pid || ev.Pid() == 0 {
				t.Errorf("pid %d after the restart, was %d", ev.Pid(), pid)
			}
		})
	}
}

// A plugin that stops answering: the timeout reports it and the evaluator
// falls back; the hung process is killed.
func TestHungPlugin(t *testing.T) {
	opts := DefaultOptions()
	opts.EvalTimeout = 300 * time.Millisecond
	ev, err := OpenWith("gofloat", "", opts)
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Close()
	var notes []string
	ev.SetNotify(func(m string) { notes = append(notes, m) })
	p := board.StartPosition()
	ev.Reset(p)
	ev.Evaluate(p)
	pid := ev.Pid()
	proc, _ := os.FindProcess(pid)
	if err := proc.Signal(stopSignal); err != nil {
		t.Skip("cannot stop a process here:", err)
	}
	defer proc.Kill()
	waitStopped(pid)
	start := time.Now()
	fb := eval.NewPeSTO()
	fb.Reset(p)
	if got := ev.Evaluate(p); got != fb.Evaluate(p) {
		t.Errorf("got %d, want the fallback's %d", got, fb.Evaluate(p))
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("the timeout took %v", d)
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "no answer in time") {
		t.Errorf("notices %q: want one about the timeout", notes)
	}
	// The hung process is killed.
	deadline := time.Now().Add(5 * time.Second)
	for processAlive(pid) && time.Now().Before(deadline) {
		time.Sleep(20 * time.Millisecond)
	}
	if processAlive(pid) {
		t.Errorf("hung plugin %d still runs", pid)
	}
}

func TestPack(t *testing.T) {
	for _, fen := range roots {
		p, _ := board.ParseFEN(fen)
		var buf [sdk.PackedSize]byte
		Pack(p, buf[:])
		b, err := sdk.Unpack(buf[:])
		if err != nil {
			t.Fatal(err)
		}
		if b.FEN() != p.FEN() {
			t.Errorf("packed %s unpacks to %s", p.FEN(), b.FEN())
		}
	}
}

// A plugin that panics: the notice carries its panic message, and the
// engine goes on.
func TestPanickingPlugin(t *testing.T) {
	root, err := plugintest.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "crasher")
	cmd := exec.Command("go", "build", "-o", bin, "./engine/eval/plugin/testdata/crasher")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	ev, err := Open(bin, "")
	if err != nil {
		t.Fatal(err)
	}
	defer ev.Close()
	var notes []string
	ev.SetNotify(func(m string) { notes = append(notes, m) })
	p := board.StartPosition()
	ev.Reset(p)
	fb := eval.NewPeSTO()
	fb.Reset(p)
	for i, want := range []int{1, 1, fb.Evaluate(p), fb.Evaluate(p)} {
		if got := ev.Evaluate(p); got != want {
			t.Errorf("evaluation %d: %d, want %d", i+1, got, want)
		}
	}
	if len(notes) != 1 || !strings.Contains(notes[0], "panic: crasher: third evaluation") {
		t.Errorf("notices %q: want one with the panic message", notes)
	}
	t.Log(notes)
}
