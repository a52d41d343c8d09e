package datasets

// Stockfish's .binpack training-data format (the "tools" branch of
// official-stockfish/Stockfish, docs/binpack.md and
// src/extra/nnue_data_binpack_format.h, read at commit 9a4c7cf). This is an
// independent implementation on top of engine/board; the facts it relies on:
//
//	file   = block*
//	block  = "BINP", uint32 little-endian n, n bytes of chains
//	chain  = stem (32 bytes), uint16 big-endian count, movetext
//	stem   = 0..7   occupancy, uint64 big-endian (bit i = square i, a1 = 0)
//	         8..23  4-bit codes of the occupied squares in ascending order,
//	                low nibble first, unused nibbles 0:
//	                0..11 white pawn, black pawn, white knight, ..., black
//	                king (2*type + colour); 12 a pawn that has just made a
//	                double push (its colour follows from its rank, the
//	                en-passant square is behind it); 13 / 14 a white / black
//	                rook with its castling right; 15 the black king with
//	                Black to move (otherwise White is to move)
//	         24..25 the move played, big-endian: type (2 bits: normal,
//	                promotion, castling, en passant), from (6), to (6),
//	                promotion piece - knight (2); castling is king takes
//	                own rook; 0 = no move
//	         26..27 score, side to move's view, zigzag (signedToUnsigned)
//	         28..29 ply | zigzag(result) << 14 (result -1, 0, 1 from the side
//	                to move's view; ply 14 bits)
//	         30..31 halfmove clock (the high byte is always 0)
//	movetext = count entries, a big-endian bit stream padded with 0 bits
//	         to a byte: entry i is the move played from the position after
//	         the previous move, and that position's score:
//	           the index of the moving piece among the mover's pieces in
//	           square order, in bits(#pieces - 1) bits; then the index of
//	           the move among that piece's pseudo-moves in square order, in
//	           bits(#moves - 1) bits (pawns: captures of enemy pieces or of
//	           the en-passant square, the push, the double push; times four
//	           on the promotion rank, + knight/bishop/rook/queen; kings: the
//	           king steps to squares without own pieces, then one index per
//	           castling right, long first); then the score as
//	           zigzag(score + previous score) in groups of 4 bits, each
//	           preceded by a "more follows" bit, lowest group first.
//
// A Stockfish writer starts a new chain whenever a position is not the one
// after the previous position's move with the ply one higher and the same
// game result, and closes a block when it holds at least 1 MiB at the start
// of a new chain. This writer does exactly the same (and, being stricter,
// also starts a chain when the halfmove clock is not the one the move
// gives, so that every Record survives), which makes binpack -> Records ->
// binpack byte-identical for files Stockfish's tools and nnuelab write.
//
// Mapping to Record: scores and results are turned from the side to move's
// view to White's; the ply is 2*(fullmove-1) + side to move, so a position
// whose ply has the wrong parity for its side to move (a whole chain, when
// its stem has one) cannot be a Record and is a bad entry; the halfmove
// clock is the rule-50 counter. A side-to-move score of -32768 with Black to
// move has no White-view counterpart (nor White's -32768 a side-to-move
// one): a bad entry when read, an error when written. A stem holds plies up
// to 16383 (14 bits); later positions of a chain may go beyond.
//
// En passant. Stockfish's tools keep an en-passant square only when the side
// to move has a legal en-passant capture (Position::
// nullifyEpSquareIfNotPossible: a pawn attacks the square, the square and
// the pawn's origin are empty, and taking does not expose the king to a
// slider), both when they parse a FEN and after every move. nnuelab's binpack
// and .plain code follows the same rule both ways: writers drop any other
// en-passant square a Record carries ("as written" in a FEN), readers drop one
// a stem carries (Stockfish never writes one; an en-passant capture there
// would not be legal anyway) and a .plain FEN may carry, so
// that a Record read from a .plain file and from Stockfish's binpack of that
// file are equal.
//
// Castling: a castling rook is code 13/14 on whatever square it stands, and
// which side it castles to follows from the king's square, so Chess960 works
// (Stockfish's tools themselves know only standard chess: they read code
// 13/14 on a1/a8 as the long right and anywhere else as the short one).
//
// Strictness: a reader rejects what neither writer produces (non-zero
// padding bits or unused nibbles, a non-minimal score group, stray bytes
// after the last chain of a block, an empty block, a high halfmove byte,
// illegal moves), so that corruption shows. Files from other writers that
// chain or cut blocks differently read fine and write back in the canonical
// layout.
//
// Errors name the file, the position's number and the byte offset in the
// file ("x.binpack: record 5: byte 1234: ..."). With Options.SkipBad a bad
// position is skipped when its chain can still be followed (a bad stem
// field, a ply of the wrong parity, a score without counterpart); when it
// cannot (a damaged stem position or move, a movetext that does not decode
// to legal moves) the rest of the block is skipped, counted as one. A
// truncated file, and a block header that does not say where the next
// block starts, stay errors.

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

// binpackMagic opens every block of a Stockfish binpack.
var binpackMagic = [4]byte{'B', 'I', 'N', 'P'}

// plainMagic opens a Stockfish .plain file (its first line is "fen ...").
var plainMagic = []byte("fen ")

const (
	// binpackBlockTarget: a writer closes its block when, at the start of a
	// new chain, the block holds at least this many bytes (Stockfish's
	// suggestedChunkSize).
	binpackBlockTarget = 1 << 20
	// binpackMaxBlock is the largest block a reader accepts (Stockfish's
	// maxChunkSize). The reader allocates as the bytes arrive, so a lying
	// block header costs no more memory than the file has.
	binpackMaxBlock = 100 << 20
	// binpackStemSize is the size of a stem; a chain adds 2 bytes of count.
	binpackStemSize = 32
	// binpackMaxPly is the largest ply a stem can hold (14 bits).
	binpackMaxPly = 1<<14 - 1
	// binpackMaxPlies is the most movetext entries a chain can have.
	binpackMaxPlies = 1<<16 - 1
)

