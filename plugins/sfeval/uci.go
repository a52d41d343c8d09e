package main

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/nnuelab/nnuelab/engine/uciclient"
)

// uciEngine is a running UCI engine spoken to line by line.
type uciEngine struct {
	e *uciclient.Engine
}

// answerTimeout bounds the wait for any expected line.
const answerTimeout = 10 * time.Second

func startEngine(path string) (*uciEngine, error) {
	ue, err := uciclient.Start(uciclient.Config{Path: path})
	if err != nil {
		return nil, fmt.Errorf("starting %s: %w", path, err)
	}
	e := &uciEngine{e: ue}
	if err := ue.Handshake(context.Background(), time.Now().Add(answerTimeout)); err != nil {
		e.close()
		return nil, fmt.Errorf("%s: %w", path, e.explain(err))
	}
	// A small hash makes ucinewgame (before each search) cheap.
	if err := ue.Send("setoption name Hash value 1"); err != nil {
		e.close()
		return nil, err
	}
	if err := ue.Sync(context.Background(), time.Now().Add(answerTimeout)); err != nil {
		e.close()
		return nil, fmt.Errorf("%s: %w", path, e.explain(err))
	}
	return e, nil
}

// explain puts a wait's failure into words.
func (e *uciEngine) explain(err error) error {
	switch err {
	case uciclient.ErrExited:
		return fmt.Errorf("the engine exited")
	case uciclient.ErrTimeout:
		return fmt.Errorf("no answer from the engine in %v", answerTimeout)
	}
	return err
}

// waitFor reads lines until match accepts one, which it returns, and
// passes every line read (including that one) to seen.
func (e *uciEngine) waitFor(match func(string) bool, seen func(string)) (string, error) {
	l, err := e.e.ReadUntil(context.Background(), time.Now().Add(answerTimeout), match, seen)
	if err != nil {
		return "", e.explain(err)
	}
	return l.Text, nil
}

func (e *uciEngine) close() { e.e.Quit(time.Second) }

// staticEval returns the engine's static evaluation of fen in pawns from
// White's view.
func (e *uciEngine) staticEval(fen string) (float32, error) {
	if err := e.e.Send("position fen "+fen, "eval"); err != nil {
		return 0, err
	}
	var nnue string
	line, err := e.waitFor(func(l string) bool { return strings.HasPrefix(l, "Final evaluation") },
		func(l string) {
			if strings.HasPrefix(l, "NNUE evaluation") {
				nnue = l
			}
		})
	if err != nil {
		return 0, err
	}
	if v, ok := parseEvalLine(line); ok {
		return v, nil
	}
	if v, ok := parseEvalLine(nnue); ok {
		return v, nil
	}
	if strings.Contains(line, "in check") {
		return e.shallowSearch(fen)
	}
	return 0, fmt.Errorf("cannot read the evaluation in %q", line)
}

// parseEvalLine reads lines like "Final evaluation       +0.26 (white
// side) [with scaled NNUE, ...]" or "NNUE evaluation        -1.05 (white
// side)": the first number after the label, with the side it is from.
func parseEvalLine(l string) (float32, bool) {
	_, rest, ok := strings.Cut(l, "evaluation")
	if !ok {
		return 0, false
	}
	rest = strings.TrimLeft(rest, " :\t")
	f := strings.Fields(rest)
	if len(f) == 0 {
		return 0, false
	}
	v, err := strconv.ParseFloat(f[0], 32)
	if err != nil {
		return 0, false
	}
	if strings.Contains(rest, "(black side)") {
		v = -v
	}
	return float32(v), true
}

// shallowSearch returns a depth-1 search score (pawns, White's view) for
// positions the engine will not evaluate statically (in check). Depth 1
// is the shallowest search Stockfish runs; it includes the quiescence
// search, which in check tries every evasion.
func (e *uciEngine) shallowSearch(fen string) (float32, error) {
	// A fresh hash and history each time, so that the same position always
	// gets the same score.
	ctx := context.Background()
	if err := e.e.NewGame(ctx, time.Now().Add(answerTimeout)); err != nil {
		return 0, e.explain(err)
	}
	var score float32
	var have bool
	_, err := e.e.Go(ctx, "position fen "+fen, "go depth 1", answerTimeout, func(in uciclient.Info) {
		switch {
		case !in.Score.Valid:
		case in.Score.IsMate:
			score, have = 300, true
			if in.Score.Mate <= 0 {
				score = -300
			}
		default:
			score, have = float32(in.Score.CP)/100, true
		}
	})
	if err != nil {
		return 0, e.explain(err)
	}
	if !have {
		return 0, fmt.Errorf("no score in the engine's search of %s", fen)
	}
	if strings.Fields(fen)[1] == "b" {
		score = -score // UCI scores are from the side to move
	}
	return score, nil
}
