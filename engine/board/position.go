package board

// Castling right bits: for each colour, the rook on the h-side (king side)
// and the a-side (queen side) of the king.
const (
	WhiteOO  = 1
	WhiteOOO = 2
	BlackOO  = 4
	BlackOOO = 8
)

// PieceSquare is one piece on one square, the unit of an NNUE feature update.
type PieceSquare struct {
	Piece  Piece
	Square Square
}

// Delta is what a move changed on the board: at most two pieces removed
// (mover and captured piece, or king and rook when castling) and at most two
// added. An NNUE accumulator updates from exactly this; KingMoved tells it
// when a king-relative feature set may need a refresh.
type Delta struct {
	Removed   [2]PieceSquare
	Added     [2]PieceSquare
	NRemoved  uint8
	NAdded    uint8
	KingMoved bool
}

// state is what make-move cannot recompute on unmake, one entry per ply.
type state struct {
	key           uint64
	delta         Delta
	move          Move
	halfmove      uint16
	pliesFromNull uint16
	castle        uint8
	ep            Square
	captured      Piece
	// checkers caches Checkers once known (checkersKnown): MakeMove knows
	// it is empty after most moves, and otherwise the first call computes
	// it. The search asks after making a move whether it gave check, again
	// in the child node, and its move checks ask once more.
	checkers      Bitboard
	checkersKnown bool
}

// castleInfo describes one castling right: where the king and rook stand and
// go, which squares must be empty and which the king must not be attacked on.
type castleInfo struct {
	rookFrom, kingTo, rookTo Square
	empty, path              Bitboard
}

// Position is a chess position with its move history, updated in place by
// MakeMove and UnmakeMove. The zero value is not usable; use NewPosition,
// ParseFEN or StartPosition.
type Position struct {
	byType   [6]Bitboard
	byColor  [2]Bitboard
	occ      Bitboard
	board    [64]Piece
	side     Color
	kings    [2]Square
	fullmove int

	castleInfo [4]castleInfo
	castleMask [64]uint8 // rights kept when a move touches a square

	chess960 bool // print castling moves king-takes-rook
	shredder bool // print castling fields as file letters

	st    *state
	stack []state
}

// StartFEN is the standard initial position.
const StartFEN = "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1"

// StartPosition returns the standard initial position.
func StartPosition() *Position {
	p, err := ParseFEN(StartFEN)
	if err != nil {
		panic(err) // cannot happen: the constant is valid
	}
	return p
}

// SideToMove returns the colour to move.
func (p *Position) SideToMove() Color { return p.side }

// PieceOn returns the piece on s, or NoPiece.
func (p *Position) PieceOn(s Square) Piece { return p.board[s] }

// Pieces returns the squares of colour c's pieces of type pt.
func (p *Position) Pieces(c Color, pt PieceType) Bitboard { return p.byType[pt] & p.byColor[c] }

// ByType returns the squares of all pieces of type pt, both colours.
func (p *Position) ByType(pt PieceType) Bitboard { return p.byType[pt] }

// ByColor returns the squares of all of colour c's pieces.
func (p *Position) ByColor(c Color) Bitboard { return p.byColor[c] }

// Occupied returns every occupied square.
func (p *Position) Occupied() Bitboard { return p.occ }

// King returns colour c's king square.
func (p *Position) King(c Color) Square { return p.kings[c] }

// Key returns the Zobrist key of the position.
func (p *Position) Key() uint64 { return p.st.key }

// CastlingRights returns the rights as WhiteOO|WhiteOOO|BlackOO|BlackOOO bits.
func (p *Position) CastlingRights() uint8 { return p.st.castle }

// CastlingRook returns the rook square of a right bit (WhiteOO ...), or NoSquare.
func (p *Position) CastlingRook(right uint8) Square {
	for i := 0; i < 4; i++ {
		if right == 1<<i && p.st.castle&right != 0 {
			return p.castleInfo[i].rookFrom
		}
	}
	return NoSquare
}

// ShredderFEN reports whether the castling field was read as rook files
// (Shredder-FEN), the way FEN writes it back.
func (p *Position) ShredderFEN() bool { return p.shredder }