// Stockfish's move types, the two high bits of a stem's move.
const (
	sfNormal    = 0
	sfPromotion = 1
	sfCastle    = 2
	sfEnPassant = 3
)

// zigzag is Stockfish's signedToUnsigned: the sign moves to bit 0 and the
// magnitude bits of a negative number are inverted.
func zigzag(a int16) uint16 {
	r := uint16(a)
	if r&0x8000 != 0 {
		r ^= 0x7FFF
	}
	return r<<1 | r>>15
}

// unzigzag inverts zigzag (Stockfish's unsignedToSigned).
func unzigzag(r uint16) int16 {
	r = r<<15 | r>>1
	if r&0x8000 != 0 {
		r ^= 0x7FFF
	}
	return int16(r)
}

// usedBits is the width of an index among n choices: bits(n-1), 0 for n <= 1.
func usedBits(n int) uint {
	if n <= 1 {
		return 0
	}
	return uint(bits.Len(uint(n - 1)))
}

// nthSquare returns the n-th (0-based) square of b in ascending order; b
// has more than n squares.
func nthSquare(b board.Bitboard, n int) board.Square {
	for ; n > 0; n-- {
		b &= b - 1
	}
	return b.LSB()
}

// below returns the squares lower than s.
func below(s board.Square) board.Bitboard { return board.Bit(s) - 1 }

// bpos is the position binpack coding works on: what a Record holds, with
// bitboards for move coding and making. Its en-passant square follows
// Stockfish's rule (see the file comment).
type bpos struct {
	sq      [64]board.Piece
	byType  [6]board.Bitboard
	byColor [2]board.Bitboard
	occ     board.Bitboard
	castle  board.Bitboard // rooks that keep their castling right
	kings   [2]board.Square
	stm     board.Color
	ep      board.Square
	rule50  uint8
	ply     int
}

var emptySquares = func() (b [64]board.Piece) {
	for i := range b {
		b[i] = board.NoPiece
	}
	return
}()

func (p *bpos) reset() {
	*p = bpos{sq: emptySquares, ep: board.NoSquare}
}

func (p *bpos) put(pc board.Piece, s board.Square) {
	b := board.Bit(s)
	p.sq[s] = pc
	p.byType[pc.Type()] |= b
	p.byColor[pc.Color()] |= b
	p.occ |= b
	if pc.Type() == board.King {
		p.kings[pc.Color()] = s
	}
}

func (p *bpos) remove(s board.Square) {
	pc := p.sq[s]
	b := board.Bit(s)
	p.sq[s] = board.NoPiece
	p.byType[pc.Type()] &^= b
	p.byColor[pc.Color()] &^= b
	p.occ &^= b
}

func (p *bpos) move(from, to board.Square) {
	pc := p.sq[from]
	b := board.Bit(from) | board.Bit(to)
	p.sq[from] = board.NoPiece
	p.sq[to] = pc
	p.byType[pc.Type()] ^= b
	p.byColor[pc.Color()] ^= b
	p.occ ^= b
	if pc.Type() == board.King {
		p.kings[pc.Color()] = to
	}
}

// samePosition reports whether p and q are the same position as Stockfish's
// continuation test sees it (placement, side to move, castling rights,
// en-passant square), plus the halfmove clock.
func (p *bpos) samePosition(q *bpos) bool {
	return p.occ == q.occ && p.stm == q.stm && p.ep == q.ep && p.castle == q.castle &&
		p.rule50 == q.rule50 && p.sq == q.sq
}

// fromRecord sets p to the record's position, dropping an en-passant square
// without a legal capture.
func (p *bpos) fromRecord(r *Record) {
	p.reset()
	occ := r.occ
	for i := 0; occ != 0; i++ {
		s := occ.PopLSB()
		c := r.code(i)
		p.put(pieceOfCode(c), s)
		if c >= codeWhiteCastleRook {
			p.castle |= board.Bit(s)
		}
	}
	p.stm = r.SideToMove()
	p.rule50 = r.halfmove
	p.ply = r.Ply()
	if r.ep < 64 && p.epPossible(board.Square(r.ep)) {
		p.ep = board.Square(r.ep)
	}
}

// fillRecord sets the position fields of r (not Score, Result or Move) from
// p. The ply must have the parity of the side to move.
func (p *bpos) fillRecord(r *Record) {
	occ := p.occ
	r.occ = occ
	r.pieces = [16]byte{}
	for i := 0; occ != 0; i++ {
		s := occ.PopLSB()
		c := uint8(p.sq[s])
		if p.castle&board.Bit(s) != 0 {
			c = codeWhiteCastleRook + uint8(p.sq[s].Color())
		}
		r.pieces[i>>1] |= c << (4 * uint(i&1))
	}
	r.flags = uint8(p.stm)
	r.ep = uint8(p.ep)
	r.halfmove = p.rule50
	r.fullmove = uint16(p.ply/2 + 1)
}

// recordable says why p cannot be a Record, or nil.
func (p *bpos) recordable() error {
	if p.ply&1 != int(p.stm) {
		return fmt.Errorf("ply %d has the wrong parity for %s to move (a Record keeps the ply as move number and side to move)", p.ply, colorName[p.stm])
	}
	if p.ply/2+1 > MaxFullmove {
		return fmt.Errorf("ply %d: move number above %d", p.ply, MaxFullmove)
	}
	return nil
}

