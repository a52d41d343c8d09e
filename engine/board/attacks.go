package board

import "math/bits"

// Sliding attacks use "fancy" magic bitboards: per square, the relevant
// blockers are masked, multiplied by a magic number and shifted into an index
// of a shared table. The choice over PEXT: Go has no PEXT intrinsic, and a
// multiply+shift is fast on every x86-64 (PEXT is slow microcode on AMD before
// Zen 3) and on ARM. The magic numbers were found by searchMagics with fixed
// seeds and are kept in magicnumbers.go, so start-up only fills the table.

type magic struct {
	mask   Bitboard
	magic  uint64
	offset uint32
	shift  uint8
}

var (
	rookMagics   [64]magic
	bishopMagics [64]magic
	slideTable   [102400 + 5248]Bitboard

	knightAttacks [64]Bitboard
	kingAttacks   [64]Bitboard
	pawnAttacks   [2][64]Bitboard

	// between[a][b] holds the squares strictly between a and b on a shared
	// line (empty if none); line[a][b] the whole line through both.
	between [64][64]Bitboard
	line    [64][64]Bitboard
)

// RookAttacks returns the squares a rook on s attacks given the occupancy.
func RookAttacks(s Square, occ Bitboard) Bitboard {
	m := &rookMagics[s]
	// Every shift is below 64; saying so (&63) spares the compiler's
	// guard for larger ones, three instructions per lookup.
	return slideTable[m.offset+uint32((uint64(occ&m.mask)*m.magic)>>(m.shift&63))]
}

// BishopAttacks returns the squares a bishop on s attacks given the occupancy.
func BishopAttacks(s Square, occ Bitboard) Bitboard {
	m := &bishopMagics[s]
	return slideTable[m.offset+uint32((uint64(occ&m.mask)*m.magic)>>(m.shift&63))]
}

// QueenAttacks returns the squares a queen on s attacks given the occupancy.
func QueenAttacks(s Square, occ Bitboard) Bitboard {
	return RookAttacks(s, occ) | BishopAttacks(s, occ)
}

// KnightAttacks returns the squares a knight on s attacks.
func KnightAttacks(s Square) Bitboard { return knightAttacks[s] }

// KingAttacks returns the squares a king on s attacks.
func KingAttacks(s Square) Bitboard { return kingAttacks[s] }

// PawnAttacks returns the squares a pawn of colour c on s attacks.
func PawnAttacks(c Color, s Square) Bitboard { return pawnAttacks[c][s] }

// Between returns the squares strictly between a and b if they share a rank,
// file or diagonal, else the empty set.
func Between(a, b Square) Bitboard { return between[a][b] }

// Attacks returns the squares a piece of type pt and colour c on s attacks.
func Attacks(pt PieceType, c Color, s Square, occ Bitboard) Bitboard {
	switch pt {
	case Pawn:
		return pawnAttacks[c][s]
	case Knight:
		return knightAttacks[s]
	case Bishop:
		return BishopAttacks(s, occ)
	case Rook:
		return RookAttacks(s, occ)
	case Queen:
		return QueenAttacks(s, occ)
	case King:
		return kingAttacks[s]
	}
	return 0
}

var (
	rookDirs   = [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}}
	bishopDirs = [4][2]int{{1, 1}, {1, -1}, {-1, 1}, {-1, -1}}
)

// slowSlide walks each direction until a blocker; used to build the tables.
func slowSlide(s Square, occ Bitboard, dirs [4][2]int) Bitboard {
	var att Bitboard
	for _, d := range dirs {
		f, r := s.File()+d[0], s.Rank()+d[1]
		for f >= 0 && f < 8 && r >= 0 && r < 8 {
			sq := MakeSquare(f, r)
			att |= Bit(sq)
			if occ.Has(sq) {
				break
			}
			f, r = f+d[0], r+d[1]
		}
	}
	return att
}

// relevantMask is the slide with edges removed: a blocker on the last square
// of a ray never changes the attack set.
func relevantMask(s Square, dirs [4][2]int) Bitboard {
	var m Bitboard
	for _, d := range dirs {
		f, r := s.File()+d[0], s.Rank()+d[1]
		for {
			nf, nr := f+d[0], r+d[1]
			if f < 0 || f > 7 || r < 0 || r > 7 || nf < 0 || nf > 7 || nr < 0 || nr > 7 {
				break
			}
			m |= Bit(MakeSquare(f, r))
			f, r = nf, nr
		}
	}
	return m
}

// xorshift64star is a small deterministic generator for the magic search
// and the Zobrist keys.
type xorshift64star uint64

func (x *xorshift64star) next() uint64 {
	*x ^= *x >> 12
	*x ^= *x << 25
	*x ^= *x >> 27
	return uint64(*x) * 2685821657736338717
}

