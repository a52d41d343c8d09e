package nnue

import (
	"slices"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/nnue/simd"
)

// Threat features: Stockfish 18's Full_Threats (spec:
// docs/reference/sf18-nnue.md). A feature is "piece X on square a attacks
// piece Y on square b" (attacks as the pieces move and capture, sliders
// stopped by the first piece; both squares occupied), seen from a
// perspective:
//
//	orient   = 7 if the perspective's king stands on files e-h, else 0; ^ 56 for Black
//	a', b'   = a ^ orient, b ^ orient
//	X', Y'   = X and Y with colours swapped for Black's perspective
//	index    = base[X'][Y'][a' < b'] + before[X'][a'] + rank of b' among X''s attacks from a'
//
// base[X'][Y'] is the offset of the block of X' attacking Y' (the blocks
// ordered by X' as white P..K then black P..K, each holding its valid
// targets, own colour first, in type order), before[X'][a'] the number of
// (from, to) pairs of X' on the empty board from squares below a', and
// the rank counts X''s empty-board attacks from a' below b'. Which pairs
// exist: pawns attack pawns, knights and rooks; knights and queens all six
// types; bishops and rooks all but queens; kings all but queens and kings.
// A pair of the same type is counted once when the two attack each other
// (enemies, or friends other than pawns): only where a' > b'.
//
// Threats change when attacks change, not only when pieces move: a move
// also opens and closes sliders' lines. The accumulator applies, per ply,
// the pairs that differ between the boards before and after the move
// (threatDelta, which follows the move's pieces instead of comparing the
// boards); a king crossing the d/e line changes orient and forces a
// refresh of its side.

// ThreatFeatures is the number of Full_Threats features per perspective.
const ThreatFeatures = archs.FullThreatsSize

// threat is one attacker-target pair on the board, independent of the
// perspective, packed as attacker<<24 | from<<16 | target<<8 | to (so that
// lists of them sort as plain integers).
type threat uint32

// mkThreat packs attacker on from attacking target on to.
func mkThreat(attacker, target board.Piece, from, to board.Square) threat {
	return threat(uint32(attacker)<<24 | uint32(from)<<16 | uint32(target)<<8 | uint32(to))
}

func (t threat) attacker() board.Piece { return board.Piece(t >> 24) }
func (t threat) from() board.Square    { return board.Square(t >> 16 & 0xff) }
func (t threat) target() board.Piece   { return board.Piece(t >> 8 & 0xff) }
func (t threat) to() board.Square      { return board.Square(t & 0xff) }

// key is the threat's sort key.
func (t threat) key() uint32 { return uint32(t) }

// threatTables are Full_Threats' index tables, built from the board's
// attack tables at start-up. Pieces index them masked to 4 bits (the rows
// past 12 are never used), so that threatIndex needs no bounds checks.
type threatTables struct {
	// base[X][Y][a<b] is the block offset, or -1 where the pair is not a
	// feature.
	base [16][16][2]int32
	// before[X][a] counts the empty-board pairs of X from squares below a.
	before [16][64]int32
	// rank[X][a][b] counts X's empty-board attacks from a on squares below b.
	rank [16][64][64]uint8
	// size is the total, ThreatFeatures.
	size int32
}

var threatTab = buildThreatTables()

// emptyAttacks returns the squares piece pc on s attacks on an empty board.
func emptyAttacks(pc board.Piece, s board.Square) board.Bitboard {
	return board.Attacks(pc.Type(), pc.Color(), s, 0)
}

// threatTargets lists, per attacker type, the target types that are
// features, in index order (per colour of the target).
var threatTargets = [6][]board.PieceType{
	board.Pawn:   {board.Pawn, board.Knight, board.Rook},
	board.Knight: {board.Pawn, board.Knight, board.Bishop, board.Rook, board.Queen, board.King},
	board.Bishop: {board.Pawn, board.Knight, board.Bishop, board.Rook, board.King},
	board.Rook:   {board.Pawn, board.Knight, board.Bishop, board.Rook, board.King},
	board.Queen:  {board.Pawn, board.Knight, board.Bishop, board.Rook, board.Queen, board.King},
	board.King:   {board.Pawn, board.Knight, board.Bishop, board.Rook},
}

