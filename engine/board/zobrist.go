package board

// Zobrist keys, drawn from a fixed seed so that keys are the same in every
// run (transposition tables and opening books may persist them).
var (
	zobristPiece  [12][64]uint64
	zobristCastle [16]uint64 // indexed by the whole rights mask
	zobristEP     [8]uint64  // by file
	zobristSide   uint64
)

func init() {
	rng := xorshift64star(0x1234_5678_9ABC_DEF1)
	for p := range zobristPiece {
		for s := range zobristPiece[p] {
			zobristPiece[p][s] = rng.next()
		}
	}
	var rights [4]uint64
	for i := range rights {
		rights[i] = rng.next()
	}
	for mask := range zobristCastle {
		for i := range rights {
			if mask&(1<<i) != 0 {
				zobristCastle[mask] ^= rights[i]
			}
		}
	}
	for f := range zobristEP {
		zobristEP[f] = rng.next()
	}
	zobristSide = rng.next()
}

// computeKey builds the key from scratch; MakeMove keeps it incrementally and
// the tests compare the two.
func (p *Position) computeKey() uint64 {
	var k uint64
	for s := Square(0); s < 64; s++ {
		if pc := p.board[s]; pc != NoPiece {
			k ^= zobristPiece[pc][s]
		}
	}
	k ^= zobristCastle[p.st.castle]
	if p.st.ep != NoSquare {
		k ^= zobristEP[p.st.ep.File()]
	}
	if p.side == Black {
		k ^= zobristSide
	}
	return k
}
