package main

import (
	"fmt"
	"strings"

	"github.com/nnuelab/nnuelab/engine/board"
)

// game is one game of a PGN file: its start position and moves, replayed.
type game struct {
	index  int    // 1-based, in its file
	line   int    // the line of its first tag
	fen    string // the FEN tag ("" for the standard start)
	white  string // the White and Black tags ("" when absent)
	black  string
	result string // the result token: 1-0, 0-1, 1/2-1/2 or *
	moves  []string
}

// readGames splits the PGN text of the match runner (bench/match) into
// games: tag pairs, then move text with {comments}, move numbers and a
// result token. Variations, NAGs and escape lines, which the runner does
// not write, are an error naming the line.
func readGames(text, name string) ([]game, error) {
	var games []game
	var g *game
	inMoves := false
	line := 1
	for i := 0; i < len(text); {
		c := text[i]
		switch {
		case c == '\n':
			line++
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '[':
			end := strings.IndexByte(text[i:], '\n')
			if end < 0 {
				end = len(text) - i
			}
			tag := strings.TrimRight(text[i:i+end], " \t\r")
			if !strings.HasSuffix(tag, "]") {
				return nil, fmt.Errorf("%s:%d: tag pair not closed by ]", name, line)
			}
			if g == nil || inMoves {
				games = append(games, game{index: len(games) + 1, line: line})
				g = &games[len(games)-1]
				inMoves = false
			}
			key, val, ok := strings.Cut(tag[1:len(tag)-1], " ")
			val = strings.TrimSpace(val)
			if !ok || len(val) < 2 || val[0] != '"' || val[len(val)-1] != '"' {
				return nil, fmt.Errorf("%s:%d: bad tag pair %s", name, line, tag)
			}
			switch key {
			case "FEN":
				g.fen = val[1 : len(val)-1]
			case "White":
				g.white = val[1 : len(val)-1]
			case "Black":
				g.black = val[1 : len(val)-1]
			}
			i += end
		case c == '{':
			end := strings.IndexByte(text[i:], '}')
			if end < 0 {
				return nil, fmt.Errorf("%s:%d: comment never closed", name, line)
			}
			line += strings.Count(text[i:i+end], "\n")
			i += end + 1
		default:
			end := i
			for end < len(text) && !strings.ContainsRune(" \t\r\n{[", rune(text[end])) {
				end++
			}
			tok := text[i:end]
			i = end
			if g == nil {
				return nil, fmt.Errorf("%s:%d: move text %q before any tag pair", name, line, tok)
			}
			inMoves = true
			switch {
			case tok == "1-0" || tok == "0-1" || tok == "1/2-1/2" || tok == "*":
				g.result = tok
				g = nil
			case tok[0] >= '0' && tok[0] <= '9': // a move number, "12." or "12..."
				if strings.Trim(tok, "0123456789") != "." && strings.Trim(tok, "0123456789") != "..." {
					return nil, fmt.Errorf("%s:%d: %q is neither a move number nor a move", name, line, tok)
				}
			case strings.ContainsAny(tok, "()$;%"):
				return nil, fmt.Errorf("%s:%d: %q: variations, NAGs and escapes are not read", name, line, tok)
			default:
				g.moves = append(g.moves, tok)
			}
		}
	}
	if g != nil && inMoves {
		return nil, fmt.Errorf("%s:%d: game %d has no result token", name, line, len(games))
	}
	return games, nil
}

// sanMove finds the legal move of p whose standard algebraic notation is
// san (check and mate marks and ! ? annotations ignored).
func sanMove(p *board.Position, san string) (board.Move, error) {
	want := strings.TrimRight(san, "+#!?")
	var ml board.MoveList
	p.GenerateLegal(&ml)
	for _, m := range ml.Moves[:ml.N] {
		if strings.TrimRight(p.SAN(m), "+#") == want {
			return m, nil
		}
	}
	return board.NullMove, fmt.Errorf("%q is not a legal move in %s", san, p.FEN())
}
