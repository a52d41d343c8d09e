// Command keeprate measures how often an engine's search keeps a won
// rook-and-bishop-against-rook (KRBvKR) position won (issue 47, item 3).
// It replays the KRBvKR games of the endgame match's PGN files
// (bench/endgames.sh), takes every position where the stronger side is to
// move and the Syzygy tables say it wins (a DTZ of 1 to 100 plies, the
// fifty-move counter taken as 0), has the engine search each one afresh
// (ucinewgame, Hash 16, one thread, go nodes N) and checks the move it
// chooses against the tables: the keep rate is the share of chosen moves
// after which the stronger side still wins. "Narrow" positions are those
// where at most two legal moves keep the win. It prints the keep rate
// overall and on the narrow positions and the mean depth the searches
// reached; -v lists every position whose move threw the win away, and
// -list prints the positions' FENs instead (for the 1-ply measure of a
// KRBvKR weights file, engine/eval's -krbvkr.positions). Of the moves that
// keep the win it also prints the share that are the fastest (the least
// DTZ after the move) and how many plies of DTZ slower they are on
// average: progress, which the fifty-move rule needs as well as the win.
// -rule50 judges with the games' own clocks (a position is won when DTZ +
// clock <= 100, a move keeps it when the DTZ and clock after it allow the
// same); -trace PLAYER prints instead, move by move, the tables' view of
// the KRBvKR games PLAYER did not win on the stronger side (trace.go).
//
//	go run ./bench/endgames/keeprate -engine ./nnuelab
//	go run ./bench/endgames/keeprate -engine /usr/games/stockfish
//
// By default it reads the games of 04d3ac9 (bench/endgames/games), both
// engines' 64 KRBvKR games: 549 positions, the set the fourth and fifth
// sessions of docs/devlog/2026-11-29-syzygy.md measured on.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/syzygy"
	"github.com/nnuelab/nnuelab/engine/uciclient"
)

// defaultGames are the games the measure was defined on.
var defaultGames = []string{
	"bench/endgames/games/noTB-04d3ac9.pgn.zst",
	"bench/endgames/games/noTB-krbvkr-04d3ac9.pgn.zst",
}

func main() {
	if err := run(os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "keeprate:", err)
		os.Exit(1)
	}
}

// position is one won position of the games, with the tables' verdict on
// its moves.
type position struct {
	where string // file:game:ply
	fen   string
	keep  map[string]bool // the legal moves (UCI) that keep the win
	dtz   map[string]int  // the defender's DTZ (plies, positive) after each move that keeps the win
	legal int
}

