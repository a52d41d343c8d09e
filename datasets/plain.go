package datasets

// Stockfish's .plain training-data text (the "tools" branch's convert
// command): one entry per position,
//
//	fen <FEN>
//	move <move in UCI notation>
//	score <centipawns, side to move's view>
//	ply <game ply>
//	result <-1, 0 or 1, side to move's view>
//	e
//
// as Stockfish's tools write it: the FEN's castling field is KQkq (X-FEN
// letters here, so that Chess960 positions keep their rooks; the tools
// themselves know only standard chess), its move number is ply/2+1, its
// en-passant square follows the rule of binpack.go (kept only when a legal
// en-passant capture exists), and castling is written as the king's
// two-square move (e1g1) when the king starts on the e-file and the rook on
// the a- or h-file, as king takes rook (Chess960's e1h1 form) otherwise.
//
// The reader accepts the five fields in any order (each once) and blank
// lines between them; it takes castling as the king's two-square move or as
// king takes castling rook, and "a9a9" (what the tools write for a
// position without a move) or UCI's "0000" as no move. The ply must agree with
// the FEN's move number and side to move (a Record keeps the ply as those
// two), the move must be legal, the score an int16, the ply at most 65535
// (Stockfish's uint16). Writing the records back gives the same bytes for
// every file in that canonical form (every file Stockfish's tools and
// nnuelab write).

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/internal/fsutil"
)

// plainMaxPly is the largest ply .plain carries (Stockfish reads it into a
// uint16).
const plainMaxPly = 1<<16 - 1

// plainFields are the keys of an entry, in the order writers put them.
var plainFields = [5]string{"fen", "move", "score", "ply", "result"}

// plainReader reads a .plain file entry by entry.
type plainReader struct {
	name string
	br   *bufio.Reader
	fileCloser
	o       Options
	line    int64
	skipped int64
	err     error
	pos     bpos
	after   bpos
	vals    [5]string
	lines   [5]int64
}

func newPlainReader(br *bufio.Reader, name string, o Options) (Reader, error) {
	return &plainReader{name: name, br: br, o: o}, nil
}

func (r *plainReader) Skipped() int64 { return r.skipped }
func (r *plainReader) Format() Format { return FormatPlain }

// readLine returns the next line without its end (readLine of io.go).
func (r *plainReader) readLine() (line []byte, long bool, err error) { return readLine(r.br) }

func (r *plainReader) fail(line int64, format string, args ...any) *EntryError {
	return &EntryError{r.name, "line", line, fmt.Errorf(format, args...)}
}

func (r *plainReader) Next() (Record, error) {
	if r.err != nil {
		return Record{}, r.err
	}
	for {
		rec, fatal, err := r.entry()
		if err == nil {
			return rec, nil
		}
		if fatal || !r.o.SkipBad {
			r.err = err
			return Record{}, err
		}
		r.skipped++
		if r.o.OnSkip != nil {
			r.o.OnSkip(err)
		}
	}
}

// entry reads one entry. A bad entry is read to its "e" line before the
// error returns, so that reading can go on; fatal errors (truncation, I/O,
// io.EOF) cannot be skipped.
func (r *plainReader) entry() (rec Record, fatal bool, err error) {
	var seen [5]bool
	start := int64(0)
	var bad error
	for {
		line, long, err := r.readLine()
		if err != nil {
			if err == io.EOF {
				if start == 0 {
					return rec, true, io.EOF
				}
				return rec, true, r.fail(r.line+1, "file ends inside the entry that starts at line %d, before its \"e\" line (truncated)", start)
			}
			return rec, true, r.fail(r.line+1, "%v", err)
		}
		r.line++
		if long {
			if bad == nil {
				bad = r.fail(r.line, "line longer than %d bytes", maxLine)
			}
			if start == 0 {
				start = r.line
			}
			continue
		}
		if len(bytes.TrimSpace(line)) == 0 {
			continue
		}
		if start == 0 {
			start = r.line
		}
		key, val, _ := strings.Cut(string(line), " ")
		if key == "e" {
			if bad == nil && strings.TrimSpace(val) != "" {
				bad = r.fail(r.line, "text after \"e\"")
			}
			if bad != nil {
				return rec, false, bad
			}
			for i, ok := range seen {
				if !ok {
					return rec, false, r.fail(r.line, "entry from line %d has no %q line", start, plainFields[i])
				}
			}
			rec, err := r.build()
			return rec, false, err
		}
		if bad != nil {
			continue
		}
		i := 0
		for i < len(plainFields) && plainFields[i] != key {
			i++
		}
		switch {
		case i == len(plainFields):
			bad = r.fail(r.line, "unknown key %q (want fen, move, score, ply, result or e)", key)
		case seen[i]:
			bad = r.fail(r.line, "second %q line in the entry from line %d", key, start)
		default:
			seen[i] = true
			r.vals[i] = strings.TrimSpace(val)
			r.lines[i] = r.line
		}
	}
}