// attackedBy reports whether colour c attacks s with occupancy occ.
func (p *bpos) attackedBy(s board.Square, c board.Color, occ board.Bitboard) bool {
	them := p.byColor[c]
	if (board.KnightAttacks(s)&p.byType[board.Knight]|
		board.PawnAttacks(c.Other(), s)&p.byType[board.Pawn]|
		board.KingAttacks(s)&p.byType[board.King])&them != 0 {
		return true
	}
	if board.BishopAttacks(s, occ)&(p.byType[board.Bishop]|p.byType[board.Queen])&them != 0 {
		return true
	}
	return board.RookAttacks(s, occ)&(p.byType[board.Rook]|p.byType[board.Queen])&them != 0
}

// epPossible is Stockfish's test for keeping en-passant square ep with p.stm
// to move: one of its pawns attacks ep, ep and the square in front of it
// are empty, an enemy pawn stands behind it, and some capture leaves the
// king free of slider attacks.
func (p *bpos) epPossible(ep board.Square) bool {
	us := p.stm
	them := us.Other()
	if ep.Rank() != 5-3*int(us) {
		return false
	}
	pawns := board.PawnAttacks(them, ep) & p.byType[board.Pawn] & p.byColor[us]
	if pawns == 0 || p.occ.Has(ep) {
		return false
	}
	front, capSq := ep+8, ep-8
	if us == board.Black {
		front, capSq = ep-8, ep+8
	}
	if p.occ.Has(front) || p.sq[capSq] != board.MakePiece(them, board.Pawn) {
		return false
	}
	ksq := p.kings[us]
	diag := (p.byType[board.Bishop] | p.byType[board.Queen]) & p.byColor[them]
	orth := (p.byType[board.Rook] | p.byType[board.Queen]) & p.byColor[them]
	if (diag|orth)&board.QueenAttacks(ksq, 0) == 0 {
		return true
	}
	for pawns != 0 {
		from := pawns.PopLSB()
		occ := (p.occ ^ board.Bit(from)) | board.Bit(ep)
		occ ^= board.Bit(capSq)
		if board.BishopAttacks(ksq, occ)&diag == 0 && board.RookAttacks(ksq, occ)&orth == 0 {
			return true
		}
	}
	return false
}

// castleTargets returns where king and rook go when colour c castles with
// the rook on rsq and the king on ksq.
func castleTargets(c board.Color, ksq, rsq board.Square) (kto, rto board.Square) {
	if rsq > ksq {
		return board.G1.Relative(c), board.F1.Relative(c)
	}
	return board.C1.Relative(c), board.D1.Relative(c)
}

// castleLegal reports whether the side to move may castle with its castling
// rook on rsq now (the rules of board.Position: not in check, the squares
// king and rook cross empty, the king's path not attacked with both lifted).
func (p *bpos) castleLegal(rsq board.Square) bool {
	us := p.stm
	them := us.Other()
	ksq := p.kings[us]
	if p.attackedBy(ksq, them, p.occ) {
		return false
	}
	kto, rto := castleTargets(us, ksq, rsq)
	occ := p.occ ^ board.Bit(ksq) ^ board.Bit(rsq)
	if (board.Between(ksq, kto)|board.Bit(kto)|board.Between(rsq, rto)|board.Bit(rto))&occ != 0 {
		return false
	}
	for path := board.Between(ksq, kto) | board.Bit(kto); path != 0; {
		if p.attackedBy(path.PopLSB(), them, occ) {
			return false
		}
	}
	return true
}

// castleRights returns the side to move's castling rooks on the long (a-)
// side and the short (h-) side of its king, as bitboards of at most one
// square.
func (p *bpos) castleRights() (long, short board.Bitboard) {
	us := p.stm
	mine := p.castle & p.byColor[us]
	ksq := p.kings[us]
	return mine & below(ksq), mine &^ below(ksq) &^ board.Bit(ksq)
}

// pawnTargets returns the squares binpack numbers for a pawn of the side
// to move on from: captures of enemy pieces or of the en-passant square,
// the push and the double push.
func (p *bpos) pawnTargets(from board.Square) board.Bitboard {
	us := p.stm
	t := board.PawnAttacks(us, from) & p.byColor[us.Other()]
	if p.ep != board.NoSquare {
		t |= board.PawnAttacks(us, from) & board.Bit(p.ep)
	}
	fwd, start := from+8, 1
	if us == board.Black {
		fwd, start = from-8, 6
	}
	if !p.occ.Has(fwd) {
		t |= board.Bit(fwd)
		fwd2 := fwd + 8
		if us == board.Black {
			fwd2 = fwd - 8
		}
		if from.Rank() == start && !p.occ.Has(fwd2) {
			t |= board.Bit(fwd2)
		}
	}
	return t
}

// pieceTargets returns the squares a non-pawn, non-king piece of the side to
// move on from attacks, less its own pieces.
func (p *bpos) pieceTargets(pt board.PieceType, from board.Square) board.Bitboard {
	var t board.Bitboard
	switch pt {
	case board.Knight:
		t = board.KnightAttacks(from)
	case board.Bishop:
		t = board.BishopAttacks(from, p.occ)
	case board.Rook:
		t = board.RookAttacks(from, p.occ)
	default:
		t = board.QueenAttacks(from, p.occ)
	}
	return t &^ p.byColor[p.stm]
}

// promotionRank is the rank (0-based) from which colour c's pawns promote.
func promotionRank(c board.Color) int { return 6 - 5*int(c) }

