package plugin

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/nnuelab/nnuelab/plugins/sdk"
	"github.com/nnuelab/nnuelab/plugins/sdk/pluginpb"
)

// Restart backoff: the first restart after a failure may come after
// minBackoff, each further consecutive failure doubles the wait up to
// maxBackoff. A process that ran for stableAfter clears the count.
const (
	minBackoff  = 250 * time.Millisecond
	maxBackoff  = 30 * time.Second
	stableAfter = time.Minute
)

// proc supervises one plugin process, shared by every evaluator of the same
// plugin and network file: it starts the process on demand, notices when
// it has died, and restarts it with backoff.
type proc struct {
	name, path string
	env        []string
	opts       Options

	mu        sync.Mutex
	cur       *conn // nil when no process runs
	gen       int
	failures  int
	retryAt   time.Time
	lastErr   error
	startedAt time.Time
}

// conn is one running process as the evaluators see it.
type conn struct {
	gen    int
	client *sdk.Client
	ev     pluginpb.EvaluatorClient
	desc   *pluginpb.Description
	stderr *tail
	scale  float32 // to centipawns
	white  bool    // scores from White's view
}

var (
	procsMu sync.Mutex
	procs   = map[string]*proc{}
)

// getProc returns the supervisor of the plugin at path with network file.
func getProc(name, path, file string, opts Options) *proc {
	key := path + "\x00" + file
	procsMu.Lock()
	defer procsMu.Unlock()
	if p, ok := procs[key]; ok {
		return p
	}
	p := &proc{name: name, path: path, opts: opts}
	if file != "" {
		p.env = []string{EnvNet + "=" + file}
	}
	procs[key] = p
	return p
}

// Shutdown ends every plugin process this package started. Evaluators
// still in use fall back, and would start their plugin again.
func Shutdown() {
	procsMu.Lock()
	all := make([]*proc, 0, len(procs))
	for _, p := range procs {
		all = append(all, p)
	}
	procsMu.Unlock()
	for _, p := range all {
		p.mu.Lock()
		c := p.cur
		p.cur = nil
		p.mu.Unlock()
		if c != nil {
			c.client.Kill()
		}
	}
}

// get returns the running process, starting one when none runs and the
// backoff allows.
func (p *proc) get() (*conn, error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if c := p.cur; c != nil {
		if !c.client.Exited() {
			return c, nil
		}
		p.failedLocked(c, p.exitError(c))
	}
	if wait := time.Until(p.retryAt); wait > 0 {
		return nil, fmt.Errorf("plugin %s is down, next restart in %v (last error: %v)", p.name, wait.Round(time.Millisecond), p.lastErr)
	}
	c, err := p.start()
	if err != nil {
		p.failures++
		p.retryAt = time.Now().Add(backoff(p.failures))
		p.lastErr = err
		return nil, err
	}
	p.gen++
	c.gen = p.gen
	p.cur = c
	p.startedAt = time.Now()
	return c, nil
}

func backoff(failures int) time.Duration {
	d := minBackoff << min(failures-1, 16)
	return min(d, maxBackoff)
}

// start launches the process and checks its description.
func (p *proc) start() (*conn, error) {
	st := &tail{}
	client, err := sdk.Launch(sdk.LaunchConfig{Path: p.path, Env: p.env, StartTimeout: p.opts.StartTimeout, Stderr: st})
	if err != nil {
		return nil, fmt.Errorf("plugin %s: %w%s", p.name, err, st.suffix())
	}
	c := &conn{client: client, stderr: st}
	fail := func(err error) (*conn, error) {
		client.Kill()
		return nil, fmt.Errorf("plugin %s: %w%s", p.name, err, st.suffix())
	}
	if c.ev, err = client.Evaluator(); err != nil {
		return fail(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), p.opts.StartTimeout)
	defer cancel()
	if c.desc, err = c.ev.Describe(ctx, &pluginpb.DescribeRequest{}); err != nil {
		return fail(fmt.Errorf("describe: %w", err))
	}
	switch c.desc.Units {
	case pluginpb.Units_UNITS_CENTIPAWNS:
		c.scale = 1
	case pluginpb.Units_UNITS_PAWNS:
		c.scale = 100
	default:
		return fail(fmt.Errorf("describe: unknown units %v", c.desc.Units))
	}
	switch c.desc.PointOfView {
	case pluginpb.PointOfView_POINT_OF_VIEW_SIDE_TO_MOVE:
	case pluginpb.PointOfView_POINT_OF_VIEW_WHITE:
		c.white = true
	default:
		return fail(fmt.Errorf("describe: unknown point of view %v", c.desc.PointOfView))
	}
	return c, nil
}

