package match

import (
	"encoding/json"
	"fmt"
	"math"
	"sort"
	"strings"
	"time"

	"github.com/nnuelab/nnuelab/bench/stats"
)

// Summary is the state of a match: results from the first engine's point
// of view, the pentanomial counts of completed game pairs, the SPRT and the
// faults charged to each engine.
type Summary struct {
	Engines             [2]string
	Limits              string // the search limits, e.g. "tc=10+0.1"
	Planned             int    // games scheduled
	Wins, Draws, Losses int    // first engine's games
	Penta               stats.Penta
	Terminations        map[string]int          // games by reason ("White mates", ...)
	Faults              map[string]*FaultCounts // by engine name
	SPRT                *stats.SPRT             // nil without -sprt
	LLR                 float64
	Decision            stats.Decision
	Interrupted         bool // stopped by the caller (Ctrl-C)
	Elapsed             time.Duration

	lower, upper float64
	start        time.Time
}

// FaultCounts are the faults charged to one engine; each lost it the game
// (a time forfeit against a bare king is a draw).
type FaultCounts struct {
	Crashes      int `json:"crashes"`
	Hangs        int `json:"hangs"`
	IllegalMoves int `json:"illegal_moves"`
	TimeForfeits int `json:"time_forfeits"`
}

func newSummary(names [2]string, planned int, sprt *stats.SPRT, engs []EngineConfig) *Summary {
	s := &Summary{
		Engines: names, Planned: planned, SPRT: sprt, Limits: tcSummary(engs),
		Terminations: map[string]int{},
		Faults:       map[string]*FaultCounts{names[0]: {}, names[1]: {}},
		start:        time.Now(),
	}
	if sprt != nil {
		s.lower, s.upper = sprt.Bounds()
	}
	return s
}

// WDL returns the first engine's wins, draws and losses.
func (s *Summary) WDL() stats.WDL { return stats.WDL{Wins: s.Wins, Draws: s.Draws, Losses: s.Losses} }

// Games returns the number of finished games.
func (s *Summary) Games() int { return s.Wins + s.Draws + s.Losses }

// Elo returns the Elo estimate: pentanomial once a pair is complete (the
// model that accounts for paired openings), trinomial before.
func (s *Summary) Elo() stats.Estimate {
	if s.Penta.Pairs() > 0 {
		return s.Penta.Elo()
	}
	return s.WDL().Elo()
}

// LOS returns the likelihood of superiority, from the same model as Elo.
func (s *Summary) LOS() float64 {
	if s.Penta.Pairs() > 0 {
		return s.Penta.LOS()
	}
	return s.WDL().LOS()
}

func (s *Summary) add(g *gameRecord) {
	switch a := g.scoreA(); a {
	case 1:
		s.Wins++
	case 0.5:
		s.Draws++
	default:
		s.Losses++
	}
	reason := g.reason
	if i := strings.Index(reason, ": "); i >= 0 && g.termination == termRules {
		reason = reason[:i] // "White makes an illegal move: e2e5"
	}
	s.Terminations[reason]++
	if f := g.fault; f != nil {
		fc := s.Faults[f.engine]
		if fc == nil {
			fc = &FaultCounts{}
			s.Faults[f.engine] = fc
		}
		switch f.kind {
		case faultCrash:
			fc.Crashes++
		case faultHang:
			fc.Hangs++
		case faultIllegal:
			fc.IllegalMoves++
		case faultTimeForfeit:
			fc.TimeForfeits++
		}
	}
}

func (s *Summary) addPair(a, b float64) {
	if k := stats.PairClass(a, b); k >= 0 {
		s.Penta[k]++
	}
	if s.SPRT != nil {
		s.LLR = s.SPRT.LLR(s.Penta)
		s.Decision = s.SPRT.Decide(s.LLR)
	}
}

