package syzygy

import (
	"encoding/binary"
	"math/bits"

	"github.com/nnuelab/nnuelab/engine/board"
)

// ProbeWDL returns the position's win/draw/loss value from the side to
// move. The tables store positions without en-passant rights and leave
// positions where a capture is best to the prober, so captures (and en
// passant) are resolved by a small search over captures, which may read
// the tables of the material after each capture. The value does not
// depend on the fifty-move counter: CursedWin and BlessedLoss are the
// results the rule changes, counted from a counter at 0 (see DTZ for
// the distance that tells whether the rule bites from a given counter).
func (t *Tables) ProbeWDL(b *board.Position) (WDL, error) {
	var p position
	if err := t.prepare(b, &p); err != nil {
		return 0, err
	}
	v, _, err := t.probeWDL(&p)
	return WDL(v), err
}

// ProbeDTZ returns the position's distance to zeroing in plies, signed
// as python-chess and Fathom give it: positive when the side to move
// wins, negative when it loses, 0 for a draw. With the counter at 0, a
// win takes d plies to the next capture or pawn move that keeps it won:
//
//	1..100    win; at most 100 means the fifty-move rule cannot spoil it
//	> 100     cursed win (a draw by the fifty-move rule)
//	-1..-100  loss; -1 also when checkmated
//	< -100    blessed loss
//
// As in the reference prober, the distance can be one ply short of the
// true one (a table stores some values halved): a win with d + clock <= 99
// (the clock being the position's halfmove clock) is certainly won under
// the fifty-move rule, and one with d = 100 when the previous move zeroed. Rule50WDL turns a distance and a clock into the value
// Fathom's command line prints. ProbeDTZ needs the DTZ table of the
// position's material and the WDL tables of it and of what captures and
// promotions lead to.
func (t *Tables) ProbeDTZ(b *board.Position) (int, error) {
	var p position
	if err := t.prepare(b, &p); err != nil {
		return 0, err
	}
	return t.probeDTZ(&p)
}

// Rule50WDL is the win/draw/loss of a position with distance to zeroing
// dtz (as ProbeDTZ returns it) when its halfmove clock is clock: a win or
// loss whose zeroing move comes after the 100th ply of the count becomes
// CursedWin or BlessedLoss. This is the WDL fathom.linux prints for a
// position (its tb_probe_root), which unlike ProbeWDL depends on the
// clock, but for checkmate: there ProbeDTZ gives -1, a Loss, where
// fathom.linux prints "Win" with DTZ 0 (its root probe's checkmate result,
// the mating side's).
func Rule50WDL(dtz, clock int) WDL {
	switch {
	case dtz > 0 && dtz+clock <= 100:
		return Win
	case dtz > 0:
		return CursedWin
	case dtz < 0 && -dtz+clock <= 100:
		return Loss
	case dtz < 0:
		return BlessedLoss
	}
	return Draw
}

// prepare checks that the tables can answer for a position and copies
// it into p. Castling rights are read from the board only when the
// placement allows them (see setBoard for why).
func (t *Tables) prepare(b *board.Position, p *position) error {
	p.setBoard(b)
	if p.mayCastle() && b.CastlingRights() != 0 {
		return ErrCastling
	}
	n := bits.OnesCount64(p.occupied())
	if n > 2 && n > t.maxPieces || n > maxPieces {
		return ErrTooManyPieces
	}
	if !p.valid() {
		return ErrInvalidPosition
	}
	return nil
}

// wdlToDTZ is the distance of a position whose best move zeroes, by WDL.
var wdlToDTZ = [5]int{-1, -101, 0, 101, 1}

// probeWDL resolves captures (and en passant) over the WDL tables. ok is
// 2 when the value comes from a capture (an en-passant capture, or a
// winning one), which tells probeDTZ that the distance is the zeroing
// move's own.
func (t *Tables) probeWDL(p *position) (v, ok int, err error) {
	var buf captureBuf
	bestCap, bestEP := -3, -3
	for _, m := range p.genCaptures(buf[:0]) {
		c, legal := p.doMove(m)
		if !legal {
			continue
		}
		v, err := t.probeAB(&c, -2, -bestCap)
		if err != nil {
			return 0, 0, err
		}
		v = -v
		if v > bestCap {
			if v == 2 {
				return 2, 2, nil
			}
			if !m.is(moveEP) {
				bestCap = v
			} else if v > bestEP {
				bestEP = v
			}
		}
	}
	v, err = t.tableWDL(p)
	if err != nil {
		return 0, 0, err
	}
	// max(v, bestCap) is the value without en-passant rights; an
	// en-passant capture better than both is the value, and so is the
	// best en-passant capture when the position without it would be
	// stalemate (then the table says draw).
	if bestEP > bestCap {
		if bestEP > v {
			return bestEP, 2, nil
		}
		bestCap = bestEP
	}
	if bestCap >= v {
		if bestCap > 0 {
			return bestCap, 2, nil
		}
		return bestCap, 1, nil
	}
	if bestEP > -3 && v == 0 && !p.inCheck() && !p.hasLegalMove(true) {
		return bestEP, 2, nil
	}
	return v, 1, nil
}

