package board

import (
	"fmt"
	"strconv"
	"strings"
)

// FENError says which FEN field is wrong, what was expected and what was found.
type FENError struct {
	Field    string // "piece placement", "side to move", "castling", "en passant", "halfmove clock", "fullmove number" or "position"
	Expected string
	Found    string
}

func (e *FENError) Error() string {
	return fmt.Sprintf("bad FEN %s field: expected %s, found %s", e.Field, e.Expected, e.Found)
}

func fenErr(field, expected, format string, args ...any) error {
	return &FENError{Field: field, Expected: expected, Found: fmt.Sprintf(format, args...)}
}

// ParseFEN parses a FEN or EPD position (the clocks may be omitted and
// default to 0 and 1). The castling field may be standard (KQkq), X-FEN (KQkq
// meaning the outermost rook, file letters when ambiguous) or Shredder-FEN
// (rook files, as "HAha"); a file-letter field or a king or rook off its
// standard square turns on Chess960 move notation. Illegal positions (wrong
// king count, pawns on a back rank, the side not to move in check, ...) are
// errors that name the field at fault.
func ParseFEN(fen string) (*Position, error) {
	p := &Position{stack: make([]state, 0, 256)}
	if err := p.SetFEN(fen); err != nil {
		return nil, err
	}
	return p, nil
}

// SetFEN sets p to the position fen describes, read and checked as ParseFEN
// does, reusing p's memory (a zero Position will do): the way to read many
// positions without allocating one each. After an error p holds no usable
// position until SetFEN succeeds.
func (p *Position) SetFEN(fen string) error {
	fields := strings.Fields(fen)
	if len(fields) == 0 {
		return fenErr("piece placement", "8 ranks separated by '/'", "an empty FEN")
	}
	// Fields are checked in order, so the error names the first bad one; a
	// missing required field is reported as found "nothing".
	for len(fields) < 4 {
		fields = append(fields, "")
	}
	stack := p.stack[:0]
	if cap(stack) == 0 {
		stack = make([]state, 0, 256)
	}
	*p = Position{stack: append(stack, state{ep: NoSquare, captured: NoPiece}), fullmove: 1}
	p.st = &p.stack[0]
	for s := range p.board {
		p.board[s] = NoPiece
	}
	for s := range p.castleMask {
		p.castleMask[s] = 15
	}
	for i := range p.castleInfo {
		p.castleInfo[i].rookFrom = NoSquare
	}

	if err := p.parsePlacement(fields[0]); err != nil {
		return err
	}

	switch fields[1] {
	case "w":
		p.side = White
	case "b":
		p.side = Black
	default:
		return fenErr("side to move", `"w" or "b"`, "%s", quoteOrNothing(fields[1]))
	}

	if err := p.parseCastling(fields[2]); err != nil {
		return err
	}

	if fields[3] == "" {
		return fenErr("en passant", `"-" or a square`, "nothing")
	}
	if fields[3] != "-" {
		s, ok := ParseSquare(fields[3])
		wantRank := 5
		if p.side == Black {
			wantRank = 2
		}
		if !ok || s.Rank() != wantRank {
			return fenErr("en passant", fmt.Sprintf(`"-" or a square on rank %d`, wantRank+1), "%q", fields[3])
		}
		them := p.side.Other()
		pawnSq := s ^ 8 // the pawn that just made the double push
		origin := s + 8 // where that pawn started
		if p.side == Black {
			origin = s - 8
		}
		if p.board[pawnSq] != MakePiece(them, Pawn) || p.board[s] != NoPiece || p.board[origin] != NoPiece {
			return fenErr("en passant", "a square just passed by a pawn's double push", "%s with no such pawn move possible", fields[3])
		}
		// Keep the square only when a pawn can take there, as Stockfish does, so
		// that equal positions have equal keys.
		if pawnAttacks[them][s]&p.Pieces(p.side, Pawn) != 0 {
			p.st.ep = s
		}
	}

	if len(fields) > 4 && isEPDOperation(fields[4:]) {
		fields = fields[:4]
	}
	if len(fields) > 4 {
		n, err := strconv.Atoi(fields[4])
		if err != nil || n < 0 || n > 10000 {
			return fenErr("halfmove clock", "a non-negative integer", "%q", fields[4])
		}
		p.st.halfmove = uint16(n)
	}
	if len(fields) > 5 {
		n, err := strconv.Atoi(fields[5])
		if err != nil || n < 0 || n > 100000 {
			return fenErr("fullmove number", "a positive integer", "%q", fields[5])
		}
		if n == 0 {
			n = 1 // some tools write 0; treat as the first move
		}
		p.fullmove = n
	}
	if len(fields) > 6 && !isEPDOperation(fields[6:]) {
		return fenErr("position", "at most 6 fields or EPD operations", "extra text %q", strings.Join(fields[6:], " "))
	}

	if p.AttackersTo(p.kings[p.side.Other()], p.side, p.occ) != 0 {
		return fenErr("side to move", "the side not to move not in check", "%s to move while %s's king on %s is attacked", p.side, p.side.Other(), p.kings[p.side.Other()])
	}
	p.st.key = p.computeKey()
	return nil
}

