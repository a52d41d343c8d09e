package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/eval/plugin"
	"github.com/nnuelab/nnuelab/engine/eval/plugin/plugintest"
)

// The plugin tests build the example plugins and the engine once, into
// a directory removed when the package's tests end.
var (
	pluginsOnce sync.Once
	pluginsDir  string
	pluginsErr  error
)

func TestMain(m *testing.M) {
	code := m.Run()
	plugin.Shutdown()
	if pluginsDir != "" {
		os.RemoveAll(pluginsDir)
	}
	os.Exit(code)
}

// pluginEnv returns the directory of the built plugins (also the value to
// give NNUELAB_PLUGINS) and the engine binary.
func pluginEnv(t *testing.T) (dir, engine string) {
	t.Helper()
	pluginsOnce.Do(func() {
		if pluginsDir, pluginsErr = os.MkdirTemp("", "nnuelab-uci-plugins-"); pluginsErr != nil {
			return
		}
		if pluginsErr = plugintest.Build(pluginsDir); pluginsErr != nil {
			return
		}
		out, err := exec.Command("go", "build", "-o", filepath.Join(pluginsDir, "engine", "nnuelab"), ".").CombinedOutput()
		if err != nil {
			pluginsErr = fmt.Errorf("go build: %v\n%s", err, out)
		}
	})
	if pluginsErr != nil {
		t.Fatal(pluginsErr)
	}
	return pluginsDir, filepath.Join(pluginsDir, "engine", "nnuelab")
}

// uciProc is the engine binary under test, spoken to over pipes.
type uciProc struct {
	t     *testing.T
	cmd   *exec.Cmd
	in    io.WriteCloser
	lines chan string
	seen  []string
}

func startUCI(t *testing.T, env ...string) *uciProc {
	dir, bin := pluginEnv(t)
	cmd := exec.Command(bin)
	cmd.Env = append(append(os.Environ(), plugin.EnvDirs+"="+dir), env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	u := &uciProc{t: t, cmd: cmd, in: in, lines: make(chan string, 1024)}
	go func() {
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			u.lines <- sc.Text()
		}
		close(u.lines)
	}()
	t.Cleanup(func() {
		in.Close()
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
			<-done
		}
	})
	return u
}

func (u *uciProc) send(lines ...string) {
	for _, l := range lines {
		if _, err := io.WriteString(u.in, l+"\n"); err != nil {
			u.t.Fatalf("send %q: %v", l, err)
		}
	}
}

// expect reads lines until one matches re, and returns it.
func (u *uciProc) expect(re string, timeout time.Duration) string {
	u.t.Helper()
	r := regexp.MustCompile(re)
	deadline := time.After(timeout)
	for {
		select {
		case l, ok := <-u.lines:
			if !ok {
				u.t.Fatalf("the engine exited while waiting for /%s/; output:\n%s", re, strings.Join(u.seen, "\n"))
			}
			u.seen = append(u.seen, l)
			if r.MatchString(l) {
				return l
			}
		case <-deadline:
			u.t.Fatalf("no /%s/ in %v; output:\n%s", re, timeout, strings.Join(u.seen, "\n"))
		}
	}
}

// since returns the lines seen from index i on.
func (u *uciProc) since(i int) []string { return u.seen[i:] }

// checkBestmove checks that line is "bestmove M ..." with M legal after
// the moves from the start position.
func checkBestmove(t *testing.T, line string, moves ...string) {
	t.Helper()
	p := board.StartPosition()
	for _, s := range moves {
		m, err := p.ParseUCIMove(s)
		if err != nil {
			t.Fatal(err)
		}
		p.MakeMove(m)
	}
	f := strings.Fields(line)
	if len(f) < 2 || f[0] != "bestmove" {
		t.Fatalf("not a bestmove line: %q", line)
	}
	m, err := p.ParseUCIMove(f[1])
	if err != nil || !p.IsLegal(m) {
		t.Fatalf("bestmove %s is not legal in %s: %v", f[1], p.FEN(), err)
	}
}

var npsRe = regexp.MustCompile(` nps (\d+) `)

