// Package datasets holds nnuelab's training-position formats: the Record
// type (one position with its score, game result and the move played), the
// CudAD text format "FEN [wdl] score" (plain or zstd), a packed 32-byte
// binary record in zstd-compressed packs, Stockfish's .binpack and .plain,
// and bullet's bulletformat; streaming readers and atomic writers for each,
// the position filter, external-memory shuffling and dataset statistics.
// Making data is elsewhere: datasets/datagen plays self-play games and
// datasets/label rescores a set with a UCI engine, so that reading a file
// needs neither the search nor a process spawner.
//
// The trainer's view of the package is small: Records(path, opts).All()
// ranges over a file's records (text, text.zst, binary pack, binpack or
// .plain, detected from the content; bullet by name), and each Record
// gives its Score, Result and pieces (Record.Pieces walks them without
// building a board.Position).
package datasets

import (
	"encoding/binary"
	"fmt"
	"math/bits"
	"strconv"
	"strings"
	"sync"

	"github.com/nnuelab/nnuelab/datasets/internal/splitmix"
	"github.com/nnuelab/nnuelab/engine/board"
)

// Result is a game's outcome from White's point of view, as the dataset
// formats store it.
type Result uint8

// The three results. The numbering is the binary record's result byte.
const (
	BlackWin Result = 0
	Draw     Result = 1
	WhiteWin Result = 2
)

// WDL returns the result as a training target: 0 (Black won), 0.5 (draw) or
// 1 (White won).
func (r Result) WDL() float32 { return float32(r) / 2 }

// String returns the result as the text format writes it: "0.0", "0.5" or
// "1.0".
func (r Result) String() string {
	switch r {
	case BlackWin:
		return "0.0"
	case Draw:
		return "0.5"
	case WhiteWin:
		return "1.0"
	}
	return fmt.Sprintf("Result(%d)", uint8(r))
}

// Valid reports whether r is one of the three results.
func (r Result) Valid() bool { return r <= WhiteWin }

// ParseResult reads a result as the text format writes it: "1.0", "0.5",
// "0.0" (also "1", "0" and "1/2").
func ParseResult(s string) (Result, error) {
	switch s {
	case "1.0", "1":
		return WhiteWin, nil
	case "0.5", "1/2":
		return Draw, nil
	case "0.0", "0":
		return BlackWin, nil
	}
	return 0, fmt.Errorf("bad result %q: expected 1.0, 0.5 or 0.0", s)
}

// Limits of what a Record can hold (the binary record's field widths).
const (
	MaxHalfmove = 255   // largest halfmove clock
	MaxFullmove = 65535 // largest fullmove number
	MinScore    = -32768
	MaxScore    = 32767
)

// Piece codes of the packed board: 0..11 are board.Piece values (white
// pawn ... black king); 12 and 13 are a white and a black rook that still
// has its castling right, which makes castling (Chess960 included) part of
// the piece layout.
const (
	codeWhiteCastleRook = 12
	codeBlackCastleRook = 13
)

var colorName = [2]string{"white", "black"}

// Flag bits of the flags byte.
const (
	flagBlackToMove = 1 << 0
	flagShredder    = 1 << 1 // castling field written as rook files (Shredder-FEN)
	flagsKnown      = flagBlackToMove | flagShredder
)

// Record is one training position: the board, side to move, castling rights,
// en-passant square and clocks exactly as the FEN gave them, the score in
// centipawns from White's point of view, the game's result from White's
// point of view and, where the format keeps it, the move played from the
// position. Its board, clocks, score and result take the 32 bytes of the
// binary format.
//
// The zero Record is not a valid position; make Records with ParseText,
// FromPosition or UnmarshalBinary.
type Record struct {
	occ      board.Bitboard
	pieces   [16]byte // 4-bit piece codes of the occupied squares, ascending, low nibble first
	fullmove uint16

	// Score is the position's score in centipawns from White's view.
	Score int16

	flags    uint8
	ep       uint8 // en-passant square as written in the FEN, 64 for none
	halfmove uint8

	// Result is the game's result from White's view.
	Result Result

	// Move is the move played from the position in its game, or
	// board.NullMove where the format does not keep it (the text format and
	// the 32-byte binary pack do not; binpack and .plain do). Training
	// filters read it (a capture is not a quiet position), and binpack needs
	// it to chain a game's positions into about 2 bytes each.
	Move board.Move
}