// fmtElo formats an Elo estimate with its 95% interval. A score of 0 or
// 100 % has no finite Elo: the value is then "out of range" (String says
// why), and an interval bound that runs off the scale likewise, never
// "+Inf".
func fmtElo(e stats.Estimate) string {
	if math.IsNaN(e.Value) {
		return "n/a"
	}
	if math.IsInf(e.Value, 0) {
		return "out of range"
	}
	e.Value += 0 // no "-0.0"
	if e.Value == 0 {
		e.Value = 0
	}
	if math.IsInf(e.Lower, 0) || math.IsInf(e.Upper, 0) {
		bound := func(x float64) string {
			if math.IsInf(x, 0) || math.IsNaN(x) {
				return "out of range"
			}
			return fmt.Sprintf("%+.1f", x)
		}
		return fmt.Sprintf("%+.1f [%s, %s]", e.Value, bound(e.Lower), bound(e.Upper))
	}
	return fmt.Sprintf("%+.1f +/- %.1f", e.Value, (e.Upper-e.Lower)/2)
}

// whyOutOfRange says why a match's Elo is out of range: which side took
// every point, and how many of those games the other side forfeited and
// how (crashes, hangs, illegal moves, time forfeits). "" while the Elo is
// finite or undefined.
func (s *Summary) whyOutOfRange() string {
	if !math.IsInf(s.Elo().Value, 0) {
		return ""
	}
	winner, loser := s.Engines[0], s.Engines[1]
	if s.Wins == 0 {
		winner, loser = loser, winner
	}
	why := fmt.Sprintf("a score of %s has no finite Elo: %s scored every point of %d games", pct(s.WDL().Score()), winner, s.Games())
	if f := s.Faults[loser]; f != nil && *f != (FaultCounts{}) {
		var kinds []string
		for _, k := range []struct {
			n    int
			what string
		}{{f.Crashes, "crashes"}, {f.Hangs, "hangs"}, {f.IllegalMoves, "illegal moves"}, {f.TimeForfeits, "time forfeits"}} {
			if k.n > 0 {
				kinds = append(kinds, fmt.Sprintf("%d %s", k.n, k.what))
			}
		}
		n := f.Crashes + f.Hangs + f.IllegalMoves + f.TimeForfeits
		why += fmt.Sprintf(", %d of them forfeited by %s (%s)", n, loser, strings.Join(kinds, ", "))
	}
	return why
}

// pct formats a share as a percentage, "n/a" when undefined.
func pct(x float64) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	return fmt.Sprintf("%.2f %%", 100*x)
}

// statusLine is the one-line progress report: games, W/L/D, Elo, LOS,
// draw ratio, pentanomial counts and the LLR.
func (s *Summary) statusLine() string {
	p := s.Penta
	line := fmt.Sprintf("[%d/%d] W %d L %d D %d, Elo %s, LOS %s, DR %s, Ptnml [%d %d %d %d %d]", s.Games(), s.Planned,
		s.Wins, s.Losses, s.Draws, fmtElo(s.Elo()), pct1(s.LOS()), pct1(s.WDL().DrawRatio()), p[0], p[1], p[2], p[3], p[4])
	if s.SPRT != nil {
		line += fmt.Sprintf(", LLR %.2f (%.2f, %.2f)", s.LLR, s.lower, s.upper)
	}
	return line
}

func pct1(x float64) string {
	if math.IsNaN(x) {
		return "n/a"
	}
	return fmt.Sprintf("%.1f%%", 100*x)
}

