package uciclient

import "strconv"

// Score is an engine's evaluation from its own point of view (the side to
// move's).
type Score struct {
	CP     int  // centipawns, when not a mate score
	Mate   int  // moves to mate (negative: being mated), when IsMate
	IsMate bool // a mate score
	Valid  bool // the engine reported a score
}

// Info is one info line.
type Info struct {
	Score    Score // Valid when the line has a score (cp or mate, within ±10^7)
	Bound    bool  // the score is a lowerbound or upperbound
	MultiPV  int   // 1 when not given
	Depth    int   // -1 when not given
	SelDepth int   // -1 when not given
	Nodes    int64 // -1 when not given
}

// ParseInfo reads the fields of an info line after "info". Fields that do
// not parse are skipped; "string", "pv", "refutation" and "currline" end
// the line (free text or moves follow).
func ParseInfo(f []string) Info {
	in := Info{MultiPV: 1, Depth: -1, SelDepth: -1, Nodes: -1}
	for k := 0; k < len(f); k++ {
		next := func() (int64, bool) {
			if k+1 >= len(f) {
				return 0, false
			}
			n, err := strconv.ParseInt(f[k+1], 10, 64)
			if err != nil {
				return 0, false
			}
			k++
			return n, true
		}
		switch f[k] {
		case "string", "pv", "refutation", "currline":
			k = len(f)
		case "depth":
			if n, ok := next(); ok {
				in.Depth = int(n)
			}
		case "seldepth":
			if n, ok := next(); ok {
				in.SelDepth = int(n)
			}
		case "nodes":
			if n, ok := next(); ok {
				in.Nodes = n
			}
		case "multipv":
			if n, ok := next(); ok {
				in.MultiPV = int(n)
			}
		case "score":
			if k+1 < len(f) {
				kind := f[k+1]
				k++
				if n, ok := next(); ok && (kind == "cp" || kind == "mate") && n > -1e7 && n < 1e7 {
					if kind == "cp" {
						in.Score = Score{CP: int(n), Valid: true}
					} else {
						in.Score = Score{Mate: int(n), Valid: true, IsMate: true}
					}
				}
			}
		case "lowerbound", "upperbound":
			in.Bound = true
		}
	}
	return in
}

// SearchInfo is what the info lines of one search said of the principal
// line (MultiPV 1; other lines are ignored).
type SearchInfo struct {
	Score      Score // last exact score
	BoundScore Score // last lower/upper-bound score
	Depth      int
	SelDepth   int
	Nodes      int64
}

// Add takes in one info line.
func (s *SearchInfo) Add(in Info) {
	if in.MultiPV != 1 {
		return
	}
	if in.Score.Valid {
		if in.Bound {
			s.BoundScore = in.Score
		} else {
			s.Score = in.Score
		}
	}
	if in.Depth >= 0 {
		s.Depth = in.Depth
	}
	if in.SelDepth >= 0 {
		s.SelDepth = in.SelDepth
	}
	if in.Nodes >= 0 {
		s.Nodes = in.Nodes
	}
}

// FinalScore is the last exact score, else the last bound.
func (s *SearchInfo) FinalScore() Score {
	if s.Score.Valid {
		return s.Score
	}
	return s.BoundScore
}
