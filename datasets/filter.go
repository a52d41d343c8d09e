package datasets

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/nnuelab/nnuelab/datasets/internal/splitmix"
	"github.com/nnuelab/nnuelab/engine/board"
)

// Filter selects the positions a trainer learns from. Self-play kept whole
// (datagen.Config.Keep "all", binpack) holds every position of a game; like
// Stockfish's trainer, the reader side then drops the ones whose score says
// little about the position's static value: the opening plies, positions in
// check, positions whose move played captures or promotes (the score is the
// exchange's, not the position's) and mate or "no score" values. A zero
// field turns its test off.
type Filter struct {
	// MinPly drops positions before this game ply (Record.Ply).
	MinPly int `toml:"min_ply" json:"min_ply"`
	// SkipCheck drops positions whose side to move is in check.
	SkipCheck bool `toml:"skip_check" json:"skip_check"`
	// SkipNoisy drops positions whose move captures or promotes; records
	// without a move (formats that do not keep it) pass.
	SkipNoisy bool `toml:"skip_noisy" json:"skip_noisy"`
	// MaxScore drops positions with |score| above it, in centipawns.
	MaxScore int `toml:"max_score" json:"max_score"`
	// OneIn > 1 keeps one position in OneIn, chosen by a hash of the board
	// (independent of the trainer's validation split): a subsample that
	// keeps every game but fewer of its positions, to tell how much a
	// game's further positions add. 0 or 1 keeps all. (omitempty: the
	// training keys of filters without it stay as they were.)
	OneIn int `toml:"one_in" json:"one_in,omitempty"`
}

// DefaultFilter is datagen's own choice for quiet positions (datagen.Config.Keep
// "quiet"): from ply 16, not in check, quiet move, no mate score (nnuelab's
// mate scores start at 30872, Stockfish's "no score" is 32002). On data that
// datagen or label filtered when they wrote it, it drops nothing.
var DefaultFilter = Filter{MinPly: 16, SkipCheck: true, SkipNoisy: true, MaxScore: 30000}

// Check reports an impossible setting.
func (f Filter) Check() error {
	if f.MinPly < 0 || f.MaxScore < 0 || f.OneIn < 0 {
		return fmt.Errorf("filter: min_ply %d, max_score %d and one_in %d must not be negative", f.MinPly, f.MaxScore, f.OneIn)
	}
	return nil
}

// sampleSalt decorrelates OneIn's choice from the other uses of BoardHash
// (the validation split takes its top 32 bits).
const sampleSalt = 0x5ca1ab1e0ddba11

// Sampled reports whether OneIn's subsample keeps r (always, when OneIn
// is 0 or 1).
func (f Filter) Sampled(r *Record) bool {
	return f.OneIn <= 1 || splitmix.Mix64(r.BoardHash()^sampleSalt)%uint64(f.OneIn) == 0
}

// Keep reports whether r passes the filter.
func (f Filter) Keep(r *Record) bool {
	if f.MinPly > 0 && r.Ply() < f.MinPly {
		return false
	}
	if f.MaxScore > 0 && (int(r.Score) > f.MaxScore || int(r.Score) < -f.MaxScore) {
		return false
	}
	if f.SkipNoisy && r.Move != board.NullMove && r.noisy() {
		return false
	}
	if f.SkipCheck && r.InCheck() {
		return false
	}
	return f.Sampled(r)
}

// keepPosition is Keep without the one-in sample (Sampled) for a binpack
// reader's position, its move and White's score, before a Record is built:
// the same tests on the reader's bitboards.
func (f Filter) keepPosition(p *bpos, m board.Move, score int16) bool {
	if f.MinPly > 0 && p.ply < f.MinPly {
		return false
	}
	if f.MaxScore > 0 && (int(score) > f.MaxScore || int(score) < -f.MaxScore) {
		return false
	}
	if f.SkipNoisy && m != board.NullMove && noisyMove(m, p.occ) {
		return false
	}
	return !f.SkipCheck || !p.attackedBy(p.kings[p.stm], p.stm.Other(), p.occ)
}

// noisyMove reports whether m captures or promotes on a board of occupancy
// occ.
func noisyMove(m board.Move, occ board.Bitboard) bool {
	switch m.Kind() {
	case board.Promotion, board.EnPassant:
		return true
	case board.Castling:
		return false
	}
	return occ.Has(m.To())
}