func buildThreatTables() *threatTables {
	t := &threatTables{}
	for x := range t.base {
		for y := range t.base[x] {
			t.base[x][y] = [2]int32{-1, -1} // no feature (rows past 12 included)
		}
	}
	var pairs [12]int32 // empty-board (from, to) pairs per attacker
	for x := board.Piece(0); x < 12; x++ {
		n := int32(0)
		for a := board.Square(0); a < 64; a++ {
			t.before[x][a] = n
			att := emptyAttacks(x, a)
			if x.Type() == board.Pawn && (a.Rank() == 0 || a.Rank() == 7) {
				att = 0 // no pawn stands there; its pairs are not counted
			}
			n += int32(att.Count())
			full := emptyAttacks(x, a)
			for b := board.Square(0); b < 64; b++ {
				t.rank[x][a][b] = uint8((full & (board.Bit(b) - 1)).Count())
			}
		}
		pairs[x] = n
	}
	off := int32(0)
	for x := board.Piece(0); x < 12; x++ {
		targets := threatTargets[x.Type()]
		for y := board.Piece(0); y < 12; y++ {
			m := slices.Index(targets, y.Type())
			if m < 0 {
				continue
			}
			side := 0
			if y.Color() != board.White {
				side = 1
			}
			b := off + int32(side*len(targets)+m)*pairs[x]
			t.base[x][y][0] = b
			mutual := x.Type() == y.Type() && (x.Color() != y.Color() || x.Type() != board.Pawn)
			if !mutual {
				t.base[x][y][1] = b
			}
		}
		off += int32(2*len(targets)) * pairs[x]
	}
	t.size = off
	return t
}

// The twelve pieces, white P..K then black P..K.
var (
	wPawn, wKnight, wBishop = board.MakePiece(board.White, board.Pawn), board.MakePiece(board.White, board.Knight), board.MakePiece(board.White, board.Bishop)
	wRook, wQueen, wKing    = board.MakePiece(board.White, board.Rook), board.MakePiece(board.White, board.Queen), board.MakePiece(board.White, board.King)
	bPawn, bKnight, bBishop = board.MakePiece(board.Black, board.Pawn), board.MakePiece(board.Black, board.Knight), board.MakePiece(board.Black, board.Bishop)
	bRook, bQueen, bKing    = board.MakePiece(board.Black, board.Rook), board.MakePiece(board.Black, board.Queen), board.MakePiece(board.Black, board.King)
)

// threatView is a perspective's orientation of the threat features.
type threatView struct {
	xor  board.Square // square transform: horizontal mirror and vertical flip
	swap bool         // colours swapped (Black's perspective)
}

// threatViewOf returns perspective persp's threat view with its king on ksq.
func threatViewOf(persp board.Color, ksq board.Square) threatView {
	var v threatView
	if ksq.File() >= 4 {
		v.xor = 7
	}
	if persp == board.Black {
		v.xor ^= 56
		v.swap = true
	}
	return v
}

// swapColour returns pc with its colour swapped.
func swapColour(pc board.Piece) board.Piece {
	if pc >= 6 {
		return pc - 6
	}
	return pc + 6
}

// threatIndex returns the feature of th in view v, or -1 where the pair is
// not a feature.
func threatIndex(v threatView, th threat) int {
	x, y := th.attacker(), th.target()
	if v.swap {
		x, y = swapColour(x), swapColour(y)
	}
	a, b := (th.from()^v.xor)&63, (th.to()^v.xor)&63
	lt := 0
	if a < b {
		lt = 1
	}
	x, y = x&15, y&15
	base := threatTab.base[x][y][lt]
	if base < 0 {
		return -1
	}
	return int(base + threatTab.before[x][a] + int32(threatTab.rank[x][a][b]))
}

// ThreatIndex returns the Full_Threats feature of attacker on from
// attacking target on to, for perspective persp with its king on ksq, or
// -1 where the pair is not a feature.
func ThreatIndex(persp board.Color, ksq board.Square, attacker board.Piece, from board.Square, target board.Piece, to board.Square) int {
	return threatIndex(threatViewOf(persp, ksq), mkThreat(attacker, target, from, to))
}

// mailbox is the board as the threat features see it: the piece on each
// square and the pieces' bitboards.
type mailbox struct {
	sq  [64]board.Piece
	bb  [12]board.Bitboard
	occ board.Bitboard
}

// mailboxOf returns p's board, leaving out the piece on skip
// (board.NoSquare: none).
func mailboxOf(p *board.Position, skip board.Square) mailbox {
	var m mailbox
	for i := range m.sq {
		m.sq[i] = board.NoPiece
	}
	for occ := p.Occupied(); occ != 0; {
		s := occ.PopLSB()
		if s != skip {
			m.put(p.PieceOn(s), s)
		}
	}
	return m
}

func (m *mailbox) put(pc board.Piece, s board.Square) {
	m.sq[s] = pc
	m.bb[pc] |= board.Bit(s)
	m.occ |= board.Bit(s)
}

func (m *mailbox) remove(s board.Square) {
	if pc := m.sq[s]; pc != board.NoPiece {
		m.bb[pc] &^= board.Bit(s)
		m.occ &^= board.Bit(s)
		m.sq[s] = board.NoPiece
	}
}

// attacksFrom returns the occupied squares the piece on s attacks.
func (m *mailbox) attacksFrom(s board.Square) board.Bitboard {
	pc := m.sq[s]
	return board.Attacks(pc.Type(), pc.Color(), s, m.occ) & m.occ
}

