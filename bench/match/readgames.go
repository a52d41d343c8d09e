package match

import (
	"fmt"
	"io"
)

// Game is one game of a PGN text as ReadGames gives it.
type Game struct {
	Tags   map[string]string // tag pairs, by name
	Moves  []string          // the moves in SAN, as written (board.Position.ParseSAN reads them)
	Result string            // the result token: "1-0", "0-1", "1/2-1/2" or "*"
	Line   int               // the line of its first tag pair or move
}

// ReadGames reads every game of a PGN text, such as a match's games file,
// with the reader the match itself resumes from: comments, variations, NAGs
// and escape lines are skipped. A syntax error, or a game with no result
// token, is an error naming the file and line.
func ReadGames(r io.Reader, name string) ([]Game, error) {
	games, err := readPGN(r, name)
	if err != nil {
		return nil, err
	}
	out := make([]Game, 0, len(games))
	for i, g := range games {
		if g.ended == "" {
			return nil, fmt.Errorf("%s:%d: game %d has no result token", name, g.line, i+1)
		}
		out = append(out, Game{Tags: g.tags, Moves: g.moves, Result: g.ended, Line: g.line})
	}
	return out, nil
}