func quoteOrNothing(s string) string {
	if s == "" {
		return "nothing"
	}
	return fmt.Sprintf("%q", s)
}

// isEPDOperation reports whether the fields start an EPD operation: an
// opcode (a letter, then letters, digits or '_') whose operation ends in ';'.
func isEPDOperation(fields []string) bool {
	op := fields[0]
	if op == "" || !(op[0] >= 'a' && op[0] <= 'z' || op[0] >= 'A' && op[0] <= 'Z') {
		return false
	}
	for i := 1; i < len(op); i++ {
		c := op[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == ';') {
			return false
		}
	}
	return strings.Contains(strings.Join(fields, " "), ";")
}

// ParseSquare reads a square in algebraic notation ("e3").
func ParseSquare(s string) (Square, bool) {
	if len(s) != 2 || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8' {
		return NoSquare, false
	}
	return MakeSquare(int(s[0]-'a'), int(s[1]-'1')), true
}

func (p *Position) parsePlacement(f string) error {
	const field = "piece placement"
	ranks := strings.Split(f, "/")
	if len(ranks) != 8 {
		return fenErr(field, "8 ranks separated by '/'", "%d rank(s) in %q", len(ranks), f)
	}
	var count [12]int
	for i, r := range ranks {
		rank := 7 - i
		file := 0
		for j := 0; j < len(r); j++ {
			c := r[j]
			if c >= '1' && c <= '8' {
				file += int(c - '0')
				if file > 8 {
					return fenErr(field, "8 files per rank", "more than 8 in rank %d %q", rank+1, r)
				}
				continue
			}
			idx := strings.IndexByte(pieceLetters, c)
			if idx < 0 {
				return fenErr(field, "a piece letter (PNBRQKpnbrqk) or a digit 1-8", "%q in rank %d %q", string(rune(c)), rank+1, r)
			}
			if file >= 8 {
				return fenErr(field, "8 files per rank", "more than 8 in rank %d %q", rank+1, r)
			}
			pc := Piece(idx)
			s := MakeSquare(file, rank)
			if pc.Type() == Pawn && (rank == 0 || rank == 7) {
				return fenErr(field, "no pawn on the 1st or 8th rank", "%s on %s", pc, s)
			}
			p.putPiece(pc, s)
			count[pc]++
			file++
		}
		if file != 8 {
			return fenErr(field, "8 files per rank", "%d in rank %d %q", file, rank+1, r)
		}
	}
	for c := White; c <= Black; c++ {
		name := [2]string{"white", "black"}[c]
		switch k := count[MakePiece(c, King)]; {
		case k == 0:
			return fenErr(field, "one "+name+" king", "none")
		case k > 1:
			return fenErr(field, "one "+name+" king", "%d", k)
		}
		p.kings[c] = p.Pieces(c, King).LSB()
		if n := count[MakePiece(c, Pawn)]; n > 8 {
			return fenErr(field, "at most 8 "+name+" pawns", "%d", n)
		}
		if n := p.byColor[c].Count(); n > 16 {
			return fenErr(field, "at most 16 "+name+" pieces", "%d", n)
		}
	}
	return nil
}

