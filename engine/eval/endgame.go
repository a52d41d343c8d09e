package eval

import "github.com/nnuelab/nnuelab/engine/board"

// EndgameKind says how an endgame score from Endgame combines with an
// evaluator's score.
type EndgameKind uint8

const (
	// NotKnown: the material is not one Endgame knows (any position with
	// pawns among them); the evaluator's score stands.
	NotKnown EndgameKind = iota
	// KnownScore: the score replaces the evaluator's. It is a win, growing
	// as the stronger side makes progress, or 0 for a position no side can
	// win.
	KnownScore
	// Guided: the score is added to the evaluator's. The material is
	// usually a draw but sometimes won (rook and minor against rook), so the
	// evaluator keeps its say and the term only points the stronger side
	// where the wins are: the defending king on the edge, the kings close.
	Guided
)

// Endgame scores. A known win scores KnownWin plus the material balance
// plus the mop-up term, so that every known win outranks every evaluation
// an evaluator gives and stays far below the search's table and mate
// scores; queen against rook, won in general but not always, scores
// LikelyWin plus the same.
const (
	KnownWin  = 10000
	LikelyWin = 1000
)

// Piece values of the endgame scores (pawn .. king), only their balance
// matters: capturing a piece raises the stronger side's score.
var endgameValue = [6]int{100, 300, 300, 500, 900, 0}

// endgameDark holds a1, c1, ..., the squares of a1's colour.
const endgameDark board.Bitboard = 0xAA55AA55AA55AA55

// side is one side's pieces in a pawnless position.
type side struct {
	knights, bishops, rooks, queens int
	light, dark                     bool // a bishop on a light / dark square
	value                           int
	king                            board.Square
	colour                          board.Color
}

func sideOf(p *board.Position, c board.Color) side {
	b := p.Pieces(c, board.Bishop)
	s := side{
		knights: p.Pieces(c, board.Knight).Count(),
		bishops: b.Count(),
		rooks:   p.Pieces(c, board.Rook).Count(),
		queens:  p.Pieces(c, board.Queen).Count(),
		light:   b&^endgameDark != 0,
		dark:    b&endgameDark != 0,
		king:    p.King(c),
		colour:  c,
	}
	s.value = s.knights*endgameValue[board.Knight] + s.bishops*endgameValue[board.Bishop] +
		s.rooks*endgameValue[board.Rook] + s.queens*endgameValue[board.Queen]
	return s
}

func (s *side) pieces() int { return s.knights + s.bishops + s.rooks + s.queens }
func (s *side) minors() int { return s.knights + s.bishops }

// canMate reports whether the pieces mate a bare king by force: a queen or
// a rook, bishops on both colours, a bishop and a knight, or three knights.
func (s *side) canMate() bool {
	return s.queens > 0 || s.rooks > 0 || s.light && s.dark || s.bishops > 0 && s.knights > 0 || s.knights >= 3
}