// moveCode finds m among the moves binpack can name in p: the index of its
// piece among the side to move's pieces (of np) and of the move among that
// piece's moves (of nm). ok is false when m is not such a move with the
// right kind (a pawn taking on the en-passant square must be EnPassant, a
// pawn reaching the last rank a Promotion, king takes castling rook
// Castling). Legality beyond that is legal's business.
func (p *bpos) moveCode(m board.Move) (pid, np, mid, nm int, ok bool) {
	us := p.stm
	own := p.byColor[us]
	from, to := m.From(), m.To()
	if !own.Has(from) {
		return
	}
	pid, np = (own & below(from)).Count(), own.Count()
	switch pt := p.sq[from].Type(); pt {
	case board.Pawn:
		t := p.pawnTargets(from)
		if !t.Has(to) {
			return
		}
		mid, nm = (t & below(to)).Count(), t.Count()
		if from.Rank() == promotionRank(us) {
			if m.Kind() != board.Promotion {
				return
			}
			mid, nm = 4*mid+int(m.Promo()-board.Knight), 4*nm
		} else if to == p.ep && m.Kind() != board.EnPassant || to != p.ep && m.Kind() != board.Normal {
			return
		}
	case board.King:
		t := board.KingAttacks(from) &^ own
		long, short := p.castleRights()
		nt := t.Count()
		nm = nt + long.Count() + short.Count()
		if m.Kind() == board.Castling {
			switch {
			case long.Has(to):
				mid = nt
			case short.Has(to):
				mid = nt + long.Count()
			default:
				return
			}
		} else {
			if m.Kind() != board.Normal || !t.Has(to) {
				return
			}
			mid = (t & below(to)).Count()
		}
	default:
		t := p.pieceTargets(pt, from)
		if m.Kind() != board.Normal || !t.Has(to) {
			return
		}
		mid, nm = (t & below(to)).Count(), t.Count()
	}
	return pid, np, mid, nm, true
}

// doMove makes a move moveCode accepts (legal or not: the caller checks
// that the mover's king is not attacked afterwards, and castling legality
// before). Castling rights, the halfmove clock, the ply and the en-passant
// square follow Stockfish's rules (rights go when a move starts or ends on
// the king's or the rook's square).
func (p *bpos) doMove(m board.Move) {
	us := p.stm
	from, to := m.From(), m.To()
	pc := p.sq[from]
	p.rule50++
	p.ep = board.NoSquare
	epCand := board.NoSquare
	switch m.Kind() {
	case board.Castling:
		kto, rto := castleTargets(us, from, to)
		rook := p.sq[to]
		p.remove(from)
		p.remove(to)
		p.put(pc, kto)
		p.put(rook, rto)
		p.castle &^= board.Rank1 << (56 * uint(us))
	case board.EnPassant:
		p.remove(to ^ 8)
		p.move(from, to)
		p.rule50 = 0
	default:
		if p.sq[to] != board.NoPiece {
			p.remove(to)
			p.rule50 = 0
		}
		if m.Kind() == board.Promotion {
			p.remove(from)
			p.put(board.MakePiece(us, m.Promo()), to)
		} else {
			p.move(from, to)
		}
		switch pc.Type() {
		case board.Pawn:
			p.rule50 = 0
			if from^to == 16 {
				epCand = (from + to) / 2
			}
		case board.King:
			p.castle &^= board.Rank1 << (56 * uint(us))
		}
	}
	p.castle &^= board.Bit(from) | board.Bit(to)
	p.stm = us.Other()
	p.ply++
	if epCand != board.NoSquare && p.epPossible(epCand) {
		p.ep = epCand
	}
}

// legal reports whether m is a legal move in p that binpack can name, and
// returns the position after it.
func (p *bpos) legal(m board.Move, after *bpos) bool {
	if _, _, _, _, ok := p.moveCode(m); !ok {
		return false
	}
	if m.Kind() == board.Castling && !p.castleLegal(m.To()) {
		return false
	}
	*after = *p
	after.doMove(m)
	us := p.stm
	return !after.attackedBy(after.kings[us], us.Other(), after.occ)
}

// sfCode returns Stockfish's 4-bit code of the piece on s (occupied).
func (p *bpos) sfCode(s board.Square) uint8 {
	pc := p.sq[s]
	c, t := uint8(pc.Color()), uint8(pc.Type())
	switch {
	case p.castle&board.Bit(s) != 0:
		return 13 + c
	case pc == board.MakePiece(board.Black, board.King) && p.stm == board.Black:
		return 15
	case t == uint8(board.Pawn) && p.ep != board.NoSquare && s == p.ep^8:
		return 12
	}
	return 2*t + c
}

// putCompressed writes the 24-byte compressed position.
func (p *bpos) putCompressed(b []byte) {
	binary.BigEndian.PutUint64(b[0:8], uint64(p.occ))
	clear(b[8:24])
	occ := p.occ
	for i := 0; occ != 0; i++ {
		b[8+i>>1] |= p.sfCode(occ.PopLSB()) << (4 * uint(i&1))
	}
}

// getCompressed decodes a 24-byte compressed position into p (ply and
// clock left 0) and checks it as Record.validate does, so that p is a
// legal position. The en-passant square is kept as stored, capturable or
// not (the caller applies the rule).
func (p *bpos) getCompressed(b []byte) error {
	p.reset()
	occ := board.Bitboard(binary.BigEndian.Uint64(b[0:8]))
	if n := occ.Count(); n > 32 {
		return fmt.Errorf("occupancy has %d squares, at most 32 fit", n)
	}
	var r Record
	i := 0
	for o := occ; o != 0; i++ {
		s := o.PopLSB()
		c := b[8+i>>1] >> (4 * uint(i&1)) & 15
		var pc board.Piece
		switch {
		case c < 12:
			pc = board.MakePiece(board.Color(c&1), board.PieceType(c>>1))
		case c == 12:
			switch s.Rank() {
			case 3:
				pc = board.MakePiece(board.White, board.Pawn)
			case 4:
				pc = board.MakePiece(board.Black, board.Pawn)
			default:
				return fmt.Errorf("double-pushed pawn code 12 on %s (rank 4 or 5 expected)", s)
			}
			if p.ep != board.NoSquare {
				return fmt.Errorf("two double-pushed pawns (code 12)")
			}
			p.ep = s ^ 8
		case c == 13, c == 14:
			pc = board.MakePiece(board.Color(c-13), board.Rook)
			p.castle |= board.Bit(s)
		default:
			pc = board.MakePiece(board.Black, board.King)
			p.stm = board.Black
		}
		p.put(pc, s)
	}
	for ; i < 32; i++ {
		if b[8+i>>1]>>(4*uint(i&1))&15 != 0 {
			return fmt.Errorf("non-zero unused nibble %d", i)
		}
	}
	// Check it all as a Record would be checked.
	p.fillRecord(&r)
	r.Result = Draw
	return r.validate()
}

