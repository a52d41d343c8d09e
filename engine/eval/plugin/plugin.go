// Package plugin runs evaluators that live in other processes, started and
// handshaken by hashicorp/go-plugin and spoken to over gRPC (the protocol
// of plugins/sdk). Importing it makes the architecture names
// "plugin:NAME" (a plugin found by Find) and "plugin:/path/to/binary"
// available to eval.New, hence to `setoption name Arch value plugin:NAME`
// and `nnuelab eval --arch plugin:NAME`.
//
// One process serves every evaluator of the same plugin and network file.
// Search follows the protocol's session stream: pushes and pops are
// buffered and sent with the next evaluation, one round trip per
// evaluation; batch paths call EvaluateBatch, one round trip per few
// thousand positions.
//
// A plugin is never trusted to stay up. Every call has a timeout; when a
// call fails (the process died, hung, or answered nonsense) the evaluator
// says so through its notify function (an "info string" under UCI), ends
// the search on its fallback evaluator (classical by default), which has
// followed every move all along, and tries the plugin again at the next
// search. The process is restarted on demand with exponential backoff.
// The fallback keeps a game going; callers that report numbers (`nnuelab
// eval`, bench) check Fault (eval.Faulter) and fail rather than mix in
// fallback evaluations.
package plugin

import (
	"context"
	"fmt"
	"os"
	"runtime"
	"strings"
	"time"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/eval"
	"github.com/nnuelab/nnuelab/plugins/sdk"
	"github.com/nnuelab/nnuelab/plugins/sdk/pluginpb"
)

// Prefix starts the architecture names this package resolves.
const Prefix = "plugin:"

// EnvNet names the environment variable through which a plugin receives
// the network file (the UCI EvalFile option) it was opened with, if any.
const EnvNet = "NNUELAB_PLUGIN_NET"

// EnvTimeout names the environment variable that overrides
// DefaultOptions.EvalTimeout (a Go duration such as "500ms").
const EnvTimeout = "NNUELAB_PLUGIN_TIMEOUT"

func init() {
	eval.RegisterResolver(func(name string) (eval.Factory, bool) {
		rest, ok := strings.CutPrefix(name, Prefix)
		if !ok {
			return nil, false
		}
		return func(file string) (eval.Evaluator, error) { return Open(rest, file) }, true
	})
	// Plugins present at start-up are listed by name (the UCI Arch combo).
	for _, n := range Names() {
		name := n
		eval.Register(Prefix+name, func(file string) (eval.Evaluator, error) { return Open(name, file) })
	}
}

// Options tune an evaluator.
type Options struct {
	// EvalTimeout bounds one evaluation round trip in a search.
	EvalTimeout time.Duration
	// BatchTimeout bounds one EvaluateBatch call (one chunk).
	BatchTimeout time.Duration
	// StartTimeout bounds starting the process and its Describe call.
	StartTimeout time.Duration
	// Fallback is the architecture that takes over when the plugin fails.
	Fallback string
	// Chunk is the most positions per EvaluateBatch call (the plugin's
	// max_batch, when smaller, wins).
	Chunk int
}

// DefaultOptions are the options Open uses.
func DefaultOptions() Options {
	o := Options{
		EvalTimeout:  5 * time.Second,
		BatchTimeout: time.Minute,
		StartTimeout: 20 * time.Second,
		Fallback:     eval.Classical,
		Chunk:        4096,
	}
	if d, err := time.ParseDuration(os.Getenv(EnvTimeout)); err == nil && d > 0 {
		o.EvalTimeout = d
	}
	return o
}

// Open returns an evaluator served by the plugin called name (see Find),
// starting its process if none runs; file is passed to the plugin in
// $NNUELAB_PLUGIN_NET.
func Open(name, file string) (*Evaluator, error) { return OpenWith(name, file, DefaultOptions()) }

// OpenWith is Open with options.
func OpenWith(name, file string, opts Options) (*Evaluator, error) {
	path, err := Find(name)
	if err != nil {
		return nil, err
	}
	fb, err := eval.New(opts.Fallback, "")
	if err != nil {
		return nil, fmt.Errorf("plugin fallback: %w", err)
	}
	p := getProc(name, path, file, opts)
	c, err := p.get()
	if err != nil {
		return nil, err
	}
	e := &Evaluator{p: p, opts: opts, fallback: fb, box: &sessionBox{}, desc: c.desc}
	runtime.AddCleanup(e, func(b *sessionBox) { b.close() }, e.box)
	return e, nil
}

// Evaluator is an eval.Evaluator served by a plugin process, with a
// fallback that takes over when the plugin fails. Like every evaluator it
// is used by one goroutine at a time.
type Evaluator struct {
	p        *proc
	opts     Options
	fallback eval.Evaluator
	notify   func(string)
	desc     *pluginpb.Description

	box     *sessionBox // the open session stream, if any
	failed  bool        // on the fallback until the next Reset
	fault   error       // why, while failed
	root    [sdk.PackedSize]byte
	path    []board.Delta // moves since the root
	pending []pending     // ops not sent yet
	resync  bool          // the next request starts with the root and path
	packBuf []byte
}

