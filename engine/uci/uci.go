// Package uci speaks the Universal Chess Interface on a pair of streams:
// the standard commands GUIs and match runners send (uci, isready,
// ucinewgame, setoption, position, go, stop, quit) and the debug commands
// d, legal, eval, perft and bench. Searches run in their own goroutine, so
// stop, isready and quit are answered while the engine thinks. Malformed
// or out-of-order input is answered with "info string error: ..." and
// leaves the engine's state as it was, except that a go command always
// searches and answers bestmove: its malformed parts are reported and
// ignored (see cmdGo).
package uci

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/eval"
	"github.com/nnuelab/nnuelab/engine/search"
	"github.com/nnuelab/nnuelab/engine/wdl"
)

// Name and Author are what "uci" reports.
const (
	Name   = "nnuelab"
	Author = "the nnuelab authors"
)

// Option defaults and ranges.
const (
	defaultHashMB   = 16
	maxHashMB       = 32768
	maxMoveOverhead = 5000
	maxMultiPV      = 256
)

// DefaultArch is the evaluation a new engine plays with: the strongest
// shipped net by measurement (docs/strength.md), Leorik 3.1's. "Arch
// classical" selects the classical evaluation.
const DefaultArch = "leorik-3.1"

// MaxThreads is the largest Threads value: the machine's logical CPUs
// (more threads than CPUs only slow a Lazy SMP search), at most 256.
var MaxThreads = min(max(runtime.NumCPU(), 1), 256)

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
	return &Engine{
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
	}, nil
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

