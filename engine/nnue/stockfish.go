package nnue

import (
	"fmt"
	"io"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/nnue/simd"
)

// What the Stockfish readers share: the file versions, the hash scheme by
// which a .nnue file names its architecture and the dense-layer helpers.
// (Stockfish 15.1's default net is obtained from an installed Stockfish by
// nets/sfnet, which keeps the net cache.)

// Stockfish file versions (the u32 at byte 0).
const (
	sfVersion12 uint32 = 0x7AF32F16 // Stockfish 12 (HalfKP)
	sfVersion15 uint32 = 0x7AF32F20 // Stockfish 13 to 16 (15.1: HalfKAv2_hm)
)

// sfFeatureHash is the hash of each feature set that a Stockfish file can
// hold, folded with its flags (HalfKP's "Friend" bit is already in).
var sfFeatureHash = map[string]uint32{
	"halfkp":      0x5D69D5B9 ^ 1,
	"halfkav2_hm": 0x7F234CB8,
}

// Building blocks of Stockfish's layer hashes, all mod 2^32.

// sfFTHash is the feature transformer's hash: the feature set's hash and
// the transformer's total output width 2*width.
func sfFTHash(featureHash uint32, width int) uint32 { return featureHash ^ uint32(2*width) }

// sfInputSliceHash is the hash of the input slice (offset 0) that feeds the
// dense layers with the transformer's output of total width 2*width.
func sfInputSliceHash(width int) uint32 { return 0xEC42E90D ^ uint32(2*width) }

// sfAffineHash is the hash of an affine layer with out outputs on top of a
// layer whose hash is prev.
func sfAffineHash(prev uint32, out int) uint32 {
	return (0xCC03DAE4 + uint32(out)) ^ (prev >> 1) ^ (prev << 31)
}

// sfReLUHash is the hash of a clipped ReLU on top of a layer with hash prev.
func sfReLUHash(prev uint32) uint32 { return 0x538D24C7 + prev }

// sfDenseHash is the hash of the dense part layers[0] -> ... -> layers[n-1]
// with a clipped ReLU between consecutive affine layers, fed by the
// transformer of the given width. For Stockfish 12 it covers the whole
// dense part, for 15.1 one layer stack (whose squared-ReLU branch and skip
// connection do not enter the hash).
func sfDenseHash(width int, layers []int) uint32 {
	h := sfInputSliceHash(width)
	for i, n := range layers {
		if i > 0 {
			h = sfReLUHash(h)
		}
		h = sfAffineHash(h, n)
	}
	return h
}

// pad32 rounds n up to a multiple of 32: the stride of Stockfish's dense
// weight rows, and the unit of the simd kernels.
func pad32(n int) int { return (n + 31) &^ 31 }

// Scratch bounds of the Stockfish heads: their per-call buffers are arrays on
// the stack (no allocation, and a Network stays shareable), so the sizes
// that a spec may ask for are bounded, by archs (its validation refuses a
// larger spec: checkSpec).
const (
	maxSFTransformed = archs.MaxSFTransformed // bytes of the transformed feature vector
	maxSFDense       = archs.MaxSFDense       // outputs (and padded inputs) of a dense layer
)

// checkSpec refuses a spec that breaks an architecture's rules (the
// heads' sizes and quantization among them: archs.Spec.Validate), as one
// changed after it was parsed could: the readers and the quantizers size
// their buffers by those rules.
func checkSpec(spec *archs.Spec) error {
	if err := spec.Validate(); err != nil {
		return fmt.Errorf("arch %s: %w", spec.Name, err)
	}
	return nil
}

// clipShift is the dense layers' clipped ReLU on the first n sums:
// dst[i] = clamp(src[i] >> shift, 0, ceil), with an arithmetic shift. The
// kernel runs over pad32(n) elements: the sums past n are the zeros of a
// fresh buffer, so the activations past n become the zero padding inputs
// that the next layer's padded weight rows expect.
func clipShift(dst []uint8, src []int32, n int, shift uint, ceil int32) {
	m := pad32(n)
	simd.ClipShift(dst[:m], src[:m], shift, ceil)
}

// readSFHeader reads version, whole-network hash and description, checking
// the first two against what the spec implies. It returns the description,
// which Stockfish itself never checks.
func readSFHeader(spec *archs.Spec, r *reader, version, hash uint32, shape string) (string, error) {
	off := r.off
	v, err := r.u32("version")
	if err != nil {
		return "", err
	}
	if v != version {
		return "", fmt.Errorf("version 0x%08X at byte %d: %s; arch %s (%s) needs 0x%08X", v, off, describeSFVersion(v), spec.Name, spec.Net.Format, version)
	}
	off = r.off
	h, err := r.u32("network hash")
	if err != nil {
		return "", err
	}
	if h != hash {
		return "", fmt.Errorf("network hash 0x%08X at byte %d does not match arch %s (%s): want 0x%08X; the file holds another architecture or is corrupt", h, off, spec.Name, shape, hash)
	}
	n, err := r.u32("description length")
	if err != nil {
		return "", err
	}
	// Stockfish accepts any length; read at most 4 KiB of it and skip the
	// rest, so that a corrupt length cannot make us allocate gigabytes.
	what, start := fmt.Sprintf("description (%d bytes)", n), r.off
	keep := min(int64(n), 4096)
	desc, err := r.bytes(int(keep), what)
	if err != nil {
		return "", err
	}
	if rest := int64(n) - keep; rest > 0 {
		got, err := io.CopyN(io.Discard, r.r, rest)
		r.off += got
		if err != nil {
			r.off = start // the error names where the description starts
			return "", r.truncated(what, err)
		}
	}
	return string(desc), nil
}

// describeSFVersion names what a version number belongs to, for errors.
func describeSFVersion(v uint32) string {
	switch v {
	case sfVersion12:
		return "a Stockfish 12 HalfKP net (use arch halfkp)"
	case sfVersion15:
		return "a Stockfish 13-16 net (use arch sf15.1 for Stockfish 15.1's)"
	}
	return "not a Stockfish .nnue file"
}

// expectHash reads a u32 layer hash and compares it.
func expectHash(r *reader, what string, want uint32) error {
	off := r.off
	h, err := r.u32(what)
	if err != nil {
		return err
	}
	if h != want {
		return fmt.Errorf("%s 0x%08X at byte %d, want 0x%08X: the file does not fit this architecture or is corrupt", what, h, off, want)
	}
	return nil
}

// checkSFFeatures checks that the spec's feature set is one a Stockfish
// file of this format holds and returns its hash.
func checkSFFeatures(spec *archs.Spec, set string) (uint32, error) {
	if spec.Features.Set != set {
		return 0, fmt.Errorf("net format %s holds %s features, arch %s has %q", spec.Net.Format, set, spec.Name, spec.Features.Set)
	}
	return sfFeatureHash[set], nil
}
