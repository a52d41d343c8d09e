package search

import "github.com/nnuelab/nnuelab/engine/board"

// fewPiecesMax is the most pieces, kings included, of a position the
// search plays as a basic endgame (fewPieces).
const fewPiecesMax = 5

// fewPieces reports whether p is a pawnless position of at most
// fewPiecesMax pieces: queen against rook, rook and bishop against rook,
// the mates of a bare king. There a win is a sequence of quiet moves and
// zugzwangs a few plies deep, and a defence is often one desperado
// (a piece given for the last one of the stronger side, a rook offered
// for a trade) that pruning takes for a losing move. So that no such
// resource is cut away on a guess:
//
//   - the quiescence search keeps every capture (no SEE or futility
//     pruning) and every evasion from check;
//   - losing captures are not reduced;
//   - at the defender's nodes (defending: less material than the other
//     side) nothing is pruned: no null move (the defender is the side in
//     zugzwang, and a null move there makes a waiting move of the stronger
//     side look useless), no reverse futility or razoring, and no
//     late-move, futility, history or SEE pruning of its moves.
//
// The stronger side's nodes keep their pruning, which costs it at worst
// a way to make progress, not a refutation. Rook and bishop against rook
// keeps the defender's pruning too (rookBishopRook): there a win is one
// or two moves of some 25 that keep the defending king in the net, found
// only by depth, and the unpruned defence cost the search two plies at
// 20,000 nodes; with its pruning the search keeps the table's win with
// more of its moves (docs/devlog/2026-11-29-syzygy.md, fourth session). Against Stockfish 15.1 in
// bench/endgames this, with eval.Endgame's queen-against-rook tables,
// converts all eight queen-against-rook wins of basic.epd (seven
// before); a game of rook and bishop against rook had lost its bishop to
// the desperado TestFewPiecesDesperado shows (bench/endgames/README.md).
func fewPieces(p *board.Position) bool {
	return p.ByType(board.Pawn) == 0 && p.Occupied().Count() <= fewPiecesMax
}

// defending reports whether the side to move of p has less material than
// the other (queen 9, rook 5, bishop and knight 3).
func defending(p *board.Position) bool {
	us := p.SideToMove()
	return material(p, us) < material(p, us.Other())
}

// rookBishopRook reports whether p is rook and bishop against rook (a
// rook each, a bishop, the kings and nothing else). There the defender's
// moves keep their pruning (fewPieces) and the quiet moves of both sides
// are ordered by eval.Endgame's score of the position they lead to, not by
// history (picker.scoreQuiet): that score is a network fitted to the
// Syzygy tables to rank the moves of won positions (engine/eval/krbvkr.go),
// and with that order a 20,000-node search keeps the table's win with
// 98.2% of its moves in the positions of bench/endgames' KRBvKR games
// (95.4% by history; bench/endgames/keeprate).
func rookBishopRook(p *board.Position) bool {
	return p.Occupied().Count() == 5 && p.ByType(board.Bishop).Count() == 1 &&
		p.Pieces(board.White, board.Rook).Count() == 1 && p.Pieces(board.Black, board.Rook).Count() == 1
}

func material(p *board.Position, c board.Color) int {
	return 9*p.Pieces(c, board.Queen).Count() + 5*p.Pieces(c, board.Rook).Count() +
		3*(p.Pieces(c, board.Bishop)|p.Pieces(c, board.Knight)).Count()
}
