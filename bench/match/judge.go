package match

import (
	"github.com/nnuelab/nnuelab/engine/board"
)

// result is a game's outcome.
type result int

const (
	noResult result = iota
	whiteWins
	blackWins
	draw
)

// String returns the PGN result token.
func (r result) String() string {
	switch r {
	case whiteWins:
		return "1-0"
	case blackWins:
		return "0-1"
	case draw:
		return "1/2-1/2"
	}
	return "*"
}

// winner returns the result where colour c wins.
func winner(c board.Color) result {
	if c == board.White {
		return whiteWins
	}
	return blackWins
}

func colorName(c board.Color) string {
	if c == board.White {
		return "White"
	}
	return "Black"
}

// judge applies the rules of chess to the position: checkmate, stalemate,
// threefold repetition, the fifty-move rule and insufficient material, in
// that order (a mate on the hundredth ply stands, as the rules say).
func judge(p *board.Position) (result, string, bool) {
	var ml board.MoveList
	p.GenerateLegal(&ml)
	stm := p.SideToMove()
	if ml.N == 0 {
		if p.InCheck() {
			return winner(stm.Other()), colorName(stm.Other()) + " mates", true
		}
		return draw, "Draw by stalemate", true
	}
	if p.Repetitions() >= 2 {
		return draw, "Draw by 3-fold repetition", true
	}
	if p.HalfmoveClock() >= 100 {
		return draw, "Draw by fifty moves rule", true
	}
	if p.InsufficientMaterial() {
		return draw, "Draw by insufficient mating material", true
	}
	return noResult, "", false
}

// bareKing reports whether colour c has nothing but its king, so that it
// cannot win even when the opponent's flag falls.
func bareKing(p *board.Position, c board.Color) bool {
	return p.ByColor(c).Count() == 1
}

// adjudicator applies the draw, resign and move-limit rules to the scores
// the engines report.
type adjudicator struct {
	draw     DrawRule
	resign   ResignRule
	maxMoves int

	drawCount int    // consecutive plies with both scores in the draw band
	lowCount  [2]int // consecutive own moves each side saw itself lost
	highCount [2]int // consecutive own moves each side saw itself winning
}

// update takes the score the side that just moved reported, whether its
// move was reversible (no capture or pawn move), and plies, the number of
// moves since the game's start position, book moves included; it says
// whether to adjudicate.
func (a *adjudicator) update(mover board.Color, sc engineScore, reversible bool, plies int) (result, string, bool) {
	if a.resign.MoveCount > 0 {
		v := sc.value()
		a.lowCount[mover] = bump(a.lowCount[mover], sc.Valid && v <= -a.resign.Score)
		a.highCount[mover] = bump(a.highCount[mover], sc.Valid && v >= a.resign.Score)
		for _, c := range [2]board.Color{mover, mover.Other()} {
			if a.lowCount[c] >= a.resign.MoveCount && (!a.resign.TwoSided || a.highCount[c.Other()] >= a.resign.MoveCount) {
				return winner(c.Other()), colorName(c.Other()) + " wins by adjudication", true
			}
		}
	}
	if a.draw.MoveCount > 0 {
		in := sc.Valid && !sc.IsMate && sc.CP <= a.draw.Score && sc.CP >= -a.draw.Score
		a.drawCount = bump(a.drawCount, in && reversible)
		if plies/2 >= a.draw.MoveNumber && a.drawCount >= 2*a.draw.MoveCount {
			return draw, "Draw by adjudication", true
		}
	}
	if a.maxMoves > 0 && plies >= 2*a.maxMoves {
		return draw, "Draw by adjudication: maximum number of moves", true
	}
	return noResult, "", false
}

func bump(n int, ok bool) int {
	if ok {
		return n + 1
	}
	return 0
}