func run(args []string, out io.Writer) error {
	fs := flag.NewFlagSet("keeprate", flag.ContinueOnError)
	engine := fs.String("engine", "./nnuelab", "the UCI engine to measure")
	nodes := fs.Int("nodes", 20000, "nodes a search")
	depth := fs.Int("depth", 0, "search to this depth instead of -nodes (0: nodes)")
	hash := fs.Int("hash", 16, "the engine's Hash option (MB)")
	tables := fs.String("tables", "engine/syzygy/testdata/tables", "the Syzygy tables (KRBvKR and every 3-4 piece table)")
	var opts multiFlag
	fs.Var(&opts, "option", "NAME=VALUE: a further UCI option for the engine (repeatable)")
	rule50 := fs.Bool("rule50", false, "judge wins with the games' own fifty-move clock (DTZ + clock <= 100) instead of the counter at 0")
	verbose := fs.Bool("v", false, "list every position whose move threw the win away")
	list := fs.Bool("list", false, "print the positions' FENs, one a line, and search none")
	trace := fs.String("trace", "", "PLAYER: trace the tables' view of every KRBvKR game PLAYER did not win on the stronger side, and search none")
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprintln(out, "usage: keeprate [flags] [PGN...]   (default: the games of 04d3ac9 in bench/endgames/games)")
		fs.PrintDefaults()
	}
	if err := fs.Parse(args); err != nil {
		return err
	}
	files := fs.Args()
	if len(files) == 0 {
		files = defaultGames
	}
	tb, err := syzygy.Open(*tables)
	if err != nil {
		return err
	}
	defer tb.Close()
	if *trace != "" {
		for _, f := range files {
			if err := traceGames(f, *trace, tb, out); err != nil {
				return err
			}
		}
		return nil
	}
	var set []position
	for _, f := range files {
		ps, err := collect(f, tb, *rule50)
		if err != nil {
			return err
		}
		set = append(set, ps...)
	}
	if len(set) == 0 {
		return fmt.Errorf("no won KRBvKR position with the stronger side to move in %s", strings.Join(files, ", "))
	}

	if *list {
		for _, ps := range set {
			fmt.Fprintln(out, ps.fen)
		}
		return nil
	}
	e, err := uciclient.Start(uciclient.Config{Path: *engine, ProcessGroup: true, Label: *engine})
	if err != nil {
		return err
	}
	defer e.Quit(2 * time.Second)
	ctx := context.Background()
	deadline := func() time.Time { return time.Now().Add(30 * time.Second) }
	if err := e.Handshake(ctx, deadline()); err != nil {
		return e.Explain(err)
	}
	setopts := []string{"Hash=" + strconv.Itoa(*hash), "Threads=1"}
	for _, o := range append(setopts, opts...) {
		name, value, _ := strings.Cut(o, "=")
		cmd, err := e.OptionCommand(name, value)
		if err != nil {
			return err
		}
		if err := e.Send(cmd); err != nil {
			return e.Explain(err)
		}
	}
	var kept, narrow, narrowKept, depths, fastest, slower int
	for _, ps := range set {
		if err := e.NewGame(ctx, deadline()); err != nil {
			return e.Explain(err)
		}
		goCmd := "go nodes " + strconv.Itoa(*nodes)
		if *depth > 0 {
			goCmd = "go depth " + strconv.Itoa(*depth)
		}
		res, err := e.Go(ctx, "position fen "+ps.fen, goCmd, 5*time.Minute, nil)
		if err != nil {
			return e.Explain(err)
		}
		k := ps.keep[res.BestMove]
		if _, legal := ps.keep[res.BestMove]; !legal {
			return fmt.Errorf("%s: %s: the engine chose %q, not a legal move", ps.where, ps.fen, res.BestMove)
		}
		depths += res.Info.Depth
		if k {
			kept++
			least := ps.dtz[res.BestMove]
			for _, d := range ps.dtz {
				least = min(least, d)
			}
			if ps.dtz[res.BestMove] == least {
				fastest++
			}
			slower += ps.dtz[res.BestMove] - least
		}
		nk := 0
		for _, v := range ps.keep {
			if v {
				nk++
			}
		}
		if nk <= 2 {
			narrow++
			if k {
				narrowKept++
			}
		}
		if !k && *verbose {
			fmt.Fprintf(out, "drawn: %s %s: %s (depth %d), %d of %d moves keep the win\n", ps.where, ps.fen, res.BestMove, res.Info.Depth, nk, ps.legal)
		}
	}
	limit := fmt.Sprintf("%d nodes", *nodes)
	if *depth > 0 {
		limit = fmt.Sprintf("depth %d", *depth)
	}
	fmt.Fprintf(out, "%s, %s: keep rate %.1f%% (%d/%d), narrow %d/%d, mean depth %.1f; of the moves kept, the fastest %.1f%%, %.2f plies of DTZ slower on average\n",
		e.Name, limit, 100*float64(kept)/float64(len(set)), kept, len(set), narrowKept, narrow, float64(depths)/float64(len(set)),
		100*float64(fastest)/float64(max(kept, 1)), float64(slower)/float64(max(kept, 1)))
	return nil
}

