package syzygy

import (
	"math/bits"
	"strings"

	"github.com/nnuelab/nnuelab/engine/board"
)

// A table is named by its material, the stronger side first: KRBvKR is
// king, rook and bishop against king and rook. Inside the files, piece
// codes are 1-6 for the first side's pawn, knight, bishop, rook, queen and
// king and 9-14 for the second side's; the first side is "white" in the
// table whichever colour it has in a position.

// pieceLetters are the names' piece letters by piece code & 7.
const pieceLetters = " PNBRQK"

// material describes a table's material, the name's first side as white.
type material struct {
	name      string
	counts    [16]uint8 // pieces by piece code
	n         int       // pieces in all, kings included
	hasPawns  bool
	symmetric bool // both sides have the same pieces
	kk        bool // pawnless, and the kings are the only single pieces
	// With pawns: the pawns of the leading side (the one with fewer
	// pawns, but some; White on a tie) and of the other side.
	lead, other int
	key         uint64 // materialKey with the first side as White
	mirrorKey   uint64 // materialKey with the first side as Black
}

// parseMaterial reads a table name such as "KRBvKR"; ok is false for a
// name that is not one (wrong letters, no king, more than 7 pieces).
func parseMaterial(name string) (m material, ok bool) {
	sides := strings.Split(name, "v")
	if len(sides) != 2 {
		return m, false
	}
	for c, side := range sides {
		if len(side) == 0 || side[0] != 'K' {
			return m, false
		}
		for i := 0; i < len(side); i++ {
			t := strings.IndexByte(pieceLetters, side[i])
			if t < 1 || t == 6 && i > 0 {
				return m, false
			}
			m.counts[t|c<<3]++
			m.n++
		}
	}
	if m.n < 3 || m.n > maxPieces {
		return m, false
	}
	m.name = name
	wp, bp := int(m.counts[1]), int(m.counts[9])
	m.hasPawns = wp+bp > 0
	if m.hasPawns {
		m.lead, m.other = wp, bp
		if bp > 0 && (wp == 0 || wp > bp) {
			m.lead, m.other = bp, wp
		}
	} else {
		single := 0
		for _, c := range m.counts {
			if c == 1 {
				single++
			}
		}
		m.kk = single == 2
	}
	m.key = countsKey(&m.counts, false)
	m.mirrorKey = countsKey(&m.counts, true)
	m.symmetric = m.key == m.mirrorKey
	return m, true
}

// countsKey packs piece counts into a material key: White's pawns,
// knights, bishops, rooks and queens in 4 bits each, then Black's. The
// kings are implied; KvK is 0. swap exchanges the colours.
func countsKey(counts *[16]uint8, swap bool) uint64 {
	var k uint64
	for c := 0; c < 2; c++ {
		from := c
		if swap {
			from ^= 1
		}
		for t := 1; t <= 5; t++ {
			k |= uint64(counts[t|from<<3]) << (4*(t-1) + 20*c)
		}
	}
	return k
}

// key is the material key of a position (doMove keeps it).
func (p *position) key() uint64 { return p.mkey }

// countKey computes the material key of a position.
func (p *position) countKey() uint64 {
	w, b := p.color[0], p.color[1]
	count := func(x uint64) uint64 { return uint64(bits.OnesCount64(x)) }
	pn, kn, bs, rk, qn := p.typ[board.Pawn], p.typ[board.Knight], p.typ[board.Bishop], p.typ[board.Rook], p.typ[board.Queen]
	return count(w&pn) | count(w&kn)<<4 | count(w&bs)<<8 | count(w&rk)<<12 | count(w&qn)<<16 |
		count(b&pn)<<20 | count(b&kn)<<24 | count(b&bs)<<28 | count(b&rk)<<32 | count(b&qn)<<36
}

// keyUnit is one piece's part of a material key; 0 for a king.
func keyUnit(c int, t board.PieceType) uint64 {
	if t == board.King {
		return 0
	}
	return 1 << (4*uint(t) + 20*uint(c))
}

// keyName is the table name of a material key, stronger side first, as
// the table files are named.
func keyName(k uint64) string {
	side := func(c int) string {
		s := "K"
		for t := 5; t >= 1; t-- {
			s += strings.Repeat(pieceLetters[t:t+1], int(k>>(4*(t-1)+20*c)&15))
		}
		return s
	}
	w, b := side(0), side(1)
	if stronger(b, w) {
		w, b = b, w
	}
	return w + "v" + b
}

// stronger reports whether side a names more pieces than b, or as many
// and higher ones first (queen, rook, bishop, knight, pawn): the side a
// table's name puts first.
func stronger(a, b string) bool {
	if len(a) != len(b) {
		return len(a) > len(b)
	}
	for i := 0; i < len(a); i++ {
		if a[i] != b[i] {
			return strings.IndexByte(pieceLetters, a[i]) > strings.IndexByte(pieceLetters, b[i])
		}
	}
	return false
}