// Endgame is what nnuelab's search knows of pawnless endgames whatever
// its evaluator says: it scores p (from the side to move's point of view)
// and says how the score combines with the evaluator's. It exists so that
// a won endgame is won (issue 47): an evaluator trained on games rarely
// sees these, and without a gradient towards mate the search shuffles
// until the fifty-move rule draws. Known:
//
//   - no side can win (each side at most one minor piece; a bare king
//     against two knights, or against bishops all on one colour): 0;
//   - a bare king against a queen, a rook, bishops on both colours, bishop
//     and knight or three knights: KnownWin;
//   - a lone minor piece against a queen and anything, a lone rook against
//     a queen and more: KnownWin;
//   - a lone rook against a lone queen: LikelyWin;
//   - a lone rook against rook and minor piece: Guided.
//
// A win adds the material balance and a mop-up term: the defending king
// pushed to the edge and the corners (with bishop and knight alone, to a
// corner of the bishop's colour, the only one to mate in) and the kings
// brought together; queen against rook has its own term, fitted to the
// Syzygy tables' distances (queenRookProgress: above all, the rook cut
// off from its king), and rook and bishop against rook is scored by a
// small network fitted to the tables (rookBishopRook, krbvkr.go; the
// hand-made term it replaced, mopUp + rookBishopEdge, is the fallback:
// the defending king on the edge, the attacking king in opposition). A bare
// king to move with no legal move and not in check is stalemated: 0.
// Anything else, every position with a pawn included, is NotKnown; the
// pawn test comes first, so that the cost in ordinary positions is one
// comparison.
func Endgame(p *board.Position) (int, EndgameKind) {
	if p.ByType(board.Pawn) != 0 {
		return 0, NotKnown
	}
	us := p.SideToMove()
	a, b := sideOf(p, us), sideOf(p, us.Other())
	if a.pieces() == a.minors() && b.pieces() == b.minors() && a.minors() <= 1 && b.minors() <= 1 {
		return 0, KnownScore
	}
	// strong is the side a rule below favours; sign turns its score into
	// the side to move's.
	strong, weak, sign := &a, &b, 1
	if b.value > a.value {
		strong, weak, sign = &b, &a, -1
	}
	var v int
	switch {
	case weak.pieces() == 0:
		if !strong.canMate() {
			return 0, KnownScore
		}
		if sign == -1 && stalemated(p, us) {
			return 0, KnownScore
		}
		v = KnownWin + strong.value
		if strong.queens == 0 && strong.rooks == 0 && !(strong.light && strong.dark) && strong.knights < 3 {
			v += bishopCornerMopUp(strong.king, weak.king, strong.dark)
		} else {
			v += mopUp(strong.king, weak.king)
		}
	case weak.pieces() == 1 && weak.minors() == 1 && strong.queens > 0,
		weak.pieces() == 1 && weak.rooks == 1 && strong.queens > 0 && strong.pieces() > 1:
		v = KnownWin + strong.value - weak.value + mopUp(strong.king, weak.king)
	case weak.pieces() == 1 && weak.rooks == 1 && strong.pieces() == 1 && strong.queens == 1:
		v = LikelyWin + strong.value - weak.value +
			queenRookProgress(strong.king, weak.king, p.Pieces(strong.colour, board.Queen).LSB(), p.Pieces(weak.colour, board.Rook).LSB())
	case weak.pieces() == 1 && weak.rooks == 1 && strong.pieces() == 2 && strong.rooks == 1 && strong.minors() == 1:
		if strong.bishops == 1 {
			if v, ok := rookBishopRook(p, strong.colour); ok {
				return sign * v, Guided
			}
			return sign * (mopUp(strong.king, weak.king) + rookBishopEdge(strong.king, weak.king, strong.dark)), Guided
		}
		return sign * mopUp(strong.king, weak.king), Guided
	default:
		return 0, NotKnown
	}
	return sign * v, KnownScore
}

// centreDistance is a square's Manhattan distance from the four centre
// squares: 0 in the centre, 3 or 4 in the middle of an edge, 6 in a corner.
func centreDistance(s board.Square) int {
	f, r := s.File(), s.Rank()
	return max(3-f, f-4) + max(3-r, r-4)
}

