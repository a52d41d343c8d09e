package nnue

import (
	"fmt"
	"io"
	"math"
	"unsafe"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/nnue/simd"
)

// Stockfish 18 (spec: docs/reference/sf18-nnue.md). The big net adds the
// threat features (threats.go) to HalfKAv2_hm and keeps their sums in the
// same accumulator: the engine adds its piece-square and threat
// accumulators in int16 before the transform, so one int16 accumulator of
// both (int16 addition being modular) holds the same bytes. Its weights
// are not doubled at load: the transform clips at 255 (sf18Transform).
// The small net is 17.1's, read as in 17.1. Eval::evaluate keeps 17.1's
// steps with new constants, and to_cp a new WDL model (sfEval18).

// fullThreatsHash is Full_Threats' feature hash (the transformer hash is
// it ^ 2 L1).
const fullThreatsHash = 0x8F234CB8

// sfEvalParams are a release's Eval::evaluate constants (optimism 0) and
// its WDL model's a(material) polynomial.
type sfEvalParams struct {
	// release is the Stockfish release ("17.1", "18").
	release string
	// smallAbove: the small net where |simple eval| exceeds it; bigBelow:
	// the big net after all where |the small net's blend| is below it.
	smallAbove, bigBelow int32
	// complexityDiv: nnue -= nnue * complexity / complexityDiv.
	complexityDiv int32
	// pawnMaterial: material = pawnMaterial * pawns + non-pawn material;
	// materialBase: v = nnue * (materialBase + material) / materialBase.
	pawnMaterial, materialBase int32
	// rule50Div: v -= v * rule50 / rule50Div.
	rule50Div int32
	// wdlA: a(m) = ((wdlA[0] m + wdlA[1]) m + wdlA[2]) m + wdlA[3].
	wdlA [4]float64
}

// sfEval171 are Stockfish 17.1's constants.
var sfEval171 = sfEvalParams{
	release:    "17.1",
	smallAbove: 962, bigBelow: 236, complexityDiv: 18000,
	pawnMaterial: 535, materialBase: 77777, rule50Div: 212,
	wdlA: [4]float64{-13.50030198, 40.92780883, -36.82753545, 386.83004070},
}

// sfEval18 are Stockfish 18's.
var sfEval18 = sfEvalParams{
	release:    "18",
	smallAbove: 962, bigBelow: 277, complexityDiv: 18236,
	pawnMaterial: 534, materialBase: 77871, rule50Div: 199,
	wdlA: [4]float64{-72.32565836, 185.93832038, -144.58862193, 416.44950446},
}

// toCP is the release's UCIEngine::to_cp: round(100 v / a(material)),
// half away from zero.
func (k *sfEvalParams) toCP(v int32, p *board.Position) int {
	return int(math.Round(float64(100*v) / winRateA(p, k.wdlA)))
}

// sf18Transform writes the pairwise products of one perspective's
// accumulator (piece-square and threat sums together) as Stockfish 18
// computes them for its threat net: clamp(a, 0, 255) * clamp(b, 0, 255) /
// 512 of the two halves (the simd kernel; TestSF18Transform checks it
// against the engine's arithmetic).
func sf18Transform(dst []uint8, acc []int16) { simd.PairwiseClippedReLU255(dst, acc) }

// int8sDirect fills dst straight from the stream (a large array: no
// intermediate copy).
func (r *reader) int8sDirect(dst []int8, what string) error {
	if len(dst) == 0 {
		return nil
	}
	b := unsafe.Slice((*byte)(unsafe.Pointer(&dst[0])), len(dst))
	start := r.off
	if _, err := io.ReadFull(r.r, b); err != nil {
		r.off = start
		return r.truncated(fmt.Sprintf("%s (%d bytes)", what, len(dst)), err)
	}
	r.off += int64(len(dst))
	return nil
}
