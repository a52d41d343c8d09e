package main

import (
	"fmt"
	"io"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/syzygy"
)

// traceGames writes, for every KRBvKR game of path that player played on
// the stronger side and did not win, the tables' view of each of the
// stronger side's moves: the halfmove clock, the position's DTZ, the move
// played, how many legal moves keep the win (the counter taken as 0), and
// whether the move kept the win with the counter at 0 and under the
// game's own clock. A summary line per game names the first move that
// threw the win away by the tables, and the first position where the win
// was already spoilt by the clock (DTZ + clock > 100) although every move
// before kept it: the difference between a win thrown away and progress
// too slow (docs/devlog/2026-11-29-syzygy.md, sixth session).
func traceGames(path, player string, tb *syzygy.Tables, out io.Writer) error {
	games, err := readGameFile(path)
	if err != nil {
		return err
	}
	for _, g := range games {
		if g.fen == "" {
			continue
		}
		p, err := board.ParseFEN(g.fen)
		if err != nil {
			return fmt.Errorf("%s: game %d (line %d): %w", path, g.index, g.line, err)
		}
		strong, ok := krbvkr(p)
		if !ok {
			continue
		}
		name, won := g.white, "1-0"
		if strong == board.Black {
			name, won = g.black, "0-1"
		}
		if name != player || g.result == won {
			continue
		}
		if err := traceGame(p, strong, g, tb, out, path); err != nil {
			return err
		}
	}
	return nil
}

// traceGame replays one game from p; see traceGames.
func traceGame(p *board.Position, strong board.Color, g game, tb *syzygy.Tables, out io.Writer, path string) error {
	fmt.Fprintf(out, "%s game %d (%s), result %s, %d plies\n", path, g.index, g.fen, g.result, len(g.moves))
	firstDraw, firstSpoilt := "", ""
	maxSum := 0
	allKept := true
	for ply, san := range g.moves {
		m, err := p.ParseSAN(san)
		if err != nil {
			return fmt.Errorf("%s: game %d (line %d), ply %d: %w", path, g.index, g.line, ply+1, err)
		}
		if s, ok := krbvkr(p); !ok || s != strong || p.SideToMove() != strong {
			p.MakeMove(m)
			continue
		}
		clock := p.HalfmoveClock()
		d, err := tb.ProbeDTZ(p)
		if err != nil {
			return err
		}
		var ml board.MoveList
		p.GenerateLegal(&ml)
		keepers, best := 0, 1000
		for _, mm := range ml.Moves[:ml.N] {
			p.MakeMove(mm)
			da, err := tb.ProbeDTZ(p)
			p.UnmakeMove()
			if err != nil {
				return err
			}
			if syzygy.Rule50WDL(da, 0) == syzygy.Loss {
				keepers++
				if -da < best {
					best = -da
				}
			}
		}
		p.MakeMove(m)
		da, err := tb.ProbeDTZ(p)
		if err != nil {
			return err
		}
		after := p.HalfmoveClock()
		keep0 := syzygy.Rule50WDL(da, 0) == syzygy.Loss
		keepRule := syzygy.Rule50WDL(da, after) == syzygy.Loss
		wonBefore := syzygy.Rule50WDL(d, 0) == syzygy.Win
		note := ""
		switch {
		case !wonBefore:
			note = "not won"
		case !keep0:
			note = "DRAWS"
			if firstDraw == "" {
				firstDraw = fmt.Sprintf("ply %d %s (DTZ %d, clock %d, %d of %d moves keep the win)", ply+1, san, d, clock, keepers, ml.N)
			}
			allKept = false
		case -da == best:
			note = "fastest"
		default:
			note = fmt.Sprintf("keeps, %d slower than the fastest", -da-best)
		}
		if wonBefore && d+clock > maxSum && allKept {
			maxSum = d + clock
		}
		if wonBefore && keep0 && !keepRule && firstSpoilt == "" {
			firstSpoilt = fmt.Sprintf("ply %d %s (DTZ after %d, clock %d)", ply+1, san, -da, after)
		}
		fmt.Fprintf(out, "  ply %3d clock %3d DTZ %4d sum %4d  %-7s -> %4d  keep %2d/%2d  %s\n",
			ply+1, clock, d, d+clock, san, da, keepers, ml.N, note)
	}
	if firstDraw == "" {
		firstDraw = "none"
	}
	if firstSpoilt == "" {
		firstSpoilt = "none"
	}
	fmt.Fprintf(out, "  first drawing move: %s; first kept win spoilt by the clock: %s; largest DTZ + clock while every move kept the win: %d\n",
		firstDraw, firstSpoilt, maxSum)
	return nil
}
