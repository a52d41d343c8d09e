package board

// Legal move generation. Checks and pins are computed once per position;
// every generated move is legal, so search and perft never make a move only
// to take it back. The leaf counter (CountLegal) follows the same rules with
// population counts instead of a move list, which is what makes bulk-counted
// perft fast; the tests hold the two to the same numbers on every position.

// MoveList holds generated moves; no legal position has more than 218.
type MoveList struct {
	Moves [256]Move
	N     int
}

// Slice returns the generated moves.
func (ml *MoveList) Slice() []Move { return ml.Moves[:ml.N] }

func (ml *MoveList) add(m Move) {
	ml.Moves[ml.N] = m
	ml.N++
}

// What to generate. Noisy and quiet partition the legal moves.
const (
	genAll = iota
	genNoisy
	genQuiet
)

var rookPseudo, bishopPseudo [64]Bitboard

func init() {
	for s := Square(0); s < 64; s++ {
		rookPseudo[s] = RookAttacks(s, 0)
		bishopPseudo[s] = BishopAttacks(s, 0)
	}
}

// GenerateLegal appends every legal move to ml (which it resets first).
func (p *Position) GenerateLegal(ml *MoveList) { ml.N = 0; p.generate(ml, genAll) }

// GenerateNoisy generates the legal captures (en passant included) and queen
// promotions: the moves quiescence search looks at.
func (p *Position) GenerateNoisy(ml *MoveList) { ml.N = 0; p.generate(ml, genNoisy) }

// GenerateQuiet generates the legal moves GenerateNoisy leaves out:
// non-captures, castling and under-promotions (capturing ones included).
func (p *Position) GenerateQuiet(ml *MoveList) { ml.N = 0; p.generate(ml, genQuiet) }

// checkersAndPins returns the enemy pieces giving check and our pieces
// pinned to our king.
func (p *Position) checkersAndPins() (checkers, pinned Bitboard) {
	us := p.side
	them := us ^ 1
	ksq := p.kings[us]
	enemy := p.byColor[them]
	snipers := (rookPseudo[ksq]&(p.byType[Rook]|p.byType[Queen]) |
		bishopPseudo[ksq]&(p.byType[Bishop]|p.byType[Queen])) & enemy
	for snipers != 0 {
		s := snipers.PopLSB()
		b := between[ksq][s] & p.occ
		if b == 0 {
			checkers |= Bit(s)
		} else if b&(b-1) == 0 && b&p.byColor[us] != 0 {
			pinned |= b
		}
	}
	checkers |= (knightAttacks[ksq]&p.byType[Knight] | pawnAttacks[us][ksq]&p.byType[Pawn]) & enemy
	return checkers, pinned
}

// kingSafe reports whether our king would be unattacked on s, with occ as
// the occupancy (the king itself removed from it).
func (p *Position) kingSafe(s Square, them Color, occ Bitboard) bool {
	enemy := p.byColor[them]
	if (knightAttacks[s]&p.byType[Knight]|pawnAttacks[them^1][s]&p.byType[Pawn]|kingAttacks[s]&p.byType[King])&enemy != 0 {
		return false
	}
	return (BishopAttacks(s, occ)&(p.byType[Bishop]|p.byType[Queen])|
		RookAttacks(s, occ)&(p.byType[Rook]|p.byType[Queen]))&enemy == 0
}

// epLegal reports whether the en-passant capture from -> ep leaves our king safe.
func (p *Position) epLegal(from, ep Square) bool {
	us := p.side
	them := us ^ 1
	capSq := ep ^ 8
	occ := p.occ ^ Bit(from) ^ Bit(capSq) | Bit(ep)
	ksq := p.kings[us]
	enemy := p.byColor[them] &^ Bit(capSq)
	if (knightAttacks[ksq]&p.byType[Knight]|pawnAttacks[us][ksq]&p.byType[Pawn])&enemy != 0 {
		return false
	}
	return (BishopAttacks(ksq, occ)&(p.byType[Bishop]|p.byType[Queen])|
		RookAttacks(ksq, occ)&(p.byType[Rook]|p.byType[Queen]))&enemy == 0
}

// castleLegal reports whether castling right slot i is playable now; the
// caller has checked that we are not in check.
func (p *Position) castleLegal(i int) bool {
	ci := &p.castleInfo[i]
	if p.occ&ci.empty != 0 {
		return false
	}
	// The king must not pass through or land on an attacked square. Lifting
	// king and rook off the board also catches the Chess960 case of a rook
	// that shields its king from a slider along the back rank.
	occ := p.occ ^ Bit(p.kings[p.side]) ^ Bit(ci.rookFrom)
	them := p.side ^ 1
	for path := ci.path; path != 0; {
		if !p.kingSafe(path.PopLSB(), them, occ) {
			return false
		}
	}
	return true
}