func TestUCIPluginPlay(t *testing.T) {
	for _, c := range []struct {
		name  string
		depth int
	}{{"gofloat", 6}, {"nodepst", 5}, {"sfeval", 3}} {
		t.Run(c.name, func(t *testing.T) {
			plugintest.Needs(t, c.name)
			u := startUCI(t)
			u.send("uci")
			if l := u.expect(`^option name Arch `, 10*time.Second); !strings.Contains(l, " var plugin:"+c.name) {
				t.Errorf("the Arch option does not offer plugin:%s: %s", c.name, l)
			}
			u.expect(`^uciok$`, 10*time.Second)
			u.send("setoption name Arch value plugin:"+c.name, "isready")
			u.expect(`^readyok$`, 30*time.Second)
			mark := len(u.seen)
			u.send("position startpos moves e2e4", fmt.Sprintf("go depth %d", c.depth))
			best := u.expect(`^bestmove `, 2*time.Minute)
			checkBestmove(t, best, "e2e4")
			var last string
			for _, l := range u.since(mark) {
				if strings.HasPrefix(l, "info string") {
					t.Errorf("unexpected %q", l)
				}
				if strings.HasPrefix(l, "info depth") {
					last = l
				}
			}
			m := npsRe.FindStringSubmatch(last)
			if m == nil || !strings.HasPrefix(last, fmt.Sprintf("info depth %d ", c.depth)) {
				t.Fatalf("last info line %q: want depth %d with nps", last, c.depth)
			}
			if nps, _ := strconv.Atoi(m[1]); nps <= 0 {
				t.Errorf("nps %d", nps)
			}
			t.Logf("%s: %s", c.name, last)
		})
	}
}

// childPids returns the processes whose parent is pid (Linux /proc).
func childPids(pid int) []int {
	var out []int
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...: comm may hold spaces, so cut at ')'.
		i := bytes.LastIndexByte(b, ')')
		f := strings.Fields(string(b[i+1:]))
		if len(f) > 1 && f[0] != "Z" && f[1] == strconv.Itoa(pid) {
			out = append(out, n)
		}
	}
	return out
}

// The plugin is killed in the middle of "go infinite": the engine says so
// in an info string, goes on searching on its fallback, answers stop with
// a legal bestmove, and the next search has the plugin back.
func TestUCIPluginKilledMidSearch(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("finds the plugin process through /proc")
	}
	for _, name := range []string{"gofloat", "nodepst"} {
		t.Run(name, func(t *testing.T) {
			plugintest.Needs(t, name)
			u := startUCI(t)
			u.send("uci", "setoption name Arch value plugin:"+name, "isready")
			u.expect(`^readyok$`, 30*time.Second)
			u.send("position startpos moves d2d4 d7d5", "go infinite")
			u.expect(`^info depth 4 `, time.Minute)
			kids := childPids(u.cmd.Process.Pid)
			if len(kids) != 1 {
				t.Fatalf("engine children %v: want the one plugin process", kids)
			}
			if err := syscall.Kill(kids[0], syscall.SIGKILL); err != nil {
				t.Fatal(err)
			}
			note := u.expect(`^info string `, 30*time.Second)
			if !strings.Contains(note, fmt.Sprintf("plugin %s (pid %d) died: signal: killed", name, kids[0])) ||
				!strings.Contains(note, "classical") {
				t.Errorf("notice %q: want the plugin's death and the fallback", note)
			}
			t.Log(note)
			// The search goes on, on the fallback.
			mark := len(u.seen)
			u.expect(`^info depth `, 30*time.Second)
			time.Sleep(200 * time.Millisecond)
			u.send("stop")
			best := u.expect(`^bestmove `, 30*time.Second)
			checkBestmove(t, best, "d2d4", "d7d5")
			for _, l := range u.since(mark) {
				if strings.HasPrefix(l, "info string") {
					t.Errorf("more than one notice: %q", l)
				}
			}

			// The next search restarts the plugin (after the backoff). A new
			// game and position, so that the hash table cannot answer the
			// whole search without an evaluation.
			time.Sleep(500 * time.Millisecond)
			mark = len(u.seen)
			u.send("ucinewgame", "position startpos moves e2e4", "go depth 4")
			best = u.expect(`^bestmove `, time.Minute)
			checkBestmove(t, best, "e2e4")
			for _, l := range u.since(mark) {
				if strings.HasPrefix(l, "info string") {
					t.Errorf("after the restart: %q", l)
				}
			}
			if kids2 := childPids(u.cmd.Process.Pid); len(kids2) != 1 || kids2[0] == kids[0] {
				t.Errorf("plugin processes %v after the restart (killed %d)", kids2, kids[0])
			}
		})
	}
}

