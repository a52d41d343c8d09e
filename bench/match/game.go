package match

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nnuelab/nnuelab/engine/board"
)

// gameJob is one scheduled game.
type gameJob struct {
	number int // 1-based
	pair   int
	open   *opening
	aWhite bool // the first engine plays White
}

// player is an engine seat in one game.
type player struct {
	eng    *engine
	name   string
	limits *Limits
	clock  clock
}

// outcome is what playing a game produced: the record (nil if the game was
// aborted) and which engines need a restart (indexed like Config.Engines).
type outcome struct {
	rec     *gameRecord
	restart [2]bool
}

// playGame plays one game between the worker's two engines. engines and
// the result's restart flags are indexed like Config.Engines.
func playGame(ctx context.Context, cfg *Config, job gameJob, engines [2]*engine, names [2]string) outcome {
	var out outcome
	root, book, err := job.open.position()
	if err != nil { // openings are checked at load time
		return out
	}
	var seats [2]*player // by colour
	idx := [2]int{0, 1}  // engine index by colour
	if !job.aWhite {
		idx = [2]int{1, 0}
	}
	for c := range seats {
		i := idx[c]
		seats[c] = &player{eng: engines[i], name: names[i], limits: &cfg.Engines[i].Limits}
		seats[c].clock = newClock(seats[c].limits.TC)
	}
	pos := root
	g := &gameRecord{
		number: job.number, pair: job.pair, aWhite: job.aWhite,
		white: names[idx[0]], black: names[idx[1]],
		startFEN: pos.FEN(), chess960: job.open.chess960,
		fullmove: pos.FullmoveNumber(), blackFirst: pos.SideToMove() == board.Black,
		started: time.Now(), timeControl: tcTag(seats), searchLimit: limitTag(seats),
	}
	var uciMoves []string
	for _, m := range book {
		g.moves = append(g.moves, playedMove{san: pos.SAN(m), comment: "book"})
		uciMoves = append(uciMoves, pos.UCI(m))
		pos.MakeMove(m)
	}
	finish := func(r result, term, reason string) outcome {
		g.result, g.termination, g.reason = r, term, reason
		out.rec = g
		return out
	}
	// charge ends the game with a loss for the side c because of a fault.
	charge := func(c board.Color, kind, term, reason, detail string) outcome {
		g.fault = &fault{engine: seats[c].name, kind: kind, detail: detail}
		r := winner(c.Other())
		if kind == faultTimeForfeit && bareKing(pos, c.Other()) {
			r = draw
			reason += ", but " + colorName(c.Other()) + " cannot mate"
		}
		return finish(r, term, reason)
	}

	for c := board.White; c <= board.Black; c++ {
		if err := seats[c].eng.newGame(ctx, cfg.InitTimeout); err != nil {
			if err == errCancelled {
				return outcome{}
			}
			out.restart[idx[c]] = true
			kind, why := faultHang, "does not answer isready"
			if err == errEOF {
				kind, why = faultCrash, "disconnects"
			}
			return charge(c, kind, termAbandoned, colorName(c)+" "+why, seats[c].eng.describe(err))
		}
	}

	adj := adjudicator{draw: cfg.Draw, resign: cfg.Resign, maxMoves: cfg.MaxMoves}
	startPos := "position fen " + g.startFEN
	if g.startFEN == board.StartFEN && !g.chess960 {
		startPos = "position startpos"
	}
	for {
		if r, reason, over := judge(pos); over {
			return finish(r, termNormal, reason)
		}
		stm := pos.SideToMove()
		me, opp := seats[stm], seats[stm.Other()]
		position := startPos
		if len(uciMoves) > 0 {
			position += " moves " + strings.Join(uciMoves, " ")
		}
		goCmd, limit, timed := goCommand(stm, me, opp)
		res := me.eng.search(ctx, position, goCmd, limit)
		switch res.err {
		case nil:
		case errCancelled:
			return outcome{}
		case errEOF:
			out.restart[idx[stm]] = true
			return charge(stm, faultCrash, termAbandoned, colorName(stm)+" disconnects", me.eng.describe(errEOF))
		case errTimeout:
			if !me.eng.stop() {
				out.restart[idx[stm]] = true
			}
			if timed {
				return charge(stm, faultTimeForfeit, termTimeForfeit, colorName(stm)+" loses on time",
					fmt.Sprintf("no bestmove within %v", limit.Round(time.Millisecond)))
			}
			return charge(stm, faultHang, termAbandoned, colorName(stm)+"'s connection stalls",
				fmt.Sprintf("no bestmove within %v", limit.Round(time.Millisecond)))
		}
		// The flag falls before the move counts.
		if !spendTime(me, res.elapsed) {
			return charge(stm, faultTimeForfeit, termTimeForfeit, colorName(stm)+" loses on time",
				fmt.Sprintf("move took %v", res.elapsed.Round(time.Millisecond)))
		}
		m, err := pos.ParseUCIMove(res.move)
		if err != nil || res.move == "" {
			out.restart[idx[stm]] = true
			shown := res.move
			if shown == "" {
				shown = "(none)"
			}
			return charge(stm, faultIllegal, termRules, colorName(stm)+" makes an illegal move: "+shown,
				fmt.Sprintf("bestmove %s in %s", shown, pos.FEN()))
		}
		sc := engineScore(res.info.FinalScore())
		g.moves = append(g.moves, playedMove{san: pos.SAN(m), comment: moveComment(sc, res.info.Depth, res.elapsed)})
		uciMoves = append(uciMoves, pos.UCI(m))
		pos.MakeMove(m)
		if r, reason, over := judge(pos); over {
			return finish(r, termNormal, reason)
		}
		if r, reason, over := adj.update(stm, sc, pos.HalfmoveClock() > 0, len(g.moves)); over {
			return finish(r, termAdjudication, reason)
		}
	}
}