// noisy reports whether the record's move captures or promotes.
func (r *Record) noisy() bool { return noisyMove(r.Move, r.occ) }

// InCheck reports whether the side to move is in check.
func (r *Record) InCheck() bool {
	us := r.SideToMove()
	them := us.Other()
	var by [12]board.Bitboard
	ksq := board.NoSquare
	occ := r.occ
	for i := 0; occ != 0; i++ {
		s := occ.PopLSB()
		pc := pieceOfCode(r.code(i))
		by[pc] |= board.Bit(s)
		if pc == board.MakePiece(us, board.King) {
			ksq = s
		}
	}
	if ksq == board.NoSquare {
		return false
	}
	piece := func(pt board.PieceType) board.Bitboard { return by[board.MakePiece(them, pt)] }
	return board.PawnAttacks(us, ksq)&piece(board.Pawn) != 0 ||
		board.KnightAttacks(ksq)&piece(board.Knight) != 0 ||
		board.KingAttacks(ksq)&piece(board.King) != 0 ||
		board.BishopAttacks(ksq, r.occ)&(piece(board.Bishop)|piece(board.Queen)) != 0 ||
		board.RookAttacks(ksq, r.occ)&(piece(board.Rook)|piece(board.Queen)) != 0
}

// FilterReader passes on the records of a Reader that a Filter keeps and
// counts the others.
type FilterReader struct {
	Reader
	f       Filter
	dropped int64
}

// NewFilterReader wraps r so that Next returns only the records f keeps.
func NewFilterReader(r Reader, f Filter) *FilterReader { return &FilterReader{Reader: r, f: f} }

// Next returns the next record the filter keeps, or io.EOF.
func (fr *FilterReader) Next() (Record, error) {
	for {
		rec, err := fr.Reader.Next()
		if err != nil || fr.f.Keep(&rec) {
			return rec, err
		}
		fr.dropped++
	}
}

// Dropped returns how many records the filter has dropped so far.
func (fr *FilterReader) Dropped() int64 { return fr.dropped }

// ParseFilter reads a filter as the command line gives it: "none" (nil:
// keep everything), "default" (DefaultFilter), or a comma-separated list of
// "default", "min-ply=N", "max-score=N", "skip-check", "skip-noisy" and
// "one-in=N", each turning on one test ("default" all of DefaultFilter's;
// later items override earlier ones, e.g. "default,one-in=4").
func ParseFilter(s string) (*Filter, error) {
	switch s {
	case "none":
		return nil, nil
	case "default":
		f := DefaultFilter
		return &f, nil
	}
	var f Filter
	for _, part := range strings.Split(s, ",") {
		name, val, hasVal := strings.Cut(strings.TrimSpace(part), "=")
		num := func() (int, error) {
			n, err := strconv.Atoi(val)
			if !hasVal || err != nil || n < 0 {
				return 0, fmt.Errorf("filter %q: %s wants a count, e.g. %s=16", s, name, name)
			}
			return n, nil
		}
		var err error
		switch name {
		case "default":
			if hasVal {
				return nil, fmt.Errorf("filter %q: default takes no value", s)
			}
			f.MinPly, f.SkipCheck, f.SkipNoisy, f.MaxScore = DefaultFilter.MinPly, DefaultFilter.SkipCheck, DefaultFilter.SkipNoisy, DefaultFilter.MaxScore
		case "one-in":
			if f.OneIn, err = num(); err == nil && f.OneIn < 1 {
				err = fmt.Errorf("filter %q: one-in wants a count of at least 1, e.g. one-in=4", s)
			}
		case "min-ply":
			f.MinPly, err = num()
		case "max-score":
			f.MaxScore, err = num()
		case "skip-check", "skip-noisy":
			if hasVal {
				return nil, fmt.Errorf("filter %q: %s takes no value", s, name)
			}
			if name == "skip-check" {
				f.SkipCheck = true
			} else {
				f.SkipNoisy = true
			}
		default:
			return nil, fmt.Errorf("filter %q: unknown test %q (want none, default, or a list of default, min-ply=N, max-score=N, skip-check, skip-noisy, one-in=N)", s, name)
		}
		if err != nil {
			return nil, err
		}
	}
	return &f, nil
}
