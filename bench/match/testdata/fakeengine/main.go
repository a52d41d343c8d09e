// Command fakeengine is a scripted UCI engine for the match runner's tests.
// It plays a legal move (the first capture, else the first move in
// generation order, so games stay deterministic) and misbehaves on demand:
//
//	-mode ok       behave
//	-mode crash    exit with status 3 on the -after'th go
//	-mode hang     stop answering anything on the -after'th go
//	-mode illegal  answer the -after'th go with an illegal move
//	-mode garbage  print noise lines around every answer, then bestmove junk on the -after'th go
//	-mode slow     sleep -delay before every bestmove
//	-mode nouciok  never finish the uci handshake
//	-mode noreadyok  ignore the -after'th isready
//	-mode die      exit at once
//
// -score N makes it report "score cp N" with every move; -delay adds a
// pause before every bestmove.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/nnuelab/nnuelab/engine/board"
)

func main() {
	mode := flag.String("mode", "ok", "behaviour")
	after := flag.Int("after", 1, "misbehave on this go command (counting from 1 per process)")
	delay := flag.Duration("delay", 0, "pause before every bestmove")
	score := flag.Int("score", 0, "centipawn score to report")
	name := flag.String("name", "fake", "id name")
	flag.Parse()
	if *mode == "die" {
		fmt.Fprintln(os.Stderr, "fakeengine: dying as asked")
		os.Exit(2)
	}
	out := bufio.NewWriter(os.Stdout)
	say := func(f string, a ...any) {
		fmt.Fprintf(out, f+"\n", a...)
		out.Flush()
	}
	in := bufio.NewScanner(os.Stdin)
	pos := board.StartPosition()
	gos, readies := 0, 0
	for in.Scan() {
		f := strings.Fields(in.Text())
		if len(f) == 0 {
			continue
		}
		switch f[0] {
		case "uci":
			if *mode == "nouciok" {
				continue
			}
			say("id name %s", *name)
			say("id author nnuelab tests")
			say("option name Hash type spin default 16 min 1 max 1024")
			say("option name Clear Hash type button")
			say("option name Ponder type check default false")
			say("option name Style type combo default Normal var Normal var Wild")
			say("option name Book File type string default <empty>")
			say("uciok")
		case "isready":
			readies++
			if *mode == "noreadyok" && readies == *after {
				continue
			}
			say("readyok")
		case "position":
			p, err := setPosition(f[1:])
			if err != nil {
				say("info string bad position: %v", err)
				continue
			}
			pos = p
		case "go":
			gos++
			misbehave := gos == *after
			switch {
			case *mode == "crash" && misbehave:
				fmt.Fprintln(os.Stderr, "fakeengine: crashing as asked")
				os.Exit(3)
			case *mode == "hang" && misbehave:
				for {
					time.Sleep(time.Hour) // never answers again
				}
			case *mode == "garbage":
				say("this is not UCI")
				say("info depth x score cp")
				if misbehave {
					say("bestmove junk")
					continue
				}
			}
			if *delay > 0 {
				time.Sleep(*delay)
			}
			var ml board.MoveList
			pos.GenerateLegal(&ml)
			if ml.N == 0 {
				say("bestmove 0000")
				continue
			}
			m := ml.Moves[0]
			for _, c := range ml.Slice() {
				if pos.PieceOn(c.To()) != board.NoPiece && c.Kind() != board.Castling {
					m = c
					break
				}
			}
			say("info depth 1 seldepth 1 score cp %d nodes 1 pv %s", *score, pos.UCI(m))
			if *mode == "illegal" && misbehave {
				say("bestmove a1a1")
				continue
			}
			if *mode == "garbage" {
				say("more noise after the info")
			}
			say("bestmove %s", pos.UCI(m))
		case "quit":
			return
		}
	}
}

func setPosition(f []string) (*board.Position, error) {
	var p *board.Position
	var err error
	i := 0
	switch {
	case len(f) > 0 && f[0] == "startpos":
		p, i = board.StartPosition(), 1
	case len(f) > 0 && f[0] == "fen":
		j := 1
		for j < len(f) && f[j] != "moves" {
			j++
		}
		p, err = board.ParseFEN(strings.Join(f[1:j], " "))
		if err != nil {
			return nil, err
		}
		i = j
	default:
		return nil, fmt.Errorf("want startpos or fen")
	}
	if i < len(f) && f[i] == "moves" {
		for _, s := range f[i+1:] {
			m, err := p.ParseUCIMove(s)
			if err != nil {
				return nil, err
			}
			p.MakeMove(m)
		}
	}
	return p, nil
}