// appendFrom appends the threats of the pieces on the squares of from.
func (m *mailbox) appendFrom(dst []threat, from board.Bitboard) []threat {
	for from != 0 {
		s := from.PopLSB()
		pc := m.sq[s]
		for att := m.attacksFrom(s); att != 0; {
			t := att.PopLSB()
			dst = append(dst, mkThreat(pc, m.sq[t], s, t))
		}
	}
	return dst
}

// threats appends every threat on the board.
func (m *mailbox) threats(dst []threat) []threat { return m.appendFrom(dst, m.occ) }

// ThreatBoard lists threat features of a board outside a Position (a
// trainer's records): Clear it, Put every piece, then ask a FeatureSet's
// AppendThreats. It needs no allocation.
type ThreatBoard struct {
	m mailbox
}

// Clear empties the board.
func (b *ThreatBoard) Clear() {
	b.m = mailbox{}
	for i := range b.m.sq {
		b.m.sq[i] = board.NoPiece
	}
}

// Put places pc on the empty square s.
func (b *ThreatBoard) Put(pc board.Piece, s board.Square) { b.m.put(pc, s) }

// AppendThreats appends perspective persp's active threat features (its
// king on ksq) on b to dst as feature-transformer rows: Size() + the threat
// index, the rows that follow the piece-square ones in nnuelab's own nets.
// A set without threats appends nothing.
func (fs *FeatureSet) AppendThreats(b *ThreatBoard, persp board.Color, ksq board.Square, dst []int32) []int32 {
	if !fs.threats {
		return dst
	}
	tv := threatViewOf(persp, ksq)
	m := &b.m
	for from := m.occ; from != 0; {
		s := from.PopLSB()
		for att := m.attacksFrom(s); att != 0; {
			t := att.PopLSB()
			if f := threatIndex(tv, mkThreat(m.sq[s], m.sq[t], s, t)); f >= 0 {
				dst = append(dst, int32(fs.size+f))
			}
		}
	}
	return dst
}

// attackersTo returns the squares of the pieces (either colour) that
// attack square s.
func (m *mailbox) attackersTo(s board.Square) board.Bitboard {
	diag := m.bb[wBishop] | m.bb[bBishop] | m.bb[wQueen] | m.bb[bQueen]
	line := m.bb[wRook] | m.bb[bRook] | m.bb[wQueen] | m.bb[bQueen]
	return board.PawnAttacks(board.Black, s)&m.bb[wPawn] |
		board.PawnAttacks(board.White, s)&m.bb[bPawn] |
		board.KnightAttacks(s)&(m.bb[wKnight]|m.bb[bKnight]) |
		board.KingAttacks(s)&(m.bb[wKing]|m.bb[bKing]) |
		board.BishopAttacks(s, m.occ)&diag |
		board.RookAttacks(s, m.occ)&line
}

// isSlider reports whether pc is a bishop, rook or queen.
func isSlider(pc board.Piece) bool {
	t := pc.Type()
	return t == board.Bishop || t == board.Rook || t == board.Queen
}

// threatDelta plays the move delta d on the board m and appends to
// removed the threats it takes off the board, and to added those it
// creates, as Stockfish records them while making the move rather than by
// comparing boards: the delta is played one piece at a time (lift, drop),
// each step noting the threats of and on its square and, for every slider
// that attacks the square, the piece its line now reaches past it (lift)
// or no longer reaches (drop). A threat that one step adds and a later
// one removes (or the reverse) is dropped from both lists, so they hold
// exactly the threats of before missing after, and of after missing
// before (in no particular order).
func threatDelta(m *mailbox, d *board.Delta, removed, added []threat) ([]threat, []threat) {
	r0, a0 := len(removed), len(added)
	for i := 0; i < int(d.NRemoved); i++ {
		if s := d.Removed[i].Square; m.sq[s] != board.NoPiece {
			removed, added = m.lift(s, removed, added)
		}
	}
	for i := 0; i < int(d.NAdded); i++ {
		a := d.Added[i]
		if m.sq[a.Square] != board.NoPiece {
			removed, added = m.lift(a.Square, removed, added)
		}
		removed, added = m.drop(a.Piece, a.Square, removed, added)
	}
	// Cancel the pairs: the lists are short (a dozen threats).
	rs, as := removed[r0:], added[a0:]
	for i := 0; i < len(rs); i++ {
		for j, th := range as {
			if th == rs[i] {
				last := len(rs) - 1
				rs[i], rs = rs[last], rs[:last]
				last = len(as) - 1
				as[j], as = as[last], as[:last]
				i--
				break
			}
		}
	}
	return removed[:r0+len(rs)], added[:a0+len(as)]
}

