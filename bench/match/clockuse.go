package match

import (
	"fmt"
	"io"
	"strconv"
	"strings"
	"time"
)

// MoveClock is one move's use of the clock: the mover's move number
// (1-based, counting its own moves), the time on its clock before the move
// and the time the move took, with the depth its comment reports (0 when
// it has none) and whether its score was a mate score (whose depth says
// little about the search). Inc and ToGo are what the engine was told with
// the move (the increment, and the moves to the next time control, 0 in
// sudden death), so that its time plan can be recomputed.
type MoveClock struct {
	Move   int
	Before time.Duration
	Used   time.Duration
	Depth  int
	Mate   bool
	Inc    time.Duration
	ToGo   int
}

// Share is the fraction of the clock the move used.
func (m MoveClock) Share() float64 {
	if m.Before <= 0 {
		return 1
	}
	return m.Used.Seconds() / m.Before.Seconds()
}

// ClockUse is one player's clock over one game, rebuilt from the PGN: the
// time control's base, its increments and periods, and each move's time
// from the move comments ("score/depth 0.123s", as nnuelab match and
// cutechess-cli write them).
type ClockUse struct {
	Game    int // 1-based, in file order
	Player  string
	Moves   []MoveClock
	Forfeit bool // the game ended with this player's time forfeit
	// Left is the clock after the player's last move.
	Left time.Duration
}

// ReadClockUse reads the games of a PGN file and rebuilds both players'
// clocks in each. Book moves (comment "book") do not run the clock, as in
// the match runner. A game without a TimeControl tag, or a timed move
// without its time, is an error naming the game.
func ReadClockUse(r io.Reader, name string) ([]ClockUse, error) {
	games, err := readPGN(r, name)
	if err != nil {
		return nil, err
	}
	var out []ClockUse
	for gi, g := range games {
		where := fmt.Sprintf("%s: game %d (line %d)", name, gi+1, g.line)
		tc, err := ParseTimeControl(g.tags["TimeControl"])
		if err != nil || !tc.Enabled() {
			return nil, fmt.Errorf("%s: no clock to rebuild: TimeControl %q", where, g.tags["TimeControl"])
		}
		side := 0 // 0 white, 1 black
		if f := strings.Fields(g.tags["FEN"]); len(f) > 1 && f[1] == "b" {
			side = 1
		}
		players := [2]*ClockUse{
			{Game: gi + 1, Player: g.tags["White"]},
			{Game: gi + 1, Player: g.tags["Black"]},
		}
		clock := [2]time.Duration{tc.Base, tc.Base}
		moves := [2]int{}
		for i, c := range g.comments {
			c = strings.TrimSpace(c)
			if c == "book" {
				side ^= 1
				continue
			}
			used, ok := moveTime(c)
			if !ok {
				return nil, fmt.Errorf("%s: move %d (%s) has no time in its comment {%s}", where, i+1, g.moves[i], c)
			}
			moves[side]++
			p := players[side]
			depth, mate := moveDepth(c)
			togo := 0
			if tc.Moves > 0 {
				togo = tc.Moves - (moves[side]-1)%tc.Moves
			}
			p.Moves = append(p.Moves, MoveClock{Move: moves[side], Before: clock[side], Used: used, Depth: depth, Mate: mate, Inc: tc.Increment, ToGo: togo})
			clock[side] += tc.Increment - used
			if tc.Moves > 0 && moves[side]%tc.Moves == 0 {
				clock[side] += tc.Base
			}
			p.Left = clock[side]
			side ^= 1
		}
		if reason := g.tags["Termination"]; strings.Contains(reason, "time forfeit") {
			// The side to move after the last move lost on time.
			players[side].Forfeit = true
		}
		out = append(out, *players[0], *players[1])
	}
	return out, nil
}

// moveTime finds the "1.234s" token of a move comment.
func moveTime(c string) (time.Duration, bool) {
	for _, f := range strings.Fields(c) {
		if !strings.HasSuffix(f, "s") {
			continue
		}
		v, err := strconv.ParseFloat(strings.TrimSuffix(f, "s"), 64)
		if err == nil && v >= 0 {
			return time.Duration(v * float64(time.Second)), true
		}
	}
	return 0, false
}

// moveDepth reads the "score/depth" token of a move comment ("+0.31/12",
// "-M3/20"): the depth, 0 without one, and whether the score is a mate.
func moveDepth(c string) (depth int, mate bool) {
	for _, f := range strings.Fields(c) {
		score, d, ok := strings.Cut(f, "/")
		if !ok {
			continue
		}
		n, err := strconv.Atoi(d)
		if err != nil || n < 0 {
			continue
		}
		return n, strings.ContainsRune(score, 'M')
	}
	return 0, false
}
