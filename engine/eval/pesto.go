package eval

import (
	"fmt"
	"strings"

	"github.com/nnuelab/nnuelab/engine/board"
)

// PeSTO is the classical baseline: Ronald Friederich's PeSTO material and
// tapered piece-square tables (middlegame and endgame values blended by game
// phase), updated incrementally from the board's move deltas.
type PeSTO struct {
	stack []pestoState
}

// pestoState is the running sum after one ply: middlegame and endgame
// scores from White's point of view and the game phase.
type pestoState struct {
	mg, eg int32
	phase  int32
}

// maxPhase is the phase of the starting material (4 minors x 1, 4 rooks x 2,
// 2 queens x 4); more (after promotions) counts as full middlegame.
const maxPhase = 24

// pestoMG and pestoEG are indexed [piece][square] with White's entries
// positive and Black's negative, material included.
var pestoMG, pestoEG [12][64]int32
var pestoPhase = [12]int32{0, 1, 1, 2, 4, 0, 0, 1, 1, 2, 4, 0}

// PeSTO's piece values by piece type (pawn .. king).
var (
	pestoValueMG = [6]int32{82, 337, 365, 477, 1025, 0}
	pestoValueEG = [6]int32{94, 281, 297, 512, 936, 0}
)

// The published tables, from White's point of view, rank 8 first (row 0 is
// a8..h8), so that they read like a board diagram.
var pestoTablesMG = [6][64]int32{
	{ // pawn
		0, 0, 0, 0, 0, 0, 0, 0,
		98, 134, 61, 95, 68, 126, 34, -11,
		-6, 7, 26, 31, 65, 56, 25, -20,
		-14, 13, 6, 21, 23, 12, 17, -23,
		-27, -2, -5, 12, 17, 6, 10, -25,
		-26, -4, -4, -10, 3, 3, 33, -12,
		-35, -1, -20, -23, -15, 24, 38, -22,
		0, 0, 0, 0, 0, 0, 0, 0,
	},
	{ // knight
		-167, -89, -34, -49, 61, -97, -15, -107,
		-73, -41, 72, 36, 23, 62, 7, -17,
		-47, 60, 37, 65, 84, 129, 73, 44,
		-9, 17, 19, 53, 37, 69, 18, 22,
		-13, 4, 16, 13, 28, 19, 21, -8,
		-23, -9, 12, 10, 19, 17, 25, -16,
		-29, -53, -12, -3, -1, 18, -14, -19,
		-105, -21, -58, -33, -17, -28, -19, -23,
	},
	{ // bishop
		-29, 4, -82, -37, -25, -42, 7, -8,
		-26, 16, -18, -13, 30, 59, 18, -47,
		-16, 37, 43, 40, 35, 50, 37, -2,
		-4, 5, 19, 50, 37, 37, 7, -2,
		-6, 13, 13, 26, 34, 12, 10, 4,
		0, 15, 15, 15, 14, 27, 18, 10,
		4, 15, 16, 0, 7, 21, 33, 1,
		-33, -3, -14, -21, -13, -12, -39, -21,
	},
	{ // rook
		32, 42, 32, 51, 63, 9, 31, 43,
		27, 32, 58, 62, 80, 67, 26, 44,
		-5, 19, 26, 36, 17, 45, 61, 16,
		-24, -11, 7, 26, 24, 35, -8, -20,
		-36, -26, -12, -1, 9, -7, 6, -23,
		-45, -25, -16, -17, 3, 0, -5, -33,
		-44, -16, -20, -9, -1, 11, -6, -71,
		-19, -13, 1, 17, 16, 7, -37, -26,
	},
	{ // queen
		-28, 0, 29, 12, 59, 44, 43, 45,
		-24, -39, -5, 1, -16, 57, 28, 54,
		-13, -17, 7, 8, 29, 56, 47, 57,
		-27, -27, -16, -16, -1, 17, -2, 1,
		-9, -26, -9, -10, -2, -4, 3, -3,
		-14, 2, -11, -2, -5, 2, 14, 5,
		-35, -8, 11, 2, 8, 15, -3, 1,
		-1, -18, -9, 10, -15, -25, -31, -50,
	},
	{ // king
		-65, 23, 16, -15, -56, -34, 2, 13,
		29, -1, -20, -7, -8, -4, -38, -29,
		-9, 24, 2, -16, -20, 6, 22, -22,
		-17, -20, -12, -27, -30, -25, -14, -36,
		-49, -1, -27, -39, -46, -44, -33, -51,
		-14, -14, -22, -46, -44, -30, -15, -27,
		1, 7, -8, -64, -43, -16, 9, 8,
		-15, 36, 12, -54, 8, -28, 24, 14,
	},
}

