package datasets

import (
	"slices"
)

// Stats describes a dataset: counts, the result distribution, histograms of
// scores and piece counts, and how many positions repeat.
type Stats struct {
	Positions int64 `json:"positions"`
	// Skipped bad entries (with Options.SkipBad).
	Skipped int64 `json:"skipped"`
	// Results counts positions by game result: [BlackWin, Draw, WhiteWin].
	Results [3]int64 `json:"results"`
	// WhiteToMove and BlackToMove count positions by side to move.
	WhiteToMove int64 `json:"white_to_move"`
	BlackToMove int64 `json:"black_to_move"`

	// Score histogram: ScoreBins[i] counts scores in
	// [ScoreLow + i*ScoreBinWidth, ScoreLow + (i+1)*ScoreBinWidth), except
	// that the first and last bins also take everything below and above.
	ScoreLow      int     `json:"score_low"`
	ScoreBinWidth int     `json:"score_bin_width"`
	ScoreBins     []int64 `json:"score_bins"`
	ScoreMin      int     `json:"score_min"`
	ScoreMax      int     `json:"score_max"`
	ScoreMean     float64 `json:"score_mean"`
	AbsScoreMean  float64 `json:"abs_score_mean"`

	// Pieces counts positions by the number of pieces on the board (kings
	// included), 2..32.
	Pieces [33]int64 `json:"pieces"`

	// Distinct positions by BoardHash (placement, side to move, castling,
	// en passant), and the share of positions that repeat an earlier one.
	Distinct      int64   `json:"distinct"`
	DuplicateRate float64 `json:"duplicate_rate"`
}

// StatsBuilder accumulates Stats record by record. Its memory is 8 bytes per
// position (the board hashes that duplicate counting sorts at the end).
type StatsBuilder struct {
	s      Stats
	hashes []uint64
	sum    float64
	abs    float64
}

// NewStatsBuilder returns a builder whose score histogram has bins of width
// binWidth cp from -scoreRange to +scoreRange.
func NewStatsBuilder(binWidth, scoreRange int) *StatsBuilder {
	if binWidth < 1 {
		binWidth = 100
	}
	if scoreRange < binWidth {
		scoreRange = binWidth
	}
	n := (2*scoreRange + binWidth - 1) / binWidth
	return &StatsBuilder{s: Stats{
		ScoreLow:      -scoreRange,
		ScoreBinWidth: binWidth,
		ScoreBins:     make([]int64, n),
	}}
}

// Add counts one record.
func (b *StatsBuilder) Add(r *Record) {
	s := &b.s
	if s.Positions == 0 || int(r.Score) < s.ScoreMin {
		s.ScoreMin = int(r.Score)
	}
	if s.Positions == 0 || int(r.Score) > s.ScoreMax {
		s.ScoreMax = int(r.Score)
	}
	s.Positions++
	if r.Result.Valid() {
		s.Results[r.Result]++
	}
	if r.SideToMove() == 0 {
		s.WhiteToMove++
	} else {
		s.BlackToMove++
	}
	i := (int(r.Score) - s.ScoreLow)
	if i < 0 {
		i = 0
	} else {
		i /= s.ScoreBinWidth
	}
	s.ScoreBins[min(i, len(s.ScoreBins)-1)]++
	b.sum += float64(r.Score)
	if r.Score < 0 {
		b.abs -= float64(r.Score)
	} else {
		b.abs += float64(r.Score)
	}
	s.Pieces[r.PieceCount()]++
	b.hashes = append(b.hashes, r.BoardHash())
}

// AddSkipped counts bad entries a reader skipped.
func (b *StatsBuilder) AddSkipped(n int64) { b.s.Skipped += n }

// Stats returns the statistics of the records added so far.
func (b *StatsBuilder) Stats() Stats {
	s := b.s
	s.ScoreBins = slices.Clone(s.ScoreBins)
	if s.Positions > 0 {
		s.ScoreMean = b.sum / float64(s.Positions)
		s.AbsScoreMean = b.abs / float64(s.Positions)
	}
	slices.Sort(b.hashes)
	distinct := int64(0)
	for i, h := range b.hashes {
		if i == 0 || h != b.hashes[i-1] {
			distinct++
		}
	}
	s.Distinct = distinct
	if s.Positions > 0 {
		s.DuplicateRate = float64(s.Positions-distinct) / float64(s.Positions)
	}
	return s
}
