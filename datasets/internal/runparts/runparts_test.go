package runparts

import (
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/datasets"
)

// TestPartLine: datagen's and label's work files keep the move beside the
// text line, castling (Chess960 too) and promotions included.
func TestPartLine(t *testing.T) {
	tests := []struct{ line, move string }{
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 20 [0.5] 0", "e1g1"},
		{"r3k2r/8/8/8/8/8/8/R3K2R w KQkq - 0 20 [0.5] 0", "e1c1"},
		{"8/4P1k1/8/8/8/8/6K1/8 w - - 0 40 [1.0] 800", "e7e8n"},
		{"nrbbqkrn/pppppppp/8/8/8/8/PPPPPPPP/NRBBQKRN w GBgb - 0 1 [0.5] 10", "a1b3"},
		{"4k3/8/8/8/8/8/8/1R3KR1 w GB - 0 30 [0.5] 0", "f1g1"},
		{"4k3/8/8/8/8/8/8/1R3KR1 w GB - 0 30 [0.5] 0", "f1b1"},
		{"r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3 [0.5] 20", ""},
	}
	for _, tc := range tests {
		r, err := datasets.ParseText(tc.line)
		if err != nil {
			t.Fatal(err)
		}
		if tc.move != "" {
			p, _ := r.Position()
			if r.Move, err = p.ParseUCIMove(tc.move); err != nil {
				t.Fatal(err)
			}
		}
		line := Line(&r)
		back, err := ParseLine(line)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if back != r {
			t.Errorf("%q read back as %q (move %v, want %v)", line, Line(&back), back.Move, r.Move)
		}
		if tc.move == "" && line != tc.line {
			t.Errorf("no move: %q, want the text line %q", line, tc.line)
		}
	}
	for _, bad := range []string{
		"8/4P1k1/8/8/8/8/6K1/8 w - - 0 40 [1.0] 800 e7e6",
		"8/4P1k1/8/8/8/8/6K1/8 w - - 0 40 [1.0] 800 zz",
	} {
		if _, err := ParseLine(bad); err == nil || !strings.Contains(err.Error(), "not legal") {
			t.Errorf("%q: error %v", bad, err)
		}
	}
}
