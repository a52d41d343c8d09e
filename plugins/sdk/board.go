package sdk

import (
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/nnuelab/nnuelab/plugins/sdk/pluginpb"
)

// Piece is a coloured piece, numbered as the engine numbers them: White
// pawn, knight, bishop, rook, queen, king = 0..5, Black's 6..11.
type Piece uint8

// The pieces, and Empty for an empty square.
const (
	WhitePawn Piece = iota
	WhiteKnight
	WhiteBishop
	WhiteRook
	WhiteQueen
	WhiteKing
	BlackPawn
	BlackKnight
	BlackBishop
	BlackRook
	BlackQueen
	BlackKing
	Empty Piece = 12
)

// Castling-right bits of Board.Castling, as in packed records.
const (
	WhiteOO  uint8 = 1 << iota // White may castle king side
	WhiteOOO                   // White may castle queen side
	BlackOO                    // Black may castle king side
	BlackOOO                   // Black may castle queen side
)

// NoSquare marks the absence of an en passant square.
const NoSquare uint8 = 64

// PackedSize is the size in bytes of one packed position record.
const PackedSize = 40

const pieceLetters = "PNBRQKpnbrqk"

// Black reports whether p is a black piece.
func (p Piece) Black() bool { return p >= BlackPawn && p < Empty }

// Type returns p's type, 0 (pawn) to 5 (king).
func (p Piece) Type() int { return int(p) % 6 }

// Board is a position as a plugin sees it: a mailbox board with the side to
// move, castling rights, en passant square and move counters.
type Board struct {
	// Squares holds the piece on each square, a1 = 0, b1 = 1, ..., h8 = 63.
	Squares [64]Piece
	// BlackToMove is true when Black is to move.
	BlackToMove bool
	// Castling holds the WhiteOO... bits.
	Castling uint8
	// EnPassant is the en passant target square or NoSquare.
	EnPassant uint8
	// Halfmove is the fifty-move counter, Fullmove the move number.
	Halfmove, Fullmove int
}

// ParseFEN reads a position in Forsyth-Edwards notation. The move counters
// may be missing (they default to 0 and 1); castling rights may also be
// given in Shredder/X-FEN file letters, which map to king or queen side by
// the rook's side of the king.
func ParseFEN(fen string) (Board, error) {
	var b Board
	f := strings.Fields(fen)
	if len(f) < 4 || len(f) > 6 {
		return b, fmt.Errorf("fen %q: want 4 to 6 fields, got %d", fen, len(f))
	}
	for i := range b.Squares {
		b.Squares[i] = Empty
	}
	ranks := strings.Split(f[0], "/")
	if len(ranks) != 8 {
		return b, fmt.Errorf("fen %q: want 8 ranks, got %d", fen, len(ranks))
	}
	kings := [2]int{}
	for i, row := range ranks {
		r, file := 7-i, 0
		for _, c := range row {
			switch {
			case c >= '1' && c <= '8':
				file += int(c - '0')
			case strings.ContainsRune(pieceLetters, c):
				if file > 7 {
					return b, fmt.Errorf("fen %q: rank %d has more than 8 files", fen, r+1)
				}
				p := Piece(strings.IndexRune(pieceLetters, c))
				b.Squares[r*8+file] = p
				if p.Type() == 5 {
					kings[p/6]++
				}
				file++
			default:
				return b, fmt.Errorf("fen %q: bad character %q in rank %d", fen, c, r+1)
			}
			if file > 8 {
				return b, fmt.Errorf("fen %q: rank %d has more than 8 files", fen, r+1)
			}
		}
		if file != 8 {
			return b, fmt.Errorf("fen %q: rank %d has %d files", fen, r+1, file)
		}
	}
	if kings != [2]int{1, 1} {
		return b, fmt.Errorf("fen %q: want one king per side", fen)
	}
	switch f[1] {
	case "w":
	case "b":
		b.BlackToMove = true
	default:
		return b, fmt.Errorf("fen %q: side to move %q is not w or b", fen, f[1])
	}
	if f[2] != "-" {
		for _, c := range f[2] {
			black := c >= 'a' && c <= 'z'
			king := b.kingFile(black)
			var side uint8
			switch lc := c | 0x20; {
			case lc == 'k':
				side = WhiteOO
			case lc == 'q':
				side = WhiteOOO
			case lc >= 'a' && lc <= 'h' && int(lc-'a') > king:
				side = WhiteOO
			case lc >= 'a' && lc <= 'h' && int(lc-'a') < king:
				side = WhiteOOO
			default:
				return b, fmt.Errorf("fen %q: bad castling rights %q", fen, f[2])
			}
			if black {
				side <<= 2
			}
			b.Castling |= side
		}
	}
	b.EnPassant = NoSquare
	if f[3] != "-" {
		s, err := parseSquare(f[3])
		if err != nil {
			return b, fmt.Errorf("fen %q: en passant: %w", fen, err)
		}
		b.EnPassant = s
	}
	b.Fullmove = 1
	for i, dst := range []*int{&b.Halfmove, &b.Fullmove} {
		if len(f) > 4+i {
			n, err := strconv.Atoi(f[4+i])
			if err != nil || n < 0 || n > 65535 {
				return b, fmt.Errorf("fen %q: bad move counter %q", fen, f[4+i])
			}
			*dst = n
		}
	}
	return b, nil
}

