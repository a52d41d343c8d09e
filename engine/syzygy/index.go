package syzygy

// Index functions: how a position's squares become an index into a table.
//
// A table orders its pieces (the order is in each file's header) and
// numbers placements group by group: a leading group (without pawns the
// first two or three pieces, reduced by the board's symmetries to 462 or
// 31,332 placements; with pawns the leading side's pawns, reduced by
// mirroring the files), then each further group of like pieces as a
// combination of the squares the earlier groups left free. The tables
// below are the numbering those groups use; they are built here from the
// rules that define them rather than typed in.

// maxPieces is the most pieces any Syzygy table holds.
const maxPieces = 7

var (
	// offDiag is -1 above the a1-h8 diagonal (file > rank), 1 below it
	// and 0 on it.
	offDiag [64]int8
	// triangle numbers the ten squares of the a1-d1-d4 triangle (off the
	// diagonal 0-5, on it 6-9) and gives every other square its mirror
	// image's number.
	triangle [64]uint8
	// lower numbers the squares on and on one side of the diagonal: the
	// 28 squares with file > rank first, then the diagonal (28-35); the
	// other side mirrors.
	lower [64]uint8
	// diag numbers the two long diagonals: a1..h8 0-7, h1..a8 8-15.
	diag [64]uint8
	// kkIdx numbers the 462 placements of two kings that remain once the
	// first king is in the triangle (by its triangle number) and, when it
	// is on the diagonal, the second is not above it; -1 for the rest.
	kkIdx [10][64]int16
	// flap numbers a leading pawn's square (files a-d, mirrored for e-h;
	// ranks 2-7) as 6*file + rank-2.
	flap [64]uint8
	// pawnTwist orders the pawn squares for the other leading pawns: the
	// central files and the advanced ranks first.
	pawnTwist [64]uint8
	// binomial[k][n] is n choose k.
	binomial [maxPieces + 1][64]uint64
	// pawnIdx[k-1][f] is where the placements of k leading pawns whose
	// first pawn has flap number f start within its file's block, and
	// pawnFactor[k-1][file] is that block's size.
	pawnIdx    [maxPieces - 1][24]uint64
	pawnFactor [maxPieces - 1][4]uint64
)

// triangleSquares lists the triangle's squares by their numbers.
var triangleSquares = [10]int{1, 2, 3, 10, 11, 19, 0, 9, 18, 27} // b1 c1 d1 c2 d2 d3 a1 b2 c3 d4

func init() {
	for s := 0; s < 64; s++ {
		f, r := s&7, s>>3
		switch {
		case r > f:
			offDiag[s] = 1
		case r < f:
			offDiag[s] = -1
		}
		// The square's image in the a1-d1-d4 triangle.
		mf, mr := f, r
		if mf > 3 {
			mf = 7 - mf
		}
		if mr > 3 {
			mr = 7 - mr
		}
		if mr > mf {
			mf, mr = mr, mf
		}
		for i, t := range triangleSquares {
			if t == mr*8+mf {
				triangle[s] = uint8(i)
			}
		}
		if f == r {
			diag[s] = uint8(f)
		} else if f+r == 7 {
			diag[s] = uint8(8 + r)
		}
		if r >= 1 && r <= 6 {
			ff := f
			if ff > 3 {
				ff = 7 - ff
			}
			flap[s] = uint8(6*ff + r - 1)
			left := 0
			if f < 4 {
				left = 1
			}
			pawnTwist[s] = uint8(12*(3-ff) + 2*(6-r) + left)
		}
	}
	n := 0
	for r := 0; r < 8; r++ {
		for f := r + 1; f < 8; f++ {
			lower[r*8+f] = uint8(n)
			lower[f*8+r] = uint8(n)
			n++
		}
	}
	for i := 0; i < 8; i++ {
		lower[i*9] = uint8(28 + i)
	}

	// Two kings: every placement with the first king off the diagonal,
	// then those with it on the diagonal and the second below it, then
	// those with both on the diagonal.
	idx := int16(0)
	for t := 0; t < 10; t++ {
		k := triangleSquares[t]
		for s := 0; s < 64; s++ {
			kkIdx[t][s] = -1
			if kingsTouch(k, s) || t >= 6 && offDiag[s] >= 0 {
				continue
			}
			kkIdx[t][s] = idx
			idx++
		}
	}
	for t := 6; t < 10; t++ {
		k := triangleSquares[t]
		for s := 0; s < 64; s++ {
			if offDiag[s] == 0 && !kingsTouch(k, s) {
				kkIdx[t][s] = idx
				idx++
			}
		}
	}
	if idx != 462 {
		panic("syzygy: king pair numbering does not come to 462")
	}

	for k := 0; k <= maxPieces; k++ {
		for n := 0; n < 64; n++ {
			v := uint64(1)
			for i := 0; i < k; i++ {
				v = v * uint64(n-i) / uint64(i+1)
			}
			if n < k {
				v = 0
			}
			binomial[k][n] = v
		}
	}
	for k := 0; k < maxPieces-1; k++ {
		for file := 0; file < 4; file++ {
			s := uint64(0)
			for r := 1; r <= 6; r++ {
				sq := r*8 + file
				pawnIdx[k][flap[sq]] = s
				s += binomial[k][pawnTwist[sq]]
			}
			pawnFactor[k][file] = s
		}
	}
}

// kingsTouch reports whether two squares are equal or adjacent.
func kingsTouch(a, b int) bool {
	df, dr := a&7-b&7, a>>3-b>>3
	return df >= -1 && df <= 1 && dr >= -1 && dr <= 1
}

