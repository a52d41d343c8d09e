package match

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nnuelab/nnuelab/engine/board"
)

// PGN Termination tag values (PGN standard, section 9.8.1).
const (
	termNormal       = "normal"
	termAdjudication = "adjudication"
	termTimeForfeit  = "time forfeit"
	termRules        = "rules infraction"
	termAbandoned    = "abandoned"
)

// gameRecord is a finished game, everything the PGN and the summary need.
type gameRecord struct {
	number      int // 1-based, in schedule order
	pair        int // 0-based opening pair
	white       string
	black       string
	aWhite      bool // the first engine had White
	startFEN    string
	chess960    bool
	fullmove    int  // move number of the start position
	blackFirst  bool // Black moves first from the start position
	moves       []playedMove
	result      result
	reason      string // human words: "White mates", "Black loses on time"
	termination string // PGN Termination tag
	fault       *fault
	started     time.Time
	timeControl string
	searchLimit string // SearchLimit tag: nodes, depth or move time
}

// playedMove is one move of a game.
type playedMove struct {
	san     string
	comment string // {book} or score/depth and time
}

// fault is a failure charged to an engine.
type fault struct {
	engine string
	kind   string // one of the fault* kinds
	detail string
}

// The fault kinds counted per engine.
const (
	faultCrash       = "crash"
	faultHang        = "hang"
	faultIllegal     = "illegal move"
	faultTimeForfeit = "time forfeit"
)

// scoreA returns the first engine's score in the game: 1, 1/2 or 0.
func (g *gameRecord) scoreA() float64 {
	switch g.result {
	case draw:
		return 0.5
	case whiteWins:
		if g.aWhite {
			return 1
		}
	case blackWins:
		if !g.aWhite {
			return 1
		}
	}
	return 0
}

// pgn returns the game in PGN export format: the seven-tag roster, the
// supplemental tags, and movetext wrapped at 80 columns, ending with a
// blank line.
func (g *gameRecord) pgn(event, site string) string {
	var b strings.Builder
	tag := func(k, v string) {
		v = strings.ReplaceAll(v, `\`, `\\`)
		v = strings.ReplaceAll(v, `"`, `\"`)
		fmt.Fprintf(&b, "[%s \"%s\"]\n", k, v)
	}
	tag("Event", event)
	tag("Site", site)
	tag("Date", g.started.Format("2006.01.02"))
	tag("Round", strconv.Itoa(g.number))
	tag("White", g.white)
	tag("Black", g.black)
	tag("Result", g.result.String())
	if g.startFEN != board.StartFEN || g.chess960 {
		tag("FEN", g.startFEN)
		tag("SetUp", "1")
	}
	if g.chess960 {
		tag("Variant", "Chess960")
	}
	tag("TimeControl", g.timeControl)
	if g.searchLimit != "" {
		tag("SearchLimit", g.searchLimit)
	}
	tag("Termination", g.termination)
	tag("PlyCount", strconv.Itoa(len(g.moves)))
	tag("Time", g.started.Format("15:04:05"))
	b.WriteByte('\n')

	var tokens []string
	num, black := g.fullmove, g.blackFirst
	for i, m := range g.moves {
		switch {
		case !black:
			tokens = append(tokens, strconv.Itoa(num)+".")
		case i == 0:
			tokens = append(tokens, strconv.Itoa(num)+"...")
		}
		tokens = append(tokens, m.san)
		if m.comment != "" {
			tokens = append(tokens, "{"+m.comment+"}")
			if !black && i+1 < len(g.moves) {
				// after a comment the reader needs the move number again
				tokens = append(tokens, strconv.Itoa(num)+"...")
			}
		}
		if black {
			num++
		}
		black = !black
	}
	if g.reason != "" {
		tokens = append(tokens, "{"+strings.ReplaceAll(g.reason, "}", ")")+"}")
	}
	tokens = append(tokens, g.result.String())
	col := 0
	for _, t := range tokens {
		if col > 0 && col+1+len(t) > 79 {
			b.WriteByte('\n')
			col = 0
		} else if col > 0 {
			b.WriteByte(' ')
			col++
		}
		b.WriteString(t)
		col += len(t)
	}
	b.WriteString("\n\n")
	return b.String()
}
