package match

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/internal/fsutil"
	"github.com/nnuelab/nnuelab/internal/zstdfile"
)

// resumed is what an earlier run of the match left in its PGN file.
type resumed struct {
	// done holds the games kept, by game number.
	done map[int]*gameRecord
	// dropped says, one line each, which games (or text) were dropped to be
	// played again, and why.
	dropped []string
	// keep is the file's text as it must be before new games are appended
	// (the kept games, each as it was written, and nothing else); nil when
	// the file is that already.
	keep []byte
}

// resumeGames reads the games an earlier run of this match left in its PGN
// file and returns the ones to count, by game number.
//
// A game that is not this match's is an error naming it, so that a PGN of
// another match is never counted into this one: its Event, its round within
// the schedule, the engines on the colours the schedule gives them, its
// pair's opening (start position and book moves) from the configured order,
// and its clock and search limits (TimeControl and SearchLimit tags: games
// at nodes=1000 are not games of a nodes=6000 match).
//
// A game of this match is counted only if its record holds together: its
// moves replayed from the opening are legal, their number is its PlyCount,
// it ends with a result token equal to its Result tag, and that result is
// what its Termination says (a normal end: the final position's mate or
// draw by the rules; a fault: a loss for the side at fault; no end by the
// rules before an adjudication or a fault). Anything else (a game cut short
// by a kill or a full disk, two games run together, an edited result) is
// dropped, said in dropped, and played again; so is any text after a place
// where the file stops being PGN. A missing file is a match with no games
// yet.
func resumeGames(cfg *Config, names [2]string, ops []opening) (*resumed, error) {
	data, err := zstdfile.ReadFile(cfg.PGNOut)
	if errors.Is(err, os.ErrNotExist) {
		return &resumed{done: map[int]*gameRecord{}}, nil
	}
	if err != nil {
		return nil, err
	}
	res := &resumed{done: map[int]*gameRecord{}}
	games, perr := readPGN(bytes.NewReader(data), cfg.PGNOut)
	cutWhy := "cut short (no result token after its moves)" // the last game's
	if perr != nil {
		var ze *zstdfile.Error
		if errors.As(perr, &ze) {
			return nil, perr
		}
		// The file stops being PGN in its last game read (a cut inside a
		// comment or a tag), or between games: nothing after it is read.
		if n := len(games); n > 0 && games[n-1].ended == "" {
			cutWhy = fmt.Sprintf("cut short (%v)", perr)
		} else {
			res.dropped = append(res.dropped, fmt.Sprintf("Dropped the text of %s from where it stops being PGN (%v): its games are played again", cfg.PGNOut, perr))
		}
	}
	total := cfg.TotalGames()
	// The opening each pair starts from, as the schedule takes them.
	order := newOpeningOrder(ops, &cfg.Openings, cfg.Seed)
	var starts []*opening
	startOf := func(pair int) *opening {
		for len(starts) <= pair {
			starts = append(starts, order.take())
		}
		return starts[pair]
	}
	var kept []*pgnGame
	for i := range games {
		g := &games[i]
		where := fmt.Sprintf("%s:%d", cfg.PGNOut, g.line)
		n, nerr := strconv.Atoi(g.tags["Round"])
		which := "the game at " + where
		if nerr == nil {
			which = fmt.Sprintf("game %d (%s)", n, where)
		}
		drop := func(why string) {
			res.dropped = append(res.dropped, fmt.Sprintf("Dropped %s: %s; it is played again", which, why))
		}
		// Text a cut left: no result after the moves, or another game's
		// tags run into this one's.
		if g.ended == "" {
			if i == len(games)-1 {
				drop(cutWhy)
			} else {
				drop("cut short (no result token after its moves)")
			}
			continue
		}
		if why := g.garbled(); why != "" {
			drop(why)
			continue
		}
		// A whole game: it must be this match's.
		if nerr != nil || n < 1 || n > total {
			return nil, fmt.Errorf("%s: Round %q is not a game number of this match (1..%d)", where, g.tags["Round"], total)
		}
		if ev := g.tags["Event"]; ev != cfg.Event {
			return nil, fmt.Errorf("%s: game %d is of event %q, not this match's %q", where, n, ev, cfg.Event)
		}
		aWhite := n%2 == 1 // the first engine has White in the odd games
		white, black := names[0], names[1]
		wi, bi := 0, 1
		if !aWhite {
			white, black, wi, bi = black, white, 1, 0
		}
		if g.tags["White"] != white || g.tags["Black"] != black {
			return nil, fmt.Errorf("%s: game %d is %s vs %s, but this match plays it %s vs %s", where, n, g.tags["White"], g.tags["Black"], white, black)
		}
		seats := [2]*player{{limits: &cfg.Engines[wi].Limits}, {limits: &cfg.Engines[bi].Limits}}
		if tc, sl := tcTag(seats), limitTag(seats); g.tags["TimeControl"] != tc || g.tags["SearchLimit"] != sl {
			return nil, fmt.Errorf("%s: game %d was played with TimeControl %q, SearchLimit %q, but this match plays it with TimeControl %q, SearchLimit %q: another match (resume it with its own settings, or give another -pgnout)",
				where, n, g.tags["TimeControl"], g.tags["SearchLimit"], tc, sl)
		}
		op := startOf((n - 1) / 2)
		root, book, err := op.position()
		if err != nil {
			return nil, err
		}
		got := g.tags["FEN"]
		if got == "" {
			got = board.StartFEN
		}
		if want := root.FEN(); got != want {
			return nil, fmt.Errorf("%s: game %d starts from %s, but this match's opening for it is %s", where, n, got, want)
		}
		rec := &gameRecord{number: n, pair: (n - 1) / 2, aWhite: aWhite, white: white, black: black, termination: g.tags["Termination"]}
		if len(g.tail) > 0 {
			rec.reason = g.tail[len(g.tail)-1]
		}
		why, bookErr := g.replay(root, book, rec)
		if bookErr != nil {
			return nil, fmt.Errorf("%s: game %d: %w, not this match's opening for it", where, n, bookErr)
		}
		if why != "" {
			drop(why)
			continue
		}
		if res.done[n] != nil {
			return nil, fmt.Errorf("%s: game %d is in the file twice", where, n)
		}
		res.done[n] = rec
		kept = append(kept, g)
	}
	// The file as it must be before appending: the kept games, each as it
	// was written, so that a new game never continues a cut line.
	var b bytes.Buffer
	for _, g := range kept {
		b.Write(data[g.start:g.end])
		b.WriteString("\n\n")
	}
	if !bytes.Equal(b.Bytes(), data) {
		res.keep = append([]byte{}, b.Bytes()...) // not nil when empty
	}
	return res, nil
}

