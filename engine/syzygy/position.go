package syzygy

import (
	"math/bits"

	"github.com/nnuelab/nnuelab/engine/board"
)

// position is the prober's own small copy-make position: probing walks
// captures (and for DTZ all moves) of positions with at most seven pieces,
// where copying a few words beats the engine's make/unmake with its keys
// and deltas. Attacks come from engine/board.
type position struct {
	color [2]uint64 // by board.Color
	typ   [6]uint64 // by board.PieceType
	stm   int       // side to move (board.White 0, board.Black 1)
	ep    int       // en-passant target square, 0 for none (a1 never is one)
	mkey  uint64    // material key (see material.go), kept by doMove
}

// move is a move of a position: from, to, promotion piece type (0 for
// none) and flags.
type move uint32

const (
	moveCapture move = 1 << 16
	moveEP      move = 1 << 17
	movePawn    move = 1 << 18 // a pawn moves
)

func newMove(from, to int, promo board.PieceType, flags move) move {
	return move(from) | move(to)<<6 | move(promo)<<12 | flags
}

func (m move) from() int                                   { return int(m & 63) }
func (m move) to() int                                     { return int(m >> 6 & 63) }
func (m move) promo() board.PieceType                      { return board.PieceType(m >> 12 & 7) }
func (m move) is(flag move) bool                           { return m&flag != 0 }
func (p *position) occupied() uint64                       { return p.color[0] | p.color[1] }
func (p *position) pieces(c int, t board.PieceType) uint64 { return p.color[c] & p.typ[t] }

// Move buffers: a position with seven pieces has at most 30 captures
// (counting each promotion) and fewer than 256 moves. Generators append
// to a caller's buffer on its stack.
type (
	captureBuf [64]move
	moveBuf    [256]move
)

// setBoard copies a board position.
//
// The board keeps its en-passant square (and castling rights) in its
// state stack, behind a pointer: reading it costs a second memory access
// after the board's own, which on a position not in the caches (a probe
// of a game's position rather than of the search's) is most of what
// ProbeWDL adds to the probe itself. So the square is read only when the
// placement allows one: the board sets it only when a pawn of the side to
// move can take there (a pawn that just moved two squares stands next to
// it on the same rank), as mayEP checks. TestPrepare checks this against
// the board on positions from FENs and games.
func (p *position) setBoard(b *board.Position) {
	// Word by word: array literals were built on the stack and copied in
	// 16-byte moves, which stall on the 8-byte stores just made.
	p.color[board.White] = uint64(b.ByColor(board.White))
	p.color[board.Black] = uint64(b.ByColor(board.Black))
	p.typ[board.Pawn] = uint64(b.ByType(board.Pawn))
	p.typ[board.Knight] = uint64(b.ByType(board.Knight))
	p.typ[board.Bishop] = uint64(b.ByType(board.Bishop))
	p.typ[board.Rook] = uint64(b.ByType(board.Rook))
	p.typ[board.Queen] = uint64(b.ByType(board.Queen))
	p.typ[board.King] = uint64(b.ByType(board.King))
	p.stm = int(b.SideToMove())
	p.ep = 0
	if p.mayEP() {
		if ep := b.EnPassant(); ep != board.NoSquare {
			p.ep = int(ep)
		}
	}
	p.mkey = p.countKey()
}

// Ranks and files as bitboards.
const (
	rank1 uint64 = 0xff
	rank4 uint64 = 0xff << 24
	rank5 uint64 = 0xff << 32
	rank8 uint64 = 0xff << 56
	fileA uint64 = 0x0101010101010101
	fileH uint64 = fileA << 7
)

// mayEP reports whether the placement allows an en-passant square: a pawn
// of the side to move on its fifth rank beside a pawn of the other side.
func (p *position) mayEP() bool {
	r := rank5
	if p.stm == 1 {
		r = rank4
	}
	ours := p.pieces(p.stm, board.Pawn) & r
	return (ours&^fileH<<1|ours&^fileA>>1)&p.pieces(p.stm^1, board.Pawn) != 0
}

// mayCastle reports whether the placement allows a castling right: a
// side's king and one of its rooks on its first rank (the board drops a
// right when the king or that rook moves or the rook is taken, and a FEN's
// right needs both there).
func (p *position) mayCastle() bool {
	w := p.color[0] & rank1
	b := p.color[1] & rank8
	k, r := p.typ[board.King], p.typ[board.Rook]
	return w&k != 0 && w&r != 0 || b&k != 0 && b&r != 0
}

