package nnue

import (
	"testing"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board"
)

// TestViewIndex checks View.Index against FeatureSet.Index for every
// built-in feature set, perspective, king square, piece and square.
func TestViewIndex(t *testing.T) {
	for _, name := range archs.Builtin() {
		spec, err := archs.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		fs := NewFeatureSet(&spec.Features)
		for _, c := range []board.Color{board.White, board.Black} {
			for k := board.Square(0); k < 64; k++ {
				v := fs.View(c, k)
				for pc := board.Piece(0); pc < 12; pc++ {
					for s := board.Square(0); s < 64; s++ {
						if got, want := v.Index(pc, s), fs.Index(c, k, pc, s); got != want {
							t.Fatalf("%s: perspective %v king %v piece %v on %v: view %d, Index %d", name, c, k, pc, s, got, want)
						}
					}
				}
			}
		}
	}
}