// encInfo is how one table (one side to move, one leading-pawn file)
// numbers its positions.
type encInfo struct {
	pieces [maxPieces]uint8  // piece codes in the table's order (1-6 white P-K, 9-14 black)
	norm   [maxPieces]uint8  // at a group's first piece: the group's size
	factor [maxPieces]uint64 // at a group's first piece: its index multiplier
	size   uint64            // positions in the table
	pairs  pairs             // the compressed values
}

// encodePiece returns the index of a pawnless position whose squares are
// in p in the table's piece order (like pieces ascending). It changes p.
// kk says the leading group is the two kings. ok is false for squares no
// legal position has (the kings touching), which only a damaged header
// can lead to.
func encodePiece(p *[maxPieces]int, n int, e *encInfo, kk bool) (uint64, bool) {
	// Without branches where the way is as good as random: the files
	// mirrored when the first piece is on e-h, the ranks when on 5-8.
	n = min(n, maxPieces)
	flip := (p[0]>>2&1)*7 | (p[0]>>5&1)*0x38
	for i := 0; i < n; i++ {
		p[i] ^= flip
	}
	lead := 3
	if kk {
		lead = 2
	}
	// The first leading piece off the diagonal decides whether to mirror
	// the board in it.
	for i := 0; i < n; i++ {
		if d := offDiag[p[i]&63]; d != 0 {
			if i < lead {
				m := -int((d + 1) >> 1) // -1 when d > 0: mirror
				for j := 0; j < n; j++ {
					t := (p[j]&7)<<3 | p[j]>>3
					p[j] ^= (p[j] ^ t) & m
				}
			}
			break
		}
	}
	var idx uint64
	k := lead
	if kk {
		v := kkIdx[triangle[p[0]]][p[1]]
		if v < 0 {
			return 0, false
		}
		idx = uint64(v)
	} else {
		s1, s2 := 0, 0
		if p[1] > p[0] {
			s1 = 1
		}
		if p[2] > p[0] {
			s2++
		}
		if p[2] > p[1] {
			s2++
		}
		switch {
		case offDiag[p[0]] != 0:
			idx = uint64(triangle[p[0]])*63*62 + uint64(p[1]-s1)*62 + uint64(p[2]-s2)
		case offDiag[p[1]] != 0:
			idx = 6*63*62 + uint64(diag[p[0]])*28*62 + uint64(lower[p[1]])*62 + uint64(p[2]-s2)
		case offDiag[p[2]] != 0:
			idx = 6*63*62 + 4*28*62 + uint64(diag[p[0]])*7*28 + uint64(int(diag[p[1]])-s1)*28 + uint64(lower[p[2]])
		default:
			idx = 6*63*62 + 4*28*62 + 4*7*28 + uint64(diag[p[0]])*7*6 + uint64(int(diag[p[1]])-s1)*6 + uint64(int(diag[p[2]])-s2)
		}
	}
	idx *= e.factor[0]
	return idx + encodeGroups(p, k, n, e, 0), true
}

// leadingPawnFile moves the leading pawn with the lowest flap number to
// p[0] and returns its file folded to a-d: the table (of four) the
// position is in.
func leadingPawnFile(p *[maxPieces]int, leadPawns int) int {
	for i := 1; i < leadPawns; i++ {
		if flap[p[0]] > flap[p[i]] {
			p[0], p[i] = p[i], p[0]
		}
	}
	f := p[0] & 7
	if f > 3 {
		f = 7 - f
	}
	return f
}

// encodePawn returns the index of a position with pawns; p holds its
// squares in the table's order with the leading pawn first (see
// leadingPawnFile). It changes p.
func encodePawn(p *[maxPieces]int, n, leadPawns, otherPawns int, e *encInfo) uint64 {
	// The files mirrored when the leading pawn is on e-h, without a
	// branch.
	n = min(n, maxPieces)
	flip := (p[0] >> 2 & 1) * 7
	for i := 0; i < n; i++ {
		p[i] ^= flip
	}
	// The other leading pawns, most central and advanced first.
	for i := 1; i < leadPawns; i++ {
		for j := i + 1; j < leadPawns; j++ {
			if pawnTwist[p[i]] < pawnTwist[p[j]] {
				p[i], p[j] = p[j], p[i]
			}
		}
	}
	k := leadPawns
	idx := pawnIdx[k-1][flap[p[0]]]
	for i := 1; i < k; i++ {
		idx += binomial[k-i][pawnTwist[p[i]]]
	}
	idx *= e.factor[0]
	if otherPawns > 0 {
		t := k + otherPawns
		idx += encodeGroup(p, k, t, 8) * e.factor[k]
		k = t
	}
	return idx + encodeGroups(p, k, n, e, 0)
}

// encodeGroups adds up the index parts of the groups from p[k] on.
func encodeGroups(p *[maxPieces]int, k, n int, e *encInfo, base int) uint64 {
	var idx uint64
	for k < n {
		t := k + int(e.norm[k])
		idx += encodeGroup(p, k, t, base) * e.factor[k]
		k = t
	}
	return idx
}

// encodeGroup numbers the placement of the like pieces p[k:t] as a
// combination of the squares p[:k] left free (less base, the squares no
// piece of the group can stand on: the first rank for pawns).
func encodeGroup(p *[maxPieces]int, k, t, base int) uint64 {
	// Sorted and counted without branches (min, max and a sign bit).
	for i := k; i < t; i++ {
		for j := i + 1; j < t; j++ {
			a, b := p[i], p[j]
			p[i], p[j] = min(a, b), max(a, b)
		}
	}
	var s uint64
	for i := k; i < t; i++ {
		sq := p[i]
		skips := 0
		for j := 0; j < k; j++ {
			skips += int(uint(p[j]-sq) >> 63) // 1 when p[j] < sq
		}
		s += binomial[i-k+1][sq-skips-base]
	}
	return s
}