func (p *Position) parseCastling(f string) error {
	const field = "castling"
	if f == "-" {
		return nil
	}
	if f == "" || len(f) > 4 {
		return fenErr(field, `"-" or up to 4 of KQkq / rook files`, "%s", quoteOrNothing(f))
	}
	// A field of file letters only is Shredder-FEN and prints back as such;
	// KQkq with the odd file letter is X-FEN.
	p.shredder = !strings.ContainsAny(f, "KQkq")
	for i := 0; i < len(f); i++ {
		c := f[i]
		color := White
		lc := c
		if c >= 'a' && c <= 'z' {
			color = Black
			lc = c - 'a' + 'A'
		}
		backRank := 0
		if color == Black {
			backRank = 7
		}
		ksq := p.kings[color]
		if ksq.Rank() != backRank || ksq.File() == 0 || ksq.File() == 7 {
			return fenErr(field, fmt.Sprintf("the %s king on its back rank between the rooks for %q", [2]string{"white", "black"}[color], string(c)), "the king on %s", ksq)
		}
		rook := MakePiece(color, Rook)
		var rsq Square = NoSquare
		switch {
		case lc == 'K':
			for f := 7; f > ksq.File(); f-- {
				if s := MakeSquare(f, backRank); p.board[s] == rook {
					rsq = s
					break
				}
			}
		case lc == 'Q':
			for f := 0; f < ksq.File(); f++ {
				if s := MakeSquare(f, backRank); p.board[s] == rook {
					rsq = s
					break
				}
			}
		case lc >= 'A' && lc <= 'H':
			rsq = MakeSquare(int(lc-'A'), backRank)
			if p.board[rsq] != rook || rsq == ksq {
				return fenErr(field, fmt.Sprintf("a %s rook on %s for %q", [2]string{"white", "black"}[color], rsq, string(c)), "%s", p.board[rsq])
			}
		default:
			return fenErr(field, `"-" or letters from KQkq / A-H / a-h`, "%q in %q", string(c), f)
		}
		if rsq == NoSquare {
			return fenErr(field, fmt.Sprintf("a %s rook on the back rank for %q", [2]string{"white", "black"}[color], string(c)), "none")
		}
		right := uint8(WhiteOO)
		if rsq < ksq {
			right = WhiteOOO
		}
		right <<= 2 * uint8(color)
		if p.st.castle&right != 0 {
			return fenErr(field, "each right at most once", "%q repeats a right", f)
		}
		p.addCastling(color, rsq)
		std := ksq == E1.Relative(color) && (rsq == A1.Relative(color) || rsq == H1.Relative(color))
		if !std || lc != 'K' && lc != 'Q' {
			p.chess960 = true
		}
	}
	return nil
}

// FEN returns the position in FEN. The castling field is written the way it
// was read: Shredder-FEN (rook files) if the FEN used file letters, else
// KQkq, with a file letter only where KQkq would be ambiguous (X-FEN).
func (p *Position) FEN() string {
	f := p.fenFields()
	return f.String()
}

func (p *Position) fenFields() FENFields {
	f := FENFields{
		Board:     &p.board,
		Side:      p.side,
		Shredder:  p.shredder,
		EnPassant: p.st.ep,
		Halfmove:  int(p.st.halfmove),
		Fullmove:  p.fullmove,
	}
	for i := range f.Castling {
		f.Castling[i] = NoSquare
		if p.st.castle&(1<<i) != 0 {
			f.Castling[i] = p.castleInfo[i].rookFrom
		}
	}
	return f
}

