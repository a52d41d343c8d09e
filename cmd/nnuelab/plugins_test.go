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