func manhattan(a, b board.Square) int {
	return abs(a.File()-b.File()) + abs(a.Rank()-b.Rank())
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

// mopUp is the progress of a mating attack from the stronger side's point
// of view: the weak king driven to the edge and into a corner (20 a step of
// distance from the centre, 0..120) and the strong king brought next to it
// (10 a step of Manhattan distance, 0..130). Both change by at least 10
// with every king move that makes progress, so that the search always sees
// where progress lies.
func mopUp(strongKing, weakKing board.Square) int {
	return 20*centreDistance(weakKing) + 10*(14-manhattan(strongKing, weakKing))
}

// bishopCornerMopUp is mopUp for bishop and knight: the weak king can be
// mated only in a corner of the bishop's colour (dark: a1 and h8; light:
// a8 and h1), so nearness to the nearer of those (25 a step, 0..175)
// counts beside the edge (10 a step) and the kings' distance. Along the
// edge from a wrong corner to a right one the score grows at every step,
// as the defending king is driven the way the mate needs.
func bishopCornerMopUp(strongKing, weakKing board.Square, dark bool) int {
	c1, c2 := board.MakeSquare(0, 7), board.MakeSquare(7, 0) // a8, h1: light
	if dark {
		c1, c2 = board.MakeSquare(0, 0), board.MakeSquare(7, 7)
	}
	corner := min(manhattan(weakKing, c1), manhattan(weakKing, c2))
	return 25*(7-min(corner, 7)) + 10*centreDistance(weakKing) + 10*(14-manhattan(strongKing, weakKing))
}

// stalemated reports whether c, with a bare king and to move, has no
// legal move and is not in check.
func stalemated(p *board.Position, c board.Color) bool {
	if p.InCheck() {
		return false
	}
	k := p.King(c)
	occ := p.Occupied() &^ board.Bit(k)
	for to := board.KingAttacks(k); to != 0; {
		s := to.PopLSB()
		if p.AttackersTo(s, c.Other(), occ) == 0 {
			return false
		}
	}
	return true
}

// chebyshev is the number of king moves between two squares.
func chebyshev(a, b board.Square) int {
	return max(abs(a.File()-b.File()), abs(a.Rank()-b.Rank()))
}

// edgeDistance is how many squares s is from the nearest edge: 0..3.
func edgeDistance(s board.Square) int {
	f, r := s.File(), s.Rank()
	return min(f, 7-f, r, 7-r)
}

// The queen-against-rook progress tables, in centipawns, 8 for each ply
// of the distance to the rook's capture or mate they predict: a linear
// fit of the Syzygy DTZ of 100,000 random won KQvKR positions (quiet:
// no capture and no check for the side to move) to one-hot features
// (R² 0.61, 11 plies RMS error), made with the tables once; nothing of
// them is read in play. Indexed by the defending king's distance from
// the centre (centreDistance) and from the edge (edgeDistance), the
// kings' distance (chebyshev, 2..7), the rook's from its king, and the
// queen's from the defending king.
var (
	qrCentre   = [7]int{-56, -67, -47, -20, 3, 28, 65}
	qrEdge     = [4]int{6, -18, -26, -56}
	qrKings    = [8]int{0, 0, 45, 19, -3, -27, -52, -77}
	qrRookKing = [8]int{0, -82, -82, -7, 29, 25, 22, 2}
	qrQueen    = [8]int{0, 0, -8, 2, -7, -13, -30, -38}
)

// queenRookProgress is the mop-up term of queen against rook: the
// defending king driven to the edge and a corner, the attacking king
// brought close, and above all the rook cut off from its king, the
// defence the tables show lasts longest (the rook next to its king) and
// the win that ends it (a rook apart, lost to a fork or skewer).
func queenRookProgress(strongKing, weakKing, queen, rook board.Square) int {
	return qrCentre[centreDistance(weakKing)] + qrEdge[edgeDistance(weakKing)] +
		qrKings[chebyshev(strongKing, weakKing)] + qrRookKing[chebyshev(rook, weakKing)] +
		qrQueen[chebyshev(queen, weakKing)]
}

// Rook and bishop against rook: the win rates of the Syzygy tables over
// 300,000 random quiet positions (no capture or check for the side to
// move) with the defending king on or next to the edge: 11% with the
// defending king on the edge (stronger side to move), 6% a square away;
// on the edge, 79% with the attacking king in opposition (two squares
// straight in from it, Philidor's position) against 10% without; about
// twice as many wins with the defending king on a square of the bishop's
// colour as on the other.
const (
	rbEdge       = 100 // the defending king on the edge
	rbOpposition = 300 // and the attacking king in opposition
	rbColour     = 40  // and on a square of the bishop's colour
)

// rookBishopEdge is what rook and bishop against rook adds to mopUp: the
// defending king on the edge, there in opposition, and there on a square
// the bishop can check (the positions the tables show are won).
func rookBishopEdge(strongKing, weakKing board.Square, darkBishop bool) int {
	if edgeDistance(weakKing) != 0 {
		return 0
	}
	v := rbEdge
	if (board.Bit(weakKing)&endgameDark != 0) == darkBishop {
		v += rbColour
	}
	df, dr := strongKing.File()-weakKing.File(), strongKing.Rank()-weakKing.Rank()
	wf, wr := weakKing.File(), weakKing.Rank()
	if df == 0 && abs(dr) == 2 && (wr == 0 || wr == 7) || dr == 0 && abs(df) == 2 && (wf == 0 || wf == 7) {
		v += rbOpposition
	}
	return v
}