func TestUCIPluginErrors(t *testing.T) {
	u := startUCI(t)
	u.send("setoption name Arch value plugin:nosuch")
	if l := u.expect(`^info string`, 10*time.Second); !strings.Contains(l, `plugin "nosuch" not found`) {
		t.Errorf("unknown plugin: %q", l)
	}
	// The engine kept its evaluator and plays.
	u.send("position startpos", "go depth 3")
	checkBestmove(t, u.expect(`^bestmove `, 30*time.Second))
}

func TestEvalCommandPlugin(t *testing.T) {
	dir, _ := pluginEnv(t)
	t.Setenv(plugin.EnvDirs, dir)
	for _, c := range []struct {
		name, arch, fen string
		want            string // stdout, or an error substring
		fails           bool
	}{
		{"gofloat start", "plugin:gofloat", board.StartFEN, board.StartFEN + "\t10\t10\n", false},
		{"nodepst start", "plugin:nodepst", board.StartFEN, board.StartFEN + "\t10\t10\n", false},
		{"unknown", "plugin:nosuch", board.StartFEN, `plugin "nosuch" not found`, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			plugintest.Needs(t, c.arch)
			var out, errOut bytes.Buffer
			code := run([]string{"eval", "--arch", c.arch, "--fen", c.fen}, &out, &errOut)
			if c.fails {
				if code == 0 || !strings.Contains(errOut.String(), c.want) {
					t.Errorf("exit %d, stderr %q: want failure with %q", code, errOut.String(), c.want)
				}
				return
			}
			if code != 0 || out.String() != c.want {
				t.Errorf("exit %d, stdout %q (stderr %q), want %q", code, out.String(), errOut.String(), c.want)
			}
		})
	}
}