// FENFields is a position as FEN writes it, for the packages that hold
// boards in a form of their own (dataset records): Write puts it into FEN
// exactly as Position.FEN does. It is not checked; a legal position gives a
// FEN that ParseFEN reads back.
type FENFields struct {
	Board *[64]Piece // the piece on each square, NoPiece where empty
	Side  Color      // the side to move
	// Castling holds the castling rook of each right, in the order WhiteOO,
	// WhiteOOO, BlackOO, BlackOOO; NoSquare where the right is gone.
	Castling [4]Square
	// Shredder writes the castling field as rook files ("HAha"); otherwise
	// it is KQkq, with a file letter only where KQkq would be ambiguous
	// (X-FEN).
	Shredder           bool
	EnPassant          Square // written as given; NoSquare for none
	Halfmove, Fullmove int
}

// String returns the FEN.
func (f *FENFields) String() string {
	var b strings.Builder
	b.Grow(90)
	f.Write(&b)
	return b.String()
}

// Write writes the FEN to b.
func (f *FENFields) Write(b *strings.Builder) {
	f.writePlacement(b)
	b.WriteByte(' ')
	b.WriteString(f.Side.String())
	b.WriteByte(' ')
	f.writeCastling(b)
	b.WriteByte(' ')
	b.WriteString(f.EnPassant.String())
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(f.Halfmove))
	b.WriteByte(' ')
	b.WriteString(strconv.Itoa(f.Fullmove))
}

func (f *FENFields) writePlacement(b *strings.Builder) {
	for rank := 7; rank >= 0; rank-- {
		empty := 0
		for file := 0; file < 8; file++ {
			pc := f.Board[MakeSquare(file, rank)]
			if pc == NoPiece {
				empty++
				continue
			}
			if empty > 0 {
				b.WriteByte(byte('0' + empty))
				empty = 0
			}
			b.WriteString(pc.String())
		}
		if empty > 0 {
			b.WriteByte(byte('0' + empty))
		}
		if rank > 0 {
			b.WriteByte('/')
		}
	}
}

func (f *FENFields) writeCastling(b *strings.Builder) {
	none := true
	for i, rsq := range f.Castling {
		if rsq == NoSquare {
			continue
		}
		color := Color(i / 2)
		letter := "KQkq"[i]
		if f.Shredder || !f.outermostRook(color, rsq, i%2 == 1) {
			letter = byte('A' + rsq.File())
			if color == Black {
				letter += 'a' - 'A'
			}
		}
		b.WriteByte(letter)
		none = false
	}
	if none {
		b.WriteByte('-')
	}
}

// outermostRook reports whether rsq is the rook farthest from the king on
// its side of the back rank (the queen side if queenside), the one X-FEN's K
// or Q denotes.
func (f *FENFields) outermostRook(c Color, rsq Square, queenside bool) bool {
	step := 1
	if queenside {
		step = -1
	}
	for s := int(rsq) + step; s >= int(A1.Relative(c)) && s <= int(H1.Relative(c)); s += step {
		if f.Board[s] == MakePiece(c, Rook) {
			return false
		}
	}
	return true
}

// Transformed returns the position with every piece moved from s to f(s) (a
// mirror or a rotation), and with colours and the side to move swapped when
// swap is set. Castling rights, en passant and the clocks are dropped. The
// symmetry tests of evaluators use it.
func (p *Position) Transformed(f func(Square) Square, swap bool) (*Position, error) {
	var cells [64]Piece
	for s := range cells {
		cells[s] = NoPiece
	}
	for s := Square(0); s < 64; s++ {
		if pc := p.board[s]; pc != NoPiece {
			if swap {
				pc = MakePiece(pc.Color().Other(), pc.Type())
			}
			cells[f(s)&63] = pc
		}
	}
	stm := p.side
	if swap {
		stm = stm.Other()
	}
	ff := FENFields{Board: &cells, Side: stm, Castling: [4]Square{NoSquare, NoSquare, NoSquare, NoSquare}, EnPassant: NoSquare, Fullmove: 1}
	return ParseFEN(ff.String())
}

// castlingField returns the FEN's castling field.
func (p *Position) castlingField() string {
	f := p.fenFields()
	var b strings.Builder
	f.writeCastling(&b)
	return b.String()
}
