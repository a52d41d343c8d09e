package nnue

import (
	"fmt"
	"math"
	"strings"

	"github.com/nnuelab/nnuelab/engine/board"
)

// Stockfish 17.1's `eval` command (Eval::trace and NNUE::trace): the
// NNUE-derived value of every piece, the PSQT and layers of every bucket,
// the big net's NNUE evaluation and the final evaluation, printed in pawns
// from White's view. SFTrace holds the integers, its Text the lines as the
// engine prints them.

// SFTrace is what Stockfish 17.1's eval command shows, as integers
// (internal units, from White's view unless said otherwise).
type SFTrace struct {
	// InCheck: the engine prints only "Final evaluation: none (in check)".
	InCheck bool `json:"in_check"`
	// White is true when White is to move (the table's own point of
	// view is the side to move).
	White bool `json:"white_to_move"`
	// PieceValues maps squares (a1, ..., h8) of the pieces other than the
	// kings to base - eval: the big net's psqt + positional, White's view,
	// with the piece minus without it.
	PieceValues map[string]int32 `json:"piece_values,omitempty"`
	// Buckets are the big net's psqt/16 and positional/16 through every
	// layer stack, side to move's view; Bucket is the one the piece count
	// selects.
	Buckets []SFBucket `json:"buckets,omitempty"`
	Bucket  int        `json:"bucket"`
	// NNUE is the big net's psqt + positional (White's view), Final
	// Eval::evaluate (White's view), and Eval its steps (side to move).
	NNUE  int32          `json:"nnue"`
	Final int32          `json:"final"`
	Eval  *StockfishEval `json:"eval,omitempty"`
	// A is the WDL model's a(material), by which to_cp divides; the
	// centipawns the text prints follow from it.
	A float64 `json:"wdl_a"`
}

// SFBucket is one row of the table.
type SFBucket struct {
	PSQT       int32 `json:"psqt"`
	Positional int32 `json:"positional"`
}

// HasStockfishTrace reports whether n's design prints Stockfish 17.1's
// or 18's eval trace (an sf17 or sf18 head).
func (n *Network) HasStockfishTrace() bool {
	_, ok := n.head.(*sf17Head)
	return ok
}

// StockfishRelease names the Stockfish release whose Eval::evaluate and
// eval output n reproduces ("17.1", "18"), or "" for other designs.
func (n *Network) StockfishRelease() string {
	if h, ok := n.head.(*sf17Head); ok {
		return h.consts.release
	}
	return ""
}

// StockfishTrace computes what Stockfish 17.1's eval command shows for p
// with n (an sf17 design): the values and table come from n itself, the
// big net (Stockfish's trace always uses the big one); the final
// evaluation is n's, with its small net if it has one.
func StockfishTrace(n *Network, p *board.Position) (*SFTrace, error) {
	h, ok := n.head.(*sf17Head)
	if !ok {
		return nil, fmt.Errorf("arch %s: Stockfish's eval trace needs an sf17 head, not %s", n.Spec.Name, n.Spec.Head.Type)
	}
	t := &SFTrace{White: p.SideToMove() == board.White, A: winRateA(p, h.consts.wdlA)}
	if p.InCheck() {
		t.InCheck = true
		return t, nil
	}
	white := func(v int32) int32 {
		if t.White {
			return v
		}
		return -v
	}
	us, them := p.SideToMove(), p.SideToMove().Other()
	// big is the big net's psqt + positional with the piece on skip left out.
	big := func(skip board.Square) int32 {
		acc, psqt := n.scratchAccumulators(p, skip)
		pieces := p.Occupied().Count()
		if skip != board.NoSquare {
			pieces--
		}
		a, b := h.eval(acc[us], acc[them], psqt[us], psqt[them], pieces, nil)
		return a + b
	}
	base := white(big(board.NoSquare))
	t.NNUE = base
	t.PieceValues = map[string]int32{}
	for occ := p.Occupied(); occ != 0; {
		sq := occ.PopLSB()
		if p.PieceOn(sq).Type() == board.King {
			continue
		}
		t.PieceValues[sq.String()] = base - white(big(sq))
	}
	acc, psqt := n.scratchAccumulators(p, board.NoSquare)
	t.Bucket = n.outputBucket(p.Occupied().Count())
	for b := 0; b < n.Spec.Head.OutputBuckets; b++ {
		ps, pos := h.evalBucket(acc[us], acc[them], psqt[us], psqt[them], p.Occupied().Count(), b, nil)
		t.Buckets = append(t.Buckets, SFBucket{ps, pos})
	}
	var tr Trace
	t.Final = white(sf17Evaluate(n, p, &tr, scratchRunner{}))
	t.Eval = tr.Stockfish
	return t, nil
}

