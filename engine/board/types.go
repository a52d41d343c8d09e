// Package board is nnuelab's chess core: bitboards, positions with FEN in and
// out, legal move generation for standard chess and Chess960, make/unmake with
// incremental Zobrist keys, and the piece deltas that NNUE accumulators update
// from.
package board

import "math/bits"

// Color is the side a piece belongs to or the side to move.
type Color uint8

// The two colours; White moves first.
const (
	White Color = iota
	Black
)

// Other returns the opposing colour.
func (c Color) Other() Color { return c ^ 1 }

func (c Color) String() string {
	if c == White {
		return "w"
	}
	return "b"
}

// PieceType is a piece without colour.
type PieceType uint8

// Piece types in the order NNUE feature planes use them.
const (
	Pawn PieceType = iota
	Knight
	Bishop
	Rook
	Queen
	King
	NoPieceType PieceType = 6
)

// Piece is a coloured piece, numbered type + 6*colour so that it can index
// 12-entry tables directly (white pawn 0 ... black king 11).
type Piece uint8

// NoPiece marks an empty square.
const NoPiece Piece = 12

// MakePiece combines a colour and a piece type.
func MakePiece(c Color, t PieceType) Piece { return Piece(uint8(t) + 6*uint8(c)) }

// Type returns the piece's type (NoPieceType for NoPiece).
func (p Piece) Type() PieceType { return pieceTypes[p] }

// Color returns the piece's colour; undefined for NoPiece.
func (p Piece) Color() Color { return pieceColors[p] }

// pieceTypes and pieceColors answer Type and Color with one load, where
// the arithmetic (a test for NoPiece, a division by 6 done as a multiply,
// shift and subtraction) took about seven instructions on paths as hot as
// MakeMove; 256 entries so that no index needs a bounds check.
var pieceTypes, pieceColors = func() (types [256]PieceType, colors [256]Color) {
	for p := range types {
		types[p], colors[p] = NoPieceType, Color(p/6)
		if p < int(NoPiece) {
			types[p] = PieceType(p % 6)
		}
	}
	return types, colors
}()

const pieceLetters = "PNBRQKpnbrqk"

// String returns the FEN letter of the piece, "." for NoPiece.
func (p Piece) String() string {
	if p >= NoPiece {
		return "."
	}
	return pieceLetters[p : p+1]
}

// Square is a board square, a1 = 0, b1 = 1, ..., h8 = 63.
type Square uint8

// NoSquare marks an absent square (no en-passant target, no castling rook).
const NoSquare Square = 64

// Named squares used by the rules and the tests.
const (
	A1, B1, C1, D1, E1, F1, G1, H1 Square = 0, 1, 2, 3, 4, 5, 6, 7
	A8, B8, C8, D8, E8, F8, G8, H8 Square = 56, 57, 58, 59, 60, 61, 62, 63
)

// MakeSquare builds a square from file (0 = a) and rank (0 = 1st).
func MakeSquare(file, rank int) Square { return Square(rank*8 + file) }

// File returns 0 (a) to 7 (h).
func (s Square) File() int { return int(s) & 7 }

// Rank returns 0 (1st rank) to 7 (8th rank).
func (s Square) Rank() int { return int(s) >> 3 }

// Relative returns the square as seen from c's side (mirrored vertically for Black).
func (s Square) Relative(c Color) Square { return s ^ Square(56*uint8(c)) }

func (s Square) String() string {
	if s >= NoSquare {
		return "-"
	}
	return string([]byte{byte('a' + s.File()), byte('1' + s.Rank())})
}

// Bitboard is a set of squares, bit i for square i.
type Bitboard uint64

// Bit returns the bitboard holding only s.
func Bit(s Square) Bitboard { return 1 << s }

// Has reports whether s is in the set.
func (b Bitboard) Has(s Square) bool { return b&(1<<s) != 0 }

// Count returns the number of squares in the set.
func (b Bitboard) Count() int { return bits.OnesCount64(uint64(b)) }

// LSB returns the lowest square of a non-empty set.
func (b Bitboard) LSB() Square { return Square(bits.TrailingZeros64(uint64(b))) }

// PopLSB removes and returns the lowest square of a non-empty set.
func (b *Bitboard) PopLSB() Square {
	s := Square(bits.TrailingZeros64(uint64(*b)))
	*b &= *b - 1
	return s
}

// More reports whether the set has more than one square.
func (b Bitboard) More() bool { return b&(b-1) != 0 }

// File and rank masks.
const (
	FileA Bitboard = 0x0101010101010101
	FileH Bitboard = FileA << 7
	Rank1 Bitboard = 0xFF
	Rank2 Bitboard = Rank1 << 8
	Rank3 Bitboard = Rank1 << 16
	Rank6 Bitboard = Rank1 << 40
	Rank7 Bitboard = Rank1 << 48
	Rank8 Bitboard = Rank1 << 56
)

// Move is a move packed in 16 bits: from (6), to (6), kind (2), promotion
// piece (2). Castling is stored as "king takes own rook" so that standard
// chess and Chess960 share one representation; UCI text converts it.
type Move uint16

// Move kinds.
const (
	Normal    = 0
	Promotion = 1 << 12
	EnPassant = 2 << 12
	Castling  = 3 << 12
)

// NullMove is the zero move; it is never legal.
const NullMove Move = 0

func newMove(from, to Square) Move { return Move(from) | Move(to)<<6 }

func newPromotion(from, to Square, pt PieceType) Move {
	return Move(from) | Move(to)<<6 | Promotion | Move(pt-Knight)<<14
}

// From returns the origin square.
func (m Move) From() Square { return Square(m & 63) }

// To returns the destination square; for castling, the rook's square.
func (m Move) To() Square { return Square(m >> 6 & 63) }

// Kind returns Normal, Promotion, EnPassant or Castling.
func (m Move) Kind() int { return int(m & (3 << 12)) }

// Promo returns the promotion piece type, or NoPieceType.
func (m Move) Promo() PieceType {
	if m.Kind() != Promotion {
		return NoPieceType
	}
	return PieceType(m>>14) + Knight
}
