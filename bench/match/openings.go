package match

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/internal/zstdfile"
)

// opening is a start position: a FEN and the book moves played from it.
type opening struct {
	fen      string   // root position
	moves    []string // book moves in UCI notation (Chess960 castling if chess960)
	chess960 bool
}

// position returns a fresh position for the opening with its book moves
// made, and the book moves as board moves.
func (o *opening) position() (*board.Position, []board.Move, error) {
	p, err := board.ParseFEN(o.fen)
	if err != nil {
		return nil, nil, err
	}
	moves := make([]board.Move, 0, len(o.moves))
	for _, s := range o.moves {
		m, err := p.ParseUCIMove(s)
		if err != nil {
			return nil, nil, err
		}
		moves = append(moves, m)
		p.MakeMove(m)
	}
	for range moves {
		p.UnmakeMove()
	}
	return p, moves, nil
}

// loadOpenings reads the opening file named in the configuration, or
// returns the standard start position.
func loadOpenings(c *OpeningsConfig) ([]opening, error) {
	if c.File == "" {
		return []opening{{fen: board.StartFEN}}, nil
	}
	f, err := os.Open(c.File)
	if err != nil {
		return nil, fmt.Errorf("openings: %w", err)
	}
	defer f.Close()
	var ops []opening
	if c.Format == "pgn" {
		ops, err = readPGNOpenings(f, c.File, c.Plies)
	} else {
		ops, err = readEPD(f, c.File)
	}
	if err != nil {
		return nil, err
	}
	if len(ops) == 0 {
		return nil, fmt.Errorf("openings: %s holds no positions", c.File)
	}
	if c.Start > len(ops) {
		return nil, fmt.Errorf("openings: start=%d but %s holds %d openings", c.Start, c.File, len(ops))
	}
	return ops, nil
}

// readEPD reads one position per line: the four EPD fields, optionally
// followed by the two FEN clocks or hmvc/fmvn operations. Blank lines and
// lines starting with # are skipped.
func readEPD(r io.Reader, name string) ([]opening, error) {
	var ops []opening
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || text[0] == '#' {
			continue
		}
		f := strings.Fields(text)
		if len(f) < 4 {
			return nil, fmt.Errorf("%s:%d: an EPD line needs 4 fields (placement, side, castling, en passant), got %d", name, line, len(f))
		}
		hmvc, fmvn := "0", "1"
		if len(f) >= 6 && isUint(f[4]) && isUint(f[5]) {
			hmvc, fmvn = f[4], f[5]
		} else {
			ops := strings.Join(f[4:], " ")
			for _, op := range strings.Split(ops, ";") {
				w := strings.Fields(op)
				if len(w) == 2 && isUint(w[1]) {
					switch w[0] {
					case "hmvc":
						hmvc = w[1]
					case "fmvn":
						fmvn = w[1]
					}
				}
			}
		}
		fen := strings.Join(f[:4], " ") + " " + hmvc + " " + fmvn
		p, err := board.ParseFEN(fen)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		ops = append(ops, opening{fen: p.FEN(), chess960: p.Chess960()})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return ops, nil
}

func isUint(s string) bool {
	_, err := strconv.ParseUint(s, 10, 32)
	return err == nil
}

// pgnGame is a game read from PGN: its tags and SAN moves with the line
// each move token was on.
type pgnGame struct {
	tags     map[string]string
	moves    []string
	comments []string // the comment after each move ("" for none)
	tail     []string // the comments after the last move (a game's end reason last)
	lines    []int
	line     int // first line of the game
	// start and end are the byte offsets of the game's first character
	// and of the end of its result token (end is 0 while none was read);
	// ended is that token ("1-0", "0-1", "1/2-1/2", "*").
	start, end int64
	ended      string
	// dupTag names a tag the game has twice (a game glued onto a cut
	// one's tags), "" if none.
	dupTag string
}

