package label

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nnuelab/nnuelab/engine/uciclient"
)

// engine is a UCI engine process used for scoring positions: one search
// at a time, each with a deadline after which the process is killed.
type engine struct {
	// Name is the engine's "id name".
	Name string

	e *uciclient.Engine
}

// startEngine starts path with args, runs the UCI handshake (uci/uciok), sets
// the options in order and waits for readyok, all within timeout (at least
// uciclient.MinStartTimeout).
func startEngine(path string, args []string, options [][2]string, timeout time.Duration) (*engine, error) {
	ue, err := uciclient.Start(uciclient.Config{Path: path, Args: args, StderrTail: 4096})
	if err != nil {
		return nil, fmt.Errorf("starting engine %s: %w", path, err)
	}
	e := &engine{e: ue}
	ctx := context.Background()
	deadline := time.Now().Add(max(timeout, uciclient.MinStartTimeout))
	if err := ue.Handshake(ctx, deadline); err != nil {
		e.Close()
		return nil, fmt.Errorf("engine %s: waiting for uciok: %w", path, e.explain(err))
	}
	e.Name = ue.Name
	for _, o := range options {
		if err := ue.Send("setoption name " + o[0] + " value " + o[1]); err != nil {
			e.Close()
			return nil, e.explain(err)
		}
	}
	if err := ue.Sync(ctx, deadline); err != nil {
		e.Close()
		return nil, fmt.Errorf("engine %s: waiting for readyok: %w", path, e.explain(err))
	}
	return e, nil
}

var (
	errEngineExited = errors.New("the engine exited")
	errTimedOut     = errors.New("timed out")
)

// explain turns the client's errors into this package's words, with the
// engine's stderr when it died.
func (e *engine) explain(err error) error {
	switch {
	case errors.Is(err, uciclient.ErrExited):
		if s := e.e.Stderr(); s != "" {
			return fmt.Errorf("%w (engine stderr: %s)", errEngineExited, s)
		}
		return errEngineExited
	case errors.Is(err, uciclient.ErrTimeout):
		return errTimedOut
	}
	return err
}

// NewGame sends ucinewgame (the engine forgets its hash and histories) and
// waits until the engine is ready.
func (e *engine) NewGame(timeout time.Duration) error {
	if err := e.e.NewGame(context.Background(), time.Now().Add(timeout)); err != nil {
		if errors.Is(err, uciclient.ErrExited) {
			return e.explain(err)
		}
		return fmt.Errorf("waiting for readyok: %w", e.explain(err))
	}
	return nil
}

// Score is an engine's verdict on a position, from the side to move's view.
type Score struct {
	CP      int  // centipawns, when Mate is false
	Mate    bool // a mate score (MateIn moves, negative when mated)
	MateIn  int
	NoMove  bool // bestmove (none) or 0000: no legal move
	Nodes   uint64
	Depth   int
	BestUCI string
}

// Search sends "position fen FEN" and "go GO" (as "nodes 5000" or "depth
// 8") and returns the last exact score of the principal line the engine
// reported before bestmove, with that line's depth and nodes. A search that
// has not ended by timeout kills the engine and is an error.
func (e *engine) Search(fen, goArgs string, timeout time.Duration) (Score, error) {
	var s Score
	haveScore := false
	r, err := e.e.Go(context.Background(), "position fen "+fen, "go "+goArgs, timeout, func(in uciclient.Info) {
		if !in.Score.Valid || in.Bound || in.MultiPV != 1 {
			return
		}
		haveScore = true
		s.CP, s.Mate, s.MateIn = in.Score.CP, in.Score.IsMate, in.Score.Mate
		if in.Nodes > 0 {
			s.Nodes = uint64(in.Nodes)
		}
		if in.Depth >= 0 {
			s.Depth = in.Depth
		}
	})
	if err != nil {
		err = e.explain(err)
		e.Close()
		return s, fmt.Errorf("searching %q: %w", fen, err)
	}
	s.BestUCI = r.BestMove
	if s.BestUCI == "(none)" || s.BestUCI == "0000" || s.BestUCI == "" {
		s.NoMove = true
		return s, nil
	}
	if !haveScore {
		return s, fmt.Errorf("searching %q: bestmove without a score", fen)
	}
	return s, nil
}

// Close asks the engine to quit and kills it if it has not after a second.
// It may be called more than once.
func (e *engine) Close() error {
	e.e.Quit(time.Second)
	return nil
}
