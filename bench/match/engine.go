package match

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
)

// engine is one running UCI engine process, used by one game at a time.
type engine struct {
	cfg   *EngineConfig
	label string // name and instance, for logs: "sf#2"
	debug func(string)

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	w      *bufio.Writer
	lines  chan lineMsg  // closed when stdout ends
	exited chan struct{} // closed once the process has been reaped
	// waitErr is the process's exit status, valid after exited is closed.
	waitErr error
	stderr  *tailBuffer

	idName  string
	options map[string]uciOption // by lower-case name
}

// lineMsg is a line the engine printed and when the runner read it.
type lineMsg struct {
	text string
	at   time.Time
}

// uciOption is an option the engine declared after "uci".
type uciOption struct {
	name, typ, def, min, max string
	vars                     []string
}

const (
	maxLineLen = 1 << 20 // longer engine lines are cut
	quitGrace  = time.Second
	stopGrace  = 2 * time.Second
)

// errTimeout and errEOF are the two ways an engine fails to answer.
var (
	errTimeout   = errors.New("no answer in time")
	errEOF       = errors.New("engine process ended")
	errCancelled = errors.New("cancelled")
)

// startEngine starts the process, runs the uci/isready handshake and sets
// the options (and UCI_Chess960 if chess960). Errors name the engine and
// what went wrong, with the end of its stderr if it died.
func startEngine(cfg *EngineConfig, label string, chess960 bool, initTimeout time.Duration, debug func(string)) (*engine, error) {
	e := &engine{cfg: cfg, label: label, debug: debug, stderr: &tailBuffer{max: 2048}}
	path := cfg.Cmd
	if !strings.ContainsRune(path, filepath.Separator) {
		if p, err := exec.LookPath(path); err == nil {
			path = p
		}
	}
	e.cmd = exec.Command(path, cfg.Args...)
	e.cmd.Dir = cfg.Dir
	setProcessGroup(e.cmd)
	var err error
	if e.stdin, err = e.cmd.StdinPipe(); err != nil {
		return nil, fmt.Errorf("engine %s: %w", label, err)
	}
	stdout, err := e.cmd.StdoutPipe()
	if err != nil {
		return nil, fmt.Errorf("engine %s: %w", label, err)
	}
	e.cmd.Stderr = e.stderr
	if err := e.cmd.Start(); err != nil {
		return nil, fmt.Errorf("engine %s: cannot start %q: %w", label, cfg.Cmd, err)
	}
	e.w = bufio.NewWriter(e.stdin)
	e.lines = make(chan lineMsg, 4096)
	e.exited = make(chan struct{})
	go e.readLoop(stdout)

	fail := func(what string, err error) (*engine, error) {
		e.kill()
		return nil, fmt.Errorf("engine %s (%s): %s: %s", label, cfg.Cmd, what, e.describe(err))
	}
	ctx := context.Background()
	if err := e.send("uci"); err != nil {
		return fail("sending uci", err)
	}
	deadline := time.Now().Add(initTimeout)
	e.options = map[string]uciOption{}
handshake:
	for {
		l, err := e.readLine(ctx, deadline)
		if err != nil {
			return fail("waiting for uciok", err)
		}
		switch {
		case l.text == "uciok":
			break handshake
		case strings.HasPrefix(l.text, "id name "):
			e.idName = strings.TrimSpace(strings.TrimPrefix(l.text, "id name "))
		case strings.HasPrefix(l.text, "option "):
			if o, ok := parseOptionLine(l.text); ok {
				e.options[strings.ToLower(o.name)] = o
			}
		}
	}
	for _, o := range cfg.Options {
		line, err := e.optionCommand(o)
		if err != nil {
			e.kill()
			return nil, fmt.Errorf("engine %s (%s): %w", label, cfg.Cmd, err)
		}
		if err := e.send(line); err != nil {
			return fail("setting options", err)
		}
	}
	if chess960 {
		line, err := e.optionCommand(Option{"UCI_Chess960", "true"})
		if err != nil {
			e.kill()
			return nil, fmt.Errorf("engine %s (%s): the openings are Chess960 but %w", label, cfg.Cmd, err)
		}
		if err := e.send(line); err != nil {
			return fail("setting options", err)
		}
	}
	if err := e.sync(ctx, initTimeout); err != nil {
		return fail("waiting for readyok", err)
	}
	return e, nil
}

// describe turns a read error into words, adding the exit status and the
// end of stderr when the process died.
func (e *engine) describe(err error) string {
	switch err {
	case errTimeout:
		return "no answer in time"
	case errEOF:
		msg := "the process exited"
		select {
		case <-e.exited:
			if e.waitErr != nil {
				msg += " (" + e.waitErr.Error() + ")"
			}
		case <-time.After(500 * time.Millisecond):
		}
		if t := e.stderr.String(); t != "" {
			msg += "; stderr ends: " + t
		}
		return msg
	}
	return err.Error()
}

