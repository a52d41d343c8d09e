// Package uciclient is the client side of UCI: it starts an external chess
// engine, speaks to it line by line with deadlines, and reads what it says
// (its name, its options, its info lines and bestmove). The match runner
// (bench/match), relabelling (datasets), the Stockfish plugin
// (plugins/sfeval), the Stockfish net export (engine/nnue), bench/perftvs
// and the tests' WebAssembly Stockfish (nets/sfnet/sfnettest) drive their
// engines through it.
//
// Every wait has a deadline and a context; a wait that fails says how with
// ErrTimeout, ErrExited or ErrCancelled, and Describe turns that into words
// with the process's exit status and the end of its stderr. Lines are read
// by one goroutine per engine, trimmed, and cut at 1 MiB.
package uciclient

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
)

// MinStartTimeout is the least time an engine should get to start and
// answer the handshake whatever the per-search timeout of the caller:
// starting a process (and loading its net) on a loaded machine can take
// far longer than a search.
const MinStartTimeout = 10 * time.Second

// The ways a wait for the engine fails.
var (
	ErrTimeout   = errors.New("no answer in time")
	ErrExited    = errors.New("engine process ended")
	ErrCancelled = errors.New("cancelled")
)

const maxLineLen = 1 << 20 // longer engine lines are cut

// Config says which engine to start and how.
type Config struct {
	Path string   // the executable; a name without a separator is looked up on PATH
	Args []string // its arguments
	Dir  string   // its working directory ("" for the current one)
	// ProcessGroup starts the engine in a process group of its own (Unix),
	// so that a terminal's Ctrl-C reaches the caller only and Kill also
	// ends helper processes a wrapper script started.
	ProcessGroup bool
	// Label names the engine in Debug lines.
	Label string
	// Debug, if set, sees every line sent ("label > line") and read
	// ("label < line").
	Debug func(string)
	// StderrTail is how many bytes of the end of the engine's stderr are
	// kept for error messages (2048 if 0).
	StderrTail int
}

// Line is a line the engine printed and when it was read.
type Line struct {
	Text string // trimmed of white space
	Raw  string // as printed, without the end of line (for output compared character by character)
	At   time.Time
}

// Option is an option the engine declared after "uci".
type Option struct {
	Name, Type, Default, Min, Max string
	Vars                          []string
}

// Engine is one running engine process.
type Engine struct {
	// Name is the engine's "id name", known after Handshake.
	Name string
	// Options are the options the engine declared, by lower-case name,
	// known after Handshake.
	Options map[string]Option

	label string
	debug func(string)

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	w      *bufio.Writer
	wmu    sync.Mutex
	lines  chan Line     // closed when stdout ends
	exited chan struct{} // closed once the process has been reaped
	// waitErr is the process's exit status, valid after exited is closed.
	waitErr error
	stderr  *tailBuffer
}

// Start starts the engine process and the goroutine that reads its output.
// It sends nothing: Handshake is the usual next step.
func Start(cfg Config) (*Engine, error) {
	tail := cfg.StderrTail
	if tail <= 0 {
		tail = 2048
	}
	e := &Engine{label: cfg.Label, debug: cfg.Debug, stderr: &tailBuffer{max: tail}}
	path := cfg.Path
	if !strings.ContainsRune(path, filepath.Separator) {
		if p, err := exec.LookPath(path); err == nil {
			path = p
		}
	}
	e.cmd = exec.Command(path, cfg.Args...)
	e.cmd.Dir = cfg.Dir
	if cfg.ProcessGroup {
		setProcessGroup(e.cmd)
	}
	var err error
	if e.stdin, err = e.cmd.StdinPipe(); err != nil {
		return nil, err
	}
	stdout, err := e.cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	e.cmd.Stderr = e.stderr
	if err := e.cmd.Start(); err != nil {
		return nil, err
	}
	e.w = bufio.NewWriter(e.stdin)
	e.lines = make(chan Line, 4096)
	e.exited = make(chan struct{})
	go e.readLoop(stdout)
	return e, nil
}

