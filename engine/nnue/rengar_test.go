package nnue

import (
	"testing"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/board/boardtest"
)

func rengarTestNet(t testing.TB) *Network {
	t.Helper()
	spec, err := archs.Load("rengar")
	if err != nil {
		t.Fatal(err)
	}
	n, err := NewRengar(spec, RandomRengarWeights(1, 0.25))
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// transformFEN applies a board transform (see board.Position.Transformed).
func transformFEN(t *testing.T, p *board.Position, f func(board.Square) board.Square, swap bool) *board.Position {
	t.Helper()
	q, err := p.Transformed(f, swap)
	if err != nil {
		t.Fatalf("transform of %s: %v", p.FEN(), err)
	}
	return q
}

// TestRengarSymmetry checks, on every reference position, with random
// weights: a vertical flip with colours and side to move swapped negates
// the white-view output, a horizontal flip leaves it unchanged and a
// 180-degree rotation with colours swapped negates it. Exact in the integer
// output, by construction (see rengar.go).
func TestRengarSymmetry(t *testing.T) {
	n := rengarTestNet(t)
	white := func(p *board.Position) int32 {
		v := n.Evaluate(p, nil)
		if p.SideToMove() == board.Black {
			return -v
		}
		return v
	}
	nonzero := 0
	for _, fen := range boardtest.Positions() {
		p, _ := board.ParseFEN(fen)
		y := white(p)
		if y != 0 {
			nonzero++
		}
		if v := white(transformFEN(t, p, func(s board.Square) board.Square { return s ^ 56 }, true)); v != -y {
			t.Fatalf("%s: vertical flip with colours swapped gives %d, want %d", fen, v, -y)
		}
		if v := white(transformFEN(t, p, func(s board.Square) board.Square { return s ^ 7 }, false)); v != y {
			t.Fatalf("%s: horizontal flip gives %d, want %d", fen, v, y)
		}
		if v := white(transformFEN(t, p, func(s board.Square) board.Square { return s ^ 63 }, true)); v != -y {
			t.Fatalf("%s: rotation with colours swapped gives %d, want %d", fen, v, -y)
		}
	}
	if nonzero < 2500 {
		t.Fatalf("only %d of 3000 outputs are non-zero: the test would not see a sign error", nonzero)
	}
}

// TestRengarMatchesSpec computes the spec's white-view formulas directly
// (per-piece signs sv, sh, sr; tempo added for White to move, subtracted
// for Black) and checks that nnuelab's side-to-move output is exactly that
// value, negated when Black is to move.
func TestRengarMatchesSpec(t *testing.T) {
	spec, _ := archs.Load("rengar")
	w := RandomRengarWeights(2, 0.25)
	n, err := NewRengar(spec, w)
	if err != nil {
		t.Fatal(err)
	}
	q := func(v float32) float32 { // the fixed point the network holds
		x, _ := quantize16(v, spec.Quant.QA, "", 0)
		return float32(x)
	}
	h := n.head.(*rengarHead)
	for _, fen := range boardtest.Positions()[:1000] {
		p, _ := board.ParseFEN(fen)
		var fs, va, ha, ra [32]float32 // in fixed-point units, exact
		for occ := p.Occupied(); occ != 0; {
			s := occ.PopLSB()
			pc := p.PieceOn(s)
			rel := int(s)
			sv := float32(1)
			if pc.Color() == board.Black {
				rel ^= 56
				sv = -1
			}
			idx, _, _ := RengarIndex(int(pc.Type()), rel)
			sh := float32(-1)
			if s.File() >= 4 {
				sh = 1
			}
			for j := 0; j < 32; j++ {
				fs[j] += q(w.PSTfs[idx][j])
				va[j] += sv * q(w.PSTva[idx][j])
				ha[j] += sh * q(w.PSTha[idx][j])
				ra[j] += sv * sh * q(w.PSTra[idx][j])
			}
		}
		// Evaluate the white view with the head's own float code: feed it
		// the white accumulator and flip the tempo sign by hand for Black.
		acc := make([]int16, 128)
		for j := 0; j < 32; j++ {
			acc[j], acc[32+j], acc[64+j], acc[96+j] = int16(fs[j]), int16(va[j]), int16(ha[j]), int16(ra[j])
		}
		saved := h.tempo
		if p.SideToMove() == board.Black {
			for j := range h.tempo {
				h.tempo[j] = -h.tempo[j]
			}
		}
		ref := h.forward(acc, nil, nil, nil, 0, nil)
		h.tempo = saved
		got := n.Evaluate(p, nil)
		if p.SideToMove() == board.Black {
			got = -got
		}
		if got != ref {
			t.Fatalf("%s: white-view output %d, spec formula %d", fen, got, ref)
		}
	}
}

// TestRengarTrace checks the trace of Rengar's float head on a net whose
// activations are known: no embedding weights (fs, ha and ra are 0), a
// tempo of 2 on va's neurons 0..15 (clamped to +127/128) and 0 on 16..31,
// second-layer fs biases +2, +2, -2 and 0, and an output from va's
// neuron 0. A random net's traced output
// must be its untraced one.
func TestRengarTrace(t *testing.T) {
	spec, err := archs.Load("rengar")
	if err != nil {
		t.Fatal(err)
	}
	w := &RengarWeights{}
	for j := 0; j < 16; j++ {
		w.TempoVA[j] = 2
	}
	w.L1fsBias = [4]float32{2, 2, -2, 0}
	w.L1va[0][0] = 1 // l2 va[0] = va's clamped neuron 0, so the output is not 0
	w.L2va = [4]float32{0.5, 0.25, -0.25, 1}
	n, err := NewRengar(spec, w)
	if err != nil {
		t.Fatal(err)
	}
	const ceil = 127 << 17 // 127/128 in RengarTraceScale fixed point
	var tr Trace
	p := board.StartPosition()
	raw := n.Evaluate(p, &tr)
	if len(tr.Transformed) != 128 {
		t.Fatalf("%d traced inputs, want 128", len(tr.Transformed))
	}
	for u, v := range tr.Transformed {
		want := int32(0)
		if u >= 32 && u < 48 {
			want = ceil
		}
		if v != want {
			t.Errorf("input %d = %d, want %d", u, v, want)
		}
	}
	if len(tr.Layers) != 1 || len(tr.Layers[0]) != 4 || tr.Layers[0][0] != ceil || tr.Layers[0][1] != ceil || tr.Layers[0][2] != -ceil || tr.Layers[0][3] != 0 {
		t.Errorf("l2 fs traced as %v, want [%d %d %d 0]", tr.Layers, ceil, ceil, -ceil)
	}
	if tr.Raw != raw || tr.Positional != raw || raw == 0 {
		t.Errorf("traced raw %d positional %d, evaluation %d (want equal and non-zero)", tr.Raw, tr.Positional, raw)
	}

	rn := rengarTestNet(t)
	for _, fen := range boardtest.Positions()[:20] {
		q, err := board.ParseFEN(fen)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := rn.Evaluate(q, &tr), rn.Evaluate(q, nil); got != want || tr.Raw != want {
			t.Errorf("%s: traced %d (raw %d), untraced %d", fen, got, tr.Raw, want)
		}
		for u, v := range tr.Transformed {
			if v < -ceil || v > ceil {
				t.Errorf("%s: input %d = %d outside the clamp", fen, u, v)
			}
		}
	}
}

// TestRengarCode checks the fixed point of Rengar's traced activations:
// exact for 0 and the clamp, never 0 for a non-zero value.
func TestRengarCode(t *testing.T) {
	for _, c := range []struct {
		x    float32
		want int32
	}{
		{0, 0}, {0.5, 1 << 23}, {-0.5, -(1 << 23)}, {127.0 / 128, 127 << 17}, {-127.0 / 128, -(127 << 17)},
		{1e-9, 1}, {-1e-9, -1}, {1.0 / (1 << 24), 1},
	} {
		if got := rengarCode(c.x); got != c.want {
			t.Errorf("rengarCode(%g) = %d, want %d", c.x, got, c.want)
		}
	}
}
