// Package match is nnuelab's match runner: it plays games between two UCI
// engines run as subprocesses, judges them with engine/board, writes PGN and
// reports Elo, LOS, pentanomial counts and a sequential probability ratio
// test, as cutechess-cli and fastchess do for other engines.
//
// Games come in pairs: each opening is played twice with colours reversed,
// by Concurrency workers that each own one process of each engine, so an
// engine process never plays two games at once. An engine that crashes,
// hangs, overruns its time or sends an illegal move loses that game, the
// fault is logged and counted against it, and the process is restarted.
package match

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/nnuelab/nnuelab/bench/stats"
)

// Output says where Run reports while it plays.
type Output struct {
	// Log receives finished games, faults, restarts and the status line;
	// nil discards them. On a terminal the status line is redrawn in place.
	Log io.Writer
	// Debug logs every line exchanged with the engines.
	Debug bool
	// Quiet leaves out the per-game lines (faults are still logged).
	Quiet bool
	// RatingInterval, if positive, logs the full summary every so many
	// games.
	RatingInterval int
}

const restartAttempts = 3

// Run plays the match and returns its summary. It returns an error before
// any game if the configuration, the openings, the PGN file or an engine
// (its path or an option) is bad. When ctx is cancelled (Ctrl-C) it stops
// the games in progress, discards them and returns the summary of the
// finished ones with Interrupted set; the PGN file then holds exactly those
// games. If an engine cannot be restarted after a fault, Run returns the
// summary so far together with the error.
func Run(ctx context.Context, cfg Config, out Output) (*Summary, error) {
	if err := cfg.normalize(); err != nil {
		return nil, err
	}
	ops, err := loadOpenings(&cfg.Openings)
	if err != nil {
		return nil, err
	}
	chess960 := false
	for i := range ops {
		chess960 = chess960 || ops[i].chess960
	}
	con := newConsole(out.Log)
	var debug func(string)
	if out.Debug {
		debug = con.event
	}

	total := cfg.TotalGames()
	nw := min(cfg.Concurrency, total)
	ws := make([]*worker, nw)
	for i := range ws {
		ws[i] = &worker{id: i + 1}
	}
	// The first worker's engines start one by one, so that a bad engine is
	// reported clearly and the names can come from the engines' id names.
	var names [2]string
	for k := range 2 {
		e, err := startEngine(&cfg.Engines[k], cfg.Engines[k].displayName(), chess960, cfg.InitTimeout, debug)
		if err != nil {
			ws[0].shutdown()
			return nil, err
		}
		ws[0].engines[k] = e
		names[k] = cfg.Engines[k].Name
		if names[k] == "" {
			names[k] = e.Name
		}
		if names[k] == "" {
			names[k] = filepath.Base(cfg.Engines[k].Cmd)
		}
	}
	if names[0] == names[1] {
		names[1] += " (2)"
	}
	for k := range 2 {
		cfg.Engines[k].Name = names[k]
		ws[0].engines[k].label = label(names[k], 1, nw)
	}
	startAll := func() error {
		var wg sync.WaitGroup
		errs := make([]error, nw)
		for i := 1; i < nw; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for k := range 2 {
					e, err := startEngine(&cfg.Engines[k], label(names[k], i+1, nw), chess960, cfg.InitTimeout, debug)
					if err != nil {
						errs[i] = err
						return
					}
					ws[i].engines[k] = e
				}
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
		return nil
	}
	shutdownAll := func() {
		var wg sync.WaitGroup
		for _, w := range ws {
			wg.Add(1)
			go func() { defer wg.Done(); w.shutdown() }()
		}
		wg.Wait()
	}
	if err := startAll(); err != nil {
		shutdownAll()
		return nil, err
	}

	var done map[int]*gameRecord
	if cfg.Resume {
		res, err := resumeGames(&cfg, names, ops)
		if err == nil {
			// The file holds the kept games and nothing else before any
			// game is appended: never a new game glued onto a cut line.
			err = res.write(cfg.PGNOut)
		}
		if err != nil {
			shutdownAll()
			return nil, fmt.Errorf("resume: %w", err)
		}
		for _, msg := range res.dropped {
			con.event(msg)
		}
		done = res.done
	}
	var pgn *os.File
	if cfg.PGNOut != "" {
		pgn, err = os.OpenFile(cfg.PGNOut, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
		if err != nil {
			shutdownAll()
			return nil, fmt.Errorf("pgnout: %w", err)
		}
		defer pgn.Close()
	}
	site, _ := os.Hostname()
	if site == "" {
		site = "?"
	}

	sum := newSummary(names, total, cfg.SPRT, cfg.Engines)
	pairs := map[int]float64{} // first finished game's score per pair
	count := func(g *gameRecord) {
		sum.add(g)
		if first, ok := pairs[g.pair]; ok {
			delete(pairs, g.pair)
			sum.addPair(first, g.scoreA())
		} else {
			pairs[g.pair] = g.scoreA()
		}
	}
	for n := 1; n <= total; n++ {
		if g := done[n]; g != nil {
			count(g)
		}
	}
	if len(done) > 0 {
		con.event(fmt.Sprintf("Resumed %d finished games from %s: %s", len(done), cfg.PGNOut, sum.statusLine()))
	}
	gameCtx, cancelGames := context.WithCancel(ctx)
	defer cancelGames()
	if cfg.SPRT != nil && sum.Decision != stats.Continue {
		con.event(fmt.Sprintf("SPRT: %s already (LLR %.2f, bounds %.2f, %.2f): no game to play", sum.Decision, sum.LLR, sum.lower, sum.upper))
		cancelGames()
	}
	jobs := make(chan gameJob)
	results := make(chan workResult)
	order := newOpeningOrder(ops, &cfg.Openings, cfg.Seed)
	go func() {
		defer close(jobs)
		var op *opening
		for i := range total {
			if i%2 == 0 {
				op = order.take()
			}
			if done[i+1] != nil {
				continue
			}
			job := gameJob{number: i + 1, pair: i / 2, open: op, aWhite: i%2 == 0}
			select {
			case jobs <- job:
			case <-gameCtx.Done():
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for _, w := range ws {
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.run(gameCtx, &cfg, names, chess960, jobs, results, con, debug)
		}()
	}
	go func() { wg.Wait(); close(results) }()

	con.status(sum.statusLine())
	var fatal error
	stopped := false
	for r := range results {
		if r.err != nil {
			if fatal == nil {
				fatal = r.err
			}
			stopped = true
			cancelGames()
			continue
		}
		if stopped || gameCtx.Err() != nil {
			continue // finished after the match was stopped: not counted
		}
		g := r.rec
		if pgn != nil {
			_, err := pgn.WriteString(g.pgn(cfg.Event, site))
			if err == nil {
				err = pgn.Sync() // a game not on disk is not finished: a resumed match replays it
			}
			if err != nil && fatal == nil {
				fatal = fmt.Errorf("pgnout: %w", err)
				stopped = true
				cancelGames()
				continue
			}
		}
		count(g)
		if !out.Quiet {
			con.event(fmt.Sprintf("Finished game %d (%s vs %s): %s {%s}", g.number, g.white, g.black, g.result, g.reason))
		}
		if f := g.fault; f != nil {
			con.event(fmt.Sprintf("Fault in game %d: %s (%s) %s: %s", g.number, f.engine, colorOf(g, f.engine), f.kind, f.detail))
		}
		if out.RatingInterval > 0 && sum.Games()%out.RatingInterval == 0 && sum.Games() < total {
			con.event(sum.String())
		}
		if cfg.SPRT != nil && sum.Decision != stats.Continue {
			con.event(fmt.Sprintf("SPRT: %s (LLR %.2f, bounds %.2f, %.2f)", sum.Decision, sum.LLR, sum.lower, sum.upper))
			stopped = true
			cancelGames()
		}
		con.status(sum.statusLine())
	}
	shutdownAll()
	con.done()
	sum.Interrupted = ctx.Err() != nil
	sum.Elapsed = time.Since(sum.start)
	return sum, fatal
}

func label(name string, worker, workers int) string {
	if workers == 1 {
		return name
	}
	return fmt.Sprintf("%s#%d", name, worker)
}

func colorOf(g *gameRecord, name string) string {
	if g.white == name {
		return "White"
	}
	return "Black"
}

// worker plays games one at a time with its own process of each engine.
type worker struct {
	id      int
	engines [2]*engine
	dead    [2]bool // killed after a fault, to be restarted
}

// workResult is a finished game or a fatal error from a worker.
type workResult struct {
	rec *gameRecord
	err error
}

func (w *worker) run(ctx context.Context, cfg *Config, names [2]string, chess960 bool, jobs <-chan gameJob, results chan<- workResult, con *console, debug func(string)) {
	for job := range jobs {
		if ctx.Err() != nil {
			return
		}
		// Engines that faulted are killed at once and restarted when the
		// next game needs them, so none is restarted after the last game.
		for k := range 2 {
			if !w.dead[k] {
				continue
			}
			con.event(fmt.Sprintf("Restarting %s", w.engines[k].label))
			var err error
			for attempt := 1; attempt <= restartAttempts; attempt++ {
				var e *engine
				e, err = startEngine(&cfg.Engines[k], w.engines[k].label, chess960, cfg.InitTimeout, debug)
				if err == nil {
					w.engines[k], w.dead[k] = e, false
					break
				}
				con.event(fmt.Sprintf("Restart %d of %s failed: %v", attempt, w.engines[k].label, err))
				select {
				case <-ctx.Done():
					return
				case <-time.After(time.Second):
				}
			}
			if err != nil {
				results <- workResult{err: fmt.Errorf("cannot restart %s: %w", names[k], err)}
				return
			}
		}
		o := playGame(ctx, cfg, job, w.engines, names)
		if o.rec == nil {
			return // aborted
		}
		for k := range 2 {
			if o.restart[k] {
				w.engines[k].kill()
				w.dead[k] = true
			}
		}
		results <- workResult{rec: o.rec}
	}
}

// shutdown quits the worker's engines.
func (w *worker) shutdown() {
	for k, e := range w.engines {
		if e != nil && !w.dead[k] {
			e.quit()
		}
	}
}

// console writes log lines and keeps a status line at the bottom of a
// terminal; elsewhere the status line is written as an ordinary line when
// it changes.
type console struct {
	mu    sync.Mutex
	w     io.Writer
	tty   bool
	last  string
	shown bool
}

func newConsole(w io.Writer) *console {
	c := &console{w: w}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			c.tty = true
		}
	}
	return c
}

func (c *console) event(s string) {
	if c.w == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tty && c.shown {
		fmt.Fprint(c.w, "\r\033[K")
	}
	fmt.Fprintln(c.w, s)
	if c.tty && c.shown {
		fmt.Fprint(c.w, c.last)
	}
}

func (c *console) status(s string) {
	if c.w == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if s == c.last && c.shown {
		return
	}
	c.last = s
	if c.tty {
		fmt.Fprint(c.w, "\r\033[K"+s)
		c.shown = true
		return
	}
	fmt.Fprintln(c.w, s)
	c.shown = true
}

// done ends the status line on a terminal.
func (c *console) done() {
	if c.w == nil {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tty && c.shown {
		fmt.Fprintln(c.w)
	}
	c.shown = false
}

// tcSummary describes the engines' limits for the report header.
func tcSummary(engs []EngineConfig) string {
	one := func(l *Limits) string {
		var s []string
		if l.TC.Enabled() {
			s = append(s, "tc="+l.TC.String())
		}
		if l.MoveTime > 0 {
			s = append(s, "st="+formatSeconds(l.MoveTime))
		}
		if l.Nodes > 0 {
			s = append(s, fmt.Sprintf("nodes=%d", l.Nodes))
		}
		if l.Depth > 0 {
			s = append(s, fmt.Sprintf("depth=%d", l.Depth))
		}
		return strings.Join(s, " ")
	}
	a, b := one(&engs[0].Limits), one(&engs[1].Limits)
	if a == b {
		return a
	}
	return a + " vs " + b
}