// Handshake sends "uci" and reads up to "uciok", taking the engine's name
// and options, by deadline.
func (e *Engine) Handshake(ctx context.Context, deadline time.Time) error {
	if err := e.Send("uci"); err != nil {
		return err
	}
	e.Options = map[string]Option{}
	for {
		l, err := e.ReadLine(ctx, deadline)
		if err != nil {
			return err
		}
		switch {
		case l.Text == "uciok":
			return nil
		case strings.HasPrefix(l.Text, "id name "):
			e.Name = strings.TrimSpace(strings.TrimPrefix(l.Text, "id name "))
		case strings.HasPrefix(l.Text, "option "):
			if o, ok := ParseOption(l.Text); ok {
				e.Options[strings.ToLower(o.Name)] = o
			}
		}
	}
}

// readLoop forwards stdout line by line until it ends, then reaps the
// process.
func (e *Engine) readLoop(stdout io.Reader) {
	r := bufio.NewReaderSize(stdout, 64*1024)
	var buf []byte
	for {
		chunk, err := r.ReadSlice('\n')
		if len(buf)+len(chunk) <= maxLineLen {
			buf = append(buf, chunk...)
		}
		if err == bufio.ErrBufferFull {
			continue
		}
		if len(buf) > 0 {
			raw := strings.TrimRight(string(buf), "\r\n")
			text := strings.TrimSpace(raw)
			if e.debug != nil {
				e.debug(e.label + " < " + text)
			}
			e.lines <- Line{Text: text, Raw: raw, At: time.Now()}
			buf = buf[:0]
		}
		if err != nil {
			break
		}
	}
	close(e.lines)
	e.waitErr = e.cmd.Wait()
	close(e.exited)
}

// Send writes command lines; ErrExited if the engine no longer reads them.
func (e *Engine) Send(lines ...string) error {
	e.wmu.Lock()
	defer e.wmu.Unlock()
	for _, s := range lines {
		if e.debug != nil {
			e.debug(e.label + " > " + s)
		}
		if _, err := e.w.WriteString(s + "\n"); err != nil {
			return ErrExited
		}
	}
	if err := e.w.Flush(); err != nil {
		return ErrExited
	}
	return nil
}

// ReadLine returns the next line: ErrExited when the engine's output has
// ended, ErrTimeout at the deadline, ErrCancelled when ctx ends.
func (e *Engine) ReadLine(ctx context.Context, deadline time.Time) (Line, error) {
	select {
	case l, ok := <-e.lines:
		if !ok {
			return l, ErrExited
		}
		return l, nil
	default:
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case l, ok := <-e.lines:
		if !ok {
			return l, ErrExited
		}
		return l, nil
	case <-t.C:
		return Line{}, ErrTimeout
	case <-ctx.Done():
		return Line{}, ErrCancelled
	}
}

// ReadUntil reads lines until match accepts one, which it returns; each
// line read, that one included, is passed to seen first (if not nil).
func (e *Engine) ReadUntil(ctx context.Context, deadline time.Time, match func(string) bool, seen func(string)) (Line, error) {
	for {
		l, err := e.ReadLine(ctx, deadline)
		if err != nil {
			return l, err
		}
		if seen != nil {
			seen(l.Text)
		}
		if match(l.Text) {
			return l, nil
		}
	}
}

// Drain discards the lines already read (late info lines of the last
// search).
func (e *Engine) Drain() {
	for {
		select {
		case _, ok := <-e.lines:
			if !ok {
				return
			}
		default:
			return
		}
	}
}

// Sync sends isready and waits for readyok by deadline, discarding other
// lines.
func (e *Engine) Sync(ctx context.Context, deadline time.Time) error {
	if err := e.Send("isready"); err != nil {
		return err
	}
	_, err := e.ReadUntil(ctx, deadline, func(l string) bool { return l == "readyok" }, nil)
	return err
}

// NewGame prepares the engine for a new game (it forgets its hash and
// histories): ucinewgame, then isready answered by deadline.
func (e *Engine) NewGame(ctx context.Context, deadline time.Time) error {
	e.Drain()
	if err := e.Send("ucinewgame"); err != nil {
		return err
	}
	return e.Sync(ctx, deadline)
}

// Result is what one go command produced.
type Result struct {
	BestMove string        // bestmove's move ("" if it named none)
	Elapsed  time.Duration // from go being sent to bestmove read (or to the failure)
	Info     SearchInfo    // what the info lines said of the principal line
}