// attacked reports whether square s is attacked by side by.
func (p *position) attacked(s int, by int, occ uint64) bool {
	sq := board.Square(s)
	them := p.color[by]
	// One test for the pieces that attack from next door or a knight's
	// move away (most often none does: one branch, not three).
	near := uint64(board.KnightAttacks(sq))&p.typ[board.Knight] |
		uint64(board.KingAttacks(sq))&p.typ[board.King] |
		uint64(board.PawnAttacks(board.Color(by^1), sq))&p.typ[board.Pawn]
	if near&them != 0 {
		return true
	}
	// The sliders' attack tables only for a slider on a line through s:
	// with a few pieces most are not, and the tables are large enough
	// to miss the caches.
	rq := them & (p.typ[board.Rook] | p.typ[board.Queen]) & rookRays[s&63]
	if rq != 0 && uint64(board.RookAttacks(sq, board.Bitboard(occ)))&rq != 0 {
		return true
	}
	bq := them & (p.typ[board.Bishop] | p.typ[board.Queen]) & bishopRays[s&63]
	return bq != 0 && uint64(board.BishopAttacks(sq, board.Bitboard(occ)))&bq != 0
}

// rookRays and bishopRays are a rook's and a bishop's attacks from each
// square on an empty board.
var rookRays, bishopRays [64]uint64

func init() {
	for s := range rookRays {
		rookRays[s] = uint64(board.RookAttacks(board.Square(s), 0))
		bishopRays[s] = uint64(board.BishopAttacks(board.Square(s), 0))
	}
}

// inCheck reports whether the side to move is in check.
func (p *position) inCheck() bool {
	k := p.pieces(p.stm, board.King)
	return p.attacked(bits.TrailingZeros64(k), p.stm^1, p.occupied())
}

// valid reports whether the position can be probed: one king a side, no
// pawn on the first or last rank, the side not to move not in check, an
// en-passant square (if any) behind a pawn that just moved two squares.
func (p *position) valid() bool {
	wk, bk := p.pieces(0, board.King), p.pieces(1, board.King)
	if wk == 0 || wk&(wk-1) != 0 || bk == 0 || bk&(bk-1) != 0 || p.typ[board.Pawn]&0xff000000000000ff != 0 {
		return false
	}
	k := bits.TrailingZeros64(p.pieces(p.stm^1, board.King))
	if p.attacked(k, p.stm, p.occupied()) {
		return false
	}
	if p.ep != 0 {
		rank, pawn := 5, p.ep-8 // White to move: a black pawn passed e7-e5
		if p.stm == 1 {
			rank, pawn = 2, p.ep+8
		}
		if p.ep>>3 != rank || p.pieces(p.stm^1, board.Pawn)&(1<<pawn) == 0 {
			return false
		}
	}
	return true
}

// genCaptures adds the pseudo-legal captures (every promotion of a
// capturing pawn, and en passant); doMove tells the legal ones.
func (p *position) genCaptures(l []move) []move {
	us := p.stm
	them := p.color[us^1]
	occ := p.occupied()
	l = p.genPieces(l, them, occ)
	for b := p.pieces(us, board.Pawn); b != 0; b &= b - 1 {
		from := bits.TrailingZeros64(b)
		att := uint64(board.PawnAttacks(board.Color(us), board.Square(from)))
		if p.ep != 0 && att&(1<<p.ep) != 0 {
			l = append(l, newMove(from, p.ep, 0, moveCapture|moveEP|movePawn))
		}
		l = addPawnMoves(l, from, att&them, moveCapture)
	}
	return l
}

// genMoves adds every pseudo-legal move (there is no castling in a
// probed position).
func (p *position) genMoves(l []move) []move {
	us := p.stm
	occ := p.occupied()
	l = p.genPieces(l, ^p.color[us], occ)
	them := p.color[us^1]
	for b := p.pieces(us, board.Pawn); b != 0; b &= b - 1 {
		from := bits.TrailingZeros64(b)
		att := uint64(board.PawnAttacks(board.Color(us), board.Square(from)))
		if p.ep != 0 && att&(1<<p.ep) != 0 {
			l = append(l, newMove(from, p.ep, 0, moveCapture|moveEP|movePawn))
		}
		l = addPawnMoves(l, from, att&them, moveCapture)
		one, two, startRank := from+8, from+16, 1
		if us == 1 {
			one, two, startRank = from-8, from-16, 6
		}
		if occ&(1<<one) == 0 {
			l = addPawnMoves(l, from, 1<<one, 0)
			if from>>3 == startRank && occ&(1<<two) == 0 {
				l = append(l, newMove(from, two, 0, movePawn))
			}
		}
	}
	return l
}