// RecordSize is the size of a Record in the binary format, in bytes.
const RecordSize = 32

// SideToMove returns the colour to move.
func (r *Record) SideToMove() board.Color { return board.Color(r.flags & flagBlackToMove) }

// Occupied returns the occupied squares.
func (r *Record) Occupied() board.Bitboard { return r.occ }

// PieceCount returns the number of pieces on the board, kings included.
func (r *Record) PieceCount() int { return r.occ.Count() }

// HalfmoveClock returns the plies since the last capture or pawn move.
func (r *Record) HalfmoveClock() int { return int(r.halfmove) }

// FullmoveNumber returns the FEN's move number (1 or more).
func (r *Record) FullmoveNumber() int { return int(r.fullmove) }

// Ply returns the game ply implied by the move number and side to move
// (0 for the standard start position).
func (r *Record) Ply() int { return 2*(int(r.fullmove)-1) + int(r.SideToMove()) }

// EnPassant returns the en-passant square as the FEN wrote it, or
// board.NoSquare. (board.Position keeps it only when a pawn can take there.)
func (r *Record) EnPassant() board.Square { return board.Square(r.ep) }

func (r *Record) code(i int) uint8 { return r.pieces[i>>1] >> (4 * uint(i&1)) & 15 }

func pieceOfCode(c uint8) board.Piece {
	switch c {
	case codeWhiteCastleRook:
		return board.MakePiece(board.White, board.Rook)
	case codeBlackCastleRook:
		return board.MakePiece(board.Black, board.Rook)
	}
	return board.Piece(c)
}

// Pieces calls fn for every piece on the board, in ascending square order
// (a1, b1, ..., h8). It allocates nothing and builds no board.Position: it is
// how a trainer computes feature indices.
func (r *Record) Pieces(fn func(p board.Piece, s board.Square)) {
	occ := r.occ
	for i := 0; occ != 0; i++ {
		s := occ.PopLSB()
		fn(pieceOfCode(r.code(i)), s)
	}
}

// PieceOn returns the piece on s, or board.NoPiece.
func (r *Record) PieceOn(s board.Square) board.Piece {
	if !r.occ.Has(s) {
		return board.NoPiece
	}
	i := bits.OnesCount64(uint64(r.occ) & (1<<s - 1))
	return pieceOfCode(r.code(i))
}

// Board returns the piece on every square (board.NoPiece for empty ones).
func (r *Record) Board() [64]board.Piece {
	var b [64]board.Piece
	for s := range b {
		b[s] = board.NoPiece
	}
	r.Pieces(func(p board.Piece, s board.Square) { b[s] = p })
	return b
}

// King returns colour c's king square.
func (r *Record) King(c board.Color) board.Square {
	// The nibble holding the king's code, found in all 32 at once: x has
	// a zero nibble where the code is, and the borrow trick flags the
	// lowest zero nibble exactly (higher flags may be false).
	k := uint64(board.MakePiece(c, board.King))
	n := r.occ.Count()
	for half := 0; half < 2 && half*16 < n; half++ {
		w := binary.LittleEndian.Uint64(r.pieces[8*half:])
		x := w ^ k*0x1111111111111111
		if used := n - 16*half; used < 16 {
			x |= ^uint64(0) << (4 * used) // unused nibbles never match
		}
		if t := (x - 0x1111111111111111) &^ x & 0x8888888888888888; t != 0 {
			i := 16*half + bits.TrailingZeros64(t)/4
			occ := r.occ
			for range i {
				occ &= occ - 1
			}
			return occ.LSB()
		}
	}
	return board.NoSquare
}

// CastlingRights returns the castling rights as board.WhiteOO|WhiteOOO|
// BlackOO|BlackOOO bits.
func (r *Record) CastlingRights() uint8 {
	var rights uint8
	occ := r.occ
	for i := 0; occ != 0; i++ {
		s := occ.PopLSB()
		switch r.code(i) {
		case codeWhiteCastleRook:
			rights |= castleRight(board.White, s, r.King(board.White))
		case codeBlackCastleRook:
			rights |= castleRight(board.Black, s, r.King(board.Black))
		}
	}
	return rights
}

