package main

import (
	"strings"

	"github.com/nnuelab/nnuelab/bench/match"
	"github.com/nnuelab/nnuelab/internal/zstdfile"
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

// readGameFile reads the games of a PGN file, .pgn or .pgn.zst.
func readGameFile(path string) ([]game, error) {
	data, err := zstdfile.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return readGames(string(data), path)
}

// readGames reads the games of a match's PGN text with bench/match's
// reader (the one a match resumes from), numbered from 1 in their file.
func readGames(text, name string) ([]game, error) {
	read, err := match.ReadGames(strings.NewReader(text), name)
	if err != nil {
		return nil, err
	}
	games := make([]game, len(read))
	for i, g := range read {
		games[i] = game{index: i + 1, line: g.Line, fen: g.Tags["FEN"], white: g.Tags["White"], black: g.Tags["Black"],
			result: g.Result, moves: g.Moves}
	}
	return games, nil
}
