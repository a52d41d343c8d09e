package datasets

// bulletformat: the 32-byte ChessBoard record of the bulletformat crate
// (github.com/jw1912/bulletformat, read at v1.8.0), the training data the
// bullet trainer (github.com/jw1912/bullet) loads. A file is the records
// back to back, with no header and no magic.
//
// Layout (the crate's #[repr(C)] struct on a little-endian machine):
//
//	0..7    occ: occupancy bitboard (bit i = square i, a1 = 0) of the board
//	        as the side to move sees it: for Black to move every square is
//	        mirrored top to bottom (s ^ 56), so the mover's pieces always
//	        start on ranks 1-2
//	8..23   pcs: 4-bit piece codes of the occupied squares in ascending
//	        square order of that view; slot i is the low nibble of byte
//	        8 + i/2 when i is even, the high nibble when odd; unused slots 0.
//	        code = colour<<3 | type: colour 0 = the side to move, 1 = the
//	        other side; type 0 pawn, 1 knight, 2 bishop, 3 rook, 4 queen,
//	        5 king (6 and 7 unused)
//	24..25  score: int16, centipawns from the side to move's view
//	26      result from the side to move's view: 0 lost, 1 draw, 2 won
//	27      ksq: the side to move's king square, in the view above
//	28      opp_ksq: the other side's king square seen from its own side,
//	        i.e. its square in the view above ^ 56
//	29..31  extra: 0 (the crate never writes anything else)
//
// What the format loses: castling rights (Chess960 and the castling
// notation with them), the en-passant square, the halfmove clock, the
// fullmove number, the real side to move and with it the real colours (a
// Black-to-move position is stored exactly like its colour-mirrored twin
// with White to move), and Record.Move. A record read back is therefore
// the position as the side to move sees it, made a White-to-move Record:
// the stored board with colour 0 as White, no castling, no en passant,
// clocks 0 1, Score and Result as stored (the mover is White, so its view
// is White's view), Move = board.NullMove. Writing that Record gives the
// same 32 bytes again.

import (
	"bufio"
	"encoding/binary"
	"fmt"
	"io"
	"math/bits"
	"os"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/internal/fsutil"
)

// Offsets of the ChessBoard fields.
const (
	bulletScore  = 24
	bulletResult = 26
	bulletKsq    = 27
	bulletOppKsq = 28
	bulletExtra  = 29
)

// AppendBullet appends the position as bulletformat's 32-byte ChessBoard to
// b: the bytes the bulletformat crate builds from the text line
// "FEN | score | result" of the record (the score and result turned to the
// side to move's view, the board mirrored for Black to move). It fails for
// an invalid record and for a Black-to-move record whose White-view score
// is -32768, whose negation does not fit the int16 (bulletformat itself
// overflows there).
func (r *Record) AppendBullet(b []byte) ([]byte, error) {
	var buf [RecordSize]byte
	if err := r.validate(); err != nil {
		return b, err
	}
	if err := r.putBullet(&buf); err != nil {
		return b, err
	}
	return append(b, buf[:]...), nil
}

// UnmarshalBullet decodes one 32-byte bulletformat ChessBoard into the
// White-to-move record of the side to move's view (no castling, no en
// passant, clocks 0 1, Move board.NullMove). It checks the record as
// bulletformat writes it: piece codes in range, no code in unused slots,
// one king each, no pawn on rank 1 or 8, at most 16 pieces and 8 pawns a
// side, the side not to move not in check, king-square bytes matching the
// kings, result 0..2 and the extra bytes 0. A record that decodes encodes
// back (AppendBullet) to the same bytes.
//
// The occupancy and the nibbles are checked against each other as far as
// the format allows: a non-zero code past the last occupied square is an
// error, but an occupancy bit too many reads as a pawn of the side to move
// (code 0, like an empty slot) and is caught only when it makes the
// position illegal.
func (r *Record) UnmarshalBullet(b []byte) error {
	if len(b) != RecordSize {
		return fmt.Errorf("bulletformat record of %d bytes, want %d", len(b), RecordSize)
	}
	var x Record
	if err := x.getBullet((*[RecordSize]byte)(b)); err != nil {
		return err
	}
	*r = x
	return nil
}

// putBullet encodes a valid record (the caller validates it).
func (r *Record) putBullet(b *[RecordSize]byte) error {
	stm := r.SideToMove()
	score, res := int(r.Score), r.Result
	var flip uint8
	if stm == board.Black {
		score, res, flip = -score, WhiteWin-res, 56
	}
	if score > MaxScore {
		return fmt.Errorf("score %d (White's view) with Black to move: bulletformat's side-to-move score %d does not fit an int16", r.Score, score)
	}
	// Codes by square of the side to move's view.
	var at [64]uint8
	var occ uint64
	var ksq, oppKsq uint8
	o := r.occ
	for i := 0; o != 0; i++ {
		s := uint8(o.PopLSB())
		p := pieceOfCode(r.code(i))
		v := s ^ flip
		c := uint8(p.Type()) | (uint8(p.Color())^uint8(stm))<<3
		switch c {
		case 5:
			ksq = v
		case 13:
			oppKsq = v ^ 56
		}
		at[v] = c
		occ |= 1 << v
	}
	*b = [RecordSize]byte{}
	binary.LittleEndian.PutUint64(b[0:8], occ)
	for i := 0; occ != 0; i++ {
		v := bits.TrailingZeros64(occ)
		occ &= occ - 1
		b[8+i>>1] |= at[v] << (4 * uint(i&1))
	}
	binary.LittleEndian.PutUint16(b[bulletScore:], uint16(int16(score)))
	b[bulletResult] = uint8(res)
	b[bulletKsq] = ksq
	b[bulletOppKsq] = oppKsq
	return nil
}

