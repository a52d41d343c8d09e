package wdl

// defaultModel is written by `nnuelab wdl fit --min-ply 8 --go engine/wdl/model.go datasets/wdl-leorik31/leorik31-wdl.binpack`
// (docs/wdl.md): 282732 positions.
var defaultModel = Model{
	A: [4]float64{-243.913, 716.505, -736.496, 365.068},
	B: [4]float64{-88.245, 243.539, -165.771, 106.918},
}