// probeAB is an alpha-beta search over captures on the WDL tables, for
// positions without en-passant rights.
func (t *Tables) probeAB(p *position, alpha, beta int) (int, error) {
	var buf captureBuf
	for _, m := range p.genCaptures(buf[:0]) {
		c, legal := p.doMove(m)
		if !legal {
			continue
		}
		v, err := t.probeAB(&c, -beta, -alpha)
		if err != nil {
			return 0, err
		}
		v = -v
		if v > alpha {
			if v >= beta {
				return v, nil
			}
			alpha = v
		}
	}
	v, err := t.tableWDL(p)
	if err != nil {
		return 0, err
	}
	return max(alpha, v), nil
}

// probeDTZ computes the distance to zeroing; see ProbeDTZ.
func (t *Tables) probeDTZ(p *position) (int, error) {
	wdl, ok, err := t.probeWDL(p)
	if err != nil || wdl == 0 {
		return 0, err
	}
	if ok == 2 {
		return wdlToDTZ[wdl+2], nil // the best move is a capture
	}
	var buf moveBuf
	var moves []move
	if wdl > 0 {
		// A pawn move that keeps the win zeroes at once.
		moves = p.genMoves(buf[:0])
		for _, m := range moves {
			if !m.is(movePawn) || m.is(moveCapture) {
				continue
			}
			c, legal := p.doMove(m)
			if !legal {
				continue
			}
			v, _, err := t.probeWDL(&c)
			if err != nil {
				return 0, err
			}
			if -v == wdl {
				return wdlToDTZ[wdl+2], nil
			}
		}
	}
	// The best move is not en passant, so wdl is the value without
	// en-passant rights, the one the DTZ table is read with.
	d, stored, err := t.tableDTZ(p, wdl)
	if err != nil {
		return 0, err
	}
	if stored {
		if wdl > 0 {
			return wdlToDTZ[wdl+2] + d, nil
		}
		return wdlToDTZ[wdl+2] - d, nil
	}

	// The table holds the other side to move only: one ply of search
	// over the moves that do not zero.
	var best int
	if wdl > 0 {
		best = 1 << 30
	} else {
		// A losing capture or pawn move is the longest a loss can hold
		// (and -1 when checkmated).
		best = wdlToDTZ[wdl+2]
		moves = p.genMoves(buf[:0])
	}
	for _, m := range moves {
		if m.is(moveCapture) || m.is(movePawn) {
			continue
		}
		c, legal := p.doMove(m)
		if !legal {
			continue
		}
		v, err := t.probeDTZ(&c)
		if err != nil {
			return 0, err
		}
		v = -v
		switch {
		case v == 1 && c.isMate():
			best = 1
		case wdl > 0:
			if v > 0 && v+1 < best {
				best = v + 1
			}
		default:
			if v-1 < best {
				best = v - 1
			}
		}
	}
	if best == 1<<30 {
		// Only damaged tables contradict themselves so.
		path := keyName(p.key())
		if e := t.lookup(p.key()); e != nil {
			path = e.dtz.path
		}
		return 0, &CorruptError{Path: path, Offset: -1, Reason: "the tables call the position won but no move keeps the win"}
	}
	return best, nil
}

// orient says how a position maps onto its material's table: flip when
// the table's first side is Black in the position, and which side to
// move's table (0: the first side's) holds it.
func orient(m *material, key uint64, stm int) (flip bool, side int) {
	if m.symmetric {
		return stm != 0, 0
	}
	flip = key != m.key
	if (stm == 0) == flip {
		side = 1
	}
	return flip, side
}

// squares fills sq[i:] with the squares of the pieces of code
// pieces[i] (and of the following codes, up to n), the colours swapped
// when flip and the ranks mirrored by mirror (0 or 0x38).
func squares(p *position, pieces *[maxPieces]uint8, i, n int, flip bool, mirror int, sq *[maxPieces]int) int {
	for i < n {
		c := pieces[i]
		color := int(c >> 3)
		if flip {
			color ^= 1
		}
		b := p.color[color] & p.typ[c&7-1]
		if b == 0 {
			return i // cannot happen: the material matched
		}
		for ; b != 0 && i < maxPieces; b &= b - 1 {
			sq[i] = bits.TrailingZeros64(b) ^ mirror
			i++
		}
	}
	return i
}