// compressMove returns Stockfish's 16-bit form of a move (0 for NullMove).
func compressMove(m board.Move) uint16 {
	if m == board.NullMove {
		return 0
	}
	var t, promo uint16
	switch m.Kind() {
	case board.Promotion:
		t, promo = sfPromotion, uint16(m.Promo()-board.Knight)
	case board.Castling:
		t = sfCastle
	case board.EnPassant:
		t = sfEnPassant
	}
	return t<<14 | uint16(m.From())<<8 | uint16(m.To())<<2 | promo
}

// decompressMove inverts compressMove; ok is false for bits compressMove
// never writes.
func decompressMove(v uint16) (m board.Move, ok bool) {
	if v == 0 {
		return board.NullMove, true
	}
	from, to := board.Square(v>>8&63), board.Square(v>>2&63)
	m = board.Move(from) | board.Move(to)<<6
	switch v >> 14 {
	case sfNormal:
	case sfPromotion:
		return m | board.Promotion | board.Move(v&3)<<14, true
	case sfCastle:
		m |= board.Castling
	case sfEnPassant:
		m |= board.EnPassant
	}
	return m, v&3 == 0
}

// makeMove builds a board.Move of the given kind.
func makeMove(from, to board.Square, kind int, promo board.PieceType) board.Move {
	m := board.Move(from) | board.Move(to)<<6 | board.Move(kind)
	if kind == board.Promotion {
		m |= board.Move(promo-board.Knight) << 14
	}
	return m
}

// stmScore turns a White-view score to the side to move's view.
func stmScore(white int16, stm board.Color) (int16, error) {
	if stm == board.White {
		return white, nil
	}
	if white == MinScore {
		return 0, fmt.Errorf("score %d (White's view) with Black to move: the side to move's score %d does not fit an int16", white, -int(white))
	}
	return -white, nil
}

// whiteScore turns a side-to-move score to White's view.
func whiteScore(s int16, stm board.Color) (int16, error) {
	if stm == board.White {
		return s, nil
	}
	if s == MinScore {
		return 0, fmt.Errorf("score %d (side to move's view) with Black to move: White's view %d does not fit an int16", s, -int(s))
	}
	return -s, nil
}

// stmResult turns a White-view result to -1, 0, 1 from the side to move's view.
func stmResult(r Result, stm board.Color) int {
	if stm == board.White {
		return int(r) - 1
	}
	return 1 - int(r)
}

// whiteResult turns -1, 0, 1 from the side to move's view to a Result.
func whiteResult(v int, stm board.Color) (Result, error) {
	if v < -1 || v > 1 {
		return 0, fmt.Errorf("result %d (want -1, 0 or 1)", v)
	}
	if stm == board.White {
		return Result(v + 1), nil
	}
	return Result(1 - v), nil
}

// ---------------------------------------------------------------------
// Reader

// binpackReader streams a binpack one block at a time.
type binpackReader struct {
	name string
	br   *bufio.Reader
	fileCloser
	o       Options
	block   []byte
	blockAt int64 // file offset of the current block's first data byte
	fileOff int64 // file offset of the next block header
	off     int   // offset in block of the next chain
	n       int64 // positions consumed (returned, dropped or skipped)
	skipped int64
	dropped int64 // by Options.Filter
	err     error
	entryAt int64 // file offset of the entry being read (stem or movetext entry)

	// The chain being read.
	left      int   // movetext entries still to read
	bit       int   // bit offset in block of the movetext cursor
	lastScore int16 // minus the previous position's side-to-move score
	result    int   // the game result from the side to move's view
	cur, nxt  *bpos // the position whose record comes next, and the one after its move
	move      board.Move
	score     int16
	bufs      [2]bpos
}

func newBinpackReader(br *bufio.Reader, name string, o Options) (Reader, error) {
	r := &binpackReader{name: name, br: br, o: o}
	r.cur, r.nxt = &r.bufs[0], &r.bufs[1]
	return r, nil
}

func (r *binpackReader) Skipped() int64 { return r.skipped }
func (r *binpackReader) Dropped() int64 { return r.dropped }
func (r *binpackReader) Format() Format { return FormatBinpack }

// errAt builds the error for the next position, at byte offset at of the
// file.
func (r *binpackReader) errAt(at int64, format string, args ...any) *EntryError {
	return &EntryError{r.name, "record", r.n + 1, fmt.Errorf("byte %d: %s", at, fmt.Sprintf(format, args...))}
}