// String returns the report printed at the end of a match.
func (s *Summary) String() string {
	var b strings.Builder
	wdl := s.WDL()
	fmt.Fprintf(&b, "Results of %s vs %s (%s):\n", s.Engines[0], s.Engines[1], s.Limits)
	state := ""
	if s.Interrupted {
		state = " (interrupted)"
	}
	// float64(x*y) here and below: no FMA fusion at GOAMD64=v3 (make fma-check).
	fmt.Fprintf(&b, "Games: %d of %d%s, Wins: %d, Losses: %d, Draws: %d, Points: %.1f (%s)\n",
		s.Games(), s.Planned, state, s.Wins, s.Losses, s.Draws, float64(s.Wins)+float64(float64(s.Draws)/2), pct(wdl.Score()))
	fmt.Fprintf(&b, "Ptnml(0-2): [%d, %d, %d, %d, %d] (%d pairs)\n", s.Penta[0], s.Penta[1], s.Penta[2], s.Penta[3], s.Penta[4], s.Penta.Pairs())
	model := "pentanomial"
	if s.Penta.Pairs() == 0 {
		model = "trinomial"
	}
	fmt.Fprintf(&b, "Elo: %s (95%%, %s), nElo: %s\n", fmtElo(s.Elo()), model, fmtElo(s.Penta.NormalizedElo()))
	if why := s.whyOutOfRange(); why != "" {
		fmt.Fprintf(&b, "  (%s)\n", why)
	}
	fmt.Fprintf(&b, "LOS: %s, DrawRatio: %s\n", pct(s.LOS()), pct(wdl.DrawRatio()))
	if s.SPRT != nil {
		fmt.Fprintf(&b, "SPRT: [%g, %g] %s Elo, alpha %g, beta %g: LLR %.2f (%.2f, %.2f), %s\n",
			s.SPRT.Elo0, s.SPRT.Elo1, s.SPRT.Model, s.SPRT.Alpha, s.SPRT.Beta, s.LLR, s.lower, s.upper, s.Decision)
	}
	var reasons []string
	for r := range s.Terminations {
		reasons = append(reasons, r)
	}
	sort.Strings(reasons)
	for _, r := range reasons {
		fmt.Fprintf(&b, "  %-44s %d\n", r, s.Terminations[r])
	}
	for _, n := range s.Engines {
		f := s.Faults[n]
		if f == nil || *f == (FaultCounts{}) {
			continue
		}
		fmt.Fprintf(&b, "Faults of %s: %d crashes, %d hangs, %d illegal moves, %d time forfeits\n", n, f.Crashes, f.Hangs, f.IllegalMoves, f.TimeForfeits)
	}
	return b.String()
}

// MarshalJSON writes the summary for scripts: the counts, the estimates
// (null where undefined or infinite) and the SPRT state.
func (s *Summary) MarshalJSON() ([]byte, error) {
	num := func(f float64) any {
		if math.IsNaN(f) || math.IsInf(f, 0) {
			return nil
		}
		return f
	}
	est := func(e stats.Estimate) map[string]any {
		return map[string]any{"value": num(e.Value), "lower": num(e.Lower), "upper": num(e.Upper)}
	}
	wdl := s.WDL()
	m := map[string]any{
		"engines":      s.Engines,
		"limits":       s.Limits,
		"planned":      s.Planned,
		"games":        s.Games(),
		"wins":         s.Wins,
		"draws":        s.Draws,
		"losses":       s.Losses,
		"score":        num(wdl.Score()),
		"draw_ratio":   num(wdl.DrawRatio()),
		"pentanomial":  s.Penta,
		"elo":          est(s.Elo()),
		"nelo":         est(s.Penta.NormalizedElo()),
		"los":          num(s.LOS()),
		"terminations": s.Terminations,
		"faults":       s.Faults,
		"interrupted":  s.Interrupted,
		"seconds":      s.Elapsed.Seconds(),
	}
	if s.SPRT != nil {
		m["sprt"] = map[string]any{
			"elo0": s.SPRT.Elo0, "elo1": s.SPRT.Elo1, "alpha": s.SPRT.Alpha, "beta": s.SPRT.Beta,
			"model": s.SPRT.Model, "llr": num(s.LLR), "lower": s.lower, "upper": s.upper,
			"decision": s.Decision.String(),
		}
	}
	return json.Marshal(m)
}