// EnPassant returns the en-passant target square, or NoSquare.
func (p *Position) EnPassant() Square { return p.st.ep }

// HalfmoveClock returns the plies since the last capture or pawn move.
func (p *Position) HalfmoveClock() int { return int(p.st.halfmove) }

// FullmoveNumber returns the move number, starting at 1, incremented after Black moves.
func (p *Position) FullmoveNumber() int { return p.fullmove }

// Ply returns the number of moves made since the position was set up.
func (p *Position) Ply() int { return len(p.stack) - 1 }

// Chess960 reports whether castling moves are written king-takes-rook.
func (p *Position) Chess960() bool { return p.chess960 }

// SetChess960 chooses UCI's Chess960 castling notation (king takes rook) for
// move text in and out; the UCI_Chess960 option sets it.
func (p *Position) SetChess960(on bool) { p.chess960 = on }

// LastDelta returns what the last move changed on the board (zero if no
// move has been made since set-up).
func (p *Position) LastDelta() *Delta { return &p.st.delta }

// LastMove returns the last move made, or NullMove.
func (p *Position) LastMove() Move { return p.st.move }

// Captured returns the piece the last move captured, or NoPiece.
func (p *Position) Captured() Piece { return p.st.captured }

// Copy returns an independent copy of the position including its history.
func (p *Position) Copy() *Position {
	q := *p
	q.stack = append(make([]state, 0, cap(p.stack)), p.stack...)
	q.st = &q.stack[len(q.stack)-1]
	return &q
}

func (p *Position) putPiece(pc Piece, s Square) {
	b := Bit(s)
	p.board[s] = pc
	p.byType[pc.Type()] |= b
	p.byColor[pc.Color()] |= b
	p.occ |= b
}

func (p *Position) removePiece(s Square) {
	pc := p.board[s]
	b := Bit(s)
	p.board[s] = NoPiece
	p.byType[pc.Type()] &^= b
	p.byColor[pc.Color()] &^= b
	p.occ &^= b
}

func (p *Position) movePiece(from, to Square) {
	pc := p.board[from]
	b := Bit(from) | Bit(to)
	p.board[from] = NoPiece
	p.board[to] = pc
	p.byType[pc.Type()] ^= b
	p.byColor[pc.Color()] ^= b
	p.occ ^= b
}

// AttackersTo returns the pieces of colour c attacking s with occupancy occ.
func (p *Position) AttackersTo(s Square, c Color, occ Bitboard) Bitboard {
	them := p.byColor[c]
	return (pawnAttacks[c^1][s]&p.byType[Pawn] |
		knightAttacks[s]&p.byType[Knight] |
		kingAttacks[s]&p.byType[King] |
		BishopAttacks(s, occ)&(p.byType[Bishop]|p.byType[Queen]) |
		RookAttacks(s, occ)&(p.byType[Rook]|p.byType[Queen])) & them
}

// AllAttackersTo returns the pieces of both colours attacking s with
// occupancy occ (static exchange evaluation's starting set).
func (p *Position) AllAttackersTo(s Square, occ Bitboard) Bitboard {
	return pawnAttacks[Black][s]&p.byType[Pawn]&p.byColor[White] |
		pawnAttacks[White][s]&p.byType[Pawn]&p.byColor[Black] |
		knightAttacks[s]&p.byType[Knight] |
		kingAttacks[s]&p.byType[King] |
		BishopAttacks(s, occ)&(p.byType[Bishop]|p.byType[Queen]) |
		RookAttacks(s, occ)&(p.byType[Rook]|p.byType[Queen])
}

// Checkers returns the pieces giving check to the side to move.
func (p *Position) Checkers() Bitboard {
	if st := p.st; st.checkersKnown {
		return st.checkers
	}
	return p.computeCheckers()
}

// computeCheckers fills the state's checkers cache.
func (p *Position) computeCheckers() Bitboard {
	st := p.st
	st.checkers = p.AttackersTo(p.kings[p.side], p.side.Other(), p.occ)
	st.checkersKnown = true
	return st.checkers
}

// InCheck reports whether the side to move is in check.
func (p *Position) InCheck() bool { return p.Checkers() != 0 }

