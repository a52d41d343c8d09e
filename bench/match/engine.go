package match

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/nnuelab/nnuelab/engine/uciclient"
)

// engine is one running UCI engine process, used by one game at a time.
type engine struct {
	*uciclient.Engine
	cfg   *EngineConfig
	label string // name and instance, for logs: "sf#2"
}

const (
	quitGrace = time.Second
	stopGrace = 2 * time.Second
)

// The ways an engine fails to answer.
var (
	errTimeout   = uciclient.ErrTimeout
	errEOF       = uciclient.ErrExited
	errCancelled = uciclient.ErrCancelled
)

// startEngine starts the process, runs the uci/isready handshake and sets
// the options (and UCI_Chess960 if chess960). Errors name the engine and
// what went wrong, with the end of its stderr if it died.
func startEngine(cfg *EngineConfig, label string, chess960 bool, initTimeout time.Duration, debug func(string)) (*engine, error) {
	ue, err := uciclient.Start(uciclient.Config{Path: cfg.Cmd, Args: cfg.Args, Dir: cfg.Dir, ProcessGroup: true, Label: label, Debug: debug})
	if err != nil {
		return nil, fmt.Errorf("engine %s: cannot start %q: %w", label, cfg.Cmd, err)
	}
	e := &engine{Engine: ue, cfg: cfg, label: label}
	fail := func(what string, err error) (*engine, error) {
		e.Kill()
		return nil, fmt.Errorf("engine %s (%s): %s: %w", label, cfg.Cmd, what, e.Explain(err))
	}
	ctx := context.Background()
	if err := e.Handshake(ctx, time.Now().Add(initTimeout)); err != nil {
		return fail("waiting for uciok", err)
	}
	opts := cfg.Options
	if chess960 {
		opts = append(opts[:len(opts):len(opts)], Option{"UCI_Chess960", "true"})
	}
	for i, o := range opts {
		line, err := e.OptionCommand(o.Name, o.Value)
		if err != nil {
			e.Kill()
			if i == len(cfg.Options) {
				return nil, fmt.Errorf("engine %s (%s): the openings are Chess960 but %w", label, cfg.Cmd, err)
			}
			return nil, fmt.Errorf("engine %s (%s): %w", label, cfg.Cmd, err)
		}
		if err := e.Send(line); err != nil {
			return fail("setting options", err)
		}
	}
	if err := e.Sync(ctx, time.Now().Add(initTimeout)); err != nil {
		return fail("waiting for readyok", err)
	}
	return e, nil
}

// describe turns a read error into words, adding the exit status and the
// end of stderr when the process died.
func (e *engine) describe(err error) string { return e.Describe(err) }

// newGame prepares the engine for a game: ucinewgame and isready.
func (e *engine) newGame(ctx context.Context, timeout time.Duration) error {
	return e.NewGame(ctx, time.Now().Add(timeout))
}

// searchResult is what one go command produced.
type searchResult struct {
	move    string        // the bestmove text
	elapsed time.Duration // measured by the runner, from go to bestmove
	info    uciclient.SearchInfo
	err     error // nil, errTimeout, errEOF or errCancelled
}

// search sends the position and go commands and waits for bestmove until
// limit has passed since go was sent.
func (e *engine) search(ctx context.Context, position, goCmd string, limit time.Duration) searchResult {
	r, err := e.Go(ctx, position, goCmd, limit, nil)
	return searchResult{move: r.BestMove, elapsed: r.Elapsed, info: r.Info, err: err}
}

// stop sends stop and waits a moment for the bestmove of a search that
// overran; it reports whether the engine answered and so is still usable.
func (e *engine) stop() bool { return e.Stop(stopGrace) }

// quit asks the engine to exit and kills it if it does not.
func (e *engine) quit() { e.Quit(quitGrace) }

// kill ends the process (and its process group) and waits for it to be
// reaped.
func (e *engine) kill() { e.Kill() }

// engineScore is an engine's evaluation from its own point of view, with
// the runner's arithmetic and notation.
type engineScore uciclient.Score

// mateValue stands for a mate score in adjudication arithmetic.
const mateValue = 100000

// value returns the score in centipawns, mates as ±(100000 - moves).
func (s engineScore) value() int {
	if !s.IsMate {
		return s.CP
	}
	if s.Mate > 0 {
		return mateValue - s.Mate
	}
	return -mateValue - s.Mate // mate 0 and negative: being mated
}

// String formats the score as cutechess-cli does in PGN comments: "+0.31",
// "-1.50", "+M5", "-M3".
func (s engineScore) String() string {
	if !s.Valid {
		return ""
	}
	if s.IsMate {
		if s.Mate > 0 {
			return "+M" + strconv.Itoa(s.Mate)
		}
		return "-M" + strconv.Itoa(-s.Mate)
	}
	sign := "+"
	cp := s.CP
	if cp < 0 {
		sign, cp = "-", -cp
	}
	return fmt.Sprintf("%s%d.%02d", sign, cp/100, cp%100)
}