// toCP is to_cp with the trace's a.
func (t *SFTrace) toCP(v int32) int { return int(math.Round(float64(100*v) / t.A)) }

// Text returns the trace as Stockfish 17.1's eval command prints it, from
// the line " NNUE derived piece values:" to the "Final evaluation" line
// (each line ending in a newline); in check, the one line the engine
// prints instead.
func (t *SFTrace) Text(p *board.Position) string {
	if t.InCheck {
		return "Final evaluation: none (in check)\n"
	}
	var b strings.Builder
	b.WriteString(" NNUE derived piece values:\n")
	var grid [3*8 + 1][8*8 + 1]byte
	for r := range grid {
		for c := range grid[r] {
			grid[r][c] = ' '
		}
	}
	const pieceChars = "PNBRQK"
	for sq := board.Square(0); sq < 64; sq++ {
		x, y := sq.File()*8, (7-sq.Rank())*3
		for i := 1; i < 8; i++ {
			grid[y][x+i], grid[y+3][x+i] = '-', '-'
		}
		for i := 1; i < 3; i++ {
			grid[y+i][x], grid[y+i][x+8] = '|', '|'
		}
		grid[y][x], grid[y][x+8], grid[y+3][x+8], grid[y+3][x] = '+', '+', '+', '+'
		if pc := p.PieceOn(sq); pc != board.NoPiece {
			c := pieceChars[pc.Type()]
			if pc.Color() == board.Black {
				c += 'a' - 'A'
			}
			grid[y+1][x+4] = c
		}
		if v, ok := t.PieceValues[sq.String()]; ok {
			copy(grid[y+2][x+2:x+7], t.compactCP(v))
		}
	}
	for r := range grid {
		b.Write(grid[r][:])
		b.WriteByte('\n')
	}
	b.WriteByte('\n')
	side := "White"
	if !t.White {
		side = "Black"
	}
	fmt.Fprintf(&b, " NNUE network contributions (%s to move)\n", side)
	const rule = "+------------+------------+------------+------------+\n"
	b.WriteString(rule)
	b.WriteString("|   Bucket   |  Material  | Positional |   Total    |\n")
	b.WriteString("|            |   (PSQT)   |  (Layers)  |            |\n")
	b.WriteString(rule)
	for i, r := range t.Buckets {
		fmt.Fprintf(&b, "|  %d         |  %s   |  %s   |  %s   |", i, t.alignedCP(r.PSQT), t.alignedCP(r.Positional), t.alignedCP(r.PSQT+r.Positional))
		if i == t.Bucket {
			b.WriteString(" <-- this bucket is used")
		}
		b.WriteByte('\n')
	}
	b.WriteString(rule)
	b.WriteByte('\n')
	fmt.Fprintf(&b, "NNUE evaluation        %+.2f (white side)\n", 0.01*float64(t.toCP(t.NNUE)))
	fmt.Fprintf(&b, "Final evaluation       %+.2f (white side) [with scaled NNUE, ...]\n", 0.01*float64(t.toCP(t.Final)))
	return b.String()
}

// compactCP is format_cp_compact: the sign of v and |to_cp(v)| in pawns
// in 4 characters (x.xx, xx.x, or xxx and a space).
func (t *SFTrace) compactCP(v int32) []byte {
	buf := []byte{' ', ' ', ' ', ' ', ' '}
	switch {
	case v < 0:
		buf[0] = '-'
	case v > 0:
		buf[0] = '+'
	}
	cp := t.toCP(v)
	if cp < 0 {
		cp = -cp
	}
	switch {
	case cp >= 10000:
		buf[1] = byte('0' + cp/10000)
		cp %= 10000
		buf[2] = byte('0' + cp/1000)
		cp %= 1000
		buf[3] = byte('0' + cp/100)
		buf[4] = ' '
	case cp >= 1000:
		buf[1] = byte('0' + cp/1000)
		cp %= 1000
		buf[2] = byte('0' + cp/100)
		cp %= 100
		buf[3] = '.'
		buf[4] = byte('0' + cp/10)
	default:
		buf[1] = byte('0' + cp/100)
		cp %= 100
		buf[2] = '.'
		buf[3] = byte('0' + cp/10)
		cp %= 10
		buf[4] = byte('0' + cp)
	}
	return buf
}

// alignedCP is format_cp_aligned_dot: the sign of v, then |to_cp(v)| in
// pawns, two decimals, right-aligned in 6 characters.
func (t *SFTrace) alignedCP(v int32) string {
	sign := " "
	switch {
	case v < 0:
		sign = "-"
	case v > 0:
		sign = "+"
	}
	return sign + fmt.Sprintf("%6.2f", math.Abs(0.01*float64(t.toCP(v))))
}
