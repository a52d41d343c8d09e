package datasets

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"time"
)

// UCIEngine is a UCI engine process used for scoring positions: one search
// at a time, each with a deadline after which the process is killed.
type UCIEngine struct {
	// Name is the engine's "id name".
	Name string

	cmd    *exec.Cmd
	stdin  io.WriteCloser
	lines  chan string // closed when the engine's output ends
	stderr limitedBuffer
}

// minStartTimeout is the least time an engine gets to start and answer
// the handshake, whatever the per-search timeout: starting a process (and
// loading its net) on a loaded machine can take far longer than a search.
const minStartTimeout = 10 * time.Second

// StartUCI starts path with args, runs the UCI handshake (uci/uciok), sets
// the options in order and waits for readyok, all within timeout (at least
// minStartTimeout).
func StartUCI(path string, args []string, options [][2]string, timeout time.Duration) (*UCIEngine, error) {
	cmd := exec.Command(path, args...)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	e := &UCIEngine{cmd: cmd, stdin: stdin, lines: make(chan string, 256)}
	e.stderr.max = 4096
	cmd.Stderr = &e.stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting engine %s: %w", path, err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 0, 1<<16), 1<<20)
		for sc.Scan() {
			e.lines <- sc.Text()
		}
		close(e.lines)
	}()
	deadline := time.Now().Add(max(timeout, minStartTimeout))
	if err := e.send("uci"); err != nil {
		e.Close()
		return nil, err
	}
	for {
		l, err := e.readLine(deadline)
		if err != nil {
			e.Close()
			return nil, fmt.Errorf("engine %s: waiting for uciok: %w", path, err)
		}
		if strings.HasPrefix(l, "id name ") {
			e.Name = strings.TrimSpace(strings.TrimPrefix(l, "id name "))
		}
		if strings.TrimSpace(l) == "uciok" {
			break
		}
	}
	for _, o := range options {
		if err := e.send("setoption name " + o[0] + " value " + o[1]); err != nil {
			e.Close()
			return nil, err
		}
	}
	if err := e.sync(deadline); err != nil {
		e.Close()
		return nil, fmt.Errorf("engine %s: %w", path, err)
	}
	return e, nil
}

// limitedBuffer keeps the first max bytes written to it.
type limitedBuffer struct {
	mu  sync.Mutex
	b   bytes.Buffer
	max int
}

func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if room := l.max - l.b.Len(); room > 0 {
		l.b.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (l *limitedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

func (e *UCIEngine) send(s string) error {
	if _, err := io.WriteString(e.stdin, s+"\n"); err != nil {
		return fmt.Errorf("writing to the engine: %w%s", err, e.stderrNote())
	}
	return nil
}

func (e *UCIEngine) stderrNote() string {
	if s := strings.TrimSpace(e.stderr.String()); s != "" {
		return " (engine stderr: " + s + ")"
	}
	return ""
}

var errEngineExited = errors.New("the engine exited")

func (e *UCIEngine) readLine(deadline time.Time) (string, error) {
	t := time.NewTimer(time.Until(deadline))
	defer t.Stop()
	select {
	case l, ok := <-e.lines:
		if !ok {
			return "", fmt.Errorf("%w%s", errEngineExited, e.stderrNote())
		}
		return l, nil
	case <-t.C:
		return "", errors.New("timed out")
	}
}

// sync sends isready and waits for readyok.
func (e *UCIEngine) sync(deadline time.Time) error {
	if err := e.send("isready"); err != nil {
		return err
	}
	for {
		l, err := e.readLine(deadline)
		if err != nil {
			return fmt.Errorf("waiting for readyok: %w", err)
		}
		if strings.TrimSpace(l) == "readyok" {
			return nil
		}
	}
}

// NewGame sends ucinewgame (the engine forgets its hash and histories) and
// waits until the engine is ready.
func (e *UCIEngine) NewGame(timeout time.Duration) error {
	if err := e.send("ucinewgame"); err != nil {
		return err
	}
	return e.sync(time.Now().Add(timeout))
}

// Score is an engine's verdict on a position, from the side to move's view.
type Score struct {
	CP      int  // centipawns, when Mate is false
	Mate    bool // a mate score (MateIn moves, negative when mated)
	MateIn  int
	NoMove  bool // bestmove (none) or 0000: no legal move
	Nodes   uint64
	Depth   int
	BestUCI string
}

// Search sends "position fen FEN" and "go GO" (as "nodes 5000" or "depth
// 8") and returns the last score the engine reported before bestmove. A
// search that has not ended by timeout kills the engine and is an error.
func (e *UCIEngine) Search(fen, goArgs string, timeout time.Duration) (Score, error) {
	var s Score
	if err := e.send("position fen " + fen); err != nil {
		return s, err
	}
	if err := e.send("go " + goArgs); err != nil {
		return s, err
	}
	deadline := time.Now().Add(timeout)
	haveScore := false
	for {
		l, err := e.readLine(deadline)
		if err != nil {
			e.Close()
			return s, fmt.Errorf("searching %q: %w", fen, err)
		}
		f := strings.Fields(l)
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "info":
			if parseInfo(f[1:], &s) {
				haveScore = true
			}
		case "bestmove":
			if len(f) > 1 {
				s.BestUCI = f[1]
			}
			if s.BestUCI == "(none)" || s.BestUCI == "0000" || s.BestUCI == "" {
				s.NoMove = true
				return s, nil
			}
			if !haveScore {
				return s, fmt.Errorf("searching %q: bestmove without a score", fen)
			}
			return s, nil
		}
	}
}

// parseInfo reads an info line's fields into s; it reports whether the line
// had a score. Bound scores (lowerbound/upperbound) and other PV lines of a
// MultiPV search are ignored.
func parseInfo(f []string, s *Score) bool {
	var cp, mate int
	has, isMate, bound := false, false, false
	multipv := 1
	var nodes uint64
	depth := -1
	for i := 0; i < len(f); i++ {
		next := func() string {
			if i+1 < len(f) {
				i++
				return f[i]
			}
			return ""
		}
		switch f[i] {
		case "string":
			return false // the rest is free text
		case "depth":
			depth, _ = strconv.Atoi(next())
		case "nodes":
			nodes, _ = strconv.ParseUint(next(), 10, 64)
		case "multipv":
			multipv, _ = strconv.Atoi(next())
		case "score":
			kind, val := next(), next()
			v, err := strconv.Atoi(val)
			if err != nil {
				return false
			}
			switch kind {
			case "cp":
				cp, has = v, true
			case "mate":
				mate, has, isMate = v, true, true
			}
		case "lowerbound", "upperbound":
			bound = true
		}
	}
	if !has || bound || multipv != 1 {
		return false
	}
	s.CP, s.Mate, s.MateIn = cp, isMate, mate
	if nodes > 0 {
		s.Nodes = nodes
	}
	if depth >= 0 {
		s.Depth = depth
	}
	return true
}

// Close asks the engine to quit and kills it if it has not after a second.
func (e *UCIEngine) Close() error {
	if e.cmd == nil || e.cmd.Process == nil {
		return nil
	}
	e.send("quit")
	e.stdin.Close()
	exited := make(chan error, 1)
	go func() { exited <- e.cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(time.Second):
		e.cmd.Process.Kill()
		<-exited
	}
	e.cmd = nil
	go func() {
		for range e.lines { // let the reader goroutine finish
		}
	}()
	return nil
}