// genPieces adds the moves of the pieces other than pawns to squares in
// target.
func (p *position) genPieces(l []move, target, occ uint64) []move {
	us := p.stm
	them := p.color[us^1]
	k := bits.TrailingZeros64(p.pieces(us, board.King))
	l = addMoves(l, k, uint64(board.KingAttacks(board.Square(k)))&target, them)
	for b := p.pieces(us, board.Knight); b != 0; b &= b - 1 {
		s := bits.TrailingZeros64(b)
		l = addMoves(l, s, uint64(board.KnightAttacks(board.Square(s)))&target, them)
	}
	// A slider's attack table only when a target is on its lines (for
	// captures, most often none is).
	for b := p.color[us] & (p.typ[board.Bishop] | p.typ[board.Queen]); b != 0; b &= b - 1 {
		s := bits.TrailingZeros64(b)
		if bishopRays[s&63]&target != 0 {
			l = addMoves(l, s, uint64(board.BishopAttacks(board.Square(s), board.Bitboard(occ)))&target, them)
		}
	}
	for b := p.color[us] & (p.typ[board.Rook] | p.typ[board.Queen]); b != 0; b &= b - 1 {
		s := bits.TrailingZeros64(b)
		if rookRays[s&63]&target != 0 {
			l = addMoves(l, s, uint64(board.RookAttacks(board.Square(s), board.Bitboard(occ)))&target, them)
		}
	}
	return l
}

// addMoves adds a piece's moves from from to the squares in to, marking
// those onto a piece of them as captures.
func addMoves(l []move, from int, to, them uint64) []move {
	for ; to != 0; to &= to - 1 {
		s := bits.TrailingZeros64(to)
		var fl move
		if them&(1<<s) != 0 {
			fl = moveCapture
		}
		l = append(l, newMove(from, s, 0, fl))
	}
	return l
}

// addPawnMoves adds pawn moves from from to the squares in to, with every
// promotion on the last rank.
func addPawnMoves(l []move, from int, to uint64, fl move) []move {
	for ; to != 0; to &= to - 1 {
		s := bits.TrailingZeros64(to)
		if s < 8 || s >= 56 {
			l = append(l,
				newMove(from, s, board.Queen, fl|movePawn), newMove(from, s, board.Rook, fl|movePawn),
				newMove(from, s, board.Bishop, fl|movePawn), newMove(from, s, board.Knight, fl|movePawn))
		} else {
			l = append(l, newMove(from, s, 0, fl|movePawn))
		}
	}
	return l
}

// doMove returns the position after m and whether m was legal (did not
// leave the mover's king attacked).
func (p *position) doMove(m move) (position, bool) {
	c := *p
	us := p.stm
	from, to := m.from(), m.to()
	fromBB, toBB := uint64(1)<<from, uint64(1)<<to
	if m.is(moveCapture) {
		capBB := toBB
		if m.is(moveEP) {
			if us == 0 {
				capBB = toBB >> 8
			} else {
				capBB = toBB << 8
			}
		}
		c.color[us^1] &^= capBB
		for t := range c.typ {
			if c.typ[t]&capBB != 0 {
				c.typ[t] &^= capBB
				c.mkey -= keyUnit(us^1, board.PieceType(t))
			}
		}
	}
	var pt board.PieceType
	if m.is(movePawn) {
		pt = board.Pawn
	} else {
		for pt = board.Knight; c.typ[pt]&fromBB == 0; pt++ {
		}
	}
	c.color[us] ^= fromBB | toBB
	c.typ[pt] ^= fromBB
	if pr := m.promo(); pr != 0 {
		pt = pr
		c.mkey += keyUnit(us, pr) - keyUnit(us, board.Pawn)
	}
	c.typ[pt] |= toBB
	c.stm = us ^ 1
	c.ep = 0
	if pt == board.Pawn && (to-from == 16 || from-to == 16) {
		// An en-passant square only where a pawn can take, as the
		// tables' own prober keeps it.
		ep := (from + to) / 2
		if uint64(board.PawnAttacks(board.Color(us), board.Square(ep)))&c.pieces(us^1, board.Pawn) != 0 {
			c.ep = ep
		}
	}
	k := bits.TrailingZeros64(c.pieces(us, board.King))
	return c, !c.attacked(k, us^1, c.occupied())
}

// hasLegalMove reports whether the side to move has a legal move; with
// skipEP, en-passant captures do not count.
func (p *position) hasLegalMove(skipEP bool) bool {
	var buf moveBuf
	for _, m := range p.genMoves(buf[:0]) {
		if skipEP && m.is(moveEP) {
			continue
		}
		if _, ok := p.doMove(m); ok {
			return true
		}
	}
	return false
}

// isMate reports whether the side to move is checkmated.
func (p *position) isMate() bool { return p.inCheck() && !p.hasLegalMove(false) }