// pending is one buffered op: a push (with its delta) or a pop.
type pending struct {
	pop   bool
	delta board.Delta
}

// Description returns what the plugin said about itself when it started.
func (e *Evaluator) Description() *pluginpb.Description { return e.desc }

// SetNotify implements eval.Notifier. Without it, messages go to standard
// error.
func (e *Evaluator) SetNotify(f func(string)) { e.notify = f }

func (e *Evaluator) say(format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if e.notify != nil {
		e.notify(msg)
		return
	}
	fmt.Fprintln(os.Stderr, "nnuelab:", msg)
}

// Reset implements eval.Evaluator.
func (e *Evaluator) Reset(p *board.Position) {
	e.fallback.Reset(p)
	Pack(p, e.root[:])
	e.path = e.path[:0]
	e.pending = e.pending[:0]
	e.resync = true
	if e.failed {
		e.failed, e.fault = false, nil // try the plugin again in this search
		e.box.close()
	}
}

// Fault implements eval.Faulter: the failure that put the evaluator on its
// fallback since the last Reset, nil while every evaluation came from the
// plugin.
func (e *Evaluator) Fault() error { return e.fault }

// Push implements eval.Evaluator.
func (e *Evaluator) Push(d *board.Delta) {
	e.fallback.Push(d)
	e.path = append(e.path, *d)
	if !e.failed {
		e.pending = append(e.pending, pending{delta: *d})
	}
}

// Pop implements eval.Evaluator.
func (e *Evaluator) Pop() {
	e.fallback.Pop()
	if len(e.path) > 0 {
		e.path = e.path[:len(e.path)-1]
	}
	if e.failed {
		return
	}
	if n := len(e.pending); n > 0 && !e.pending[n-1].pop {
		e.pending = e.pending[:n-1] // never sent: the plugin needs neither
		return
	}
	e.pending = append(e.pending, pending{pop: true})
}

// Evaluate implements eval.Evaluator.
func (e *Evaluator) Evaluate(p *board.Position) int {
	if e.failed {
		return e.fallback.Evaluate(p)
	}
	v, err := e.evaluate(p)
	if err != nil {
		e.failed, e.fault = true, err
		e.box.close()
		e.say("%v; the search goes on with the %s evaluation (the plugin is tried again at the next search)", err, e.opts.Fallback)
		return e.fallback.Evaluate(p)
	}
	return v
}

func (e *Evaluator) evaluate(p *board.Position) (int, error) {
	s := e.box.s
	if s == nil {
		c, err := e.p.get()
		if err != nil {
			return 0, err
		}
		if s, err = openSession(c, e.opts.EvalTimeout); err != nil {
			err = e.p.diagnose(c, err)
			e.p.fail(c, err)
			return 0, err
		}
		e.box.s = s
		e.desc = c.desc
		e.resync = true
	}
	req := &pluginpb.SessionRequest{Eval: true}
	switch {
	case s.c.desc.Stateless:
		// The whole position, every time.
		var buf [sdk.PackedSize]byte
		Pack(p, buf[:])
		req.Ops = []*pluginpb.Op{newGameOp(buf[:])}
	case e.resync:
		req.Ops = make([]*pluginpb.Op, 0, 1+len(e.path))
		req.Ops = append(req.Ops, newGameOp(e.root[:]))
		for i := range e.path {
			req.Ops = append(req.Ops, pushOp(&e.path[i]))
		}
	default:
		req.Ops = make([]*pluginpb.Op, 0, len(e.pending))
		for i := range e.pending {
			if e.pending[i].pop {
				req.Ops = append(req.Ops, &pluginpb.Op{Op: &pluginpb.Op_Pop{Pop: &pluginpb.Pop{}}})
			} else {
				req.Ops = append(req.Ops, pushOp(&e.pending[i].delta))
			}
		}
	}
	resp, err := s.roundTrip(req)
	if err != nil {
		err = e.p.diagnose(s.c, err)
		e.p.fail(s.c, err)
		return 0, err
	}
	e.pending = e.pending[:0]
	e.resync = false
	v, err := s.c.centipawns(resp.Score, p.SideToMove() == board.Black)
	if err != nil {
		e.p.fail(s.c, err)
		return 0, fmt.Errorf("plugin %s: %w", e.p.name, err)
	}
	return v, nil
}

func newGameOp(packed []byte) *pluginpb.Op {
	return &pluginpb.Op{Op: &pluginpb.Op_NewGame{NewGame: &pluginpb.NewGame{
		Position: &pluginpb.Position{Packed: append([]byte(nil), packed...)}}}}
}

