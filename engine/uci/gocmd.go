package uci

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/search"
	"github.com/nnuelab/nnuelab/engine/wdl"
)

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
//
// A go that arrives while a search runs (a GUI that did not wait for
// bestmove, or sent go instead of ponderhit) first stops that search and
// lets it answer its own bestmove, then starts its own: every go gets
// exactly one bestmove, in the order the go commands came.
func (e *Engine) cmdGo(args []string) {
	if e.searching() {
		e.stopSearch()
		e.waitSearch()
	}
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
		// last is the leader's last report of the first line with an
		// exact score (the report runs on this goroutine).
		var last search.Info
		res := pool.Search(ctx, pos, lim, func(i search.Info) {
			if max(i.MultiPV, 1) == 1 && i.Bound == search.BoundExact {
				last = i
			}
			e.sayInfo(pos, i, showWDL)
		})
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
			ponder := board.NullMove
			if res.Ponder != board.NullMove {
				q := pos.Copy()
				q.MakeMove(res.Best)
				if q.IsLegal(res.Ponder) {
					ponder = res.Ponder
					best += " ponder " + q.UCI(res.Ponder)
				}
			}
			final := finalInfo(res, last, ponder, pool.TT().HashFull())
			lines = append(lines, e.infoLine(pos, final, showWDL), best)
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

// finalInfo is the report printed just before bestmove: the depth, score,
// nodes and time of the result the move comes from, whether the search
// ended at a limit, on stop, or in the middle of an iteration (whose
// partial result a GUI otherwise never sees). Its line is the leader's
// last exact report of the first line when that report ends in the played
// move at the result's depth; otherwise (the move changed in an iteration
// that did not complete, or came from a helper thread's deeper search) it
// is the move and its ponder move, and the selective depth is at least the
// depth. Depth 0 means that no iteration completed: the move is the first
// in search order and its score is unknown (printed as cp 0).
func finalInfo(res search.Result, last search.Info, ponder board.Move, hashFull int) search.Info {
	i := search.Info{Depth: res.Depth, SelDepth: max(last.SelDepth, res.Depth), Score: res.Score, Bound: search.BoundExact,
		Nodes: max(res.Nodes, last.Nodes), Time: max(res.Time, last.Time), HashFull: hashFull, TBHits: last.TBHits, MultiPV: 1}
	if last.Depth == res.Depth && len(last.PV) > 0 && last.PV[0] == res.Best {
		i.PV, i.SelDepth = last.PV, last.SelDepth
		return i
	}
	i.PV = []board.Move{res.Best}
	if ponder != board.NullMove {
		i.PV = append(i.PV, ponder)
	}
	return i
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

// sayInfo prints a search report.
func (e *Engine) sayInfo(pos *board.Position, i search.Info, showWDL bool) {
	e.say("%s", e.infoLine(pos, i, showWDL))
}

// infoLine is the info line of a search report of pos: depth, selective
// depth, line number, score (with its bound and, with UCI_ShowWDL, the
// win/draw/loss estimate), nodes, speed, table use, time and the PV as far
// as its moves are legal.
func (e *Engine) infoLine(pos *board.Position, i search.Info, showWDL bool) string {
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
	tbHits := ""
	if e.tb.tables != nil {
		tbHits = fmt.Sprintf(" tbhits %d", i.TBHits)
	}
	return fmt.Sprintf("info depth %d seldepth %d multipv %d score %s%s nodes %d nps %d hashfull %d%s time %d pv%s",
		i.Depth, i.SelDepth, max(i.MultiPV, 1), scoreString(i.Score, i.Bound), wdlText, i.Nodes, i.NPS(), i.HashFull, tbHits, i.Time.Milliseconds(), pv.String())
}

// material is the WDL model's material count of p.
func material(p *board.Position) int {
	n := func(t board.PieceType) int { return p.ByType(t).Count() }
	return wdl.Material(n(board.Pawn), n(board.Knight), n(board.Bishop), n(board.Rook), n(board.Queen))
}
