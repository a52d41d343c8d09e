package plugin

import (
	"encoding/binary"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/plugins/sdk"
)

// Pack writes p as one packed record of the plugin protocol into
// dst[:sdk.PackedSize]. Engine and protocol number pieces, squares and
// castling rights alike.
func Pack(p *board.Position, dst []byte) {
	dst = dst[:sdk.PackedSize]
	clear(dst)
	for c := board.White; c <= board.Black; c++ {
		for pt := board.Pawn; pt <= board.King; pt++ {
			v := byte(board.MakePiece(c, pt)) + 1
			for bb := p.Pieces(c, pt); bb != 0; {
				s := bb.PopLSB()
				dst[s>>1] |= v << (4 * (s & 1))
			}
		}
	}
	flags := p.CastlingRights() << 1 & 0x1e
	if p.SideToMove() == board.Black {
		flags |= 1
	}
	dst[32] = flags
	dst[33] = byte(min(p.EnPassant(), board.NoSquare))
	binary.LittleEndian.PutUint16(dst[34:], uint16(min(p.HalfmoveClock(), 65535)))
	binary.LittleEndian.PutUint16(dst[36:], uint16(min(p.FullmoveNumber(), 65535)))
}

// appendDelta appends the protocol form of d's removed and added pieces.
func deltaBytes(d *board.Delta) (removed, added []byte) {
	if d.NRemoved > 0 {
		removed = make([]byte, 0, 2*d.NRemoved)
		for i := 0; i < int(d.NRemoved); i++ {
			removed = append(removed, byte(d.Removed[i].Piece), byte(d.Removed[i].Square))
		}
	}
	if d.NAdded > 0 {
		added = make([]byte, 0, 2*d.NAdded)
		for i := 0; i < int(d.NAdded); i++ {
			added = append(added, byte(d.Added[i].Piece), byte(d.Added[i].Square))
		}
	}
	return removed, added
}