// castleRight returns the right bit a castling rook on rsq gives colour c
// whose king stands on ksq.
func castleRight(c board.Color, rsq, ksq board.Square) uint8 {
	right := uint8(board.WhiteOO)
	if rsq < ksq {
		right = board.WhiteOOO
	}
	return right << (2 * uint8(c))
}

// BoardHash returns a 64-bit hash of the piece placement, side to move,
// castling rights and en-passant square (only when a pawn can take there, as
// board.Position keeps it); clocks, score and result are left out. Equal
// positions hash equally, so the hash deduplicates and keeps validation
// splits disjoint.
func (r *Record) BoardHash() uint64 {
	ep := uint64(64)
	if r.ep < 64 {
		us := r.SideToMove()
		var pawns board.Bitboard
		r.Pieces(func(p board.Piece, s board.Square) {
			if p == board.MakePiece(us, board.Pawn) {
				pawns |= board.Bit(s)
			}
		})
		if board.PawnAttacks(us.Other(), board.Square(r.ep))&pawns != 0 {
			ep = uint64(r.ep)
		}
	}
	lo := binary.LittleEndian.Uint64(r.pieces[0:8])
	hi := binary.LittleEndian.Uint64(r.pieces[8:16])
	h := splitmix.Mix64(uint64(r.occ) ^ 0x9e3779b97f4a7c15)
	h = splitmix.Mix64(h ^ lo)
	h = splitmix.Mix64(h ^ hi)
	return splitmix.Mix64(h ^ uint64(r.flags&flagBlackToMove)<<8 ^ ep)
}

// FEN returns the position in FEN, with the castling field written the way it
// was read (KQkq/X-FEN or Shredder-FEN, as board.Position.FEN does) and the
// en-passant square as given.
func (r *Record) FEN() string {
	var b strings.Builder
	b.Grow(90)
	r.appendFEN(&b)
	return b.String()
}

func (r *Record) appendFEN(b *strings.Builder) {
	sq := r.Board()
	f := board.FENFields{
		Board:     &sq,
		Side:      r.SideToMove(),
		Shredder:  r.flags&flagShredder != 0,
		EnPassant: board.Square(r.ep),
		Halfmove:  int(r.halfmove),
		Fullmove:  int(r.fullmove),
	}
	f.Castling = r.castlingRooks()
	f.Write(b)
}

// castlingRooks returns the castling rook of each right (WhiteOO, WhiteOOO,
// BlackOO, BlackOOO), board.NoSquare where the right is gone.
func (r *Record) castlingRooks() [4]board.Square {
	rooks := [4]board.Square{board.NoSquare, board.NoSquare, board.NoSquare, board.NoSquare}
	occ := r.occ
	for i := 0; occ != 0; i++ {
		s := occ.PopLSB()
		c := r.code(i)
		if c != codeWhiteCastleRook && c != codeBlackCastleRook {
			continue
		}
		col := board.Color(c - codeWhiteCastleRook)
		idx := 2 * int(col)
		if s < r.King(col) {
			idx++
		}
		rooks[idx] = s
	}
	return rooks
}

// Text returns the record in the CudAD text format, "FEN [wdl] score", with
// wdl written 1.0, 0.5 or 0.0. ParseText(r.Text()) == r for every valid
// record, and Text reproduces every line written in that canonical form.
func (r *Record) Text() string {
	var b strings.Builder
	b.Grow(100)
	r.appendFEN(&b)
	b.WriteString(" [")
	b.WriteString(r.Result.String())
	b.WriteString("] ")
	b.WriteString(strconv.Itoa(int(r.Score)))
	return b.String()
}

// String returns r.Text().
func (r Record) String() string { return r.Text() }