// tableWDL reads the WDL table for a position (whose captures the caller
// resolves).
func (t *Tables) tableWDL(p *position) (int, error) {
	key := p.key()
	if key == 0 {
		return 0, nil // two bare kings
	}
	e := t.lookup(key)
	if e == nil {
		return 0, &MissingError{Table: keyName(key)}
	}
	f, err := t.file(e, false)
	if err != nil {
		return 0, err
	}
	flip, side := orient(&e.m, key, p.stm)
	var sq [maxPieces]int
	var ei *encInfo
	var idx uint64
	n := e.m.n
	if !e.m.hasPawns {
		ei = &f.ei[side][0]
		if squares(p, &ei.pieces, 0, n, flip, 0, &sq) != n {
			return 0, f.corrupt(-1, "pieces do not match the position")
		}
		var ok bool
		if idx, ok = encodePiece(&sq, n, ei, e.m.kk); !ok {
			return 0, f.corrupt(-1, "header's piece order puts the kings together")
		}
	} else {
		mirror := 0
		if flip {
			mirror = 0x38
		}
		i := squares(p, &f.ei[0][0].pieces, 0, e.m.lead, flip, mirror, &sq)
		tb := leadingPawnFile(&sq, e.m.lead)
		ei = &f.ei[side][tb]
		if squares(p, &ei.pieces, i, n, flip, mirror, &sq) != n {
			return 0, f.corrupt(-1, "pieces do not match the position")
		}
		idx = encodePawn(&sq, n, e.m.lead, e.m.other, ei)
	}
	if idx >= ei.size {
		return 0, f.corrupt(-1, "index %d beyond the table's %d positions", idx, ei.size)
	}
	v, err := ei.pairs.decode(f, idx)
	if err != nil {
		return 0, err
	}
	return v - 2, nil // leaf values are 0-4: checked at load
}

// Per WDL value: which DTZ map a value goes through, and the flag that
// says the table stores it in plies rather than halved.
var (
	wdlToMap = [5]int{1, 3, 0, 2, 0}
	wdlFlag  = [5]uint8{8, 0, 0, 0, 4}
)

// tableDTZ reads the DTZ table for a position of value wdl; stored is
// false when the table holds the other side to move only.
func (t *Tables) tableDTZ(p *position, wdl int) (d int, stored bool, err error) {
	key := p.key()
	e := t.lookup(key)
	if e == nil {
		return 0, false, &MissingError{Table: keyName(key), DTZ: true}
	}
	f, err := t.file(e, true)
	if err != nil {
		return 0, false, err
	}
	flip, side := orient(&e.m, key, p.stm)
	var sq [maxPieces]int
	var ei *encInfo
	var idx uint64
	tb := 0
	n := e.m.n
	if !e.m.hasPawns {
		if int(f.flags[0]&1) != side && !e.m.symmetric {
			return 0, false, nil
		}
		ei = &f.ei[0][0]
		if squares(p, &ei.pieces, 0, n, flip, 0, &sq) != n {
			return 0, false, f.corrupt(-1, "pieces do not match the position")
		}
		var ok bool
		if idx, ok = encodePiece(&sq, n, ei, e.m.kk); !ok {
			return 0, false, f.corrupt(-1, "header's piece order puts the kings together")
		}
	} else {
		mirror := 0
		if flip {
			mirror = 0x38
		}
		i := squares(p, &f.ei[0][0].pieces, 0, e.m.lead, flip, mirror, &sq)
		tb = leadingPawnFile(&sq, e.m.lead)
		if int(f.flags[tb]&1) != side && !e.m.symmetric {
			return 0, false, nil
		}
		ei = &f.ei[0][tb]
		if squares(p, &ei.pieces, i, n, flip, mirror, &sq) != n {
			return 0, false, f.corrupt(-1, "pieces do not match the position")
		}
		idx = encodePawn(&sq, n, e.m.lead, e.m.other, ei)
	}
	if idx >= ei.size {
		return 0, false, f.corrupt(-1, "index %d beyond the table's %d positions", idx, ei.size)
	}
	v, err := ei.pairs.decode(f, idx)
	if err != nil {
		return 0, false, err
	}
	flags := f.flags[tb]
	if flags&2 != 0 {
		mp := f.maps[tb][wdlToMap[wdl+2]]
		if v >= mp.n {
			return 0, false, f.corrupt(mp.off, "DTZ value %d beyond its map of %d", v, mp.n)
		}
		if mp.wide {
			v = int(binary.LittleEndian.Uint16(f.data[mp.off+2*v:]))
		} else {
			v = int(f.data[mp.off+v])
		}
	}
	if flags&wdlFlag[wdl+2] == 0 || wdl&1 != 0 {
		v *= 2
	}
	return v, true, nil
}