func TestPluginsCommand(t *testing.T) {
	plugintest.Needs(t, "nodepst")
	plugintest.Needs(t, "sfeval")
	dir, _ := pluginEnv(t)
	t.Setenv(plugin.EnvDirs, dir)
	var out, errOut bytes.Buffer
	if code := run([]string{"plugins", "--describe"}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	for _, want := range []string{"plugin:gofloat", "plugin:nodepst", "plugin:sfeval", "UNITS_PAWNS"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	if strings.Contains(out.String(), "accuracy") {
		t.Errorf("a metric plugin is listed as an evaluator:\n%s", out.String())
	}
}

// killPlugin waits for the one plugin process under the engine process
// pid, kills it and waits until it is gone; it returns its pid.
func killPlugin(t *testing.T, pid int) int {
	t.Helper()
	var kids []int
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if kids = childPids(pid); len(kids) == 1 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("engine children %v: want the one plugin process", kids)
		}
	}
	if err := syscall.Kill(kids[0], syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(10 * time.Second); len(childPids(pid)) != 0 && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	return kids[0]
}

// evalKillFENs are the positions of TestEvalPluginKilled: distinct, so
// that the line a failure names is unambiguous.
var evalKillFENs = []string{
	board.StartFEN,
	"r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1",
	"8/2p5/3p4/KP5r/1R3p1k/8/4P1P1/8 w - - 0 1",
	"r3k2r/Pppp1ppp/1b3nbN/nP6/BBP1P3/q4N2/Pp1P2PP/R2Q1RK1 w kq - 0 1",
	"rnbq1k1r/pp1Pbppp/2p5/8/2B5/8/PPP1NnPP/RNBQK2R w KQ - 1 8",
	"r4rk1/1pp1qppp/p1np1n2/2b1p1B1/2B1P1b1/P1NP1N2/1PP1QPPP/R4RK1 w - - 0 10",
	"8/2k5/8/1K6/8/8/8/R7 w - - 0 1",
	"8/k7/3p4/p2P1p2/P2P1P2/8/8/K7 w - - 0 1",
	"6k1/pp4p1/2p5/2bp4/8/P5Pb/1P3rrP/2BRRN1K b - - 0 1",
	"r1bqkbnr/pppp1ppp/2n5/4p3/2B1P3/5Q2/PPPP1PPP/RNB1K1NR w KQkq - 4 4",
	"rnbqkbnr/pp1pp1p1/2p5/2P2p1p/3P4/1P6/P3PPPP/RNBQKBNR b KQkq - 0 4",
	"rnbqkbnr/p1pppp1p/8/1p6/2P2Pp1/8/PP1PPKPP/RNBQ1BNR w kq - 0 4",
	"r2qkbr1/ppp1pp1p/3nb3/8/2NP2nB/4PN2/PP3PP1/R2QKB1R w KQq - 1 13",
	"b6k/8/4p3/4b2p/5N1P/n3P1P1/3P1K2/2r5 w - - 4 37",
	"r4rk1/5pR1/4b2p/1Pp4P/R7/1PpPpP2/K1P1P2P/2q5 b - - 0 31",
	"2bqk1r1/1r2bppp/p1n5/1pp4P/4P1n1/2N2N2/PPQ2PP1/R1B1KB1R w Q - 4 15",
}

// TestEvalPluginKilled kills the plugin in the middle of `nnuelab eval
// --epd -`: the run must fail, naming the line and position it reached,
// and everything it printed before must be the plugin's own scores (no
// classical fallback mixed in).
func TestEvalPluginKilled(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("finds the plugin process through /proc")
	}
	dir, bin := pluginEnv(t)
	env := append(os.Environ(), plugin.EnvDirs+"="+dir)
	// The plugin's scores, from a run that nobody disturbs.
	ref := exec.Command(bin, "eval", "--arch", "plugin:gofloat", "--epd", "-")
	ref.Env = env
	ref.Stdin = strings.NewReader(strings.Join(evalKillFENs, "\n") + "\n")
	refOut, err := ref.Output()
	if err != nil {
		t.Fatalf("reference run: %v", err)
	}
	want := strings.Split(strings.TrimSuffix(string(refOut), "\n"), "\n")
	if len(want) != len(evalKillFENs) {
		t.Fatalf("reference run printed %q", want)
	}

	half := len(evalKillFENs) / 2
	cmd := exec.Command(bin, "eval", "--arch", "plugin:gofloat", "--epd", "-")
	cmd.Env = env
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	var out, errOut bytes.Buffer
	cmd.Stdout = &out
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(in, strings.Join(evalKillFENs[:half], "\n")+"\n")
	// The header comes once the plugin has started and described itself;
	// then the first half is evaluated in moments.
	started := make(chan bool, 1)
	stderrDone := make(chan struct{})
	go func() {
		defer close(stderrDone)
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			errOut.WriteString(sc.Text() + "\n")
			if strings.HasPrefix(sc.Text(), "# plugin:gofloat") {
				started <- true
			}
		}
		close(started)
	}()
	if !<-started {
		<-stderrDone
		t.Fatalf("eval ended before the plugin started: %s", errOut.String())
	}
	time.Sleep(300 * time.Millisecond)
	pid := killPlugin(t, cmd.Process.Pid)
	time.Sleep(300 * time.Millisecond) // the backoff would allow a restart by now
	io.WriteString(in, strings.Join(evalKillFENs[half:], "\n")+"\n")
	in.Close()
	<-stderrDone
	err = cmd.Wait()
	t.Logf("killed plugin %d; stderr: %s", pid, errOut.String())
	if err == nil {
		t.Fatalf("exit 0 after the plugin died; stdout:\n%s", out.String())
	}
	m := regexp.MustCompile(`standard input line (\d+) \(([^)]*)\): plugin gofloat \(pid (\d+)\) died`).FindStringSubmatch(errOut.String())
	if m == nil {
		t.Fatalf("stderr %q: want the line, position and plugin death", errOut.String())
	}
	line, _ := strconv.Atoi(m[1])
	if line < 1 || line > len(evalKillFENs) || m[2] != evalKillFENs[line-1] || m[3] != strconv.Itoa(pid) {
		t.Errorf("stderr names line %s (%s), pid %s; the killed plugin was %d", m[1], m[2], m[3], pid)
	}
	got := strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n")
	if out.Len() == 0 {
		got = nil
	}
	if len(got) != line-1 {
		t.Errorf("%d lines printed before the failure at line %d:\n%s", len(got), line, out.String())
	}
	for i, l := range got {
		if i < len(want) && l != want[i] {
			t.Errorf("line %d: %q, want the plugin's %q", i+1, l, want[i])
		}
	}
	if line != half+1 {
		t.Logf("failure reported at line %d (the kill came after line %d was sent)", line, half)
	}
}