// ParseText parses one line of the text format: a FEN (six fields, or four
// with the clocks defaulting to 0 and 1), the result in brackets ("[1.0]",
// "[0.5]", "[0.0]") and the score in centipawns from White's view. The
// position must be legal as board.ParseFEN checks it, and the clocks and
// score must fit the record (halfmove clock at most 255, move number at most
// 65535, score an int16).
func ParseText(line string) (Record, error) {
	f := strings.Fields(line)
	n := len(f)
	if n < 6 || n > 8 {
		return Record{}, fmt.Errorf("expected \"FEN [wdl] score\", found %d fields", n)
	}
	wdl := f[n-2]
	if len(wdl) < 3 || wdl[0] != '[' || wdl[len(wdl)-1] != ']' {
		return Record{}, fmt.Errorf("expected the result in brackets as [1.0], [0.5] or [0.0], found %q", wdl)
	}
	res, err := ParseResult(wdl[1 : len(wdl)-1])
	if err != nil {
		return Record{}, err
	}
	score, err := strconv.ParseInt(f[n-1], 10, 16)
	if err != nil {
		return Record{}, fmt.Errorf("bad score %q: expected an integer from %d to %d", f[n-1], MinScore, MaxScore)
	}
	var r Record
	// The result field starts with '[', which no FEN field holds.
	if err := r.parseFEN(line[:strings.IndexByte(line, '[')], f[:n-2]); err != nil {
		return Record{}, err
	}
	r.Score = int16(score)
	r.Result = res
	return r, nil
}

// ParseFEN builds a record (score 0, result draw) from a FEN alone, with the
// same checks and limits as ParseText.
func ParseFEN(fen string) (Record, error) {
	var r Record
	if err := r.parseFEN(fen, strings.Fields(fen)); err != nil {
		return Record{}, err
	}
	r.Result = Draw
	return r, nil
}

// positions are the scratch boards parseFEN reads FENs into.
var positions = sync.Pool{New: func() any { return new(board.Position) }}

// parseFEN fills the board part of r from a FEN (fen, split into its
// fields f): board.Position reads and checks the FEN (its errors name the
// field and what is wrong), the record keeps the en-passant square as
// written and checks that the clocks fit.
func (r *Record) parseFEN(fen string, f []string) error {
	if len(f) != 4 && len(f) != 6 {
		return fmt.Errorf("bad FEN: expected 4 or 6 fields, found %d", len(f))
	}
	p := positions.Get().(*board.Position)
	defer positions.Put(p)
	if err := p.SetFEN(fen); err != nil {
		return err
	}
	h, m := "0", "1"
	if len(f) == 6 {
		h, m = f[4], f[5]
	}
	ep := board.NoSquare
	if f[3] != "-" {
		ep, _ = board.ParseSquare(f[3]) // checked by SetFEN
	}
	return r.setBoard(p, ep, h, m)
}

// setBoard fills the board part of r from p, with the en-passant square ep
// and the clocks h and m (as text, for the errors), and validates it.
func (r *Record) setBoard(p *board.Position, ep board.Square, h, m string) error {
	hm, err := strconv.Atoi(h)
	if err != nil || hm < 0 || hm > MaxHalfmove {
		return fmt.Errorf("bad FEN halfmove clock %q: expected 0 to %d", h, MaxHalfmove)
	}
	fm, err := strconv.Atoi(m)
	if err != nil || fm < 0 || fm > MaxFullmove {
		return fmt.Errorf("bad FEN fullmove number %q: expected 1 to %d", m, MaxFullmove)
	}
	if fm == 0 {
		fm = 1 // as board.ParseFEN does
	}
	r.halfmove, r.fullmove = uint8(hm), uint16(fm)
	r.ep = uint8(ep)
	if p.SideToMove() == board.Black {
		r.flags |= flagBlackToMove
	}
	var castleRooks board.Bitboard
	for _, right := range [4]uint8{board.WhiteOO, board.WhiteOOO, board.BlackOO, board.BlackOOO} {
		if s := p.CastlingRook(right); s != board.NoSquare {
			castleRooks |= board.Bit(s)
		}
	}
	if castleRooks != 0 && p.ShredderFEN() {
		r.flags |= flagShredder
	}
	r.occ = p.Occupied()
	occ := r.occ
	for n := 0; occ != 0; n++ {
		s := occ.PopLSB()
		c := uint8(p.PieceOn(s))
		if castleRooks.Has(s) {
			c = codeWhiteCastleRook + uint8(p.PieceOn(s).Color())
		}
		r.pieces[n>>1] |= c << (4 * uint(n&1))
	}
	return r.validate()
}