// readPGN splits PGN text into games. It understands tag pairs, comments
// ({} and ;), variations (skipped), NAGs, move numbers and result tokens.
//
// A read error (a damaged compressed file, say) is the error returned, in
// place of what the text cut short by it looks like. With a syntax error
// the games read so far come back too, the one it is in last with no
// result token (a resume keeps the finished ones; every other caller stops
// at the error).
func readPGN(r io.Reader, name string) (_ []pgnGame, err error) {
	er := &errReader{r: r}
	line := 1
	defer func() {
		if er.err != nil {
			var ze *zstdfile.Error
			if errors.As(er.err, &ze) {
				err = er.err // it names the file
			} else {
				err = fmt.Errorf("%s:%d: %w", name, line, er.err)
			}
		}
	}()
	br := bufio.NewReader(er)
	var games []pgnGame
	var g *pgnGame
	var off, at int64 // bytes read; the offset of the current character or token
	start := func() {
		if g == nil {
			games = append(games, pgnGame{tags: map[string]string{}, line: line, start: at})
			g = &games[len(games)-1]
		}
	}
	finish := func() { g = nil }
	// fail returns a syntax error with the games read so far, the one it
	// is in last, unfinished (no result token).
	fail := func(format string, a ...any) ([]pgnGame, error) {
		return games, fmt.Errorf(format, a...)
	}
	depth := 0  // variation nesting
	bol := true // at the beginning of a line
	readRune := func() (rune, bool) {
		c, size, err := br.ReadRune()
		if err != nil {
			return 0, false
		}
		off += int64(size)
		if c == '\n' {
			line++
		}
		return c, true
	}
	for {
		atBOL := bol
		at = off
		c, ok := readRune()
		if !ok {
			break
		}
		bol = c == '\n'
		switch {
		case c == '%' && atBOL: // escape line (PGN standard, section 6)
			for c != '\n' && ok {
				c, ok = readRune()
			}
			bol = true
		case c == '{':
			startLine := line
			var sb strings.Builder
			for {
				c, ok = readRune()
				if !ok {
					return fail("%s:%d: comment never closed", name, startLine)
				}
				if c == '}' {
					break
				}
				sb.WriteRune(c)
			}
			if g != nil && depth == 0 {
				if len(g.moves) > 0 && g.comments[len(g.moves)-1] == "" {
					g.comments[len(g.moves)-1] = sb.String()
				}
				g.tail = append(g.tail, sb.String())
			}
		case c == ';':
			for c != '\n' && ok {
				c, ok = readRune()
			}
			bol = true
		case c == '(':
			depth++
		case c == ')':
			if depth == 0 {
				return fail("%s:%d: ')' without '('", name, line)
			}
			depth--
		case c == '[' && depth == 0:
			if g != nil && len(g.moves) > 0 {
				finish()
			}
			start()
			var sb strings.Builder
			startLine := line
			for {
				c, ok = readRune()
				if !ok || c == '\n' {
					return fail("%s:%d: tag pair not closed by ]", name, startLine)
				}
				if c == ']' {
					break
				}
				sb.WriteRune(c)
			}
			key, val, ok := parseTag(sb.String())
			if !ok {
				return fail("%s:%d: bad tag pair [%s]", name, startLine, sb.String())
			}
			if _, dup := g.tags[key]; dup && g.dupTag == "" {
				g.dupTag = key
			}
			g.tags[key] = val
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			var sb strings.Builder
			sb.WriteRune(c)
			tokLine := line
			for {
				b, err := br.Peek(1)
				if err != nil || strings.ContainsRune(" \t\r\n{};()[]", rune(b[0])) {
					break
				}
				c, _ = readRune()
				sb.WriteRune(c)
			}
			if depth > 0 {
				continue
			}
			tok := sb.String()
			switch {
			case tok == "1-0" || tok == "0-1" || tok == "1/2-1/2" || tok == "*":
				start()
				g.end, g.ended = off, tok
				finish()
			case tok[0] == '$':
			case tok[0] >= '0' && tok[0] <= '9' && strings.Trim(tok, "0123456789.") == "":
				// move number
			default:
				if i := strings.LastIndexByte(tok, '.'); i >= 0 && isUint(tok[:strings.IndexByte(tok, '.')]) {
					tok = strings.TrimLeft(tok[i:], ".") // "12.e4"
				}
				if tok == "" {
					continue
				}
				start()
				g.moves = append(g.moves, tok)
				g.comments = append(g.comments, "")
				g.tail = nil
				g.lines = append(g.lines, tokLine)
			}
		}
	}
	return games, nil
}

