// Command gofloat is an example nnuelab evaluator plugin in Go: a float32
// piece-square "network", 768 inputs (piece x square) into three
// accumulator values (middlegame sum, endgame sum, game phase) and a tapered
// linear head. Sessions keep an accumulator stack and update it from the
// engine's move deltas, as an NNUE accumulator does; batches compute from
// scratch. Build it into plugins/bin (make plugins) and play it with
// "setoption name Arch value plugin:gofloat".
package main

import (
	"errors"

	"github.com/nnuelab/nnuelab/plugins/sdk"
	"github.com/nnuelab/nnuelab/plugins/sdk/pluginpb"
)

func main() {
	sdk.Serve(sdk.Plugins{Evaluator: evaluator{}})
}

// evaluator implements sdk.Evaluator.
type evaluator struct{}

func (evaluator) Describe() *pluginpb.Description {
	return &pluginpb.Description{
		Name:        "gofloat",
		Version:     "1.0",
		Summary:     "float32 piece-square network (768 -> mg, eg, phase) with a tapered head, incremental",
		Units:       pluginpb.Units_UNITS_CENTIPAWNS,
		PointOfView: pluginpb.PointOfView_POINT_OF_VIEW_SIDE_TO_MOVE,
	}
}

func (evaluator) EvaluateBatch(boards []sdk.Board, scores []float32) error {
	for i := range boards {
		a := refresh(&boards[i])
		scores[i] = head(&a, boards[i].BlackToMove)
	}
	return nil
}

func (evaluator) NewSession() sdk.Session { return &session{} }

// acc is the accumulator: middlegame and endgame sums from White's view,
// and the game phase.
type acc [3]float32

// weights[piece][square] is each feature's contribution to the accumulator.
var weights = buildWeights()

func refresh(b *sdk.Board) acc {
	var a acc
	for s, p := range b.Squares {
		if p < sdk.Empty {
			add(&a, &weights[p][s])
		}
	}
	return a
}

func add(a, w *acc) {
	a[0] += w[0]
	a[1] += w[1]
	a[2] += w[2]
}

func sub(a, w *acc) {
	a[0] -= w[0]
	a[1] -= w[1]
	a[2] -= w[2]
}

// head tapers the sums by phase and turns them to the side to move's view,
// with a small bonus for having the move.
func head(a *acc, blackToMove bool) float32 {
	ph := min(a[2], 24)
	// float32(x*y) here and below: no FMA fusion at GOAMD64=v3 (make fma-check).
	v := (float32(a[0]*ph)+float32(a[1]*(24-ph)))/24 + 10
	if blackToMove {
		v = -(float32(a[0]*ph)+float32(a[1]*(24-ph)))/24 + 10
	}
	return v
}

// session keeps the accumulator stack of a search, and the boards, so that
// a delta that does not fit the position is an error rather than a silent
// desynchronisation.
type session struct {
	stack  []acc
	boards sdk.BoardStack
}

func (s *session) NewGame(b *sdk.Board) error {
	s.stack = append(s.stack[:0], refresh(b))
	return s.boards.NewGame(b)
}

func (s *session) Push(d *sdk.Delta) error {
	if err := s.boards.Push(d); err != nil {
		return err
	}
	a := s.stack[len(s.stack)-1]
	for i := 0; i < d.NRemoved; i++ {
		sub(&a, &weights[d.Removed[i].Piece][d.Removed[i].Square])
	}
	for i := 0; i < d.NAdded; i++ {
		add(&a, &weights[d.Added[i].Piece][d.Added[i].Square])
	}
	s.stack = append(s.stack, a)
	return nil
}

func (s *session) Pop() error {
	if err := s.boards.Pop(); err != nil {
		return err
	}
	s.stack = s.stack[:len(s.stack)-1]
	return nil
}

func (s *session) Eval() (float32, error) {
	b := s.boards.Top()
	if b == nil {
		return 0, errors.New("eval before new game")
	}
	return head(&s.stack[len(s.stack)-1], b.BlackToMove), nil
}