// validate checks that the record is a legal position as board.ParseFEN
// sees it, and that its encoding is the canonical one.
func (r *Record) validate() error {
	if r.flags&^flagsKnown != 0 {
		return fmt.Errorf("unknown flag bits %#02x", r.flags&^flagsKnown)
	}
	n := r.occ.Count()
	if n > 32 {
		return fmt.Errorf("%d pieces on the board (at most 32)", n)
	}
	for i := n; i < 32; i++ {
		if r.code(i) != 0 {
			return fmt.Errorf("piece code in unused slot %d", i)
		}
	}
	var byColor [2]board.Bitboard
	var byPiece [12]board.Bitboard
	var castleRooks [2]board.Bitboard
	occ := r.occ
	for i := 0; occ != 0; i++ {
		s := occ.PopLSB()
		c := r.code(i)
		if c > codeBlackCastleRook {
			return fmt.Errorf("bad piece code %d on %s", c, s)
		}
		pc := pieceOfCode(c)
		if c >= codeWhiteCastleRook {
			castleRooks[pc.Color()] |= board.Bit(s)
		}
		byColor[pc.Color()] |= board.Bit(s)
		byPiece[pc] |= board.Bit(s)
		if pc.Type() == board.Pawn && (s.Rank() == 0 || s.Rank() == 7) {
			return fmt.Errorf("bad piece placement: %s on %s", pc, s)
		}
	}
	var kings [2]board.Square
	for c := board.White; c <= board.Black; c++ {
		k := byPiece[board.MakePiece(c, board.King)]
		if k.Count() != 1 {
			return fmt.Errorf("bad piece placement: %d %s kings", k.Count(), colorName[c])
		}
		kings[c] = k.LSB()
		if p := byPiece[board.MakePiece(c, board.Pawn)].Count(); p > 8 {
			return fmt.Errorf("bad piece placement: %d %s pawns", p, colorName[c])
		}
		if byColor[c].Count() > 16 {
			return fmt.Errorf("bad piece placement: %d %s pieces", byColor[c].Count(), colorName[c])
		}
		// Castling rooks: on the back rank with the king, at most one each side.
		cr := castleRooks[c]
		if cr == 0 {
			continue
		}
		back := board.Rank1
		if c == board.Black {
			back = board.Rank8
		}
		ksq := kings[c]
		if cr&^back != 0 || !back.Has(ksq) || ksq.File() == 0 || ksq.File() == 7 {
			return fmt.Errorf("bad castling: %s castling rook off the king's back rank, or king on %s", colorName[c], ksq)
		}
		below := board.Bitboard(1)<<ksq - 1
		if (cr&below).Count() > 1 || (cr&^below).Count() > 1 {
			return fmt.Errorf("bad castling: two %s castling rooks on one side of the king", colorName[c])
		}
	}
	if r.flags&flagShredder != 0 && castleRooks[0]|castleRooks[1] == 0 {
		return fmt.Errorf("Shredder-FEN flag without castling rights")
	}
	us := r.SideToMove()
	if r.ep != 64 {
		if r.ep > 64 {
			return fmt.Errorf("bad en-passant byte %d", r.ep)
		}
		s := board.Square(r.ep)
		want := 5
		origin := s + 8
		if us == board.Black {
			want = 2
			origin = s - 8
		}
		if s.Rank() != want {
			return fmt.Errorf("bad en passant %s: expected a square on rank %d", s, want+1)
		}
		if !byPiece[board.MakePiece(us.Other(), board.Pawn)].Has(s^8) || r.occ.Has(s) || r.occ.Has(origin) {
			return fmt.Errorf("bad en passant %s: no double pawn push could have passed it", s)
		}
	}
	if r.fullmove == 0 {
		return fmt.Errorf("fullmove number 0")
	}
	if !r.Result.Valid() {
		return fmt.Errorf("bad result byte %d", uint8(r.Result))
	}
	// The side not to move must not be in check.
	them := us.Other()
	ksq := kings[them]
	occAll := r.occ
	att := board.PawnAttacks(them, ksq)&byPiece[board.MakePiece(us, board.Pawn)] |
		board.KnightAttacks(ksq)&byPiece[board.MakePiece(us, board.Knight)] |
		board.KingAttacks(ksq)&byPiece[board.MakePiece(us, board.King)] |
		board.BishopAttacks(ksq, occAll)&(byPiece[board.MakePiece(us, board.Bishop)]|byPiece[board.MakePiece(us, board.Queen)]) |
		board.RookAttacks(ksq, occAll)&(byPiece[board.MakePiece(us, board.Rook)]|byPiece[board.MakePiece(us, board.Queen)])
	if att != 0 {
		return fmt.Errorf("bad position: %s to move while %s's king on %s is attacked", colorName[us], colorName[them], ksq)
	}
	return nil
}

