package nnue

import (
	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board"
)

// FeatureSet turns pieces into feature indices for one perspective. It is
// built from a spec's [features] table, so every preset of the registry and
// every ablation of one (king-bucket table, mirroring, plane order) runs
// through the same code:
//
//	k'    = own king square ^ orient      (orient: 0 for White; 56 or 63 for Black)
//	m     = 7 if the mirror rule holds for k', else 0
//	index = bucket[k'] * stride + offset + 64 * plane(piece, own?) + (square ^ orient ^ m)
type FeatureSet struct {
	orient   [2]board.Square
	mirror   string
	buckets  [64]int
	planes   [2][6]int // [0 = own piece, 1 = opponent's][piece type] -> plane, -1 if not a feature
	stride   int
	offset   int
	size     int
	nBuckets int
	// threats: Stockfish 18's threat features come with the set
	// (threats.go); their indices are not part of Size.
	threats bool
}

// NewFeatureSet compiles a feature spec.
func NewFeatureSet(f *archs.FeatureSpec) *FeatureSet {
	fs := &FeatureSet{mirror: f.Mirror, stride: f.Stride(), offset: f.PlaneOffset, size: f.Size(), nBuckets: f.NumKingBuckets(), threats: f.ThreatSize() > 0}
	fs.orient[board.Black] = 56
	if f.Orientation == "rotate" {
		fs.orient[board.Black] = 63
	}
	copy(fs.buckets[:], f.KingBuckets)
	for side := 0; side < 2; side++ {
		for t := 0; t < 6; t++ {
			var p int
			switch f.PlaneOrder {
			case "own-first":
				p = 6*side + t
			case "own-second":
				p = 6*(1-side) + t
			default: // interleaved
				p = 2*t + side
			}
			if t == int(board.King) {
				switch f.Kings {
				case "none":
					p = -1
				case "merged":
					p = 10
				}
			}
			fs.planes[side][t] = p
		}
	}
	return fs
}

// Threats reports whether the set includes threat features.
func (fs *FeatureSet) Threats() bool { return fs.threats }

// Size returns the number of piece-square features per perspective (threat
// features not included: ThreatFeatures more with Threats).
func (fs *FeatureSet) Size() int { return fs.size }

// KingBuckets returns the number of king buckets.
func (fs *FeatureSet) KingBuckets() int { return fs.nBuckets }

// view is a perspective's king-dependent part of the index: the feature
// offset of its king bucket and the square transform, and the threat
// features' orientation (zero without threats). Two plies with the same
// view can be bridged by deltas; a change forces a refresh.
type view struct {
	base int
	xor  board.Square
	tv   threatView
}

// view returns perspective persp's view for its king on ksq.
func (fs *FeatureSet) view(persp board.Color, ksq board.Square) view {
	k := ksq ^ fs.orient[persp]
	xor := fs.orient[persp]
	switch {
	case fs.mirror == "king-efgh" && k.File() >= 4, fs.mirror == "king-abcd" && k.File() <= 3:
		xor ^= 7
	}
	v := view{base: fs.buckets[k]*fs.stride + fs.offset, xor: xor}
	if fs.threats {
		v.tv = threatViewOf(persp, ksq)
	}
	return v
}

// slot returns the cache slot of a view: its bucket and mirror bit.
func (fs *FeatureSet) slot(v view) int {
	return (v.base/fs.stride)*2 + int((v.xor&7)>>2)
}

// index returns the feature of pc on sq in perspective persp's view v, or -1.
func (fs *FeatureSet) index(v view, persp board.Color, pc board.Piece, sq board.Square) int {
	side := 0
	if pc.Color() != persp {
		side = 1
	}
	p := fs.planes[side][pc.Type()]
	if p < 0 {
		return -1
	}
	return v.base + 64*p + int(sq^v.xor)
}

// Index returns the feature index of piece pc on sq for perspective persp
// whose king stands on ksq, or -1 if the piece is not a feature (kings in
// HalfKP).
func (fs *FeatureSet) Index(persp board.Color, ksq board.Square, pc board.Piece, sq board.Square) int {
	return fs.index(fs.view(persp, ksq), persp, pc, sq)
}

// View is one perspective's view of the board with its king on a given
// square (FeatureSet.View): its Index is FeatureSet.Index with the
// king-dependent part worked out once, for callers that index every piece
// of a position.
type View struct {
	fs    *FeatureSet
	v     view
	persp board.Color
}

// View returns perspective persp's view with its king on ksq.
func (fs *FeatureSet) View(persp board.Color, ksq board.Square) View {
	return View{fs: fs, v: fs.view(persp, ksq), persp: persp}
}

// Index returns the feature index of piece pc on sq in the view: the same
// as FeatureSet.Index for the view's perspective and king square.
func (v *View) Index(pc board.Piece, sq board.Square) int {
	return v.fs.index(v.v, v.persp, pc, sq)
}

// Active appends the active features of perspective persp in position p.
func (fs *FeatureSet) Active(p *board.Position, persp board.Color, dst []int) []int {
	v := fs.view(persp, p.King(persp))
	for occ := p.Occupied(); occ != 0; {
		sq := occ.PopLSB()
		if i := fs.index(v, persp, p.PieceOn(sq), sq); i >= 0 {
			dst = append(dst, i)
		}
	}
	return dst
}