// fail records that c failed with err (a crash, a timeout, a broken
// stream) and ends the process if it still runs.
func (p *proc) fail(c *conn, err error) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cur == c {
		p.failedLocked(c, err)
	}
}

func (p *proc) failedLocked(c *conn, err error) {
	p.cur = nil
	if time.Since(p.startedAt) >= stableAfter {
		p.failures = 0
	}
	p.failures++
	p.retryAt = time.Now().Add(backoff(p.failures))
	p.lastErr = err
	go c.client.ForceKill() // reaps an exited process; ends a hung one
}

// exitError describes how c's process ended.
func (p *proc) exitError(c *conn) error {
	how := c.client.ExitStatus()
	if how == "" {
		how = "exited"
	}
	return fmt.Errorf("plugin %s (pid %d) died: %s%s", p.name, c.client.Pid(), how, c.stderr.suffix())
}

// diagnose turns a failed call on c into a clear error: if the process has
// died (go-plugin notices within moments), say so with its exit status and
// last error output.
func (p *proc) diagnose(c *conn, err error) error {
	if errors.Is(err, errTimeout) {
		return fmt.Errorf("plugin %s (pid %d): %w; killed it", p.name, c.client.Pid(), err)
	}
	for i := 0; i < 20 && !c.client.Exited(); i++ {
		time.Sleep(10 * time.Millisecond)
	}
	if c.client.Exited() {
		return p.exitError(c)
	}
	return fmt.Errorf("plugin %s: %w", p.name, err)
}

// centipawns converts a plugin score for a position with the given side
// to move into centipawns for the side to move.
func (c *conn) centipawns(score float32, blackToMove bool) (int, error) {
	if math.IsNaN(float64(score)) || math.IsInf(float64(score), 0) {
		return 0, fmt.Errorf("score %v", score)
	}
	v := float64(score * c.scale)
	if c.white && blackToMove {
		v = -v
	}
	return int(math.Round(max(min(v, 1e6), -1e6))), nil
}

// tail keeps the last lines a plugin wrote to its standard error.
type tail struct {
	mu       sync.Mutex
	headline string
	lines    []string
	part     strings.Builder
}

const tailLines = 5

func (t *tail) Write(b []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for _, c := range b {
		if c != '\n' {
			if t.part.Len() < 500 {
				t.part.WriteByte(c)
			}
			continue
		}
		t.line(t.part.String())
		t.part.Reset()
	}
	return len(b), nil
}

// line keeps one line: not go-plugin's own JSON log lines, and the first
// line of a panic or fatal error apart from the rest.
func (t *tail) line(s string) {
	s = strings.TrimSpace(s)
	switch {
	case s == "" || strings.HasPrefix(s, `{"@`):
		return
	case t.headline == "" && (strings.HasPrefix(s, "panic:") || strings.HasPrefix(s, "fatal error:")):
		t.headline = s
		return
	}
	t.lines = append(t.lines, s)
	if len(t.lines) > tailLines {
		t.lines = t.lines[1:]
	}
}

// suffix returns "; stderr: ..." with the last lines, or "".
func (t *tail) suffix() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.headline != "" {
		return "; stderr: " + t.headline
	}
	lines := t.lines
	if s := strings.TrimSpace(t.part.String()); s != "" && !strings.HasPrefix(s, `{"@`) {
		lines = append(lines[:len(lines):len(lines)], s)
	}
	if len(lines) == 0 {
		return ""
	}
	return "; stderr: " + strings.Join(lines, " | ")
}

var errTimeout = errors.New("no answer in time")