// busyOK lists the commands that may run while a search is in progress.
var busyOK = map[string]bool{"isready": true, "stop": true, "debug": true, "uci": true, "ponderhit": true, "d": true}

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
				e.errorf("setoption Hash: %v", err)
				return
			}
			e.hashMB = n
		}
	case "threads":
		if n, ok := spin(1, MaxThreads); ok && n != e.threads {
			e.threads = n
			e.setEvaluator(e.arch, e.evalFile)
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
		e.setEvaluator(val, e.evalFile)
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

// setEvaluator switches to arch with network file for the Arch and
// EvalFile options; on error it says so and the current evaluators stay.
func (e *Engine) setEvaluator(arch, file string) {
	// Remember the request even if it fails: GUIs send Arch and EvalFile in
	// either order, and the pair may only be loadable after the second.
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

// goKeywords are the tokens of a go command; a token that follows
// searchmoves or a limit and is none of them is a move or a value.
var goKeywords = map[string]bool{
	"searchmoves": true, "ponder": true, "wtime": true, "btime": true, "winc": true, "binc": true,
	"movestogo": true, "depth": true, "nodes": true, "mate": true, "movetime": true, "infinite": true,
}

// fallbackMoveTime is how long a go command searches when parts of it were
// ignored and no limit is left (Stockfish would search until stop; a GUI
// that sent, say, "go movetime 0" waits for a move).
const fallbackMoveTime = time.Second

// maxLimitMS caps times given in milliseconds (about 24 days), so that
// converting them to a time.Duration cannot overflow.
const maxLimitMS = 1 << 31

// cmdGo starts a search. As in Stockfish, a malformed part of the command
// (an unknown token, a missing, non-numeric, out-of-range or non-positive
// value, an illegal move after searchmoves) is ignored, and reported in an
// info string, and the search runs with the rest: every go gets a
// bestmove. If nothing bounds the search after that (no depth, nodes,
// movetime, mate or usable clock, not infinite), it searches for
// fallbackMoveTime; a plain "go" searches until stop or the maximum depth,
// as Stockfish does.
func (e *Engine) cmdGo(args []string) {
	if len(args) >= 1 && args[0] == "perft" {
		e.cmdPerft(args[1:])
		return
	}
	lim := search.Limits{MoveOverhead: e.overhead, Start: time.Now(), MultiPV: e.multiPV}
	infinite := false
	var ignored []string
	ignore := func(format string, a ...any) { ignored = append(ignored, fmt.Sprintf(format, a...)) }
	var clockGiven, clockBad [2]bool
	ms := func(n int64) time.Duration { return time.Duration(min(n, maxLimitMS)) * time.Millisecond }
	for i := 0; i < len(args); i++ {
		tok := args[i]
		switch tok {
		case "infinite":
			infinite = true
			continue
		case "ponder":
			// As Stockfish, ponder whether or not the Ponder option is on:
			// the GUI that sends "go ponder" waits for ponderhit or stop.
			lim.Ponder = true
			continue
		case "searchmoves":
			var bad []string
			for i+1 < len(args) && !goKeywords[args[i+1]] {
				i++
				m, err := e.pos.ParseUCIMove(args[i])
				if err != nil {
					bad = append(bad, args[i])
					continue
				}
				lim.SearchMoves = append(lim.SearchMoves, m)
			}
			if len(bad) > 0 {
				ignore("go searchmoves: %s not legal in %s (ignored)", strings.Join(bad, " "), e.pos.FEN())
			}
			if len(lim.SearchMoves) == 0 {
				ignore("go searchmoves: no legal move given; searching all moves")
			}
			continue
		case "depth", "nodes", "movetime", "wtime", "btime", "winc", "binc", "movestogo", "mate":
		default:
			// An unknown token and the values that follow it.
			j := i
			for j+1 < len(args) && !goKeywords[args[j+1]] {
				j++
			}
			ignore("go: unknown token %q (ignored)", strings.Join(args[i:j+1], " "))
			i = j
			continue
		}
		c := board.White
		if tok == "btime" || tok == "binc" {
			c = board.Black
		}
		if i+1 >= len(args) || goKeywords[args[i+1]] {
			ignore("go %s: missing value (ignored)", tok)
			clockBad[c] = clockBad[c] || tok == "wtime" || tok == "btime"
			continue
		}
		i++
		n, err := strconv.ParseInt(args[i], 10, 64)
		if err != nil {
			reason := "is not an integer"
			if errors.Is(err, strconv.ErrRange) {
				reason = "is out of range"
			}
			ignore("go %s: %q %s (ignored)", tok, args[i], reason)
			clockBad[c] = clockBad[c] || tok == "wtime" || tok == "btime"
			continue
		}
		if n <= 0 && tok != "wtime" && tok != "btime" && tok != "winc" && tok != "binc" {
			ignore("go %s: %d must be positive (ignored)", tok, n)
			continue
		}
		switch tok {
		case "depth":
			lim.Depth = int(min(n, search.MaxPly))
		case "nodes":
			lim.Nodes = uint64(n)
		case "movetime":
			lim.MoveTime = ms(n)
		case "mate":
			lim.Mate = int(min(n, search.MaxPly))
		case "movestogo":
			lim.MovesToGo = int(min(n, maxLimitMS))
		case "wtime", "btime":
			// Clocks may go negative in lagging GUIs: treat as nearly out of time.
			lim.Time[c] = ms(max(n, 0))
			clockGiven[c] = true
		case "winc", "binc":
			lim.Inc[c] = ms(max(n, 0))
		}
	}
	us := e.pos.SideToMove()
	lim.UseClock = clockGiven[board.White] || clockGiven[board.Black]
	if clockBad[us] && !clockGiven[us] && lim.UseClock {
		// The mover's own clock is unknown: it cannot be managed.
		lim.UseClock = false
		ignore("go: the side to move's clock is unusable; the clock is ignored")
	}
	bounded := infinite || lim.Ponder || lim.Depth > 0 || lim.Nodes > 0 || lim.MoveTime > 0 || lim.Mate > 0 || lim.UseClock
	if len(ignored) > 0 && !bounded {
		lim.MoveTime = fallbackMoveTime
		ignore("go: no limit left; searching for movetime %d", fallbackMoveTime.Milliseconds())
	}
	for _, msg := range ignored {
		e.errorf("%s", msg)
	}
	if !e.posSet {
		e.errorf("go: no position set (send position first); searching the current position %s", e.pos.FEN())
	}
	e.startSearch(lim, infinite)
}

func (e *Engine) startSearch(lim search.Limits, infinite bool) {
	e.waitSearch()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	var hit chan struct{}
	if lim.Ponder {
		hit = make(chan struct{})
	}
	e.cancel, e.done, e.infinite = cancel, done, infinite
	e.runMu.Lock()
	e.running = true
	e.hit = hit
	e.runMu.Unlock()
	pos := e.pos.Copy()
	pool := e.pool
	showWDL := e.showWDL
	go func() {
		defer close(done)
		res := pool.Search(ctx, pos, lim, func(i search.Info) { e.sayInfo(pos, i, showWDL) })
		switch {
		case infinite:
			<-ctx.Done() // "go infinite" answers only after "stop"
		case hit != nil:
			// A ponder search that ended on its own (a depth limit, a
			// forced move) answers only after ponderhit or stop.
			select {
			case <-ctx.Done():
			case <-hit:
			}
		}
		var lines []string
		switch {
		case res.Best == board.NullMove:
			if res.Score < 0 {
				lines = append(lines, "info depth 0 score mate 0")
			} else {
				lines = append(lines, "info depth 0 score cp 0")
			}
			lines = append(lines, "bestmove (none)") // as Stockfish
		default:
			best := "bestmove " + pos.UCI(res.Best)
			if res.Ponder != board.NullMove {
				q := pos.Copy()
				q.MakeMove(res.Best)
				if q.IsLegal(res.Ponder) {
					best += " ponder " + q.UCI(res.Ponder)
				}
			}
			lines = append(lines, best)
		}
		e.runMu.Lock()
		for _, l := range lines {
			e.say("%s", l)
		}
		e.running = false
		e.hit = nil
		e.runMu.Unlock()
	}()
}

// searching reports whether a search is running (has not printed its
// bestmove yet).
func (e *Engine) searching() bool {
	e.runMu.Lock()
	defer e.runMu.Unlock()
	return e.running
}

func (e *Engine) stopSearch() {
	if e.cancel != nil {
		e.cancel()
	}
}

// waitSearch waits for the search goroutine, if any, to finish.
func (e *Engine) waitSearch() {
	if e.done != nil {
		<-e.done
		e.cancel()
		e.done, e.cancel = nil, nil
	}
}

// cmdPonderHit tells a ponder search that the opponent played the
// expected move: it goes on as a normal search on the clock it was given.
func (e *Engine) cmdPonderHit(_ []string) {
	e.runMu.Lock()
	defer e.runMu.Unlock()
	if !e.running || e.hit == nil {
		e.errorf("ponderhit: no ponder search is running")
		return
	}
	e.pool.PonderHit()
	close(e.hit)
	e.hit = nil
}

func (e *Engine) cmdStop(_ []string) {
	if !e.searching() {
		e.errorf("stop: no search is running")
		return
	}
	e.stopSearch()
	e.waitSearch()
}

func scoreString(score int, b search.Bound) string {
	s := ""
	if n, ok := search.MateIn(score); ok {
		s = fmt.Sprintf("mate %d", n)
	} else {
		s = fmt.Sprintf("cp %d", score)
	}
	switch b {
	case search.BoundLower:
		s += " lowerbound"
	case search.BoundUpper:
		s += " upperbound"
	}
	return s
}

func (e *Engine) sayInfo(pos *board.Position, i search.Info, showWDL bool) {
	var pv strings.Builder
	q := pos.Copy()
	for _, m := range i.PV {
		if !q.IsLegal(m) {
			break
		}
		pv.WriteByte(' ')
		pv.WriteString(q.UCI(m))
		q.MakeMove(m)
	}
	wdlText := ""
	if showWDL {
		w, d, l := wdl.Default.PerMille(i.Score, search.MateBound, material(pos))
		wdlText = fmt.Sprintf(" wdl %d %d %d", w, d, l)
	}
	e.say("info depth %d seldepth %d multipv %d score %s%s nodes %d nps %d hashfull %d time %d pv%s",
		i.Depth, i.SelDepth, max(i.MultiPV, 1), scoreString(i.Score, i.Bound), wdlText, i.Nodes, i.NPS(), i.HashFull, i.Time.Milliseconds(), pv.String())
}

// material is the WDL model's material count of p.
func material(p *board.Position) int {
	n := func(t board.PieceType) int { return p.ByType(t).Count() }
	return wdl.Material(n(board.Pawn), n(board.Knight), n(board.Bishop), n(board.Rook), n(board.Queen))
}

func (e *Engine) cmdD(_ []string) {
	var b strings.Builder
	for r := 7; r >= 0; r-- {
		b.WriteString(" +---+---+---+---+---+---+---+---+\n |")
		for f := 0; f < 8; f++ {
			pc := e.pos.PieceOn(board.MakeSquare(f, r))
			c := " "
			if pc != board.NoPiece {
				c = pc.String()
			}
			fmt.Fprintf(&b, " %s |", c)
		}
		fmt.Fprintf(&b, " %d\n", r+1)
	}
	b.WriteString(" +---+---+---+---+---+---+---+---+\n   a   b   c   d   e   f   g   h\n")
	fmt.Fprintf(&b, "\nFen: %s\nKey: %016X\nCheckers:", e.pos.FEN(), e.pos.Key())
	for c := e.pos.Checkers(); c != 0; {
		b.WriteString(" " + c.PopLSB().String())
	}
	e.say("%s", b.String())
}

func (e *Engine) cmdLegal(_ []string) {
	moves := e.pool.Main().OrderedMoves(e.pos)
	var b strings.Builder
	for i, m := range moves {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(e.pos.UCI(m))
	}
	e.say("legal %d:%s%s", len(moves), map[bool]string{true: " ", false: ""}[len(moves) > 0], b.String())
}

func (e *Engine) cmdEval(_ []string) {
	ev := e.pool.Main().Evaluator()
	ev.Reset(e.pos)
	if x, ok := ev.(eval.Explainer); ok {
		e.say("%s", strings.TrimRight(x.Explain(e.pos), "\n"))
		return
	}
	e.say("eval %d (side to move)", ev.Evaluate(e.pos))
}

func (e *Engine) cmdPerft(args []string) {
	if len(args) != 1 {
		e.errorf("perft: expected \"perft <depth>\"")
		return
	}
	d, err := strconv.Atoi(args[0])
	if err != nil || d < 1 || d > 10 {
		e.errorf("perft: depth %q is not an integer from 1 to 10", args[0])
		return
	}
	start := time.Now()
	var total uint64
	var b strings.Builder
	for _, en := range e.pos.Divide(d) {
		fmt.Fprintf(&b, "%s: %d\n", e.pos.UCI(en.Move), en.Nodes)
		total += en.Nodes
	}
	fmt.Fprintf(&b, "\nNodes searched: %d\ntime %d ms", total, time.Since(start).Milliseconds())
	e.say("%s", b.String())
}

func (e *Engine) cmdBench(args []string) {
	depth := DefaultBenchDepth
	if len(args) > 1 {
		e.errorf("bench: expected \"bench [depth]\"")
		return
	}
	if len(args) == 1 {
		d, err := strconv.Atoi(args[0])
		if err != nil {
			e.errorf("bench: depth %q is not an integer", args[0])
			return
		}
		depth = d
	}
	e.outMu.Lock()
	_, err := Bench(e.out, depth, e.activeArch, e.activeFile)
	e.out.Flush()
	e.outMu.Unlock()
	if err != nil {
		e.errorf("bench: %v", err)
	}
}
