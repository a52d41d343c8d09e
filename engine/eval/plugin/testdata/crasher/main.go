// Command crasher is a test plugin that panics on its third evaluation in
// a session, to check how the host reports a plugin's own crash.
package main

import (
	"github.com/nnuelab/nnuelab/plugins/sdk"
	"github.com/nnuelab/nnuelab/plugins/sdk/pluginpb"
)

func main() {
	n := 0
	sdk.Serve(sdk.Plugins{Evaluator: &sdk.Func{
		Description: &pluginpb.Description{Name: "crasher", Version: "0", Summary: "panics on its third evaluation",
			Units: pluginpb.Units_UNITS_CENTIPAWNS, PointOfView: pluginpb.PointOfView_POINT_OF_VIEW_SIDE_TO_MOVE},
		Eval: func(*sdk.Board) (float32, error) {
			if n++; n == 3 {
				panic("crasher: third evaluation")
			}
			return 1, nil
		},
	}})
}