// castleIndex returns the castleInfo index of a right bit.
func castleIndex(right uint8) int {
	switch right {
	case WhiteOO:
		return 0
	case WhiteOOO:
		return 1
	case BlackOO:
		return 2
	}
	return 3
}

// addCastling records a castling right for colour c with the rook on rookFrom.
func (p *Position) addCastling(c Color, rookFrom Square) {
	kfrom := p.kings[c]
	var right uint8
	var kto, rto Square
	if rookFrom > kfrom {
		right, kto, rto = WhiteOO, G1.Relative(c), F1.Relative(c)
	} else {
		right, kto, rto = WhiteOOO, C1.Relative(c), D1.Relative(c)
	}
	right <<= 2 * uint8(c)
	ci := &p.castleInfo[castleIndex(right)]
	ci.rookFrom, ci.kingTo, ci.rookTo = rookFrom, kto, rto
	ci.empty = (between[kfrom][kto] | Bit(kto) | between[rookFrom][rto] | Bit(rto)) &^ (Bit(kfrom) | Bit(rookFrom))
	ci.path = between[kfrom][kto] | Bit(kto)
	p.st.castle |= right
	p.castleMask[kfrom] &^= right
	p.castleMask[rookFrom] &^= right
}

// MakeMove plays a legal move. The piece deltas it caused are available
// from LastDelta until the next MakeMove.
func (p *Position) MakeMove(m Move) {
	prev := p.st
	// The new state is written field by field in place: building it as a
	// literal and appending made the compiler copy 48 bytes twice.
	n := len(p.stack)
	if n < cap(p.stack) {
		p.stack = p.stack[:n+1]
	} else {
		p.stack = append(p.stack, state{})
	}
	st := &p.stack[n]
	p.st = st
	key := prev.key ^ zobristSide
	if prev.ep != NoSquare {
		key ^= zobristEP[prev.ep.File()]
	}
	st.castle = prev.castle
	st.ep = NoSquare
	st.halfmove = prev.halfmove + 1
	st.pliesFromNull = prev.pliesFromNull + 1
	st.captured = NoPiece
	st.move = m
	st.checkersKnown = false

	us := p.side
	from, to := m.From(), m.To()
	pc := p.board[from]
	d := &st.delta

	switch m.Kind() {
	case Castling:
		ci := &p.castleInfo[castleSlot(us, from, to)]
		rook := MakePiece(us, Rook)
		p.removePiece(from)
		p.removePiece(to)
		p.putPiece(pc, ci.kingTo)
		p.putPiece(rook, ci.rookTo)
		p.kings[us] = ci.kingTo
		*d = Delta{
			Removed:  [2]PieceSquare{{pc, from}, {rook, to}},
			Added:    [2]PieceSquare{{pc, ci.kingTo}, {rook, ci.rookTo}},
			NRemoved: 2, NAdded: 2, KingMoved: true,
		}
		key ^= zobristPiece[pc][from] ^ zobristPiece[pc][ci.kingTo] ^
			zobristPiece[rook][to] ^ zobristPiece[rook][ci.rookTo]
	case EnPassant:
		capSq := to ^ 8
		captured := p.board[capSq]
		st.captured = captured
		p.removePiece(capSq)
		p.movePiece(from, to)
		*d = Delta{
			Removed:  [2]PieceSquare{{pc, from}, {captured, capSq}},
			Added:    [2]PieceSquare{{pc, to}},
			NRemoved: 2, NAdded: 1,
		}
		key ^= zobristPiece[captured][capSq] ^ zobristPiece[pc][from] ^ zobristPiece[pc][to]
		st.halfmove = 0
	default:
		// The piece on to (if any) is the opponent's: remove it, then
		// lift the mover (or the pawn that promotes) and put it (or the
		// promoted piece) on to. Bitboards are updated directly, the
		// colours being known.
		toBit, fromBit := Bit(to), Bit(from)
		captured := p.board[to]
		d.Removed[0] = PieceSquare{pc, from}
		d.NRemoved, d.NAdded, d.KingMoved = 1, 1, false
		key ^= zobristPiece[pc][from]
		if captured != NoPiece {
			st.captured = captured
			st.halfmove = 0
			d.Removed[1] = PieceSquare{captured, to}
			d.NRemoved = 2
			key ^= zobristPiece[captured][to]
			p.byType[captured.Type()] ^= toBit
			p.byColor[us^1] ^= toBit
			p.occ ^= toBit
		} else {
			d.Removed[1] = PieceSquare{}
		}
		d.Added[1] = PieceSquare{}
		pt := pc.Type()
		placed := pc
		p.board[from] = NoPiece
		if m.Kind() == Promotion {
			placed = MakePiece(us, m.Promo())
			p.byType[pt] ^= fromBit
			p.byType[placed.Type()] ^= toBit
		} else {
			p.byType[pt] ^= fromBit | toBit
		}
		p.board[to] = placed
		p.byColor[us] ^= fromBit | toBit
		p.occ ^= fromBit | toBit
		d.Added[0] = PieceSquare{placed, to}
		key ^= zobristPiece[placed][to]
		switch pt {
		case Pawn:
			st.halfmove = 0
			if int(to)-int(from) == 16 || int(from)-int(to) == 16 {
				ep := (from + to) / 2
				if pawnAttacks[us][ep]&p.Pieces(us.Other(), Pawn) != 0 {
					st.ep = ep
					key ^= zobristEP[ep.File()]
				}
			}
		case King:
			p.kings[us] = to
			d.KingMoved = true
		}
		// The search asks after every move whether it gave check. Most
		// moves give none, which a few table lookups show: then the new
		// side to move has no checkers, and Checkers need not look for
		// attackers of its king. Before the move no piece of ours
		// attacked the enemy king (the position was legal), and a capture
		// on to opens no line (our piece stands there now), so the only
		// possible checkers are the piece on to and a slider of ours
		// behind from on a line through the king.
		ksq := p.kings[us^1]
		direct := checkRays[us][placed.Type()][to].Has(ksq) && between[to][ksq]&p.occ == 0
		if !direct && !((rookPseudo[ksq] | bishopPseudo[ksq]).Has(from) && p.discoveredCheck(us, from, ksq)) {
			st.checkers, st.checkersKnown = 0, true
		}
	}

	if newCastle := st.castle & p.castleMask[from] & p.castleMask[to]; newCastle != st.castle {
		key ^= zobristCastle[st.castle] ^ zobristCastle[newCastle]
		st.castle = newCastle
	}
	st.key = key
	p.side = us.Other()
	if us == Black {
		p.fullmove++
	}
}