// Position returns the record's position as a board.Position. A record
// that came from ParseText, FromPosition or UnmarshalBinary always converts.
func (r *Record) Position() (*board.Position, error) {
	return board.ParseFEN(r.FEN())
}

// FromPosition builds a record from a position, a score in centipawns from
// White's point of view and the game's result. It fails only when the clocks
// or the score do not fit the record.
func FromPosition(p *board.Position, whiteScore int, res Result) (Record, error) {
	if whiteScore < MinScore || whiteScore > MaxScore {
		return Record{}, fmt.Errorf("score %d outside %d..%d", whiteScore, MinScore, MaxScore)
	}
	if !res.Valid() {
		return Record{}, fmt.Errorf("bad result %d", uint8(res))
	}
	var r Record
	if err := r.setBoard(p, p.EnPassant(), strconv.Itoa(p.HalfmoveClock()), strconv.Itoa(p.FullmoveNumber())); err != nil {
		return Record{}, err
	}
	r.Score = int16(whiteScore)
	r.Result = res
	return r, nil
}

// AppendBinary appends the record's 32-byte binary form (see docs/datasets.md)
// to b. It implements encoding.BinaryAppender; the error is always nil.
func (r *Record) AppendBinary(b []byte) ([]byte, error) {
	var buf [RecordSize]byte
	r.put(&buf)
	return append(b, buf[:]...), nil
}

// MarshalBinary returns the record's 32-byte binary form.
func (r *Record) MarshalBinary() ([]byte, error) { return r.AppendBinary(nil) }

// UnmarshalBinary decodes a 32-byte binary record, with the same checks as
// ParseText: a record that decodes is a legal position.
func (r *Record) UnmarshalBinary(b []byte) error {
	if len(b) != RecordSize {
		return fmt.Errorf("binary record of %d bytes, want %d", len(b), RecordSize)
	}
	var x Record
	if err := x.get((*[RecordSize]byte)(b)); err != nil {
		return err
	}
	*r = x
	return nil
}

// put writes the binary layout:
//
//	0..7    occupancy bitboard, little-endian (bit i = square i, a1 = 0)
//	8..23   4-bit piece codes of the occupied squares in ascending order
//	24      flags: bit 0 black to move, bit 1 Shredder-FEN castling
//	25      en-passant square as written, 64 for none
//	26      halfmove clock
//	27..28  fullmove number, little-endian
//	29..30  score, int16 little-endian, centipawns from White's view
//	31      result: 0 Black won, 1 draw, 2 White won
func (r *Record) put(b *[RecordSize]byte) {
	binary.LittleEndian.PutUint64(b[0:8], uint64(r.occ))
	copy(b[8:24], r.pieces[:])
	b[24] = r.flags
	b[25] = r.ep
	b[26] = r.halfmove
	binary.LittleEndian.PutUint16(b[27:29], r.fullmove)
	binary.LittleEndian.PutUint16(b[29:31], uint16(r.Score))
	b[31] = uint8(r.Result)
}

func (r *Record) get(b *[RecordSize]byte) error {
	r.occ = board.Bitboard(binary.LittleEndian.Uint64(b[0:8]))
	copy(r.pieces[:], b[8:24])
	r.flags = b[24]
	r.ep = b[25]
	r.halfmove = b[26]
	r.fullmove = binary.LittleEndian.Uint16(b[27:29])
	r.Score = int16(binary.LittleEndian.Uint16(b[29:31]))
	r.Result = Result(b[31])
	return r.validate()
}
