package eval

import (
	"encoding/binary"
	"fmt"
	"math"
	"sync"

	_ "embed"

	"github.com/nnuelab/nnuelab/engine/board"
)

// Rook and bishop against rook, scored by a small network fitted to the
// Syzygy tables (issue 47, item 3). The material is usually a draw, but
// many positions are won and the wins are long manoeuvres (Philidor's
// position) whose progress no hand-made term describes: a linear fit of
// the distance to zeroing on piece squares explains nothing of it (R²
// 0.07). The network sees each piece's square given the defending king's
// square and the side to move, and each pair of pieces' relative
// position, through one hidden layer (64 units in krbvkr.bin; the width is
// the fit's choice, recorded in the file), and predicts the value of the
// position for the stronger side: 0 for a draw, for a win 1 - DTZ/200
// (DTZ in plies, at most 100: 0.5..1). It is fitted offline by
// TestFitKRBvKR (krbvkr_fit_test.go, krbvkr_rank_test.go) on random quiet
// positions labelled by the tables and on a decision set: won positions
// with the stronger side to move and all their moves, a softmax over the
// moves' scores pulled towards the moves the tables keep won (the nearer
// zeroing the more). Its weights are krbvkr.bin, embedded. Over held-out
// won positions the move it scores best keeps the win 91% of the time
// (39% for the value fit alone, 10% for the hand-made term). Endgame adds
// it (krbScale centipawns a unit) to the evaluator's score of KRBvKR in
// place of the hand-made term (mopUp + rookBishopEdge), and the search
// orders the quiet moves of KRBvKR by it (engine/search): in the positions
// of nnuelab's and Stockfish's KRBvKR games against each other
// (bench/endgames/keeprate), a 20,000-node search keeps the table's win
// with 98.2% of its moves (95.4% with the value-only network ordered by
// history, 87.1% with the hand-made term; docs/devlog/2026-11-29-syzygy.md,
// fourth and fifth sessions).

// The network's inputs. Squares are first made canonical: the stronger
// side is made White (ranks mirrored if it is Black) and the board is
// mirrored and turned so that the defending king stands in the triangle
// a1-d1-d4 (10 squares); a pawnless position without castling rights is
// worth the same under those symmetries.
//
//   - krbPieceInputs: for each bucket (side to move x defending king's
//     square, 20) and each of the stronger king, rook and bishop and the
//     defending rook, that piece's square;
//   - krbPairInputs: for each side to move and each pair of those four
//     pieces, their offset (file and rank difference, 15 x 15).
const (
	krbBuckets     = 2 * 10
	krbPieceInputs = krbBuckets * 4 * 64
	krbPairs       = 6
	krbPairInputs  = 2 * krbPairs * 15 * 15
	krbInputs      = krbPieceInputs + krbPairInputs
	krbActive      = 4 + krbPairs // inputs on in any position
	// krbMaxHidden bounds the hidden layer's width a weights file may
	// give (the forward pass keeps the hidden sums on the stack).
	krbMaxHidden = 512
)

// krbScale turns the network's output (about -1..1) into centipawns.
const krbScale = 1000

// krbTriangle numbers the squares of the triangle a1-d1-d4 (0..9), -1
// elsewhere.
var krbTriangle = func() (t [64]int8) {
	for s := range t {
		t[s] = -1
	}
	n := int8(0)
	for r := 0; r < 4; r++ {
		for f := r; f < 4; f++ {
			t[board.MakeSquare(f, r)] = n
			n++
		}
	}
	return t
}()

// krbPosition is a KRBvKR position made canonical: the stronger side's
// king, rook and bishop and the defending rook (in this order), the
// defending king's triangle index and whether the stronger side moves.
type krbPosition struct {
	sq           [4]board.Square
	king         int
	strongToMove bool
}

// canonicalKRB makes the canonical form of a KRBvKR position given by
// its squares (the stronger side's king, rook, bishop, the defending
// king and rook), whether the stronger side is White and whether it is
// to move.
func canonicalKRB(k, r, b, wk, wr board.Square, strongWhite, strongToMove bool) krbPosition {
	sq := [5]board.Square{k, r, b, wr, wk}
	if !strongWhite {
		for i := range sq {
			sq[i] ^= 56
		}
	}
	f, rk := sq[4].File(), sq[4].Rank()
	flipF, flipR := f > 3, rk > 3
	for i := range sq {
		if flipF {
			sq[i] ^= 7
		}
		if flipR {
			sq[i] ^= 56
		}
	}
	// Turned about the diagonal a1-h8 when the defending king is above
	// it; on it, when the first of the other pieces off it is above.
	transpose := false
	if s := sq[4]; s.Rank() > s.File() {
		transpose = true
	} else if s.Rank() == s.File() {
		for _, o := range sq[:4] {
			if o.Rank() != o.File() {
				transpose = o.Rank() > o.File()
				break
			}
		}
	}
	if transpose {
		for i := range sq {
			sq[i] = board.MakeSquare(sq[i].Rank(), sq[i].File())
		}
	}
	return krbPosition{sq: [4]board.Square(sq[:4]), king: int(krbTriangle[sq[4]]), strongToMove: strongToMove}
}