// discoveredCheck reports whether, with from just emptied on a line
// through the enemy king on ksq, a slider of ours attacks that king.
func (p *Position) discoveredCheck(us Color, from, ksq Square) bool {
	ours := p.byColor[us]
	if rookPseudo[ksq].Has(from) {
		orth := (p.byType[Rook] | p.byType[Queen]) & ours
		return rookPseudo[ksq]&orth != 0 && RookAttacks(ksq, p.occ)&orth != 0
	}
	diag := (p.byType[Bishop] | p.byType[Queen]) & ours
	return bishopPseudo[ksq]&diag != 0 && BishopAttacks(ksq, p.occ)&diag != 0
}

// checkRays[c][pt][s] holds the squares a piece of colour c and type pt on
// s attacks on an empty board (none for a king, which never gives check,
// or for NoPieceType). The piece checks a king on one of them when the
// squares between are empty, which they always are for a pawn or a knight.
var checkRays [2][NoPieceType + 1][64]Bitboard

func init() {
	for c := White; c <= Black; c++ {
		for s := Square(0); s < 64; s++ {
			checkRays[c][Pawn][s] = pawnAttacks[c][s]
			checkRays[c][Knight][s] = knightAttacks[s]
			checkRays[c][Bishop][s] = BishopAttacks(s, 0)
			checkRays[c][Rook][s] = RookAttacks(s, 0)
			checkRays[c][Queen][s] = QueenAttacks(s, 0)
		}
	}
}

// castleSlot returns the castleInfo index of us's castling from kingFrom
// with the rook on rookSq.
func castleSlot(us Color, kingFrom, rookSq Square) int {
	i := 2 * int(us)
	if rookSq < kingFrom {
		i++
	}
	return i
}