// build makes the record of the fields read.
func (r *plainReader) build() (Record, error) {
	v, ln := &r.vals, &r.lines
	rec, err := ParseFEN(v[0])
	if err != nil {
		return rec, r.fail(ln[0], "%v", err)
	}
	rec.flags &^= flagShredder
	p := &r.pos
	p.fromRecord(&rec)
	rec.ep = uint8(p.ep)
	ply, err := strconv.Atoi(v[3])
	if err != nil || ply < 0 || ply > plainMaxPly {
		return rec, r.fail(ln[3], "bad ply %q: expected an integer from 0 to %d", v[3], plainMaxPly)
	}
	if ply != rec.Ply() {
		return rec, r.fail(ln[3], "ply %d disagrees with the FEN's move number %d and side to move (ply %d)", ply, rec.fullmove, rec.Ply())
	}
	m, err := p.parseUCI(v[1])
	if err != nil {
		return rec, r.fail(ln[1], "%v", err)
	}
	if m != board.NullMove && !p.legal(m, &r.after) {
		return rec, r.fail(ln[1], "move %q is not legal in %s", v[1], rec.FEN())
	}
	s, err := strconv.ParseInt(v[2], 10, 16)
	if err != nil {
		return rec, r.fail(ln[2], "bad score %q: expected an integer from %d to %d", v[2], MinScore, MaxScore)
	}
	ws, err := whiteScore(int16(s), p.stm)
	if err != nil {
		return rec, r.fail(ln[2], "%v", err)
	}
	res, err := strconv.Atoi(v[4])
	if err == nil {
		rec.Result, err = whiteResult(res, p.stm)
	}
	if err != nil {
		return rec, r.fail(ln[4], "bad result %q: expected -1, 0 or 1", v[4])
	}
	rec.Score, rec.Move = ws, m
	return rec, nil
}

// parseUCI reads a move in UCI notation for the side to move: castling as
// the king's two-square move or as king takes castling rook, "a9a9" or
// "0000" as no move. Only the form is checked here; legal checks the rest.
func (p *bpos) parseUCI(s string) (board.Move, error) {
	if s == "a9a9" || s == "0000" {
		return board.NullMove, nil
	}
	if len(s) != 4 && len(s) != 5 {
		return 0, fmt.Errorf("move %q: expected UCI notation like e2e4 or e7e8q", s)
	}
	sq := func(t string) (board.Square, bool) {
		if t[0] < 'a' || t[0] > 'h' || t[1] < '1' || t[1] > '8' {
			return 0, false
		}
		return board.MakeSquare(int(t[0]-'a'), int(t[1]-'1')), true
	}
	from, ok1 := sq(s[0:2])
	to, ok2 := sq(s[2:4])
	if !ok1 || !ok2 {
		return 0, fmt.Errorf("move %q: bad square", s)
	}
	if len(s) == 5 {
		i := strings.IndexByte("nbrq", s[4])
		if i < 0 {
			return 0, fmt.Errorf("move %q: bad promotion piece %q", s, s[4:])
		}
		return makeMove(from, to, board.Promotion, board.Knight+board.PieceType(i)), nil
	}
	us := p.stm
	switch p.sq[from] {
	case board.MakePiece(us, board.King):
		if (p.castle & p.byColor[us]).Has(to) {
			return makeMove(from, to, board.Castling, 0), nil
		}
		if d := to.File() - from.File(); (d > 1 || d < -1) && to.Rank() == from.Rank() {
			long, short := p.castleRights()
			rook := short
			if d < 0 {
				rook = long
			}
			if rook == 0 {
				return 0, fmt.Errorf("move %q: castling without the right", s)
			}
			return makeMove(from, rook.LSB(), board.Castling, 0), nil
		}
	case board.MakePiece(us, board.Pawn):
		if to == p.ep {
			return makeMove(from, to, board.EnPassant, 0), nil
		}
	}
	return makeMove(from, to, board.Normal, 0), nil
}