var pestoTablesEG = [6][64]int32{
	{ // pawn
		0, 0, 0, 0, 0, 0, 0, 0,
		178, 173, 158, 134, 147, 132, 165, 187,
		94, 100, 85, 67, 56, 53, 82, 84,
		32, 24, 13, 5, -2, 4, 17, 17,
		13, 9, -3, -7, -7, -8, 3, -1,
		4, 7, -6, 1, 0, -5, -1, -8,
		13, 8, 8, 10, 13, 0, 2, -7,
		0, 0, 0, 0, 0, 0, 0, 0,
	},
	{ // knight
		-58, -38, -13, -28, -31, -27, -63, -99,
		-25, -8, -25, -2, -9, -25, -24, -52,
		-24, -20, 10, 9, -1, -9, -19, -41,
		-17, 3, 22, 22, 22, 11, 8, -18,
		-18, -6, 16, 25, 16, 17, 4, -18,
		-23, -3, -1, 15, 10, -3, -20, -22,
		-42, -20, -10, -5, -2, -20, -23, -44,
		-29, -51, -23, -15, -22, -18, -50, -64,
	},
	{ // bishop
		-14, -21, -11, -8, -7, -9, -17, -24,
		-8, -4, 7, -12, -3, -13, -4, -14,
		2, -8, 0, -1, -2, 6, 0, 4,
		-3, 9, 12, 9, 14, 10, 3, 2,
		-6, 3, 13, 19, 7, 10, -3, -9,
		-12, -3, 8, 10, 13, 3, -7, -15,
		-14, -18, -7, -1, 4, -9, -15, -27,
		-23, -9, -23, -5, -9, -16, -5, -17,
	},
	{ // rook
		13, 10, 18, 15, 12, 12, 8, 5,
		11, 13, 13, 11, -3, 3, 8, 3,
		7, 7, 7, 5, 4, -3, -5, -3,
		4, 3, 13, 1, 2, 1, -1, 2,
		3, 5, 8, 4, -5, -6, -8, -11,
		-4, 0, -5, -1, -7, -12, -8, -16,
		-6, -6, 0, 2, -9, -9, -11, -3,
		-9, 2, 3, -1, -5, -13, 4, -20,
	},
	{ // queen
		-9, 22, 22, 27, 27, 19, 10, 20,
		-17, 20, 32, 41, 58, 25, 30, 0,
		-20, 6, 9, 49, 47, 35, 19, 9,
		3, 22, 24, 45, 57, 40, 57, 36,
		-18, 28, 19, 47, 31, 34, 39, 23,
		-16, -27, 15, 6, 9, 17, 10, 5,
		-22, -23, -30, -16, -16, -23, -36, -32,
		-33, -28, -22, -43, -5, -32, -20, -41,
	},
	{ // king
		-74, -35, -18, -18, -11, 15, 4, -17,
		-12, 17, 14, 17, 17, 38, 23, 11,
		10, 17, 23, 15, 20, 45, 44, 13,
		-8, 22, 24, 27, 26, 33, 26, 3,
		-18, -4, 21, 24, 27, 23, 9, -11,
		-19, -3, 11, 21, 23, 16, 7, -9,
		-27, -11, 4, 13, 14, 4, -5, -17,
		-53, -34, -21, -11, -28, -14, -24, -43,
	},
}

func init() {
	for pt := board.Pawn; pt <= board.King; pt++ {
		for s := board.Square(0); s < 64; s++ {
			// A white piece on s reads row (7 - rank); a black piece reads
			// the table mirrored vertically, i.e. index s itself.
			w, b := board.MakePiece(board.White, pt), board.MakePiece(board.Black, pt)
			pestoMG[w][s] = pestoValueMG[pt] + pestoTablesMG[pt][s^56]
			pestoEG[w][s] = pestoValueEG[pt] + pestoTablesEG[pt][s^56]
			pestoMG[b][s] = -(pestoValueMG[pt] + pestoTablesMG[pt][s])
			pestoEG[b][s] = -(pestoValueEG[pt] + pestoTablesEG[pt][s])
		}
	}
}

