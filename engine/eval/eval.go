// Package eval defines the Evaluator interface that search calls and the
// classical baseline evaluator (PeSTO tapered piece-square tables).
//
// An Evaluator follows the search move by move: Reset sets it up on the root
// position, Push is called after every MakeMove or MakeNullMove with the
// board's piece delta, Pop after every UnmakeMove or UnmakeNullMove, and
// Evaluate scores the current position. That protocol lets an NNUE evaluator
// keep an accumulator stack and apply the deltas lazily; an evaluator that
// needs none of it may ignore Push and Pop and compute from the position.
package eval

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/nnuelab/nnuelab/engine/board"
)

// Evaluator scores positions for search. It is used by one goroutine at a
// time; each search thread owns its own Evaluator.
type Evaluator interface {
	// Reset discards any history and sets the evaluator up on p.
	Reset(p *board.Position)
	// Push follows a move: it is called right after p.MakeMove or
	// p.MakeNullMove with d = p.LastDelta() (an empty delta for a null move).
	Push(d *board.Delta)
	// Pop follows p.UnmakeMove or p.UnmakeNullMove.
	Pop()
	// Evaluate returns the static evaluation of p, which must be the
	// position the Reset/Push/Pop calls describe, in centipawns from the
	// side to move's point of view.
	Evaluate(p *board.Position) int
}

// Explainer is implemented by evaluators that can show the parts of an
// evaluation, for the UCI "eval" debug command.
type Explainer interface {
	// Explain returns a human-readable breakdown of the evaluation of p,
	// one or more lines ending in a newline.
	Explain(p *board.Position) string
}

// Cloner is implemented by evaluators that can make another evaluator of
// the same kind and network cheaply, sharing its read-only weights, so that
// each thread of a parallel search gets one without loading the net again.
// The clone starts with no position (Reset it before use).
type Cloner interface {
	Clone() Evaluator
}

// Factory builds an evaluator of one architecture. file is the network
// file to load (the UCI EvalFile option), "" for the architecture's default.
type Factory func(file string) (Evaluator, error)

// Classical is the name of the built-in classical architecture, the default.
const Classical = "classical"

var factories = map[string]Factory{
	Classical: func(string) (Evaluator, error) { return NewPeSTO(), nil },
}

// Register makes an architecture available to New under name (as the UCI
// Arch option names it). It is meant to be called from init functions;
// registering a name twice replaces the earlier factory.
func Register(name string, f Factory) { factories[name] = f }

// A Resolver builds the factory of an architecture that is not registered
// under a name, such as a TOML file given by path; ok is false if it does not
// recognise name.
type Resolver func(name string) (f Factory, ok bool)

var resolvers []Resolver

// RegisterResolver adds a resolver that New consults for unregistered names.
func RegisterResolver(r Resolver) { resolvers = append(resolvers, r) }

// Archs returns the registered architecture names, sorted.
func Archs() []string {
	names := make([]string, 0, len(factories))
	for n := range factories {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// ErrUnknownArch is the error New wraps when no registered name or
// resolver knows an architecture: the name itself is wrong, whatever the
// network file (the UCI Arch option refuses such a name outright).
var ErrUnknownArch = errors.New("unknown architecture")

// New builds an evaluator of the named architecture with the given network
// file ("" for none).
func New(arch, file string) (Evaluator, error) {
	f, ok := factories[arch]
	for _, r := range resolvers {
		if ok {
			break
		}
		f, ok = r(arch)
	}
	if !ok {
		return nil, fmt.Errorf("%w %q (known: %s)", ErrUnknownArch, arch, strings.Join(Archs(), ", "))
	}
	return f(file)
}