func pushOp(d *board.Delta) *pluginpb.Op {
	rem, add := deltaBytes(d)
	return &pluginpb.Op{Op: &pluginpb.Op_Push{Push: &pluginpb.Delta{Removed: rem, Added: add, KingMoved: d.KingMoved}}}
}

// Close ends the evaluator's session stream (the process stays for other
// evaluators; Shutdown ends it). An evaluator dropped without Close has
// its stream closed when it is garbage collected.
func (e *Evaluator) Close() error {
	e.box.close()
	return nil
}

// EvaluateBatch scores positions through the plugin's batch call, in
// chunks, into dst (centipawns, side to move). Unlike Evaluate it has no
// fallback: a failing plugin is an error, and the next call restarts it
// (subject to backoff).
func (e *Evaluator) EvaluateBatch(ctx context.Context, ps []*board.Position, dst []int) error {
	if len(dst) < len(ps) {
		return fmt.Errorf("plugin batch: %d positions, room for %d scores", len(ps), len(dst))
	}
	c, err := e.p.get()
	if err != nil {
		return err
	}
	chunk := e.opts.Chunk
	if m := int(c.desc.MaxBatch); m > 0 && m < chunk {
		chunk = m
	}
	for lo := 0; lo < len(ps); lo += chunk {
		hi := min(lo+chunk, len(ps))
		n := hi - lo
		if cap(e.packBuf) < n*sdk.PackedSize {
			e.packBuf = make([]byte, n*sdk.PackedSize)
		}
		buf := e.packBuf[:n*sdk.PackedSize]
		for i, p := range ps[lo:hi] {
			Pack(p, buf[i*sdk.PackedSize:])
		}
		cctx, cancel := context.WithTimeout(ctx, e.opts.BatchTimeout)
		resp, err := c.ev.EvaluateBatch(cctx, &pluginpb.BatchRequest{Packed: buf})
		cancel()
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			err = e.p.diagnose(c, err)
			e.p.fail(c, err)
			return err
		}
		if len(resp.Scores) != n {
			err := fmt.Errorf("plugin %s: %d scores for %d positions", e.p.name, len(resp.Scores), n)
			e.p.fail(c, err)
			return err
		}
		for i, s := range resp.Scores {
			v, err := c.centipawns(s, ps[lo+i].SideToMove() == board.Black)
			if err != nil {
				return fmt.Errorf("plugin %s: position %d: %w", e.p.name, lo+i, err)
			}
			dst[lo+i] = v
		}
	}
	return nil
}

// Pid returns the process id of the plugin process now serving, 0 if none
// runs. Tests use it to kill the plugin.
func (e *Evaluator) Pid() int {
	e.p.mu.Lock()
	defer e.p.mu.Unlock()
	if e.p.cur == nil {
		return 0
	}
	return e.p.cur.client.Pid()
}

// Explain implements eval.Explainer: the plugin's identity and score.
func (e *Evaluator) Explain(p *board.Position) string {
	d := e.desc
	v := e.Evaluate(p)
	return fmt.Sprintf("plugin %s %s (%s): %s\neval %d (side to move)\n", d.Name, d.Version, e.p.path, d.Summary, v)
}

// session is one open session stream with its timeout.
type session struct {
	c        *conn
	stream   pluginpb.Evaluator_SessionClient
	cancel   context.CancelFunc
	timer    *time.Timer
	timeout  time.Duration
	timedOut chan struct{}
}

func openSession(c *conn, timeout time.Duration) (*session, error) {
	ctx, cancel := context.WithCancel(context.Background())
	stream, err := c.ev.Session(ctx)
	if err != nil {
		cancel()
		return nil, fmt.Errorf("opening a session: %w", err)
	}
	s := &session{c: c, stream: stream, cancel: cancel, timeout: timeout, timedOut: make(chan struct{}, 1)}
	s.timer = time.AfterFunc(time.Hour, func() {
		s.timedOut <- struct{}{}
		cancel()
	})
	s.timer.Stop()
	return s, nil
}

// roundTrip sends one request and waits for its answer, at most timeout.
func (s *session) roundTrip(req *pluginpb.SessionRequest) (*pluginpb.SessionResponse, error) {
	s.timer.Reset(s.timeout)
	err := s.stream.Send(req)
	var resp *pluginpb.SessionResponse
	if err == nil {
		resp, err = s.stream.Recv()
	}
	if !s.timer.Stop() {
		<-s.timedOut // the timer fired: the stream was cancelled
		return nil, fmt.Errorf("%w (%v)", errTimeout, s.timeout)
	}
	return resp, err
}

func (s *session) close() {
	s.timer.Stop()
	s.cancel()
}

// sessionBox holds an evaluator's session so that a cleanup can close it
// without keeping the evaluator alive.
type sessionBox struct{ s *session }

func (b *sessionBox) close() {
	if b.s != nil {
		b.s.close()
		b.s = nil
	}
}