// errReader keeps the first error other than io.EOF its reader returned.
type errReader struct {
	r   io.Reader
	err error
}

func (e *errReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && err != io.EOF && e.err == nil {
		e.err = err
	}
	return n, err
}

// parseTag parses the inside of [Key "Value"].
func parseTag(s string) (string, string, bool) {
	s = strings.TrimSpace(s)
	i := strings.IndexAny(s, " \t")
	if i <= 0 {
		return "", "", false
	}
	key, rest := s[:i], strings.TrimSpace(s[i:])
	if len(rest) < 2 || rest[0] != '"' || rest[len(rest)-1] != '"' {
		return "", "", false
	}
	val := rest[1 : len(rest)-1]
	val = strings.ReplaceAll(val, `\"`, `"`)
	val = strings.ReplaceAll(val, `\\`, `\`)
	return key, val, true
}

// readPGNOpenings reads PGN games as openings: the FEN tag (or the start
// position) and the first plies moves (all if plies is 0).
func readPGNOpenings(r io.Reader, name string, plies int) ([]opening, error) {
	games, err := readPGN(r, name)
	if err != nil {
		return nil, err
	}
	var ops []opening
	for _, g := range games {
		fen := board.StartFEN
		if f, ok := g.tags["FEN"]; ok {
			fen = f
		}
		p, err := board.ParseFEN(fen)
		if err != nil {
			return nil, fmt.Errorf("%s:%d: FEN tag: %w", name, g.line, err)
		}
		if v := strings.ToLower(g.tags["Variant"]); strings.Contains(v, "960") || strings.Contains(v, "fischer") {
			p.SetChess960(true)
		}
		o := opening{fen: p.FEN(), chess960: p.Chess960()}
		for i, san := range g.moves {
			if plies > 0 && i >= plies {
				break
			}
			m, err := p.ParseSAN(san)
			if err != nil {
				return nil, fmt.Errorf("%s:%d: move %q: %w", name, g.lines[i], san, err)
			}
			o.moves = append(o.moves, p.UCI(m))
			p.MakeMove(m)
		}
		ops = append(ops, o)
	}
	return ops, nil
}

// openingOrder hands out openings one per game pair: sequentially from a
// start index, or in random order (a fresh permutation each time the list
// is used up), reproducibly from a seed.
type openingOrder struct {
	ops    []opening
	random bool
	rng    *rand.Rand
	perm   []int
	next   int
}

func newOpeningOrder(ops []opening, c *OpeningsConfig, seed uint64) *openingOrder {
	o := &openingOrder{ops: ops, random: c.Order == "random"}
	if !o.random {
		if c.Start > 0 {
			o.next = c.Start - 1
		}
		return o
	}
	// A random order starting later is the same sequence with its first
	// openings skipped, so that matches played in pieces (a ladder's
	// chunks) together play the openings one match would.
	o.rng = rand.New(rand.NewPCG(seed, 0x6e6e75656c6162))
	for range c.Start - 1 {
		o.take()
	}
	return o
}

// take returns the next opening.
func (o *openingOrder) take() *opening {
	if !o.random {
		op := &o.ops[o.next%len(o.ops)]
		o.next++
		return op
	}
	if o.next >= len(o.perm) {
		o.perm = o.rng.Perm(len(o.ops))
		o.next = 0
	}
	op := &o.ops[o.perm[o.next]]
	o.next++
	return op
}