func (b *Board) kingFile(black bool) int {
	k := WhiteKing
	if black {
		k = BlackKing
	}
	for s, p := range b.Squares {
		if p == k {
			return s % 8
		}
	}
	return 4
}

func parseSquare(s string) (uint8, error) {
	if len(s) != 2 || s[0] < 'a' || s[0] > 'h' || s[1] < '1' || s[1] > '8' {
		return 0, fmt.Errorf("bad square %q", s)
	}
	return (s[1]-'1')*8 + s[0] - 'a', nil
}

// FEN returns the position in Forsyth-Edwards notation (castling as KQkq).
func (b *Board) FEN() string {
	var sb strings.Builder
	for r := 7; r >= 0; r-- {
		empty := 0
		for f := 0; f < 8; f++ {
			p := b.Squares[r*8+f]
			if p >= Empty {
				empty++
				continue
			}
			if empty > 0 {
				sb.WriteByte(byte('0' + empty))
				empty = 0
			}
			sb.WriteByte(pieceLetters[p])
		}
		if empty > 0 {
			sb.WriteByte(byte('0' + empty))
		}
		if r > 0 {
			sb.WriteByte('/')
		}
	}
	sb.WriteString(map[bool]string{false: " w ", true: " b "}[b.BlackToMove])
	if b.Castling == 0 {
		sb.WriteByte('-')
	}
	for i, c := range "KQkq" {
		if b.Castling&(1<<i) != 0 {
			sb.WriteRune(c)
		}
	}
	sb.WriteByte(' ')
	if b.EnPassant < 64 {
		sb.WriteByte('a' + b.EnPassant%8)
		sb.WriteByte('1' + b.EnPassant/8)
	} else {
		sb.WriteByte('-')
	}
	fmt.Fprintf(&sb, " %d %d", b.Halfmove, max(b.Fullmove, 1))
	return sb.String()
}

// Pack writes b as one packed record into dst[:PackedSize].
func (b *Board) Pack(dst []byte) {
	dst = dst[:PackedSize]
	for i := 0; i < 32; i++ {
		lo, hi := b.Squares[2*i], b.Squares[2*i+1]
		dst[i] = nibble(lo) | nibble(hi)<<4
	}
	flags := b.Castling << 1 & 0x1e
	if b.BlackToMove {
		flags |= 1
	}
	dst[32] = flags
	dst[33] = min(b.EnPassant, NoSquare)
	binary.LittleEndian.PutUint16(dst[34:], uint16(min(max(b.Halfmove, 0), 65535)))
	binary.LittleEndian.PutUint16(dst[36:], uint16(min(max(b.Fullmove, 0), 65535)))
	dst[38], dst[39] = 0, 0
}

// nibblePiece maps a packed nibble to its piece.
var nibblePiece = [16]Piece{Empty, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, Empty, Empty, Empty}

func nibble(p Piece) byte {
	if p >= Empty {
		return 0
	}
	return byte(p) + 1
}

// Unpack reads one packed record from src[:PackedSize].
func Unpack(src []byte) (Board, error) {
	var b Board
	if len(src) < PackedSize {
		return b, fmt.Errorf("packed position: %d bytes, want %d", len(src), PackedSize)
	}
	for i, v := range src[:32] {
		lo, hi := v&15, v>>4
		if lo > 12 || hi > 12 {
			return b, fmt.Errorf("packed position: byte %d holds %#x (a nibble above 12)", i, v)
		}
		b.Squares[2*i] = nibblePiece[lo]
		b.Squares[2*i+1] = nibblePiece[hi]
	}
	if src[32]&0xe0 != 0 || src[33] > NoSquare {
		return b, errors.New("packed position: bad flags or en passant square")
	}
	b.BlackToMove = src[32]&1 != 0
	b.Castling = src[32] >> 1 & 15
	b.EnPassant = src[33]
	b.Halfmove = int(binary.LittleEndian.Uint16(src[34:]))
	b.Fullmove = int(binary.LittleEndian.Uint16(src[36:]))
	return b, nil
}