// readLoop forwards stdout line by line until it ends, then reaps the
// process.
func (e *engine) readLoop(stdout io.Reader) {
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
			text := strings.TrimSpace(string(buf))
			if e.debug != nil {
				e.debug(e.label + " < " + text)
			}
			e.lines <- lineMsg{text, time.Now()}
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

// send writes one command line.
func (e *engine) send(s string) error {
	if e.debug != nil {
		e.debug(e.label + " > " + s)
	}
	if _, err := e.w.WriteString(s + "\n"); err != nil {
		return errEOF
	}
	if err := e.w.Flush(); err != nil {
		return errEOF
	}
	return nil
}

// readLine returns the next line, errEOF when the engine's output ended,
// errTimeout at the deadline, errCancelled when ctx ends.
func (e *engine) readLine(ctx context.Context, deadline time.Time) (lineMsg, error) {
	select {
	case l, ok := <-e.lines:
		if !ok {
			return l, errEOF
		}
		return l, nil
	default:
	}
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case l, ok := <-e.lines:
		if !ok {
			return l, errEOF
		}
		return l, nil
	case <-t.C:
		return lineMsg{}, errTimeout
	case <-ctx.Done():
		return lineMsg{}, errCancelled
	}
}

// drain discards lines already read (late info lines of the last search).
func (e *engine) drain() {
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

// sync sends isready and waits for readyok, discarding other lines.
func (e *engine) sync(ctx context.Context, timeout time.Duration) error {
	if err := e.send("isready"); err != nil {
		return err
	}
	deadline := time.Now().Add(timeout)
	for {
		l, err := e.readLine(ctx, deadline)
		if err != nil {
			return err
		}
		if l.text == "readyok" {
			return nil
		}
	}
}

// newGame prepares the engine for a game: ucinewgame and isready.
func (e *engine) newGame(ctx context.Context, timeout time.Duration) error {
	e.drain()
	if err := e.send("ucinewgame"); err != nil {
		return err
	}
	return e.sync(ctx, timeout)
}

// searchResult is what one go command produced.
type searchResult struct {
	move    string        // the bestmove text
	elapsed time.Duration // measured by the runner, from go to bestmove
	info    searchInfo
	err     error // nil, errTimeout, errEOF or errCancelled
}

// search sends the position and go commands and waits for bestmove until
// limit has passed since go was sent.
func (e *engine) search(ctx context.Context, position, goCmd string, limit time.Duration) searchResult {
	e.drain()
	if err := e.send(position); err != nil {
		return searchResult{err: err}
	}
	if err := e.send(goCmd); err != nil {
		return searchResult{err: err}
	}
	start := time.Now()
	deadline := start.Add(limit)
	var res searchResult
	for {
		l, err := e.readLine(ctx, deadline)
		if err != nil {
			res.err = err
			res.elapsed = time.Since(start)
			return res
		}
		f := strings.Fields(l.text)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "info":
			res.info.parse(f[1:])
		case "bestmove":
			if len(f) > 1 {
				res.move = f[1]
			}
			res.elapsed = l.at.Sub(start)
			return res
		}
	}
}

// stop sends stop and waits a moment for the bestmove of a search that
// overran; it reports whether the engine answered and so is still usable.
func (e *engine) stop() bool {
	if e.send("stop") != nil {
		return false
	}
	deadline := time.Now().Add(stopGrace)
	for {
		l, err := e.readLine(context.Background(), deadline)
		if err != nil {
			return false
		}
		if strings.HasPrefix(l.text, "bestmove") {
			return true
		}
	}
}

// quit asks the engine to exit and kills it if it does not.
func (e *engine) quit() {
	_ = e.send("quit")
	if !e.waitExit(quitGrace) {
		e.kill()
	}
}

// kill ends the process (and its process group) and waits for it to be
// reaped.
func (e *engine) kill() {
	killProcess(e.cmd)
	_ = e.stdin.Close()
	e.waitExit(5 * time.Second)
}

// waitExit discards the engine's output until the process has been reaped
// or d has passed, and reports whether it was reaped.
func (e *engine) waitExit(d time.Duration) bool {
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

// optionCommand checks an option against what the engine declared and
// returns the setoption command for it.
func (e *engine) optionCommand(o Option) (string, error) {
	d, ok := e.options[strings.ToLower(o.Name)]
	if !ok {
		names := make([]string, 0, len(e.options))
		for _, x := range e.options {
			names = append(names, x.name)
		}
		slices.Sort(names)
		return "", fmt.Errorf("the engine has no UCI option %q (it has: %s)", o.Name, strings.Join(names, ", "))
	}
	v := o.Value
	switch strings.ToLower(d.typ) {
	case "button":
		return "setoption name " + d.name, nil
	case "check":
		b, err := parseBool(v)
		if err != nil {
			return "", fmt.Errorf("option %s is a check (true/false), got %q", d.name, v)
		}
		v = strconv.FormatBool(b)
	case "spin":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return "", fmt.Errorf("option %s is a spin (integer), got %q", d.name, v)
		}
		lo, err1 := strconv.ParseInt(d.min, 10, 64)
		hi, err2 := strconv.ParseInt(d.max, 10, 64)
		if err1 == nil && err2 == nil && (n < lo || n > hi) {
			return "", fmt.Errorf("option %s must be from %d to %d, got %d", d.name, lo, hi, n)
		}
	case "combo":
		found := false
		for _, x := range d.vars {
			if strings.EqualFold(x, v) {
				v, found = x, true
				break
			}
		}
		if !found {
			return "", fmt.Errorf("option %s must be one of %s, got %q", d.name, strings.Join(d.vars, ", "), v)
		}
	}
	return "setoption name " + d.name + " value " + v, nil
}

