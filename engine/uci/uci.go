// Package uci speaks the Universal Chess Interface on a pair of streams:
// the standard commands GUIs and match runners send (uci, isready,
// ucinewgame, setoption, position, go, stop, quit) and the debug commands
// d, legal, eval, perft and bench. Searches run in their own goroutine, so
// stop, isready and quit are answered while the engine thinks. Malformed
// or out-of-order input is answered with "info string error: ..." and
// leaves the engine's state as it was, except that a go command always
// searches and answers bestmove: its malformed parts are reported and
// ignored (see cmdGo). Every bestmove follows a final info line with the
// depth, score, nodes and time of the result it comes from.
//
// The files: uci.go the session and its command loop, options.go the
// options (setoption), gocmd.go go and the running search, debug.go the
// debug commands, bench.go the bench positions.
package uci

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/eval"
	"github.com/nnuelab/nnuelab/engine/search"
)

// Name and Author are what "uci" reports.
const (
	Name   = "nnuelab"
	Author = "the nnuelab authors"
)

// DefaultArch is the evaluation a new engine plays with: the strongest
// shipped net by measurement (docs/strength.md), Leorik 3.1's. "Arch
// classical" selects the classical evaluation.
const DefaultArch = "leorik-3.1"

// Engine is one UCI session: the position, the options and the searcher.
type Engine struct {
	outMu sync.Mutex
	out   *bufio.Writer

	pos      *board.Position
	posSet   bool
	chess960 bool
	hashMB   int
	overhead time.Duration
	// arch and evalFile are what the GUI asked for; activeArch and
	// activeFile what the search evaluates with. They differ while a
	// request cannot be met yet (Arch set before its EvalFile arrives).
	arch, evalFile         string
	activeArch, activeFile string
	debug                  bool

	tt      *search.TT
	pool    *search.Pool
	threads int
	multiPV int
	ponder  bool // the Ponder option: the GUI may send "go ponder"
	showWDL bool

	// The running search: runMu guards running, which the search goroutine
	// clears in the same critical section in which it prints bestmove, so a
	// command sent in reply to bestmove never finds the search running.
	runMu    sync.Mutex
	running  bool
	cancel   context.CancelFunc
	done     chan struct{}
	infinite bool
	// hit is closed by ponderhit while a ponder search runs (nil otherwise).
	hit chan struct{}

	// tb holds the Syzygy options and tables.
	tb tbOptions
}

// New returns an engine that writes its replies to out, with the default
// options: 16 MB hash, one thread, DefaultArch's evaluation (classical if
// that architecture is not linked in), standard chess.
func New(out io.Writer) (*Engine, error) {
	tt, err := search.NewTT(defaultHashMB)
	if err != nil {
		return nil, err
	}
	arch := DefaultArch
	ev, err := eval.New(arch, "")
	if err != nil {
		arch = eval.Classical
		if ev, err = eval.New(arch, ""); err != nil {
			return nil, err
		}
	}
	e := &Engine{
		out:        bufio.NewWriter(out),
		pos:        board.StartPosition(),
		hashMB:     defaultHashMB,
		overhead:   search.DefaultMoveOverhead,
		arch:       arch,
		activeArch: arch,
		tt:         tt,
		pool:       search.NewPool(tt, []eval.Evaluator{ev}),
		threads:    1,
		multiPV:    1,
		tb:         newTBOptions(),
	}
	e.applyTB()
	return e, nil
}

// Run reads commands from in until "quit" or the end of the input. At the
// end of the input a running search finishes on its own (an infinite one is
// stopped) before Run returns.
func (e *Engine) Run(in io.Reader) error {
	r := bufio.NewReaderSize(in, 1<<16)
	for {
		line, err := r.ReadString('\n')
		if len(line) > 0 && e.Execute(line) {
			return nil
		}
		if err != nil {
			if e.searching() && e.infinite {
				e.stopSearch()
			}
			e.waitSearch()
			if errors.Is(err, io.EOF) {
				return nil
			}
			return err
		}
	}
}

// say writes one line and flushes it.
func (e *Engine) say(format string, args ...any) {
	e.outMu.Lock()
	defer e.outMu.Unlock()
	fmt.Fprintf(e.out, format, args...)
	e.out.WriteByte('\n')
	e.out.Flush()
}

// errorf reports a problem with the input as an info string.
func (e *Engine) errorf(format string, args ...any) {
	e.say("info string error: "+format, args...)
}