func shift(b Bitboard, d int) Bitboard {
	if d > 0 {
		return b << uint(d)
	}
	return b >> uint(-d)
}

// pawnDirs returns, for colour c, the square offsets of a push and of the
// captures towards the a-file and the h-file, and the relative 3rd and 8th ranks.
func pawnDirs(c Color) (up, upLeft, upRight int, rank3, rank8 Bitboard) {
	if c == White {
		return 8, 7, 9, Rank3, Rank8
	}
	return -8, -9, -7, Rank6, Rank1
}

func addPromotions(ml *MoveList, from, to Square, kind int) {
	if kind != genQuiet {
		ml.add(newPromotion(from, to, Queen))
	}
	if kind != genNoisy {
		ml.add(newPromotion(from, to, Knight))
		ml.add(newPromotion(from, to, Rook))
		ml.add(newPromotion(from, to, Bishop))
	}
}

func (p *Position) generate(ml *MoveList, kind int) {
	us := p.side
	them := us ^ 1
	ksq := p.kings[us]
	own, enemy := p.byColor[us], p.byColor[them]
	checkers, pinned := p.checkersAndPins()

	kindMask := ^own
	switch kind {
	case genNoisy:
		kindMask = enemy
	case genQuiet:
		kindMask = ^p.occ
	}

	occNoKing := p.occ ^ Bit(ksq)
	for b := kingAttacks[ksq] & kindMask; b != 0; {
		to := b.PopLSB()
		if p.kingSafe(to, them, occNoKing) {
			ml.add(newMove(ksq, to))
		}
	}
	if checkers.More() {
		return
	}

	target := ^own
	if checkers != 0 {
		target = between[ksq][checkers.LSB()] | checkers
	}

	p.generatePawns(ml, kind, target, pinned)

	pieceTarget := target & kindMask
	for b := p.byType[Knight] & own &^ pinned; b != 0; {
		from := b.PopLSB()
		for t := knightAttacks[from] & pieceTarget; t != 0; {
			ml.add(newMove(from, t.PopLSB()))
		}
	}
	for b := (p.byType[Bishop] | p.byType[Queen]) & own; b != 0; {
		from := b.PopLSB()
		t := BishopAttacks(from, p.occ) & pieceTarget
		if pinned.Has(from) {
			t &= line[ksq][from]
		}
		for t != 0 {
			ml.add(newMove(from, t.PopLSB()))
		}
	}
	for b := (p.byType[Rook] | p.byType[Queen]) & own; b != 0; {
		from := b.PopLSB()
		t := RookAttacks(from, p.occ) & pieceTarget
		if pinned.Has(from) {
			t &= line[ksq][from]
		}
		for t != 0 {
			ml.add(newMove(from, t.PopLSB()))
		}
	}

	if checkers == 0 && kind != genNoisy {
		for i := 2 * int(us); i < 2*int(us)+2; i++ {
			if p.st.castle&(1<<i) != 0 && p.castleLegal(i) {
				ml.add(newMove(ksq, p.castleInfo[i].rookFrom) | Castling)
			}
		}
	}
}

func (p *Position) generatePawns(ml *MoveList, kind int, target, pinned Bitboard) {
	us := p.side
	ksq := p.kings[us]
	up, upLeft, upRight, rank3, rank8 := pawnDirs(us)
	pawns := p.byType[Pawn] & p.byColor[us]
	enemy := p.byColor[us^1]
	empty := ^p.occ
	free := pawns &^ pinned

	// Pushes.
	single := shift(free, up) & empty
	double := shift(single&rank3, up) & empty & target
	single &= target
	if kind != genNoisy {
		for b := single &^ rank8; b != 0; {
			to := b.PopLSB()
			ml.add(newMove(Square(int(to)-up), to))
		}
		for b := double; b != 0; {
			to := b.PopLSB()
			ml.add(newMove(Square(int(to)-2*up), to))
		}
	}
	for b := single & rank8; b != 0; {
		to := b.PopLSB()
		addPromotions(ml, Square(int(to)-up), to, kind)
	}

	// Captures.
	capTarget := enemy & target
	left := shift(free&^FileA, upLeft) & capTarget
	right := shift(free&^FileH, upRight) & capTarget
	if kind != genQuiet {
		for b := left &^ rank8; b != 0; {
			to := b.PopLSB()
			ml.add(newMove(Square(int(to)-upLeft), to))
		}
		for b := right &^ rank8; b != 0; {
			to := b.PopLSB()
			ml.add(newMove(Square(int(to)-upRight), to))
		}
	}
	for b := left & rank8; b != 0; {
		to := b.PopLSB()
		addPromotions(ml, Square(int(to)-upLeft), to, kind)
	}
	for b := right & rank8; b != 0; {
		to := b.PopLSB()
		addPromotions(ml, Square(int(to)-upRight), to, kind)
	}

	// Pinned pawns move only along the pin line.
	for b := pawns & pinned; b != 0; {
		from := b.PopLSB()
		pin := line[ksq][from] & target
		to := Square(int(from) + up)
		if empty.Has(to) {
			if pin.Has(to) {
				if rank8.Has(to) {
					addPromotions(ml, from, to, kind)
				} else if kind != genNoisy {
					ml.add(newMove(from, to))
				}
			}
			to2 := Square(int(to) + up)
			if kind != genNoisy && rank3.Has(to) && empty.Has(to2) && pin.Has(to2) {
				ml.add(newMove(from, to2))
			}
		}
		for t := pawnAttacks[us][from] & enemy & pin; t != 0; {
			to := t.PopLSB()
			if rank8.Has(to) {
				addPromotions(ml, from, to, kind)
			} else if kind != genQuiet {
				ml.add(newMove(from, to))
			}
		}
	}

	if ep := p.st.ep; ep != NoSquare && kind != genQuiet {
		for b := pawnAttacks[us^1][ep] & pawns; b != 0; {
			from := b.PopLSB()
			if p.epLegal(from, ep) {
				ml.add(newMove(from, ep) | EnPassant)
			}
		}
	}
}