// UnmakeMove takes back the last move made with MakeMove.
func (p *Position) UnmakeMove() {
	st := p.st
	m := st.move
	p.side = p.side.Other()
	us := p.side
	if us == Black {
		p.fullmove--
	}
	from, to := m.From(), m.To()
	switch m.Kind() {
	case Castling:
		ci := &p.castleInfo[castleSlot(us, from, to)]
		p.removePiece(ci.kingTo)
		p.removePiece(ci.rookTo)
		p.putPiece(MakePiece(us, King), from)
		p.putPiece(MakePiece(us, Rook), to)
		p.kings[us] = from
	case EnPassant:
		p.movePiece(to, from)
		p.putPiece(st.captured, to^8)
	case Promotion:
		p.removePiece(to)
		p.putPiece(MakePiece(us, Pawn), from)
		if st.captured != NoPiece {
			p.putPiece(st.captured, to)
		}
	default:
		p.movePiece(to, from)
		if st.captured != NoPiece {
			p.putPiece(st.captured, to)
		}
		if p.board[from].Type() == King {
			p.kings[us] = from
		}
	}
	p.stack = p.stack[:len(p.stack)-1]
	p.st = &p.stack[len(p.stack)-1]
}

// MakeNullMove passes the turn (for null-move pruning); the side to move
// must not be in check.
func (p *Position) MakeNullMove() {
	prev := p.st
	p.stack = append(p.stack, state{
		key:      prev.key ^ zobristSide,
		castle:   prev.castle,
		ep:       NoSquare,
		halfmove: prev.halfmove + 1,
		captured: NoPiece,
		move:     NullMove,
		// The side now to move was not to move in a legal position, so
		// it is not in check.
		checkersKnown: true,
	})
	p.st = &p.stack[len(p.stack)-1]
	if prev.ep != NoSquare {
		p.st.key ^= zobristEP[prev.ep.File()]
	}
	p.side = p.side.Other()
}

// UnmakeNullMove takes back MakeNullMove.
func (p *Position) UnmakeNullMove() {
	p.side = p.side.Other()
	p.stack = p.stack[:len(p.stack)-1]
	p.st = &p.stack[len(p.stack)-1]
}

// Repetitions returns how many earlier positions in the history since the
// last irreversible move (and the last null move) have the current key.
func (p *Position) Repetitions() int {
	n := 0
	limit := int(p.st.halfmove)
	if int(p.st.pliesFromNull) < limit {
		limit = int(p.st.pliesFromNull)
	}
	top := len(p.stack) - 1
	for i := 4; i <= limit && top-i >= 0; i += 2 {
		if p.stack[top-i].key == p.st.key {
			n++
		}
	}
	return n
}

// RepeatedWithin reports whether the current position occurred within the
// last plies plies (search treats one such repetition as a draw).
func (p *Position) RepeatedWithin(plies int) bool {
	limit := int(p.st.halfmove)
	if int(p.st.pliesFromNull) < limit {
		limit = int(p.st.pliesFromNull)
	}
	if plies < limit {
		limit = plies
	}
	top := len(p.stack) - 1
	for i := 4; i <= limit && top-i >= 0; i += 2 {
		if p.stack[top-i].key == p.st.key {
			return true
		}
	}
	return false
}

// KeyAfter returns the key that MakeMove(m) is likely to produce, cheaply:
// the side to move, the moving piece leaving its square and arriving on the
// destination, a piece captured there, and the en-passant square cleared.
// It is exact for the moves that change neither the castling rights nor
// the en-passant square and are not castling, en passant or promotions, and
// otherwise some other key: a hint for prefetching the transposition
// table's entry before the move is made (Stockfish's key_after), never a
// key to store under.
func (p *Position) KeyAfter(m Move) uint64 {
	from, to := m.From(), m.To()
	pc := p.board[from]
	k := p.st.key ^ zobristSide ^ zobristPiece[pc][from] ^ zobristPiece[pc][to]
	if c := p.board[to]; c != NoPiece {
		k ^= zobristPiece[c][to]
	}
	if p.st.ep != NoSquare {
		k ^= zobristEP[p.st.ep.File()]
	}
	return k
}