// lift takes the piece off square s, appending the threats that go to
// removed and those that appear (sliders' lines through s reaching the
// next piece) to added.
func (m *mailbox) lift(s board.Square, removed, added []threat) ([]threat, []threat) {
	pc := m.sq[s]
	for att := m.attacksFrom(s); att != 0; {
		t := att.PopLSB()
		removed = append(removed, mkThreat(pc, m.sq[t], s, t))
	}
	occ := m.occ &^ board.Bit(s)
	for from := m.attackersTo(s); from != 0; {
		x := from.PopLSB()
		xp := m.sq[x]
		removed = append(removed, mkThreat(xp, pc, x, s))
		if isSlider(xp) {
			pt, c := xp.Type(), xp.Color()
			for past := board.Attacks(pt, c, x, occ) &^ board.Attacks(pt, c, x, m.occ) & occ; past != 0; {
				y := past.PopLSB()
				added = append(added, mkThreat(xp, m.sq[y], x, y))
			}
		}
	}
	m.remove(s)
	return removed, added
}

// drop puts pc on the empty square s, appending the threats that appear
// to added and those that go (sliders' lines now stopped at s) to
// removed.
func (m *mailbox) drop(pc board.Piece, s board.Square, removed, added []threat) ([]threat, []threat) {
	occ := m.occ | board.Bit(s)
	for from := m.attackersTo(s); from != 0; {
		x := from.PopLSB()
		xp := m.sq[x]
		if isSlider(xp) {
			pt, c := xp.Type(), xp.Color()
			for past := board.Attacks(pt, c, x, m.occ) &^ board.Attacks(pt, c, x, occ) & m.occ; past != 0; {
				y := past.PopLSB()
				removed = append(removed, mkThreat(xp, m.sq[y], x, y))
			}
		}
		added = append(added, mkThreat(xp, pc, x, s))
	}
	m.put(pc, s)
	for att := m.attacksFrom(s); att != 0; {
		t := att.PopLSB()
		added = append(added, mkThreat(pc, m.sq[t], s, t))
	}
	return removed, added
}

// addThreats adds the rows of the threats ths in view tv to a
// perspective's accumulator (and PSQT accumulator, if psqt is not nil),
// and subtracts those of subs.
func (n *Network) addThreats(acc []int16, psqt []int32, tv threatView, ths, subs []threat) {
	if n.ThreatWeights == nil {
		// int16 rows after the piece-square ones (nnuelab's own nets).
		base := n.Features.size
		for _, th := range ths {
			if f := threatIndex(tv, th); f >= 0 {
				addRow(acc, n.row(base+f))
				if psqt != nil {
					addRow32(psqt, n.psqtRow(base+f))
				}
			}
		}
		for _, th := range subs {
			if f := threatIndex(tv, th); f >= 0 {
				subRow(acc, n.row(base+f))
				if psqt != nil {
					subRow32(psqt, n.psqtRow(base+f))
				}
			}
		}
		return
	}
	// Stockfish 18's int8 rows: their indices gathered, up to 64 of each
	// sign at a time, then the rows folded in by one pass of the fused
	// kernel and the PSQT columns by foldPSQT.
	var adds, rems [64]int32
	for first := true; first || len(ths)+len(subs) > 0; first = false {
		na, nr := 0, 0
		for ; na < len(adds) && len(ths) > 0; ths = ths[1:] {
			if f := threatIndex(tv, ths[0]); f >= 0 {
				adds[na] = int32(f)
				na++
			}
		}
		for ; nr < len(rems) && len(subs) > 0; subs = subs[1:] {
			if f := threatIndex(tv, subs[0]); f >= 0 {
				rems[nr] = int32(f)
				nr++
			}
		}
		// The PSQT rows are scattered over 2.5 MB and mostly not in cache:
		// they are fetched while the kernel folds the threat rows in.
		if psqt != nil {
			simd.PrefetchRows(n.ThreatPSQT, adds[:na], len(psqt))
			simd.PrefetchRows(n.ThreatPSQT, rems[:nr], len(psqt))
		}
		simd.AddSubInt8Rows(acc, n.ThreatWeights, adds[:na], rems[:nr])
		if psqt != nil {
			foldPSQT(psqt, n.ThreatPSQT, adds[:na], rems[:nr])
		}
	}
}

// threatRow returns threat feature f's accumulator row.
func (n *Network) threatRow(f int) []int8 { return n.ThreatWeights[f*n.Width : (f+1)*n.Width] }

// threatPSQTRow returns threat feature f's PSQT weights.
func (n *Network) threatPSQTRow(f int) []int32 {
	return n.ThreatPSQT[f*n.PSQTBuckets : (f+1)*n.PSQTBuckets]
}

// addRow8 adds an int8 row to an int16 accumulator (wrapping).
func addRow8(dst []int16, w []int8) { simd.AddInt8(dst, w[:len(dst)]) }