// readBlock reads the next block into r.block; io.EOF at a clean end.
// Errors are fatal (a truncated file, or a block header that does not say
// where the next block starts).
func (r *binpackReader) readBlock() error {
	var h [8]byte
	got, err := io.ReadFull(r.br, h[:])
	if err == io.EOF {
		return io.EOF
	}
	if err == io.ErrUnexpectedEOF {
		return r.errAt(r.fileOff, "file ends %d bytes into a block header of 8 (truncated)", got)
	}
	if err != nil {
		return r.errAt(r.fileOff+int64(got), "%v", err)
	}
	if [4]byte(h[:4]) != binpackMagic {
		return r.errAt(r.fileOff, "block header %q does not start with \"BINP\" (corrupt; the next block cannot be found)", h[:4])
	}
	size := int(binary.LittleEndian.Uint32(h[4:]))
	if size > binpackMaxBlock {
		return r.errAt(r.fileOff+4, "block of %d bytes, more than the %d a block may have (corrupt)", size, binpackMaxBlock)
	}
	// Read in steps, so that memory follows the bytes actually there.
	buf := r.block[:0]
	for len(buf) < size {
		step := min(size-len(buf), 1<<20)
		if cap(buf)-len(buf) < step {
			nb := make([]byte, len(buf), min(size, max(2*cap(buf), len(buf)+step)))
			copy(nb, buf)
			buf = nb
		}
		k, err := io.ReadFull(r.br, buf[len(buf):len(buf)+step])
		buf = buf[:len(buf)+k]
		if err != nil {
			at := r.fileOff + 8 + int64(len(buf))
			r.block = buf[:0]
			if err == io.EOF || err == io.ErrUnexpectedEOF {
				return r.errAt(at, "file ends %d bytes into a block of %d that starts at byte %d (truncated)", len(buf), size, r.fileOff)
			}
			return r.errAt(at, "%v", err)
		}
	}
	r.block = buf
	r.blockAt = r.fileOff + 8
	r.fileOff += 8 + int64(size)
	r.off = 0
	r.left = 0
	return nil
}

// badKind tells how far a bad entry reaches.
type badKind int

const (
	badEntry badKind = iota // this position only; the chain goes on
	badBlock                // the chain cannot be followed: the rest of the block is lost
)

// stem parses the chain starting at r.off into r.cur, r.move and the chain
// state. For a badEntry error the chain state is set up all the same.
func (r *binpackReader) stem() (badKind, error) {
	b := r.block[r.off:]
	at := r.blockAt + int64(r.off)
	r.entryAt = at
	if len(b) < binpackStemSize+2 {
		return badBlock, r.errAt(at, "%d stray bytes at the end of the block that starts at byte %d (corrupt)", len(b), r.blockAt-8)
	}
	count := int(binary.BigEndian.Uint16(b[32:34]))
	// Past this chain's stem; the movetext follows.
	r.bit = 8 * (r.off + binpackStemSize + 2)
	r.left = count
	r.off += binpackStemSize + 2
	kind := badBlock
	if count == 0 {
		kind = badEntry // the next chain starts right here
	}
	p := r.cur
	if err := p.getCompressed(b[:24]); err != nil {
		return kind, r.errAt(at, "stem position: %v (corrupt)", err)
	}
	if p.ep != board.NoSquare && !p.epPossible(p.ep) {
		p.ep = board.NoSquare // the rule: keep only a capturable square
	}
	m, ok := decompressMove(binary.BigEndian.Uint16(b[24:26]))
	if !ok {
		return kind, r.errAt(at+24, "stem move %#04x has promotion bits on a non-promotion (corrupt)", binary.BigEndian.Uint16(b[24:26]))
	}
	r.score = unzigzag(binary.BigEndian.Uint16(b[26:28]))
	r.lastScore = -r.score
	pr := binary.BigEndian.Uint16(b[28:30])
	p.ply = int(pr & binpackMaxPly)
	r.result = int(unzigzag(pr >> 14))
	p.rule50 = b[31]
	if m == board.NullMove {
		if count > 0 {
			return badBlock, r.errAt(at+24, "stem without a move followed by %d movetext entries (corrupt)", count)
		}
	} else if !p.legal(m, r.nxt) {
		return kind, r.errAt(at+24, "stem move %s is not legal in %s (corrupt)", moveText(m), p.fen())
	}
	r.move = m
	// What follows spoils this position only: the chain can be followed.
	if r.result < -1 || r.result > 1 {
		return badEntry, r.errAt(at+28, "result bits 3 (corrupt)")
	}
	if b[30] != 0 {
		return badEntry, r.errAt(at+30, "halfmove clock high byte %d (always 0; corrupt)", b[30])
	}
	return badEntry, nil
}

// readBits reads n <= 8 bits of the movetext.
func (r *binpackReader) readBits(n uint) (int, bool) {
	if n == 0 {
		return 0, true
	}
	end := r.bit + int(n)
	if end > 8*len(r.block) {
		return 0, false
	}
	i := r.bit >> 3
	w := uint(r.block[i]) << 8
	if i+1 < len(r.block) {
		w |= uint(r.block[i+1])
	}
	v := w >> (16 - uint(r.bit&7) - n) & (1<<n - 1)
	r.bit = end
	return int(v), true
}