// Go sends the position command (as "position startpos moves e2e4") and
// the go command (as "go nodes 5000") and reads until bestmove, for at
// most limit after go was sent. Each info line, parsed, goes to each (if
// not nil) as it is read. On a failure the Result holds what was read.
func (e *Engine) Go(ctx context.Context, position, goCmd string, limit time.Duration, each func(Info)) (Result, error) {
	e.Drain()
	// The clock starts before go is written: the reader stamps each line
	// as it arrives, and an engine that answers at once can be read
	// before Send returns.
	start := time.Now()
	if err := e.Send(position, goCmd); err != nil {
		return Result{}, err
	}
	deadline := start.Add(limit)
	var res Result
	for {
		l, err := e.ReadLine(ctx, deadline)
		if err != nil {
			res.Elapsed = time.Since(start)
			return res, err
		}
		f := strings.Fields(l.Text)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "info":
			in := ParseInfo(f[1:])
			res.Info.Add(in)
			if each != nil {
				each(in)
			}
		case "bestmove":
			if len(f) > 1 {
				res.BestMove = f[1]
			}
			res.Elapsed = l.At.Sub(start)
			return res, nil
		}
	}
}

// Stop sends stop and waits up to grace for the bestmove of a search that
// overran; it reports whether the engine answered and so is still usable.
func (e *Engine) Stop(grace time.Duration) bool {
	if e.Send("stop") != nil {
		return false
	}
	_, err := e.ReadUntil(context.Background(), time.Now().Add(grace),
		func(l string) bool { return strings.HasPrefix(l, "bestmove") }, nil)
	return err == nil
}

// Quit asks the engine to exit (quit, then the end of its input) and kills
// it if it has not within grace. It may be called more than once, and after
// Kill.
func (e *Engine) Quit(grace time.Duration) {
	if e.Exited() {
		return
	}
	_ = e.Send("quit")
	e.wmu.Lock()
	_ = e.stdin.Close()
	e.wmu.Unlock()
	if !e.waitExit(grace) {
		e.Kill()
	}
}

// Kill ends the process (with its process group, if it has one) and waits
// for it to be reaped.
func (e *Engine) Kill() {
	if !e.Exited() {
		killProcess(e.cmd)
	}
	_ = e.stdin.Close()
	e.waitExit(5 * time.Second)
}

// Exited reports whether the process has ended and been reaped.
func (e *Engine) Exited() bool {
	select {
	case <-e.exited:
		return true
	default:
		return false
	}
}

// waitExit discards the engine's output until the process has been reaped
// or d has passed, and reports whether it was reaped.
func (e *Engine) waitExit(d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	lines := e.lines
	for {
		select {
		case _, ok := <-lines:
			if !ok {
				lines = nil // closed: wait for exited alone
			}
		case <-e.exited:
			return true
		case <-t.C:
			return false
		}
	}
}

// Stderr returns the end of what the engine wrote to stderr, white space
// folded.
func (e *Engine) Stderr() string { return e.stderr.String() }

// Describe turns a wait's error into words, adding the exit status and the
// end of stderr when the process died.
func (e *Engine) Describe(err error) string {
	switch err {
	case ErrTimeout:
		return "no answer in time"
	case ErrExited:
		msg := "the process exited"
		select {
		case <-e.exited:
			if e.waitErr != nil {
				msg += " (" + e.waitErr.Error() + ")"
			}
		case <-time.After(500 * time.Millisecond):
		}
		if t := e.Stderr(); t != "" {
			msg += "; stderr ends: " + t
		}
		return msg
	}
	return err.Error()
}

// Explain is Describe as an error that wraps err, so that errors.Is still
// finds ErrTimeout, ErrExited or ErrCancelled behind the words.
func (e *Engine) Explain(err error) error {
	if err == nil {
		return nil
	}
	return &explained{msg: e.Describe(err), err: err}
}

type explained struct {
	msg string
	err error
}

func (x *explained) Error() string { return x.msg }
func (x *explained) Unwrap() error { return x.err }

// tailBuffer keeps the last max bytes written to it (an engine's stderr).
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return strings.Join(strings.Fields(string(t.b)), " ")
}

// StockfishPath returns the Stockfish binary to run: $NNUELAB_STOCKFISH if
// set, else Debian's /usr/games/stockfish if present, else "stockfish"
// from $PATH (or that bare name when it is not found, so that the error
// comes from running it).
func StockfishPath() string {
	if p := os.Getenv("NNUELAB_STOCKFISH"); p != "" {
		return p
	}
	if _, err := os.Stat("/usr/games/stockfish"); err == nil {
		return "/usr/games/stockfish"
	}
	if p, err := exec.LookPath("stockfish"); err == nil {
		return p
	}
	return "stockfish"
}
