package match

import (
	"fmt"
	"io"
	"strconv"

	"github.com/nnuelab/nnuelab/bench/stats"
)

// PGNCounts are a match's counts as its PGN records them, from the first
// engine's side as Summary counts them: its wins, draws and losses over all
// games, and the pentanomial counts of the pairs whose two games are both
// in the file.
type PGNCounts struct {
	Games, Wins, Draws, Losses int
	Penta                      stats.Penta
}

// CountPGN counts the games of a match's PGN (as -pgnout writes it): the
// first engine has White in the odd rounds (Round tag) and games 2k-1 and
// 2k are a pair, whatever order they are in. A game without a Round or a
// finished Result, a round twice, or text that is not PGN is an error
// naming the file and line. So that a record of a match's counts (an
// experiment's Elo chunk) can be checked against the games behind it.
func CountPGN(r io.Reader, name string) (PGNCounts, error) {
	var c PGNCounts
	games, err := readPGN(r, name)
	if err != nil {
		return c, err
	}
	first := map[int]float64{} // the first game of each pair seen, by pair
	seen := map[int]bool{}
	for _, g := range games {
		where := fmt.Sprintf("%s:%d", name, g.line)
		n, err := strconv.Atoi(g.tags["Round"])
		if err != nil || n < 1 {
			return c, fmt.Errorf("%s: Round %q is not a game number", where, g.tags["Round"])
		}
		if seen[n] {
			return c, fmt.Errorf("%s: game %d is in the file twice", where, n)
		}
		seen[n] = true
		var white float64
		switch g.tags["Result"] {
		case "1-0":
			white = 1
		case "0-1":
			white = 0
		case "1/2-1/2":
			white = 0.5
		default:
			return c, fmt.Errorf("%s: game %d has no result (%q)", where, n, g.tags["Result"])
		}
		a := white // the first engine's score
		if n%2 == 0 {
			a = 1 - white
		}
		c.Games++
		switch a {
		case 1:
			c.Wins++
		case 0.5:
			c.Draws++
		default:
			c.Losses++
		}
		pair := (n - 1) / 2
		if s, ok := first[pair]; ok {
			c.Penta[stats.PairClass(s, a)]++
			delete(first, pair)
		} else {
			first[pair] = a
		}
	}
	return c, nil
}