// getBullet decodes and checks one ChessBoard.
func (r *Record) getBullet(b *[RecordSize]byte) error {
	occ := binary.LittleEndian.Uint64(b[0:8])
	n := bits.OnesCount64(occ)
	if n > 32 {
		return fmt.Errorf("occupancy (bytes 0..7) has %d squares, at most 32 fit the 32 piece slots", n)
	}
	*r = Record{occ: board.Bitboard(occ), ep: 64, fullmove: 1}
	var kings [2]uint8 // by colour bit; exact once validate has counted one king each
	o := occ
	i := 0
	for ; o != 0; i++ {
		s := board.Square(bits.TrailingZeros64(o))
		o &= o - 1
		c := b[8+i>>1] >> (4 * uint(i&1)) & 15
		t := c & 7
		if t > 5 {
			return fmt.Errorf("bad piece code %d in slot %d (byte %d) for square %s of the side to move's view: type %d, want 0..5", c, i, 8+i/2, s, t)
		}
		if t == 5 {
			kings[c>>3] = uint8(s)
		}
		r.pieces[i>>1] |= (t + 6*(c>>3)) << (4 * uint(i&1))
	}
	for ; i < 32; i++ {
		if c := b[8+i>>1] >> (4 * uint(i&1)) & 15; c != 0 {
			return fmt.Errorf("piece code %d in unused slot %d (byte %d): the occupancy has only %d squares", c, i, 8+i/2, n)
		}
	}
	if res := b[bulletResult]; res > 2 {
		return fmt.Errorf("result byte (byte %d) is %d, want 0, 1 or 2", bulletResult, res)
	}
	if e := b[bulletExtra:]; e[0]|e[1]|e[2] != 0 {
		return fmt.Errorf("extra bytes %d..%d are %02x %02x %02x, bulletformat writes 0", bulletExtra, bulletExtra+2, e[0], e[1], e[2])
	}
	r.Score = int16(binary.LittleEndian.Uint16(b[bulletScore:]))
	r.Result = Result(b[bulletResult])
	if err := r.validate(); err != nil {
		return fmt.Errorf("side to move's view as White to move: %w", err)
	}
	if k := kings[0]; b[bulletKsq] != k {
		return fmt.Errorf("king square byte %d is %d, the side to move's king is on %s (%d)", bulletKsq, b[bulletKsq], board.Square(k), k)
	}
	if k := kings[1]; b[bulletOppKsq] != k^56 {
		return fmt.Errorf("opponent king square byte %d is %d, the opponent's king is on %s of the view, %d from its own side", bulletOppKsq, b[bulletOppKsq], board.Square(k), k^56)
	}
	return nil
}

// bulletReader reads a bulletformat file: 32-byte records, no header.
type bulletReader struct {
	name string
	br   *bufio.Reader
	fileCloser
	o       Options
	n       int64 // records consumed (valid or not)
	skipped int64
	buf     [RecordSize]byte
	err     error
}

func newBulletReader(br *bufio.Reader, name string, o Options) (Reader, error) {
	return &bulletReader{name: name, br: br, o: o}, nil
}

func (b *bulletReader) Skipped() int64 { return b.skipped }
func (b *bulletReader) Format() Format { return FormatBullet }

func (b *bulletReader) Next() (Record, error) {
	if b.err != nil {
		return Record{}, b.err
	}
	for {
		off := b.n * RecordSize
		got, err := io.ReadFull(b.br, b.buf[:])
		if err != nil {
			switch err {
			case io.EOF:
				b.err = io.EOF
			case io.ErrUnexpectedEOF:
				b.err = &EntryError{b.name, "record", b.n + 1, fmt.Errorf(
					"at byte offset %d: file ends %d bytes into the record (size %d is not a multiple of %d: truncated)",
					off, got, off+int64(got), RecordSize)}
			default:
				b.err = &EntryError{b.name, "record", b.n + 1, fmt.Errorf("at byte offset %d: %w", off+int64(got), err)}
			}
			return Record{}, b.err
		}
		b.n++
		var r Record
		err = r.getBullet(&b.buf)
		if err == nil {
			return r, nil
		}
		e := &EntryError{b.name, "record", b.n, fmt.Errorf("at byte offset %d: %w", off, err)}
		if !b.o.SkipBad {
			b.err = e
			return Record{}, e
		}
		b.skipped++
		if b.o.OnSkip != nil {
			b.o.OnSkip(e)
		}
	}
}

// bulletWriter writes bulletformat records to an atomic file.
type bulletWriter struct {
	bw  *bufio.Writer
	af  *fsutil.File
	n   int64
	err error
}

func newBulletWriter(f *os.File, af *fsutil.File) (Writer, error) {
	return &bulletWriter{bw: bufio.NewWriterSize(f, 1<<16), af: af}, nil
}

// Write appends the record as a ChessBoard; an invalid record or one that
// bulletformat cannot hold is an error and is not written.
func (w *bulletWriter) Write(r Record) error {
	if w.err != nil {
		return w.err
	}
	if err := r.validate(); err != nil {
		return fmt.Errorf("record %d: %w", w.n+1, err)
	}
	var buf [RecordSize]byte
	if err := r.putBullet(&buf); err != nil {
		return fmt.Errorf("record %d: %w", w.n+1, err)
	}
	if _, err := w.bw.Write(buf[:]); err != nil {
		w.err = err
		return err
	}
	w.n++
	return nil
}

func (w *bulletWriter) Count() int64 { return w.n }

func (w *bulletWriter) Close() error {
	err := w.err
	if err == nil {
		err = w.bw.Flush()
	}
	return finishFile(w.af, err)
}

func (w *bulletWriter) Abort() error { return w.af.Abort() }
