package board

import "testing"

// TestPieceTypeColor holds the lookup tables to the piece numbering
// (type + 6*colour, NoPiece typeless) for every byte value.
func TestPieceTypeColor(t *testing.T) {
	for i := 0; i < 256; i++ {
		p := Piece(i)
		wantType := NoPieceType
		if p < NoPiece {
			wantType = PieceType(i % 6)
		}
		if p.Type() != wantType || p.Color() != Color(i/6) {
			t.Fatalf("Piece(%d): type %d colour %d, want %d %d", i, p.Type(), p.Color(), wantType, i/6)
		}
	}
	for c := White; c <= Black; c++ {
		for pt := Pawn; pt <= King; pt++ {
			if p := MakePiece(c, pt); p.Type() != pt || p.Color() != c {
				t.Fatalf("MakePiece(%s, %d) = %d: type %d colour %s", c, pt, p, p.Type(), p.Color())
			}
		}
	}
}