// write rewrites the PGN file as keep says (atomically: a kill leaves the
// old file or the new one), when it must be.
func (r *resumed) write(path string) error {
	if r.keep == nil {
		return nil
	}
	return fsutil.WriteFileAtomic(path, r.keep, 0o644)
}

// garbled says why a game's tags cannot be a game the runner wrote (a tag
// twice, a name or value a cut broke), or "".
func (g *pgnGame) garbled() string {
	if g.dupTag != "" {
		return fmt.Sprintf("two games run together (tag %s twice)", g.dupTag)
	}
	for k, v := range g.tags {
		if !tagName(k) {
			return fmt.Sprintf("a broken tag name %q (a cut and another game's tags)", k)
		}
		if strings.ContainsAny(v, "\"[]") {
			return fmt.Sprintf("a broken %s tag %q (a cut and another game's tags)", k, v)
		}
	}
	return ""
}

// tagName reports whether s is a PGN tag name: a letter, then letters,
// digits and underscores.
func tagName(s string) bool {
	for i, c := range s {
		letter := c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z'
		if !letter && (i == 0 || c != '_' && (c < '0' || c > '9')) {
			return false
		}
	}
	return s != ""
}

// replay plays the game's moves from its opening's root and checks that
// its record holds together, filling in rec's result and fault. bookErr is
// set when the moves do not start with the opening's book moves (another
// match's game); why says what does not hold together ("" when all does).
func (g *pgnGame) replay(root *board.Position, book []board.Move, rec *gameRecord) (why string, bookErr error) {
	pos := root
	for i, san := range g.moves {
		m, err := pos.ParseSAN(san)
		if err != nil {
			if i < len(book) {
				return "", fmt.Errorf("book move %d %q: %v", i+1, san, err)
			}
			return fmt.Sprintf("move %d %q is not legal in %s", i+1, san, pos.FEN()), nil
		}
		if i < len(book) && m != book[i] {
			return "", fmt.Errorf("book move %d is %s, the opening's is %s", i+1, san, pos.SAN(book[i]))
		}
		pos.MakeMove(m)
	}
	if len(g.moves) < len(book) {
		return fmt.Sprintf("%d moves, fewer than the opening's %d book moves", len(g.moves), len(book)), nil
	}
	if pc, ok := g.tags["PlyCount"]; ok && pc != strconv.Itoa(len(g.moves)) {
		return fmt.Sprintf("PlyCount %s, but %d moves", pc, len(g.moves)), nil
	}
	tag := g.tags["Result"]
	switch tag {
	case "1-0":
		rec.result = whiteWins
	case "0-1":
		rec.result = blackWins
	case "1/2-1/2":
		rec.result = draw
	default:
		return fmt.Sprintf("no result (Result tag %q)", tag), nil
	}
	if g.ended != tag {
		return fmt.Sprintf("Result tag %s, but the move text ends %s", tag, g.ended), nil
	}
	ruled, _, over := judge(pos)
	switch rec.termination {
	case termNormal:
		if !over {
			return fmt.Sprintf("Termination %q, but the final position %s is not over by the rules", rec.termination, pos.FEN()), nil
		}
		if ruled != rec.result {
			return fmt.Sprintf("Result %s, but the rules give %s in the final position %s", tag, ruled, pos.FEN()), nil
		}
		return "", nil
	case termAdjudication, termTimeForfeit, termRules, termAbandoned:
	default:
		return fmt.Sprintf("Termination %q is none the runner writes", rec.termination), nil
	}
	if over {
		return fmt.Sprintf("Termination %q, but the final position %s is already over by the rules (%s)", rec.termination, pos.FEN(), ruled), nil
	}
	f, err := faultOf(rec)
	if err != nil {
		return err.Error(), nil
	}
	rec.fault = f
	if f != nil {
		atFault := board.White
		if f.engine == rec.black {
			atFault = board.Black
		}
		bare := rec.termination == termTimeForfeit && rec.result == draw && strings.Contains(rec.reason, "cannot mate")
		if rec.result != winner(atFault.Other()) && !bare {
			return fmt.Sprintf("Result %s, but %q charges %s with the loss", tag, rec.reason, colorName(atFault)), nil
		}
	}
	return "", nil
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
	return nil, fmt.Errorf("the Termination tag is %q, but the end reason %q does not say which side is at fault", g.termination, g.reason)
}
