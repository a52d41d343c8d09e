package uci

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/eval"
)

// The debug commands, as Stockfish has them: d (the board, FEN, key and
// checkers), legal (the legal moves in search order), eval (the static
// evaluation, explained where the evaluator can), perft and bench.

func (e *Engine) cmdD(_ []string) {
	var b strings.Builder
	for r := 7; r >= 0; r-- {
		b.WriteString(" +---+---+---+---+---+---+---+---+\n |")
		for f := 0; f < 8; f++ {
			pc := e.pos.PieceOn(board.MakeSquare(f, r))
			c := " "
			if pc != board.NoPiece {
				c = pc.String()
			}
			fmt.Fprintf(&b, " %s |", c)
		}
		fmt.Fprintf(&b, " %d\n", r+1)
	}
	b.WriteString(" +---+---+---+---+---+---+---+---+\n   a   b   c   d   e   f   g   h\n")
	fmt.Fprintf(&b, "\nFen: %s\nKey: %016X\nCheckers:", e.pos.FEN(), e.pos.Key())
	for c := e.pos.Checkers(); c != 0; {
		b.WriteString(" " + c.PopLSB().String())
	}
	e.say("%s", b.String())
}

func (e *Engine) cmdLegal(_ []string) {
	moves := e.pool.Main().OrderedMoves(e.pos)
	var b strings.Builder
	for i, m := range moves {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(e.pos.UCI(m))
	}
	e.say("legal %d:%s%s", len(moves), map[bool]string{true: " ", false: ""}[len(moves) > 0], b.String())
}

func (e *Engine) cmdEval(_ []string) {
	ev := e.pool.Main().Evaluator()
	ev.Reset(e.pos)
	if x, ok := ev.(eval.Explainer); ok {
		e.say("%s", strings.TrimRight(x.Explain(e.pos), "\n"))
		return
	}
	e.say("eval %d (side to move)", ev.Evaluate(e.pos))
}

func (e *Engine) cmdPerft(args []string) {
	if len(args) != 1 {
		e.errorf("perft: expected \"perft <depth>\"")
		return
	}
	d, err := strconv.Atoi(args[0])
	if err != nil || d < 1 || d > 10 {
		e.errorf("perft: depth %q is not an integer from 1 to 10", args[0])
		return
	}
	start := time.Now()
	var total uint64
	var b strings.Builder
	for _, en := range e.pos.Divide(d) {
		fmt.Fprintf(&b, "%s: %d\n", e.pos.UCI(en.Move), en.Nodes)
		total += en.Nodes
	}
	fmt.Fprintf(&b, "\nNodes searched: %d\ntime %d ms", total, time.Since(start).Milliseconds())
	e.say("%s", b.String())
}

func (e *Engine) cmdBench(args []string) {
	depth := DefaultBenchDepth
	if len(args) > 1 {
		e.errorf("bench: expected \"bench [depth]\"")
		return
	}
	if len(args) == 1 {
		d, err := strconv.Atoi(args[0])
		if err != nil {
			e.errorf("bench: depth %q is not an integer", args[0])
			return
		}
		depth = d
	}
	e.outMu.Lock()
	_, err := Bench(e.out, depth, e.activeArch, e.activeFile)
	e.out.Flush()
	e.outMu.Unlock()
	if err != nil {
		e.errorf("bench: %v", err)
	}
}