// TestBenchPluginKilled kills the plugin during `nnuelab bench` and during
// the UCI bench command after setoption Arch: both must fail, naming the
// position, and print no node count or speed.
func TestBenchPluginKilled(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("finds the plugin process through /proc")
	}
	t.Run("command", func(t *testing.T) {
		dir, bin := pluginEnv(t)
		cmd := exec.Command(bin, "bench", "--arch", "plugin:gofloat", "7")
		cmd.Env = append(os.Environ(), plugin.EnvDirs+"="+dir)
		stdout, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		var errOut bytes.Buffer
		cmd.Stderr = &errOut
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(stdout)
		var lines []string
		killed := 0
		for sc.Scan() {
			lines = append(lines, sc.Text())
			if killed == 0 && strings.HasPrefix(sc.Text(), "position  2/") {
				killed = killPlugin(t, cmd.Process.Pid)
			}
		}
		err = cmd.Wait()
		t.Logf("killed plugin %d; stderr: %s", killed, errOut.String())
		if killed == 0 {
			t.Fatalf("bench ended before the kill:\n%s", strings.Join(lines, "\n"))
		}
		if err == nil {
			t.Errorf("exit 0 after the plugin died; stdout ends %q", lines[max(0, len(lines)-3):])
		}
		if !regexp.MustCompile(`bench position \d+/40 \([^)]+\): plugin gofloat \(pid ` + strconv.Itoa(killed) + `\) died`).MatchString(errOut.String()) {
			t.Errorf("stderr %q: want the position and the plugin's death", errOut.String())
		}
		for _, l := range lines {
			if strings.HasPrefix(l, "Nodes searched") || strings.HasPrefix(l, "Nodes/second") {
				t.Errorf("totals printed after the plugin died: %q", l)
			}
		}
	})
	t.Run("uci", func(t *testing.T) {
		u := startUCI(t)
		u.send("uci", "setoption name Arch value plugin:gofloat", "isready")
		u.expect(`^readyok$`, 30*time.Second)
		u.send("bench 7")
		u.expect(`^position  2/`, time.Minute)
		killed := killPlugin(t, u.cmd.Process.Pid)
		mark := len(u.seen)
		l := u.expect(`^info string error: bench: |^Nodes/second`, time.Minute)
		if !regexp.MustCompile(`^info string error: bench: bench position \d+/40 \([^)]+\): plugin gofloat \(pid ` + strconv.Itoa(killed) + `\) died`).MatchString(l) {
			t.Errorf("got %q: want the bench to fail naming the position and the plugin's death", l)
		}
		for _, s := range u.since(mark) {
			if strings.HasPrefix(s, "Nodes searched") {
				t.Errorf("totals printed after the plugin died: %q", s)
			}
		}
		// The engine still plays.
		time.Sleep(minBackoffForTests)
		u.send("position startpos", "go depth 3")
		checkBestmove(t, u.expect(`^bestmove `, time.Minute))
	})
}

// minBackoffForTests outlasts the plugin supervisor's first restart delay.
const minBackoffForTests = 400 * time.Millisecond