// movetextEntry decodes the next movetext entry in r.cur (the position
// after the previous move) into r.move, r.score and r.nxt. Errors are
// badBlock.
func (r *binpackReader) movetextEntry() error {
	p := r.cur
	at := func() int64 { return r.blockAt + int64(r.bit>>3) }
	r.entryAt = at()
	short := func() error {
		return r.errAt(at(), "movetext runs past the end of the block that starts at byte %d (corrupt)", r.blockAt-8)
	}
	us := p.stm
	own := p.byColor[us]
	np := own.Count()
	pid, ok := r.readBits(usedBits(np))
	if !ok {
		return short()
	}
	if pid >= np {
		return r.errAt(at(), "movetext piece index %d, the side to move has %d pieces (corrupt)", pid, np)
	}
	from := nthSquare(own, pid)
	var m board.Move
	switch pt := p.sq[from].Type(); pt {
	case board.Pawn:
		t := p.pawnTargets(from)
		n := t.Count()
		if from.Rank() == promotionRank(us) {
			mid, ok := r.readBits(usedBits(4 * n))
			if !ok {
				return short()
			}
			if mid >= 4*n {
				return r.errAt(at(), "movetext move index %d of %d (corrupt)", mid, 4*n)
			}
			m = makeMove(from, nthSquare(t, mid/4), board.Promotion, board.Knight+board.PieceType(mid%4))
		} else {
			mid, ok := r.readBits(usedBits(n))
			if !ok {
				return short()
			}
			if mid >= n {
				return r.errAt(at(), "movetext move index %d of %d (corrupt)", mid, n)
			}
			to := nthSquare(t, mid)
			kind := board.Normal
			if to == p.ep {
				kind = board.EnPassant
			}
			m = makeMove(from, to, kind, 0)
		}
	case board.King:
		t := board.KingAttacks(from) &^ own
		long, short2 := p.castleRights()
		nt := t.Count()
		n := nt + long.Count() + short2.Count()
		mid, ok := r.readBits(usedBits(n))
		if !ok {
			return short()
		}
		if mid >= n {
			return r.errAt(at(), "movetext move index %d of %d (corrupt)", mid, n)
		}
		if mid < nt {
			m = makeMove(from, nthSquare(t, mid), board.Normal, 0)
		} else {
			rook := short2
			if mid == nt && long != 0 {
				rook = long
			}
			if !p.castleLegal(rook.LSB()) {
				return r.errAt(at(), "movetext castling with the rook on %s is not legal in %s (corrupt)", rook.LSB(), p.fen())
			}
			m = makeMove(from, rook.LSB(), board.Castling, 0)
		}
	default:
		t := p.pieceTargets(pt, from)
		n := t.Count()
		mid, ok := r.readBits(usedBits(n))
		if !ok {
			return short()
		}
		if mid >= n {
			return r.errAt(at(), "movetext move index %d of %d (corrupt)", mid, n)
		}
		m = makeMove(from, nthSquare(t, mid), board.Normal, 0)
	}
	// The score: groups of 4 bits, each after a "more" bit.
	var v uint16
	for g := uint(0); ; g++ {
		x, ok := r.readBits(5)
		if !ok {
			return short()
		}
		v |= uint16(x&15) << (4 * g)
		if x>>4 == 0 {
			if g > 0 && x&15 == 0 {
				return r.errAt(at(), "movetext score has a zero last group (not the minimal encoding; corrupt)")
			}
			break
		}
		if g == 3 {
			return r.errAt(at(), "movetext score longer than 16 bits (corrupt)")
		}
	}
	r.score = r.lastScore + unzigzag(v)
	r.lastScore = -r.score
	// Legality: the mover's king must be safe.
	q := r.nxt
	*q = *p
	q.doMove(m)
	if q.attackedBy(q.kings[us], us.Other(), q.occ) {
		return r.errAt(at(), "movetext move %s is not legal in %s (corrupt)", moveText(m), p.fen())
	}
	r.move = m
	return nil
}

// endMovetext moves r.off past the finished movetext and checks its padding.
func (r *binpackReader) endMovetext() error {
	end := (r.bit + 7) >> 3
	if pad := uint(end*8 - r.bit); pad > 0 && r.block[end-1]&(1<<pad-1) != 0 {
		return r.errAt(r.blockAt+int64(end-1), "non-zero padding bits after the movetext (corrupt)")
	}
	r.off = end
	return nil
}

// record builds the record of r.cur with r.move, r.score and r.result.
func (r *binpackReader) record() (rec Record, keep bool, err error) {
	p := r.cur
	if err := p.recordable(); err != nil {
		return rec, false, err
	}
	s, err := whiteScore(r.score, p.stm)
	if err != nil {
		return rec, false, err
	}
	res, err := whiteResult(r.result, p.stm)
	if err != nil {
		return rec, false, err
	}
	f := r.o.Filter
	if f != nil && !f.keepPosition(p, r.move, s) {
		return rec, false, nil
	}
	p.fillRecord(&rec)
	rec.Score, rec.Result, rec.Move = s, res, r.move
	return rec, f == nil || f.Sampled(&rec), nil
}

// skip handles a bad entry: with SkipBad it is counted and reported and
// reading goes on (the rest of the block is dropped for badBlock); without,
// it is the reader's final error.
func (r *binpackReader) skip(kind badKind, err error) error {
	if !r.o.SkipBad {
		r.err = err
		return err
	}
	r.skipped++
	if r.o.OnSkip != nil {
		r.o.OnSkip(err)
	}
	if kind == badBlock {
		r.off, r.left = len(r.block), 0
	} else {
		r.n++
	}
	return nil
}

func (r *binpackReader) Next() (Record, error) {
	if r.err != nil {
		return Record{}, r.err
	}
	for {
		var err error
		var kind badKind
		switch {
		case r.left > 0:
			// The next position of the chain: the one after the last
			// move (already made into r.nxt); decode its move and score.
			r.cur, r.nxt = r.nxt, r.cur
			kind = badBlock
			if err = r.movetextEntry(); err == nil {
				r.left--
				r.result = -r.result
				if r.left == 0 {
					err = r.endMovetext()
				}
			}
		case r.off < len(r.block):
			kind, err = r.stem()
			if r.left == 0 && (err == nil || kind == badEntry) {
				r.off = r.bit >> 3 // a chain of one position
			}
		default:
			if err := r.readBlock(); err != nil {
				r.err = err
				return Record{}, err
			}
			if len(r.block) > 0 {
				continue
			}
			err, kind = r.errAt(r.blockAt-8, "empty block (corrupt)"), badBlock
		}
		if err == nil {
			var rec Record
			var keep bool
			if rec, keep, err = r.record(); err == nil {
				r.n++
				if !keep {
					r.dropped++
					continue
				}
				return rec, nil
			}
			err, kind = r.errAt(r.entryAt, "%v", err), badEntry
		}
		if err := r.skip(kind, err); err != nil {
			return Record{}, err
		}
	}
}

// ---------------------------------------------------------------------
// Writer