// Clone returns a fresh classical evaluator (it has no weights to share).
func (e *PeSTO) Clone() Evaluator { return NewPeSTO() }

// NewPeSTO returns a classical evaluator. Reset must be called before use.
func NewPeSTO() *PeSTO {
	return &PeSTO{stack: make([]pestoState, 1, 512)}
}

// full computes the sums of p from scratch.
func pestoFull(p *board.Position) pestoState {
	var st pestoState
	occ := p.Occupied()
	for occ != 0 {
		s := occ.PopLSB()
		pc := p.PieceOn(s)
		st.mg += pestoMG[pc][s]
		st.eg += pestoEG[pc][s]
		st.phase += pestoPhase[pc]
	}
	return st
}

// Reset implements Evaluator.
func (e *PeSTO) Reset(p *board.Position) {
	e.stack = append(e.stack[:0], pestoFull(p))
}

// Push implements Evaluator: it applies the move's delta to a copy of the
// current sums.
func (e *PeSTO) Push(d *board.Delta) {
	st := e.stack[len(e.stack)-1]
	for i := uint8(0); i < d.NRemoved; i++ {
		ps := d.Removed[i]
		st.mg -= pestoMG[ps.Piece][ps.Square]
		st.eg -= pestoEG[ps.Piece][ps.Square]
		st.phase -= pestoPhase[ps.Piece]
	}
	for i := uint8(0); i < d.NAdded; i++ {
		ps := d.Added[i]
		st.mg += pestoMG[ps.Piece][ps.Square]
		st.eg += pestoEG[ps.Piece][ps.Square]
		st.phase += pestoPhase[ps.Piece]
	}
	e.stack = append(e.stack, st)
}

// Pop implements Evaluator.
func (e *PeSTO) Pop() {
	if len(e.stack) > 1 {
		e.stack = e.stack[:len(e.stack)-1]
	}
}

// taper blends the middlegame and endgame scores by phase.
func taper(st pestoState) int {
	ph := st.phase
	if ph > maxPhase {
		ph = maxPhase
	}
	return int((st.mg*ph + st.eg*(maxPhase-ph)) / maxPhase)
}

// Evaluate implements Evaluator.
func (e *PeSTO) Evaluate(p *board.Position) int {
	v := taper(e.stack[len(e.stack)-1])
	if p.SideToMove() == board.Black {
		return -v
	}
	return v
}

// Explain implements Explainer: the middlegame and endgame sums per piece
// type and side, the phase, and the tapered result.
func (e *PeSTO) Explain(p *board.Position) string {
	var b strings.Builder
	var mg, eg [2][6]int32
	occ := p.Occupied()
	for occ != 0 {
		s := occ.PopLSB()
		pc := p.PieceOn(s)
		c, pt := pc.Color(), pc.Type()
		sign := int32(1)
		if c == board.Black {
			sign = -1
		}
		mg[c][pt] += sign * pestoMG[pc][s]
		eg[c][pt] += sign * pestoEG[pc][s]
	}
	st := pestoFull(p)
	fmt.Fprintln(&b, "classical evaluation (PeSTO), centipawns, material included")
	fmt.Fprintln(&b, "     term |   white mg   white eg |   black mg   black eg")
	names := [6]string{"pawns", "knights", "bishops", "rooks", "queens", "king"}
	for pt := 0; pt < 6; pt++ {
		fmt.Fprintf(&b, "%9s | %10d %10d | %10d %10d\n", names[pt], mg[0][pt], eg[0][pt], mg[1][pt], eg[1][pt])
	}
	ph := st.phase
	if ph > maxPhase {
		ph = maxPhase
	}
	white := taper(st)
	fmt.Fprintf(&b, "mg (white view) %d\n", st.mg)
	fmt.Fprintf(&b, "eg (white view) %d\n", st.eg)
	fmt.Fprintf(&b, "phase %d/%d (%d = middlegame, 0 = endgame)\n", ph, maxPhase, maxPhase)
	fmt.Fprintf(&b, "final (white view) %d\n", white)
	stm := white
	if p.SideToMove() == board.Black {
		stm = -white
	}
	side := "white"
	if p.SideToMove() == board.Black {
		side = "black"
	}
	fmt.Fprintf(&b, "final (side to move, %s) %d\n", side, stm)
	return b.String()
}
