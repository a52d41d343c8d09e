package uci

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/nnuelab/nnuelab/engine/eval"
	"github.com/nnuelab/nnuelab/engine/search"
	"github.com/nnuelab/nnuelab/internal/configerr"
)

// Option defaults and ranges. Hash and Threads take the ranges Stockfish
// offers whatever the machine (GUIs and match runners send the values they
// were told to, and refusing a valid UCI value mid-setup leaves the engine
// configured otherwise than asked); a table that does not fit in the
// machine's memory is refused when it is allocated, with an error that
// names the memory there is (search.TT.Resize).
const (
	defaultHashMB   = 16
	maxHashMB       = search.MaxHashMB
	maxMoveOverhead = 5000
	maxMultiPV      = 256
)

// MaxThreads is the largest Threads value, Stockfish's: 1024, whatever the
// machine. More threads than logical CPUs only slow a Lazy SMP search, but
// the value is the GUI's to choose.
const MaxThreads = 1024

func (e *Engine) cmdSetOption(args []string) {
	if len(args) < 2 || args[0] != "name" {
		e.errorf("setoption: expected \"setoption name <id> [value <x>]\"")
		return
	}
	var name, value []string
	hasValue := false
	for _, a := range args[1:] {
		switch {
		case !hasValue && a == "value":
			hasValue = true
		case hasValue:
			value = append(value, a)
		default:
			name = append(name, a)
		}
	}
	id := strings.Join(name, " ")
	val := strings.Join(value, " ")
	needValue := func() bool {
		if !hasValue || val == "" {
			e.errorf("setoption %s: missing value", id)
			return false
		}
		return true
	}
	spin := func(lo, hi int) (int, bool) {
		if !needValue() {
			return 0, false
		}
		n, err := strconv.Atoi(val)
		if err != nil || n < lo || n > hi {
			e.errorf("setoption %s: value %q is not an integer from %d to %d", id, val, lo, hi)
			return 0, false
		}
		return n, true
	}
	check := func() (bool, bool) {
		if !needValue() {
			return false, false
		}
		switch strings.ToLower(val) {
		case "true":
			return true, true
		case "false":
			return false, true
		}
		e.errorf("setoption %s: value %q is not true or false", id, val)
		return false, false
	}
	switch strings.ToLower(id) {
	case "hash":
		if n, ok := spin(1, maxHashMB); ok && n != e.hashMB {
			if err := e.tt.Resize(n); err != nil {
				e.errorf("setoption Hash: %v (Hash stays %d)", err, e.hashMB)
				return
			}
			e.hashMB = n
		}
	case "threads":
		if n, ok := spin(1, MaxThreads); ok && n != e.threads {
			// The evaluation in play, for n threads (a pending Arch or
			// EvalFile request stays pending).
			prev := e.threads
			e.threads = n
			if err := e.applyEvaluator(e.activeArch, e.activeFile); err != nil {
				e.threads = prev
				e.errorf("setoption Threads: %v (Threads stays %d)", err, prev)
			}
		}
	case "multipv":
		if n, ok := spin(1, maxMultiPV); ok {
			e.multiPV = n
		}
	case "ponder", "uci_showwdl":
		b, ok := check()
		if !ok {
			return
		}
		if strings.EqualFold(id, "ponder") {
			e.ponder = b
		} else {
			e.showWDL = b
		}
	case "move overhead":
		if n, ok := spin(0, maxMoveOverhead); ok {
			e.overhead = time.Duration(n) * time.Millisecond
		}
	case "uci_chess960":
		b, ok := check()
		if !ok {
			return
		}
		e.chess960 = b
		e.pos.SetChess960(e.chess960)
	case "arch":
		if !needValue() {
			return
		}
		e.setArch(val)
	case "evalfile":
		file := val
		if file == "<empty>" {
			file = ""
		}
		if file != "" {
			st, err := os.Stat(file)
			if err != nil {
				e.errorf("setoption EvalFile: %v", err)
				return
			}
			if !st.Mode().IsRegular() {
				e.errorf("setoption EvalFile: %s is not a regular file", file)
				return
			}
		}
		e.setEvaluator(e.arch, file)
	case "clear hash":
		e.tt.Clear()
		e.pool.Clear()
	case "syzygypath":
		e.setSyzygyPath(val)
	case "syzygyprobedepth":
		if n, ok := spin(1, maxTBProbeDepth); ok {
			e.tb.probeDepth = n
			e.applyTB()
		}
	case "syzygyprobelimit":
		if n, ok := spin(0, 7); ok {
			e.tb.probeLimit = n
			e.applyTB()
		}
	case "syzygy50moverule":
		if b, ok := check(); ok {
			e.tb.rule50 = b
			e.applyTB()
		}
	default:
		e.errorf("setoption: unknown option %q", id)
	}
}