// uci writes a move in UCI notation the way Stockfish's tools do: castling
// as the king's two-square move when king and rook stand on their standard
// files, as king takes rook otherwise (Chess960); no move as "a9a9" (the
// tools' text for their null move, whose squares are "none", one past h8).
func (p *bpos) uci(m board.Move) string {
	if m == board.NullMove {
		return "a9a9"
	}
	if m.Kind() == board.Castling {
		from, to := m.From(), m.To()
		if from.File() == 4 && (to.File() == 0 || to.File() == 7) {
			kto, _ := castleTargets(p.stm, from, to)
			return from.String() + kto.String()
		}
	}
	return moveText(m)
}

// plainWriter writes .plain entries.
type plainWriter struct {
	bw    *bufio.Writer
	af    *fsutil.File
	n     int64
	err   error
	pos   bpos
	after bpos
	buf   []byte
}

func newPlainWriter(f *os.File, af *fsutil.File) (Writer, error) {
	return newPlainWriterTo(f, af), nil
}

// newPlainWriterTo writes to w; af (may be nil) is committed or aborted by
// Close and Abort.
func newPlainWriterTo(w io.Writer, af *fsutil.File) *plainWriter {
	return &plainWriter{bw: bufio.NewWriterSize(w, 1<<16), af: af}
}

// Write appends one entry. An invalid record, an illegal Move, a ply above
// 65535 or a White-view score of -32768 with Black to move is an error and
// writes nothing.
func (w *plainWriter) Write(r Record) error {
	if w.err != nil {
		return w.err
	}
	if err := r.validate(); err != nil {
		return fmt.Errorf("record %d: %w", w.n+1, err)
	}
	p := &w.pos
	p.fromRecord(&r)
	s, err := stmScore(r.Score, p.stm)
	if err != nil {
		return fmt.Errorf("record %d: %w", w.n+1, err)
	}
	if p.ply > plainMaxPly {
		return fmt.Errorf("record %d: ply %d above .plain's %d", w.n+1, p.ply, plainMaxPly)
	}
	if r.Move != board.NullMove && !p.legal(r.Move, &w.after) {
		return fmt.Errorf("record %d: move %s is not legal in %s", w.n+1, moveText(r.Move), r.FEN())
	}
	r.flags &^= flagShredder
	r.ep = uint8(p.ep)
	b := append(w.buf[:0], "fen "...)
	b = append(b, r.FEN()...)
	b = append(b, "\nmove "...)
	b = append(b, p.uci(r.Move)...)
	b = append(b, "\nscore "...)
	b = strconv.AppendInt(b, int64(s), 10)
	b = append(b, "\nply "...)
	b = strconv.AppendInt(b, int64(p.ply), 10)
	b = append(b, "\nresult "...)
	b = strconv.AppendInt(b, int64(stmResult(r.Result, p.stm)), 10)
	b = append(b, "\ne\n"...)
	w.buf = b
	if _, err := w.bw.Write(b); err != nil {
		w.err = err
		return err
	}
	w.n++
	return nil
}

func (w *plainWriter) Count() int64 { return w.n }

func (w *plainWriter) Close() error {
	err := w.err
	if err == nil {
		err = w.bw.Flush()
	}
	return finishFile(w.af, err)
}

func (w *plainWriter) Abort() error {
	return w.af.Abort()
}