// PieceSquare is one piece on one square.
type PieceSquare struct {
	Piece  Piece
	Square uint8
}

// Delta is what one move changed on the board, as the engine's search
// reports it: at most two pieces removed (the mover and a captured piece,
// or king and rook when castling) and at most two added. A null move has
// none. KingMoved says whether a king moved.
type Delta struct {
	Removed, Added   [2]PieceSquare
	NRemoved, NAdded int
	KingMoved        bool
}

// DeltaFromProto checks and converts a protocol delta.
func DeltaFromProto(d *pluginpb.Delta) (Delta, error) {
	var out Delta
	if d == nil {
		return out, nil
	}
	out.KingMoved = d.KingMoved
	for i, b := range [2][]byte{d.Removed, d.Added} {
		if len(b)%2 != 0 || len(b) > 4 {
			return out, fmt.Errorf("delta: %d bytes, want 0, 2 or 4 (piece, square) bytes", len(b))
		}
		dst, n := &out.Removed, &out.NRemoved
		if i == 1 {
			dst, n = &out.Added, &out.NAdded
		}
		for j := 0; j < len(b); j += 2 {
			if b[j] >= byte(Empty) || b[j+1] >= 64 {
				return out, fmt.Errorf("delta: bad piece %d or square %d", b[j], b[j+1])
			}
			dst[j/2] = PieceSquare{Piece(b[j]), b[j+1]}
			*n++
		}
	}
	return out, nil
}

// Proto converts d to its protocol form.
func (d *Delta) Proto() *pluginpb.Delta {
	out := &pluginpb.Delta{KingMoved: d.KingMoved}
	for i := 0; i < d.NRemoved; i++ {
		out.Removed = append(out.Removed, byte(d.Removed[i].Piece), d.Removed[i].Square)
	}
	for i := 0; i < d.NAdded; i++ {
		out.Added = append(out.Added, byte(d.Added[i].Piece), d.Added[i].Square)
	}
	return out
}

// Apply plays d on b: it checks that every removed piece is there and every
// added piece lands on an empty square, then passes the move. Deltas do not
// carry castling rights, the en passant square or the fifty-move counter,
// so Apply keeps them only approximately (rights are dropped when a king or
// rook leaves its original square, the counter resets on pawn moves and
// captures); an evaluator that needs them exactly declares itself
// stateless and gets whole positions.
func (b *Board) Apply(d *Delta) error {
	for i := 0; i < d.NRemoved; i++ {
		ps := d.Removed[i]
		if b.Squares[ps.Square] != ps.Piece {
			return fmt.Errorf("delta removes %c from square %d, which holds %s", pieceLetters[ps.Piece], ps.Square, b.pieceName(ps.Square))
		}
		b.Squares[ps.Square] = Empty
	}
	for i := 0; i < d.NAdded; i++ {
		ps := d.Added[i]
		if b.Squares[ps.Square] != Empty {
			return fmt.Errorf("delta adds %c to square %d, which holds %s", pieceLetters[ps.Piece], ps.Square, b.pieceName(ps.Square))
		}
		b.Squares[ps.Square] = ps.Piece
	}
	pawnOrCapture := d.NRemoved > d.NAdded && !d.KingMoved
	for i := 0; i < d.NRemoved; i++ {
		if d.Removed[i].Piece.Type() == 0 {
			pawnOrCapture = true
		}
	}
	if pawnOrCapture {
		b.Halfmove = 0
	} else if d.NRemoved > 0 {
		b.Halfmove++
	}
	if b.BlackToMove {
		b.Fullmove++
	}
	b.BlackToMove = !b.BlackToMove
	b.EnPassant = NoSquare
	for _, r := range [4]struct {
		right      uint8
		king, rook uint8
		color      Piece
	}{{WhiteOO, 4, 7, 0}, {WhiteOOO, 4, 0, 0}, {BlackOO, 60, 63, 6}, {BlackOOO, 60, 56, 6}} {
		if b.Castling&r.right != 0 && (b.Squares[r.king] != WhiteKing+r.color || b.Squares[r.rook] != WhiteRook+r.color) {
			b.Castling &^= r.right
		}
	}
	return nil
}

func (b *Board) pieceName(s uint8) string {
	if p := b.Squares[s]; p < Empty {
		return string(pieceLetters[p])
	}
	return "nothing"
}