// collect replays the KRBvKR games of a PGN file (.pgn or .pgn.zst) and
// returns the positions where the stronger side is to move and wins.
func collect(path string, tb *syzygy.Tables, rule50 bool) ([]position, error) {
	games, err := readGameFile(path)
	if err != nil {
		return nil, err
	}
	var out []position
	for _, g := range games {
		if g.fen == "" {
			continue
		}
		p, err := board.ParseFEN(g.fen)
		if err != nil {
			return nil, fmt.Errorf("%s: game %d (line %d): %w", path, g.index, g.line, err)
		}
		for ply, san := range g.moves {
			if strong, ok := krbvkr(p); ok && p.SideToMove() == strong {
				ps, won, err := verdict(p, tb, rule50)
				if err != nil {
					return nil, fmt.Errorf("%s: game %d (line %d), ply %d: %w", path, g.index, g.line, ply+1, err)
				}
				if won {
					ps.where = fmt.Sprintf("%s:%d:%d", path, g.index, ply+1)
					out = append(out, ps)
				}
			}
			m, err := p.ParseSAN(san)
			if err != nil {
				return nil, fmt.Errorf("%s: game %d (line %d), ply %d: %w", path, g.index, g.line, ply+1, err)
			}
			p.MakeMove(m)
		}
	}
	return out, nil
}

// krbvkr reports whether p is rook and bishop against rook, and which
// side has the bishop.
func krbvkr(p *board.Position) (board.Color, bool) {
	for _, c := range []board.Color{board.White, board.Black} {
		o := c.Other()
		if p.ByColor(c).Count() == 3 && p.Pieces(c, board.Rook).Count() == 1 && p.Pieces(c, board.Bishop).Count() == 1 &&
			p.ByColor(o).Count() == 2 && p.Pieces(o, board.Rook).Count() == 1 {
			return c, true
		}
	}
	return board.White, false
}

// verdict probes p (the stronger side to move) and each of its moves:
// whether p is won, and which moves keep it won. Both are the tables'
// verdict with the fifty-move counter at 0 (a DTZ of 1..100, not a cursed
// win), not from the game's clock: a move that keeps a win the game's
// clock has already spoilt still counts as keeping it (7 of the 549
// positions of the default games are such).
//
// With rule50 the game's own clock counts instead: p is won when its DTZ
// plus the clock is at most 100, and a move keeps the win when the
// defender's DTZ after it plus the clock after it (0 after a capture) is
// at most 100, the fifty-move rule's verdict.
func verdict(p *board.Position, tb *syzygy.Tables, rule50 bool) (position, bool, error) {
	d, err := tb.ProbeDTZ(p)
	if err != nil {
		return position{}, false, err
	}
	clock := 0
	if rule50 {
		clock = p.HalfmoveClock()
	}
	if syzygy.Rule50WDL(d, clock) != syzygy.Win {
		return position{}, false, nil
	}
	ps := position{fen: p.FEN(), keep: map[string]bool{}, dtz: map[string]int{}}
	var ml board.MoveList
	p.GenerateLegal(&ml)
	ps.legal = ml.N
	for _, m := range ml.Moves[:ml.N] {
		uci := p.UCI(m)
		p.MakeMove(m)
		d, err := tb.ProbeDTZ(p)
		after := 0
		if rule50 {
			after = p.HalfmoveClock()
		}
		p.UnmakeMove()
		if err != nil {
			return position{}, false, fmt.Errorf("%s after %s: %w", p.FEN(), uci, err)
		}
		ps.keep[uci] = syzygy.Rule50WDL(d, after) == syzygy.Loss
		if ps.keep[uci] {
			ps.dtz[uci] = -d
		}
	}
	return ps, true, nil
}

// multiFlag is a repeatable string flag.
type multiFlag []string

func (m *multiFlag) String() string { return strings.Join(*m, " ") }

func (m *multiFlag) Set(v string) error {
	if !strings.Contains(v, "=") {
		return errors.New("want NAME=VALUE")
	}
	*m = append(*m, v)
	return nil
}