// inputs returns the indices of the network's inputs that are on.
func (c *krbPosition) inputs() [krbActive]int {
	var in [krbActive]int
	stm := 0
	if c.strongToMove {
		stm = 1
	}
	base := (stm*10 + c.king) * 4 * 64
	for i, s := range c.sq {
		in[i] = base + i*64 + int(s)
	}
	n, pair := 4, 0
	for i := 0; i < 4; i++ {
		for j := i + 1; j < 4; j++ {
			df := c.sq[i].File() - c.sq[j].File() + 7
			dr := c.sq[i].Rank() - c.sq[j].Rank() + 7
			in[n] = krbPieceInputs + (stm*krbPairs+pair)*225 + dr*15 + df
			n++
			pair++
		}
	}
	return in
}

// krbNet is the network's weights: the hidden layer's width, its weights
// (one row of hidden for each input) and biases, the output layer's
// weights and bias.
type krbNet struct {
	hidden int
	w1     []float32 // krbInputs x hidden
	b1, w2 []float32 // hidden each
	b2     float32
}

// newKRBNetOf is a network of the given width with every weight 0.
func newKRBNetOf(hidden int) *krbNet {
	return &krbNet{hidden: hidden, w1: make([]float32, krbInputs*hidden), b1: make([]float32, hidden), w2: make([]float32, hidden)}
}

// forward is the network's output for the inputs in.
func (n *krbNet) forward(in *[krbActive]int) float32 {
	var h [krbMaxHidden]float32
	return n.forwardHidden(in, h[:n.hidden])
}

// forwardHidden is forward that also leaves the hidden layer's sums (before
// the ReLU) in h (n.hidden of them): the fit's gradient needs them, and
// play and fit then share one forward pass.
func (n *krbNet) forwardHidden(in *[krbActive]int, h []float32) float32 {
	hid := n.hidden
	h = h[:hid]
	copy(h, n.b1)
	for _, x := range in {
		row := n.w1[x*hid : x*hid+hid]
		for j := range h {
			h[j] += row[j]
		}
	}
	out := n.b2
	w2 := n.w2[:hid]
	for j, v := range h {
		if v > 0 {
			out += float32(w2[j] * v) // no fused multiply-add: the same sum on every GOAMD64 level
		}
	}
	return out
}

// The weights' file: "KRB2", the hidden layer's width as a little-endian
// uint32, then every weight as a little-endian float32: w1 row by row, b1,
// w2, b2.
const krbMagic = "KRB2"

// krbFileSize is the size of a weights file of the given width.
func krbFileSize(hidden int) int {
	return len(krbMagic) + 4 + 4*(krbInputs*hidden+2*hidden+1)
}

// krbWeightsFile is the fitted network's weights, the file TestFitKRBvKR
// writes and the build embeds.
const krbWeightsFile = "krbvkr.bin"

//go:embed krbvkr.bin
var krbWeights []byte

// krbLoaded is the embedded network, decoded once on first use.
var krbLoaded = sync.OnceValues(func() (*krbNet, error) { return decodeKRB(krbWeightsFile, krbWeights) })

// rookBishopRook is the network's score of a KRBvKR position in
// centipawns for the stronger side (strong, with rook and bishop), and
// false if the embedded weights do not decode (a broken build; a test
// decodes them), when Endgame falls back to the hand-made term.
func rookBishopRook(p *board.Position, strong board.Color) (int, bool) {
	n, err := krbLoaded()
	if err != nil {
		return 0, false
	}
	weak := strong.Other()
	c := canonicalKRB(p.King(strong), p.Pieces(strong, board.Rook).LSB(), p.Pieces(strong, board.Bishop).LSB(),
		p.King(weak), p.Pieces(weak, board.Rook).LSB(), strong == board.White, p.SideToMove() == strong)
	in := c.inputs()
	return int(krbScale * n.forward(&in)), true
}

// decodeKRB reads a weights file as TestFitKRBvKR writes it; name is the
// file's, for the error.
func decodeKRB(name string, data []byte) (*krbNet, error) {
	head := len(krbMagic) + 4
	if len(data) < head || string(data[:len(krbMagic)]) != krbMagic {
		return nil, fmt.Errorf("eval: %s: %d bytes starting %q, want a weights file starting %q (regenerate it: see TestFitKRBvKR)",
			name, len(data), data[:min(len(data), len(krbMagic))], krbMagic)
	}
	hidden := binary.LittleEndian.Uint32(data[len(krbMagic):])
	if hidden == 0 || hidden > krbMaxHidden {
		return nil, fmt.Errorf("eval: %s: byte %d: hidden width %d, want 1 to %d", name, len(krbMagic), hidden, krbMaxHidden)
	}
	if want := krbFileSize(int(hidden)); len(data) != want {
		return nil, fmt.Errorf("eval: %s: %d bytes, want %d for a hidden width of %d (truncated or too long; regenerate it: see TestFitKRBvKR)",
			name, len(data), want, hidden)
	}
	data = data[head:]
	next := func() float32 {
		v := math.Float32frombits(binary.LittleEndian.Uint32(data))
		data = data[4:]
		return v
	}
	n := newKRBNetOf(int(hidden))
	for i := range n.w1 {
		n.w1[i] = next()
	}
	for j := range n.b1 {
		n.b1[j] = next()
	}
	for j := range n.w2 {
		n.w2[j] = next()
	}
	n.b2 = next()
	return n, nil
}