// binpackWriter writes a binpack the way Stockfish's writer does.
type binpackWriter struct {
	w     io.Writer
	af    *fsutil.File
	block []byte // the current block: finished chains, then the open stem
	n     int64
	err   error

	open      bool // a stem is in block whose movetext is still in mt
	mt        []byte
	mtBits    int // bits used in mt
	plies     int
	lastScore int16 // minus the previous position's side-to-move score

	chain  bool // after holds the position after the previous record's move
	after  bpos
	cur    bpos
	next   bpos
	ply    int
	result Result
}

func newBinpackWriter(f *os.File, af *fsutil.File) (Writer, error) {
	return newBinpackWriterTo(f, af), nil
}

// newBinpackWriterTo writes to w; af (may be nil) is committed or aborted
// by Close and Abort.
func newBinpackWriterTo(w io.Writer, af *fsutil.File) *binpackWriter {
	return &binpackWriter{w: w, af: af}
}

func (w *binpackWriter) addBits(v int, n uint) {
	for n > 0 {
		if w.mtBits&7 == 0 {
			w.mt = append(w.mt, 0)
		}
		free := 8 - uint(w.mtBits&7)
		k := min(n, free)
		chunk := byte(v>>(n-k)) & (1<<k - 1)
		w.mt[len(w.mt)-1] |= chunk << (free - k)
		w.mtBits += int(k)
		n -= k
	}
}

// Write appends one record. An invalid record, an illegal Move, or a record
// binpack cannot hold (a stem ply above 16383, a White-view score of -32768
// with Black to move) is an error and writes nothing.
func (w *binpackWriter) Write(r Record) error {
	if w.err != nil {
		return w.err
	}
	if err := r.validate(); err != nil {
		return fmt.Errorf("record %d: %w", w.n+1, err)
	}
	cur := &w.cur
	cur.fromRecord(&r)
	s, err := stmScore(r.Score, cur.stm)
	if err != nil {
		return fmt.Errorf("record %d: %w", w.n+1, err)
	}
	if r.Move != board.NullMove && !cur.legal(r.Move, &w.next) {
		return fmt.Errorf("record %d: move %s is not legal in %s", w.n+1, moveText(r.Move), r.FEN())
	}
	cont := w.chain && r.Move != board.NullMove && w.plies < binpackMaxPlies &&
		cur.ply == w.ply+1 && r.Result == w.result && w.after.samePosition(cur)
	if !cont && cur.ply > binpackMaxPly {
		return fmt.Errorf("record %d: ply %d does not fit binpack's 14-bit ply field", w.n+1, cur.ply)
	}
	if cont {
		pid, np, mid, nm, _ := cur.moveCode(r.Move)
		w.addBits(pid, usedBits(np))
		w.addBits(mid, usedBits(nm))
		v := zigzag(s - w.lastScore)
		for {
			g := int(v & 15)
			if v > 15 {
				g |= 16
			}
			w.addBits(g, 5)
			if v >>= 4; v == 0 {
				break
			}
		}
		w.plies++
	} else {
		if err := w.startChain(cur, r.Move, s, stmResult(r.Result, cur.stm)); err != nil {
			return err
		}
	}
	w.lastScore = -s
	w.ply, w.result = cur.ply, r.Result
	w.chain = r.Move != board.NullMove
	if w.chain {
		w.after = w.next
	}
	w.n++
	return nil
}

// endChain appends the open chain's count and movetext to the block.
func (w *binpackWriter) endChain() {
	if !w.open {
		return
	}
	w.block = binary.BigEndian.AppendUint16(w.block, uint16(w.plies))
	w.block = append(w.block, w.mt...)
	w.open, w.mt, w.mtBits, w.plies = false, w.mt[:0], 0, 0
}

// startChain ends the open chain, closes the block when it has reached
// Stockfish's size, and appends a stem.
func (w *binpackWriter) startChain(p *bpos, m board.Move, score int16, result int) error {
	w.endChain()
	if len(w.block) >= binpackBlockTarget {
		if err := w.flush(); err != nil {
			return err
		}
	}
	var b [binpackStemSize]byte
	p.putCompressed(b[:24])
	binary.BigEndian.PutUint16(b[24:26], compressMove(m))
	binary.BigEndian.PutUint16(b[26:28], zigzag(score))
	binary.BigEndian.PutUint16(b[28:30], uint16(p.ply)|zigzag(int16(result))<<14)
	binary.BigEndian.PutUint16(b[30:32], uint16(p.rule50))
	w.block = append(w.block, b[:]...)
	w.open = true
	return nil
}

// flush writes the block out with its header.
func (w *binpackWriter) flush() error {
	if len(w.block) == 0 {
		return nil
	}
	var h [8]byte
	copy(h[:4], binpackMagic[:])
	binary.LittleEndian.PutUint32(h[4:], uint32(len(w.block)))
	if _, err := w.w.Write(h[:]); err != nil {
		w.err = err
		return err
	}
	if _, err := w.w.Write(w.block); err != nil {
		w.err = err
		return err
	}
	w.block = w.block[:0]
	return nil
}

func (w *binpackWriter) Count() int64 { return w.n }

func (w *binpackWriter) Close() error {
	err := w.err
	if err == nil {
		w.endChain()
		err = w.flush()
	}
	return finishFile(w.af, err)
}

func (w *binpackWriter) Abort() error {
	return w.af.Abort()
}

// moveText writes a move as from-to squares with a promotion letter, for
// error messages.
func moveText(m board.Move) string {
	if m == board.NullMove {
		return "0000"
	}
	s := m.From().String() + m.To().String()
	if pt := m.Promo(); pt != board.NoPieceType {
		s += string("pnbrqk"[pt])
	}
	return s
}

// fen returns the position in FEN (for error messages).
func (p *bpos) fen() string {
	var r Record
	p.fillRecord(&r)
	return r.FEN()
}