// goCommand builds the go command for the side to move and says how long
// to wait for its answer and whether overrunning that is a time forfeit
// (clock or fixed move time) rather than a hang.
func goCommand(stm board.Color, me, opp *player) (string, time.Duration, bool) {
	var b strings.Builder
	b.WriteString("go")
	l := me.limits
	var limit time.Duration
	timed := false
	if l.TC.Enabled() {
		clocks := [2]*player{me, opp}
		if stm == board.Black {
			clocks = [2]*player{opp, me}
		}
		for i, p := range clocks {
			if !p.limits.TC.Enabled() {
				continue
			}
			side := "w"
			if i == 1 {
				side = "b"
			}
			fmt.Fprintf(&b, " %stime %d %sinc %d", side, max(1, p.clock.left.Milliseconds()), side, p.limits.TC.Increment.Milliseconds())
		}
		if l.TC.Moves > 0 {
			fmt.Fprintf(&b, " movestogo %d", me.clock.movesLeft)
		}
		limit, timed = me.clock.left+l.Margin, true
	}
	if l.MoveTime > 0 {
		fmt.Fprintf(&b, " movetime %d", l.MoveTime.Milliseconds())
		limit, timed = l.MoveTime+l.Margin, true
	}
	if l.Nodes > 0 {
		fmt.Fprintf(&b, " nodes %d", l.Nodes)
	}
	if l.Depth > 0 {
		fmt.Fprintf(&b, " depth %d", l.Depth)
	}
	if !timed {
		limit = l.Timeout
	}
	return b.String(), limit, timed
}

// spendTime charges the move to the mover's clock (or checks the fixed
// move time) and reports false if the flag fell.
func spendTime(me *player, elapsed time.Duration) bool {
	l := me.limits
	if l.TC.Enabled() {
		return me.clock.spend(elapsed, l.Margin)
	}
	if l.MoveTime > 0 {
		return elapsed <= l.MoveTime+l.Margin
	}
	return true
}

// tcTag returns the PGN TimeControl tag: the clock ("40/60", "10+0.1") or
// "-" where there is none (fixed move time, nodes, depth); with different
// settings per side, both separated by " vs ".
func tcTag(seats [2]*player) string {
	one := func(l *Limits) string {
		if l.TC.Enabled() {
			return l.TC.String()
		}
		return "-"
	}
	w, b := one(seats[0].limits), one(seats[1].limits)
	if w == b {
		return w
	}
	return w + " vs " + b
}

// limitTag describes the limits other than the clock, for the
// supplemental SearchLimit tag ("nodes=1000", "st=0.5 depth=12"), "" if none.
func limitTag(seats [2]*player) string {
	one := func(l *Limits) string {
		var s []string
		if l.MoveTime > 0 {
			s = append(s, "st="+formatSeconds(l.MoveTime))
		}
		if l.Nodes > 0 {
			s = append(s, "nodes="+strconv.FormatInt(l.Nodes, 10))
		}
		if l.Depth > 0 {
			s = append(s, "depth="+strconv.Itoa(l.Depth))
		}
		return strings.Join(s, " ")
	}
	w, b := one(seats[0].limits), one(seats[1].limits)
	if w == b {
		return w
	}
	return w + " vs " + b
}

// moveComment is cutechess-cli's move comment: score/depth and time.
func moveComment(sc engineScore, depth int, elapsed time.Duration) string {
	t := strconv.FormatFloat(elapsed.Seconds(), 'f', 3, 64) + "s"
	if !sc.Valid {
		return t
	}
	return sc.String() + "/" + strconv.Itoa(depth) + " " + t
}
