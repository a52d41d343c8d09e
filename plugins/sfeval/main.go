// Command sfeval is an example nnuelab evaluator plugin that serves an
// external UCI engine's static evaluation: it runs Stockfish (15.1 is what
// the project tests with) and answers each position with the "Final
// evaluation" line of Stockfish's `eval` command, in pawns from White's
// view. Positions in check, which Stockfish does not evaluate statically,
// get the score of a depth-1 search instead.
//
// The engine is $NNUELAB_STOCKFISH, else /usr/games/stockfish, else
// "stockfish" on PATH. The plugin is stateless (it receives whole positions),
// since Stockfish scales its evaluation by the fifty-move counter, which
// move deltas do not carry.
package main

import (
	"sync"

	"github.com/nnuelab/nnuelab/engine/uciclient"
	"github.com/nnuelab/nnuelab/plugins/sdk"
	"github.com/nnuelab/nnuelab/plugins/sdk/pluginpb"
)

func main() {
	sdk.Serve(sdk.Plugins{Evaluator: &sdk.Func{
		Description: &pluginpb.Description{
			Name:        "sfeval",
			Version:     "1.0",
			Summary:     "Stockfish's static evaluation (the eval command's Final evaluation) of " + enginePath(),
			Units:       pluginpb.Units_UNITS_PAWNS,
			PointOfView: pluginpb.PointOfView_POINT_OF_VIEW_WHITE,
			Stateless:   true,
			MaxBatch:    256,
		},
		Eval: evalBoard,
	}})
}

// enginePath returns the Stockfish executable to run.
func enginePath() string { return uciclient.StockfishPath() }

var (
	mu     sync.Mutex
	engine *uciEngine
)

// evalBoard scores b with the shared engine, starting it (again) as needed.
func evalBoard(b *sdk.Board) (float32, error) {
	mu.Lock()
	defer mu.Unlock()
	if engine == nil {
		e, err := startEngine(enginePath())
		if err != nil {
			return 0, err
		}
		engine = e
	}
	v, err := engine.staticEval(b.FEN())
	if err != nil {
		engine.close()
		engine = nil
	}
	return v, err
}