// defaultArch is the Arch a new engine evaluates with.
func (e *Engine) defaultArch() string {
	if _, err := eval.New(DefaultArch, ""); err == nil {
		return DefaultArch
	}
	return eval.Classical
}

// SetEvaluator selects an architecture and its network file together (as
// the Arch and EvalFile options do one at a time), for programs that start
// an engine on a given net; on error the current evaluation stays.
func (e *Engine) SetEvaluator(arch, file string) error {
	e.arch, e.evalFile = arch, file
	return e.applyEvaluator(arch, file)
}

// setArch is the Arch option. An architecture that loads with the current
// EvalFile is played at once. One that does not is kept as the request
// only when its network is what is missing (it ships none, or the current
// EvalFile is another design's): GUIs send Arch and EvalFile in either
// order, and the EvalFile that completes it may come next. A name that no
// architecture has, or an architecture file that does not parse, is
// refused outright and forgotten, so that a later EvalFile loads for the
// architecture in play instead of failing on the refused name.
func (e *Engine) setArch(arch string) {
	err := e.applyEvaluator(arch, e.evalFile)
	if err == nil {
		e.arch = arch
		return
	}
	var cfgErr *configerr.Error
	if errors.Is(err, eval.ErrUnknownArch) || errors.As(err, &cfgErr) {
		e.errorf("setoption Arch: %v (refused; still evaluating with %s)", err, e.activeArch)
		return
	}
	e.arch = arch
	e.errorf("setoption: %v (still evaluating with %s until an EvalFile completes Arch %s)", err, e.activeArch, arch)
}

// setEvaluator switches to arch with network file for the EvalFile option;
// on error it says so and the current evaluators stay. The file is
// remembered even then: GUIs send Arch and EvalFile in either order, and
// the file may only be loadable with the Arch that comes next.
func (e *Engine) setEvaluator(arch, file string) {
	e.arch, e.evalFile = arch, file
	if err := e.applyEvaluator(arch, file); err != nil {
		e.errorf("setoption: %v (still evaluating with %s)", err, e.activeArch)
	}
}

// applyEvaluator loads arch with file, one evaluator per thread, and
// makes them the search's.
func (e *Engine) applyEvaluator(arch, file string) error {
	evs, err := newEvaluators(arch, file, e.threads)
	if err != nil {
		return err
	}
	e.activeArch, e.activeFile = arch, file
	for _, ev := range evs {
		if n, ok := ev.(eval.Notifier); ok {
			n.SetNotify(func(msg string) { e.say("info string %s", msg) })
		}
	}
	e.pool.SetEvaluators(evs)
	if arch == eval.Classical && file != "" {
		e.say("info string the classical evaluation uses no network; EvalFile %s is kept for a network architecture", file)
	}
	return nil
}

// newEvaluators returns n evaluators of arch with file: clones of the first
// where the evaluator can clone itself (sharing the net's weights), else
// each built anew (a plugin evaluator: one process per thread).
func newEvaluators(arch, file string, n int) ([]eval.Evaluator, error) {
	first, err := eval.New(arch, file)
	if err != nil {
		return nil, err
	}
	evs := []eval.Evaluator{first}
	for len(evs) < n {
		var ev eval.Evaluator
		if c, ok := first.(eval.Cloner); ok {
			ev = c.Clone()
		} else if ev, err = eval.New(arch, file); err != nil {
			return nil, fmt.Errorf("thread %d: %w", len(evs)+1, err)
		}
		evs = append(evs, ev)
	}
	return evs, nil
}
