package wdl

// defaultModel is written by `nnuelab wdl fit --go` (docs/wdl.md).
var defaultModel = Model{
	A: [4]float64{0, 0, 0, 150},
	B: [4]float64{0, 0, 0, 80},
}