// parseOptionLine parses "option name N type T [default D] [min M] [max X] [var V]...".
func parseOptionLine(s string) (uciOption, bool) {
	f := strings.Fields(s)
	if len(f) < 5 || f[1] != "name" {
		return uciOption{}, false
	}
	ti := -1
	for i := 2; i < len(f); i++ {
		if f[i] == "type" {
			ti = i
			break
		}
	}
	if ti < 3 || ti+1 >= len(f) {
		return uciOption{}, false
	}
	o := uciOption{name: strings.Join(f[2:ti], " "), typ: f[ti+1]}
	key := ""
	var val []string
	flush := func() {
		v := strings.Join(val, " ")
		switch key {
		case "default":
			o.def = v
		case "min":
			o.min = v
		case "max":
			o.max = v
		case "var":
			o.vars = append(o.vars, v)
		}
		val = val[:0]
	}
	for _, w := range f[ti+2:] {
		switch w {
		case "default", "min", "max", "var":
			flush()
			key = w
		default:
			val = append(val, w)
		}
	}
	flush()
	return o, true
}

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

// searchInfo is what the info lines of one search said.
type searchInfo struct {
	score      engineScore // last exact score of the principal line
	boundScore engineScore // last lower/upper-bound score, used if no exact one
	depth      int
	seldepth   int
	nodes      int64
}

// finalScore is the score to adjudicate with.
func (i *searchInfo) finalScore() engineScore {
	if i.score.Valid {
		return i.score
	}
	return i.boundScore
}

// parse reads the fields of an info line after "info".
func (i *searchInfo) parse(f []string) {
	var sc engineScore
	bound := false
	multipv := 1
	depth, seldepth := -1, -1
	var nodes int64 = -1
	for k := 0; k < len(f); k++ {
		next := func() (int64, bool) {
			if k+1 >= len(f) {
				return 0, false
			}
			n, err := strconv.ParseInt(f[k+1], 10, 64)
			if err != nil {
				return 0, false
			}
			k++
			return n, true
		}
		switch f[k] {
		case "string", "pv", "refutation", "currline":
			k = len(f) // the rest is free text or moves
		case "depth":
			if n, ok := next(); ok {
				depth = int(n)
			}
		case "seldepth":
			if n, ok := next(); ok {
				seldepth = int(n)
			}
		case "nodes":
			if n, ok := next(); ok {
				nodes = n
			}
		case "multipv":
			if n, ok := next(); ok {
				multipv = int(n)
			}
		case "score":
			if k+1 < len(f) {
				kind := f[k+1]
				k++
				if n, ok := next(); ok && (kind == "cp" || kind == "mate") && n > -1e7 && n < 1e7 {
					if kind == "cp" {
						sc = engineScore{CP: int(n), Valid: true}
					} else {
						sc = engineScore{Mate: int(n), Valid: true, IsMate: true}
					}
				}
			}
		case "lowerbound", "upperbound":
			bound = true
		}
	}
	if multipv != 1 {
		return
	}
	if sc.Valid {
		if bound {
			i.boundScore = sc
		} else {
			i.score = sc
		}
	}
	if depth >= 0 {
		i.depth = depth
	}
	if seldepth >= 0 {
		i.seldepth = seldepth
	}
	if nodes >= 0 {
		i.nodes = nodes
	}
}

// engineScore is an engine's evaluation from its own point of view.
type engineScore struct {
	CP     int  // centipawns, when not a mate score
	Mate   int  // moves to mate (negative: being mated), when IsMate
	IsMate bool // a mate score
	Valid  bool // the engine reported a score
}

// mateValue stands for a mate score in adjudication arithmetic.
const mateValue = 100000

// value returns the score in centipawns, mates as ±(100000 - moves).
func (s engineScore) value() int {
	if !s.IsMate {
		return s.CP
	}
	if s.Mate > 0 {
		return mateValue - s.Mate
	}
	return -mateValue - s.Mate // mate 0 and negative: being mated
}

// String formats the score as cutechess-cli does in PGN comments: "+0.31",
// "-1.50", "+M5", "-M3".
func (s engineScore) String() string {
	if !s.Valid {
		return ""
	}
	if s.IsMate {
		if s.Mate > 0 {
			return "+M" + strconv.Itoa(s.Mate)
		}
		return "-M" + strconv.Itoa(-s.Mate)
	}
	sign := "+"
	cp := s.CP
	if cp < 0 {
		sign, cp = "-", -cp
	}
	return fmt.Sprintf("%s%d.%02d", sign, cp/100, cp%100)
}