// CountLegal returns the number of legal moves without generating them:
// perft's last ply.
func (p *Position) CountLegal() int {
	us := p.side
	them := us ^ 1
	ksq := p.kings[us]
	own, enemy := p.byColor[us], p.byColor[them]
	checkers, pinned := p.checkersAndPins()

	n := 0
	occNoKing := p.occ ^ Bit(ksq)
	for b := kingAttacks[ksq] &^ own; b != 0; {
		if p.kingSafe(b.PopLSB(), them, occNoKing) {
			n++
		}
	}
	if checkers.More() {
		return n
	}
	target := ^own
	if checkers != 0 {
		target = between[ksq][checkers.LSB()] | checkers
	}

	for b := p.byType[Knight] & own &^ pinned; b != 0; {
		n += (knightAttacks[b.PopLSB()] & target).Count()
	}
	for b := (p.byType[Bishop] | p.byType[Queen]) & own &^ pinned; b != 0; {
		n += (BishopAttacks(b.PopLSB(), p.occ) & target).Count()
	}
	for b := (p.byType[Rook] | p.byType[Queen]) & own &^ pinned; b != 0; {
		n += (RookAttacks(b.PopLSB(), p.occ) & target).Count()
	}

	up, upLeft, upRight, rank3, rank8 := pawnDirs(us)
	pawns := p.byType[Pawn] & own
	empty := ^p.occ
	free := pawns &^ pinned
	single := shift(free, up) & empty
	double := shift(single&rank3, up) & empty & target
	single &= target
	capTarget := enemy & target
	left := shift(free&^FileA, upLeft) & capTarget
	right := shift(free&^FileH, upRight) & capTarget
	n += double.Count() + (single &^ rank8).Count() + (left &^ rank8).Count() + (right &^ rank8).Count() +
		4*((single&rank8).Count()+(left&rank8).Count()+(right&rank8).Count())

	if pinned != 0 {
		for b := pinned &^ p.byType[Pawn] &^ p.byType[Knight]; b != 0; {
			from := b.PopLSB()
			var t Bitboard
			switch p.board[from].Type() {
			case Bishop:
				t = BishopAttacks(from, p.occ)
			case Rook:
				t = RookAttacks(from, p.occ)
			default:
				t = QueenAttacks(from, p.occ)
			}
			n += (t & target & line[ksq][from]).Count()
		}
		for b := pawns & pinned; b != 0; {
			from := b.PopLSB()
			pin := line[ksq][from] & target
			to := Square(int(from) + up)
			var t Bitboard
			if empty.Has(to) {
				t = Bit(to)
				if rank3.Has(to) {
					t |= Bit(Square(int(to)+up)) & empty
				}
			}
			t = (t | pawnAttacks[us][from]&enemy) & pin
			n += (t &^ rank8).Count() + 4*(t&rank8).Count()
		}
	}

	if ep := p.st.ep; ep != NoSquare {
		for b := pawnAttacks[them][ep] & pawns; b != 0; {
			if p.epLegal(b.PopLSB(), ep) {
				n++
			}
		}
	}
	if checkers == 0 {
		for i := 2 * int(us); i < 2*int(us)+2; i++ {
			if p.st.castle&(1<<i) != 0 && p.castleLegal(i) {
				n++
			}
		}
	}
	return n
}
