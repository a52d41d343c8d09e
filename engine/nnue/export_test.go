package nnue

// Test-only exports for the external test package nnue_test, which can load
// the shipped nets through package nets (nets imports nnue, so only an
// external test package may import it back).
var (
	TreeWalk       = treeWalk
	BenchPositions = benchPositions
)
