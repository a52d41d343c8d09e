package match

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/internal/zstdfile"
)

// resumeGames reads the games an earlier run of this match left in its PGN
// file and returns them by game number, as the summary counts them. Every
// game must belong to this match: its Event, its round within the
// schedule, the engines on the colours the schedule gives them, its pair's
// opening from the configured order, and a finished result. Anything else
// is an error naming the game, so that a PGN of another match is never
// counted into this one. A missing file is a match with no games yet.
func resumeGames(cfg *Config, names [2]string, ops []opening) (map[int]*gameRecord, error) {
	f, err := zstdfile.Open(cfg.PGNOut)
	if errors.Is(err, os.ErrNotExist) {
		return map[int]*gameRecord{}, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	games, err := readPGN(f, cfg.PGNOut)
	if err != nil {
		return nil, err
	}
	total := cfg.TotalGames()
	// The opening each pair starts from, as the schedule takes them.
	order := newOpeningOrder(ops, &cfg.Openings, cfg.Seed)
	var starts []string
	startOf := func(pair int) (string, error) {
		for len(starts) <= pair {
			pos, _, err := order.take().position()
			if err != nil {
				return "", err
			}
			starts = append(starts, pos.FEN())
		}
		return starts[pair], nil
	}
	done := map[int]*gameRecord{}
	for i := range games {
		g := &games[i]
		where := fmt.Sprintf("%s:%d", cfg.PGNOut, g.line)
		n, err := strconv.Atoi(g.tags["Round"])
		if err != nil || n < 1 || n > total {
			return nil, fmt.Errorf("%s: Round %q is not a game number of this match (1..%d)", where, g.tags["Round"], total)
		}
		if done[n] != nil {
			return nil, fmt.Errorf("%s: game %d is in the file twice", where, n)
		}
		if ev := g.tags["Event"]; ev != cfg.Event {
			return nil, fmt.Errorf("%s: game %d is of event %q, not this match's %q", where, n, ev, cfg.Event)
		}
		aWhite := n%2 == 1 // the first engine has White in the odd games
		white, black := names[0], names[1]
		if !aWhite {
			white, black = black, white
		}
		if g.tags["White"] != white || g.tags["Black"] != black {
			return nil, fmt.Errorf("%s: game %d is %s vs %s, but this match plays it %s vs %s", where, n, g.tags["White"], g.tags["Black"], white, black)
		}
		want, err := startOf((n - 1) / 2)
		if err != nil {
			return nil, err
		}
		got := g.tags["FEN"]
		if got == "" {
			got = board.StartFEN
		}
		if got != want {
			return nil, fmt.Errorf("%s: game %d starts from %s, but this match's opening for it is %s", where, n, got, want)
		}
		rec := &gameRecord{number: n, pair: (n - 1) / 2, aWhite: aWhite, white: white, black: black, termination: g.tags["Termination"]}
		switch g.tags["Result"] {
		case "1-0":
			rec.result = whiteWins
		case "0-1":
			rec.result = blackWins
		case "1/2-1/2":
			rec.result = draw
		default:
			return nil, fmt.Errorf("%s: game %d has no result (%q)", where, n, g.tags["Result"])
		}
		if len(g.tail) > 0 {
			rec.reason = g.tail[len(g.tail)-1]
		}
		if rec.fault, err = faultOf(rec); err != nil {
			return nil, fmt.Errorf("%s: game %d: %w", where, n, err)
		}
		done[n] = rec
	}
	return done, nil
}

// faultOf recovers the fault a finished game charged to an engine from its
// Termination tag and its end reason, which names the side at fault first
// ("Black loses on time", "White disconnects").
func faultOf(g *gameRecord) (*fault, error) {
	var kind string
	switch g.termination {
	case termTimeForfeit:
		kind = faultTimeForfeit
	case termRules:
		kind = faultIllegal
	case termAbandoned:
		kind = faultHang
		if strings.Contains(g.reason, "disconnects") {
			kind = faultCrash
		}
	default:
		return nil, nil
	}
	switch {
	case strings.HasPrefix(g.reason, "White "):
		return &fault{engine: g.white, kind: kind}, nil
	case strings.HasPrefix(g.reason, "Black "):
		return &fault{engine: g.black, kind: kind}, nil
	}
	return nil, fmt.Errorf("Termination %q, but the end reason %q does not say which side is at fault", g.termination, g.reason)
}