// commands maps each command to its handler.
var commands = map[string]func(e *Engine, args []string){
	"uci":        (*Engine).cmdUCI,
	"debug":      (*Engine).cmdDebug,
	"isready":    func(e *Engine, _ []string) { e.say("readyok") },
	"setoption":  (*Engine).cmdSetOption,
	"register":   func(e *Engine, _ []string) {},
	"ucinewgame": (*Engine).cmdNewGame,
	"position":   (*Engine).cmdPosition,
	"go":         (*Engine).cmdGo,
	"stop":       (*Engine).cmdStop,
	"ponderhit":  (*Engine).cmdPonderHit,
	"d":          (*Engine).cmdD,
	"legal":      (*Engine).cmdLegal,
	"eval":       (*Engine).cmdEval,
	"perft":      (*Engine).cmdPerft,
	"bench":      (*Engine).cmdBench,
}

// busyOK lists the commands that may run while a search is in progress;
// the others are refused with an error until bestmove. go is among them:
// it stops the running search, which answers, before starting its own.
var busyOK = map[string]bool{"isready": true, "stop": true, "debug": true, "uci": true, "ponderhit": true, "d": true, "go": true}

// Execute runs one command line and reports whether it was "quit". As the
// protocol asks, unknown leading tokens are reported and skipped, and the
// rest of the line is tried as a command.
func (e *Engine) Execute(line string) (quit bool) {
	fields := strings.Fields(line)
	for i, tok := range fields {
		if tok == "quit" {
			e.stopSearch()
			e.waitSearch()
			return true
		}
		handler, ok := commands[tok]
		if !ok {
			e.errorf("unknown command %q", tok)
			continue
		}
		if e.searching() && !busyOK[tok] {
			e.errorf("%s: a search is running (send stop first)", tok)
			return false
		}
		handler(e, fields[i+1:])
		return false
	}
	return false
}

func (e *Engine) cmdUCI(_ []string) {
	archs := ""
	for _, a := range eval.Archs() {
		archs += " var " + a
	}
	e.say("id name %s", Name)
	e.say("id author %s", Author)
	e.say("option name Hash type spin default %d min 1 max %d", defaultHashMB, maxHashMB)
	e.say("option name Threads type spin default 1 min 1 max %d", MaxThreads)
	e.say("option name MultiPV type spin default 1 min 1 max %d", maxMultiPV)
	e.say("option name Ponder type check default false")
	e.say("option name UCI_ShowWDL type check default false")
	e.say("option name Arch type combo default %s%s", e.defaultArch(), archs)
	e.say("option name EvalFile type string default <empty>")
	e.say("option name UCI_Chess960 type check default false")
	e.say("option name Move Overhead type spin default %d min 0 max %d", search.DefaultMoveOverhead.Milliseconds(), maxMoveOverhead)
	e.say("option name Clear Hash type button")
	e.sayTBOptions()
	e.say("uciok")
}

func (e *Engine) cmdDebug(args []string) {
	if len(args) != 1 || args[0] != "on" && args[0] != "off" {
		e.errorf("debug: expected \"debug on\" or \"debug off\"")
		return
	}
	e.debug = args[0] == "on"
}

func (e *Engine) cmdNewGame(args []string) {
	if len(args) > 0 {
		e.errorf("ucinewgame: unexpected %q", strings.Join(args, " "))
	}
	e.tt.Clear()
	e.pool.Clear()
	e.pos = board.StartPosition()
	e.pos.SetChess960(e.chess960)
	e.posSet = false
}

func (e *Engine) cmdPosition(args []string) {
	if len(args) == 0 {
		e.errorf("position: expected \"startpos\" or \"fen <FEN>\"")
		return
	}
	var p *board.Position
	var rest []string
	switch args[0] {
	case "startpos":
		p, rest = board.StartPosition(), args[1:]
	case "fen":
		end := len(args)
		for i, a := range args {
			if a == "moves" {
				end = i
				break
			}
		}
		fen := strings.Join(args[1:end], " ")
		var err error
		if p, err = board.ParseFEN(fen); err != nil {
			e.errorf("position fen: %v (position unchanged)", err)
			return
		}
		rest = args[end:]
	default:
		e.errorf("position: expected \"startpos\" or \"fen\", got %q (position unchanged)", args[0])
		return
	}
	if e.chess960 {
		p.SetChess960(true)
	}
	if len(rest) > 0 {
		if rest[0] != "moves" {
			e.errorf("position: expected \"moves\", got %q (position unchanged)", rest[0])
			return
		}
		for _, s := range rest[1:] {
			m, err := p.ParseUCIMove(s)
			if err != nil {
				e.errorf("position: %v (position unchanged)", err)
				return
			}
			p.MakeMove(m)
		}
	}
	e.pos, e.posSet = p, true
}