func (x *xorshift64star) sparse() uint64 {
	a, b, c := x.next(), x.next(), x.next()
	return a & b & c
}

// subsets enumerates every subset of mask (Carry-Rippler) with its attack set.
func subsets(s Square, mask Bitboard, dirs [4][2]int, occs, refs []Bitboard) int {
	size := 0
	for sub := Bitboard(0); ; {
		occs[size], refs[size] = sub, slowSlide(s, sub, dirs)
		size++
		sub = (sub - mask) & mask
		if sub == 0 {
			return size
		}
	}
}

// searchMagics finds a magic number per square by trial from a seeded
// generator. It takes about half a second for rooks, so its results are
// kept in magicnumbers.go; TestMagicNumbersRegenerate reruns it.
func searchMagics(dirs [4][2]int, seed uint64) [64]uint64 {
	rng := xorshift64star(seed)
	var out [64]uint64
	var occs, refs, table [4096]Bitboard
	var epoch [4096]int
	attempt := 0
	for s := Square(0); s < 64; s++ {
		mask := relevantMask(s, dirs)
		size := subsets(s, mask, dirs, occs[:], refs[:])
		shift := 64 - mask.Count()
		for {
			mg := rng.sparse()
			if bits.OnesCount64((uint64(mask)*mg)>>56) < 6 {
				continue // too few high bits: rarely a magic
			}
			attempt++
			ok := true
			for i := 0; i < size; i++ {
				idx := (uint64(occs[i]) * mg) >> shift
				if epoch[idx] != attempt {
					epoch[idx] = attempt
					table[idx] = refs[i]
				} else if table[idx] != refs[i] {
					ok = false
					break
				}
			}
			if ok {
				out[s] = mg
				break
			}
		}
	}
	return out
}

// initMagics fills the attack table for one slider from its magic numbers,
// starting at offset, and returns the offset after it.
func initMagics(magics *[64]magic, numbers *[64]uint64, dirs [4][2]int, offset uint32) uint32 {
	var occs, refs [4096]Bitboard
	for s := Square(0); s < 64; s++ {
		mask := relevantMask(s, dirs)
		size := subsets(s, mask, dirs, occs[:], refs[:])
		m := &magics[s]
		m.mask, m.magic, m.shift, m.offset = mask, numbers[s], uint8(64-mask.Count()), offset
		for i := 0; i < size; i++ {
			idx := offset + uint32((uint64(occs[i])*m.magic)>>m.shift)
			if t := slideTable[idx]; t != 0 && t != refs[i] {
				panic("board: bad magic number for square " + s.String()) // magicnumbers.go is corrupt
			}
			slideTable[idx] = refs[i]
		}
		offset += uint32(size)
	}
	return offset
}

const (
	rookMagicSeed   = 0x9E3779B97F4A7C15
	bishopMagicSeed = 0xD1B54A32D192ED03
)

func init() {
	end := initMagics(&rookMagics, &rookMagicNumbers, rookDirs, 0)
	initMagics(&bishopMagics, &bishopMagicNumbers, bishopDirs, end)

	for s := Square(0); s < 64; s++ {
		f, r := s.File(), s.Rank()
		for _, d := range [8][2]int{{1, 2}, {2, 1}, {2, -1}, {1, -2}, {-1, -2}, {-2, -1}, {-2, 1}, {-1, 2}} {
			if nf, nr := f+d[0], r+d[1]; nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
				knightAttacks[s] |= Bit(MakeSquare(nf, nr))
			}
		}
		for df := -1; df <= 1; df++ {
			for dr := -1; dr <= 1; dr++ {
				if nf, nr := f+df, r+dr; (df != 0 || dr != 0) && nf >= 0 && nf < 8 && nr >= 0 && nr < 8 {
					kingAttacks[s] |= Bit(MakeSquare(nf, nr))
				}
			}
		}
		for _, df := range []int{-1, 1} {
			if nf := f + df; nf >= 0 && nf < 8 {
				if r < 7 {
					pawnAttacks[White][s] |= Bit(MakeSquare(nf, r+1))
				}
				if r > 0 {
					pawnAttacks[Black][s] |= Bit(MakeSquare(nf, r-1))
				}
			}
		}
	}
	for a := Square(0); a < 64; a++ {
		for b := Square(0); b < 64; b++ {
			if a == b {
				continue
			}
			for _, dirs := range [][4][2]int{rookDirs, bishopDirs} {
				if slowSlide(a, 0, dirs).Has(b) {
					line[a][b] = (slowSlide(a, 0, dirs) & slowSlide(b, 0, dirs)) | Bit(a) | Bit(b)
					between[a][b] = slowSlide(a, Bit(b), dirs) & slowSlide(b, Bit(a), dirs)
				}
			}
		}
	}
}
