package ladder

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/nnuelab/nnuelab/bench/clocks"
)

// outcome is what the report reads of a kept match summary.
type outcome struct {
	Engines [2]string `json:"engines"`
	Games   int       `json:"games"`
	Wins    int       `json:"wins"`
	Draws   int       `json:"draws"`
	Losses  int       `json:"losses"`
	Elo     struct {
		Value, Lower, Upper *float64
	} `json:"elo"`
	Faults map[string]struct {
		Crashes      int `json:"crashes"`
		Hangs        int `json:"hangs"`
		IllegalMoves int `json:"illegal_moves"`
		TimeForfeits int `json:"time_forfeits"`
	} `json:"faults"`
}

// z95 is the normal quantile of a two-sided 95% interval.
const z95 = 1.959964

// Rating is a rung's strength on Stockfish's UCI_Elo scale, combined over
// its levels: each level L whose match gave a finite Elo difference d
// with a 95% interval says L + d, weighted by 1/SE²; the interval is the
// weighted mean's.
type Rating struct {
	Value, Lower, Upper float64
	Levels              int // levels that entered it
}

// combine returns the weighted rating of the levels' estimates, ok false
// when none has a finite interval.
func combine(levels []int, outs []*outcome) (Rating, bool) {
	var sw, swx float64
	n := 0
	for i, o := range outs {
		if o == nil || o.Elo.Value == nil || o.Elo.Lower == nil || o.Elo.Upper == nil {
			continue
		}
		se := (*o.Elo.Upper - *o.Elo.Lower) / (2 * z95)
		if !(se > 0) || math.IsInf(se, 0) {
			continue
		}
		w := 1 / (se * se)
		sw += w
		// float64(x*y) here and below: no FMA fusion at GOAMD64=v3 (make fma-check).
		swx += float64(w * (float64(levels[i]) + *o.Elo.Value))
		n++
	}
	if n == 0 {
		return Rating{}, false
	}
	m, se := swx/sw, 1/math.Sqrt(sw)
	return Rating{Value: m, Lower: m - float64(z95*se), Upper: m + float64(z95*se), Levels: n}, true
}

// Report returns the ladder's Markdown: a table of every match kept in
// out (the ones not played yet say so), a table of each rung's rating
// on the UCI_Elo scale and, per clock figure, the table of its matches'
// clock use and a link to the figure, under figDir (the results folder
// as the page reaches it; Figures draws them).
func Report(c *Config, out, figDir string) (string, error) {
	var b, sum, deep strings.Builder
	deep.WriteString("| rung | clock | Stockfish 15.1 `UCI_Elo` | its pick depth | its median depth | its moves that reached the pick depth | nnuelab's median depth |\n|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(&b, "| rung | Stockfish 15.1 `UCI_Elo` | games | nnuelab W-D-L | score | Elo difference [95%%] | implied rating | time forfeits (nnuelab / Stockfish) | other faults | nnuelab revision |\n")
	fmt.Fprintf(&b, "|---|---|---|---|---|---|---|---|---|---|\n")
	fmt.Fprintf(&sum, "| rung | arch | threads | clock | rating on Stockfish's `UCI_Elo` scale [95%%] | levels | games |\n|---|---|---|---|---|---|---|\n")
	for i := range c.Rungs {
		r := &c.Rungs[i]
		outs := make([]*outcome, len(r.Levels))
		games := 0
		for k, l := range r.Levels {
			id := Cell{Rung: r, Level: l}.ID()
			res, err := readResult(filepath.Join(out, id+".json"))
			if os.IsNotExist(err) {
				fmt.Fprintf(&b, "| %s | %d | not played yet | | | | | | | |\n", r.Name, l)
				continue
			}
			if err != nil {
				return "", err
			}
			var o outcome
			if err := json.Unmarshal(res.Summary, &o); err != nil {
				return "", fmt.Errorf("%s.json: summary: %w", id, err)
			}
			outs[k] = &o
			games += o.Games
			row, err := depthRow(r, l, &o, filepath.Join(out, id+".pgn.zst"))
			if err != nil {
				return "", fmt.Errorf("%s: %w", id, err)
			}
			deep.WriteString(row)
			nn, sf := o.Faults[o.Engines[0]], o.Faults[o.Engines[1]]
			other := nn.Crashes + nn.Hangs + nn.IllegalMoves
			otherSF := sf.Crashes + sf.Hangs + sf.IllegalMoves
			score := (float64(o.Wins) + float64(0.5*float64(o.Draws))) / float64(max(o.Games, 1))
			fmt.Fprintf(&b, "| %s | %d | %d | %d-%d-%d | %.1f%% | %s | %s | %d / %d | %d / %d | %s |\n",
				r.Name, l, o.Games, o.Wins, o.Draws, o.Losses, 100*score, eloText(&o), impliedText(l, &o),
				nn.TimeForfeits, sf.TimeForfeits, other, otherSF, short(res.Revision))
		}
		rt, ok := combine(r.Levels, outs)
		rating := "–"
		if ok {
			rating = fmt.Sprintf("**%.0f** [%.0f, %.0f]", rt.Value, rt.Lower, rt.Upper)
		}
		lv := make([]string, len(r.Levels))
		for k, l := range r.Levels {
			lv[k] = fmt.Sprint(l)
		}
		fmt.Fprintf(&sum, "| %s | %s | %d | %s | %s | %s | %d |\n", r.Name, r.Arch, r.Threads, r.TC, rating, strings.Join(lv, ", "), games)
	}
	var notes strings.Builder
	for i := range c.Rungs {
		if n := strings.TrimSpace(c.Rungs[i].Note); n != "" {
			fmt.Fprintf(&notes, "- %s: %s\n", c.Rungs[i].Name, n)
		}
	}
	s := sum.String() + "\n" + b.String()
	if notes.Len() > 0 {
		s += "\n" + notes.String()
	}
	s += "\n### How deep each side searched\n\n" + depthIntro + "\n\n" + deep.String()
	if len(c.Clocks) == 0 {
		return s, nil
	}
	s += "\n### The clock each move used\n\nFrom the finished matches' PGN (`nnuelab clocks`): per engine, its time forfeits, the share of its clock a move used, the median depth it reached and, for nnuelab, how long a move took against the soft limit its time plan gave it (docs/search.md); each figure draws the median and the largest share by move number.\n"
	for i := range c.Clocks {
		f := &c.Clocks[i]
		es, err := c.clockUse(f, out)
		if err != nil {
			return "", err
		}
		label := c.clockLabel(f)
		if es == nil {
			s += fmt.Sprintf("\n**%s** (%s): not played yet.\n", label, strings.Join(f.Rungs, ", "))
			continue
		}
		s += fmt.Sprintf("\n**%s** (%s):\n\n![%s](%s)\n\n%s", label, strings.Join(f.Rungs, ", "), f.Title,
			path.Join(filepath.ToSlash(figDir), figureName(f)), clocks.Table(es))
	}
	return s, nil
}

// Figure is a clock figure to write: its path in the results folder and
// its SVG.
type Figure struct {
	Path string
	SVG  []byte
}

// Figures draws the clock figures of the ladder from the finished matches
// in out; a figure none of whose matches has finished is left out.
func Figures(c *Config, out string) ([]Figure, error) {
	var figs []Figure
	for i := range c.Clocks {
		f := &c.Clocks[i]
		es, err := c.clockUse(f, out)
		if err != nil {
			return nil, err
		}
		if es == nil {
			continue
		}
		svg, err := clocks.Plot(es, f.Title)
		if err != nil {
			return nil, fmt.Errorf("clock figure %s: %w", f.Name, err)
		}
		figs = append(figs, Figure{Path: filepath.Join(out, figureName(f)), SVG: svg})
	}
	return figs, nil
}

// clockLabel names a figure in the report by its rungs' clocks.
func (c *Config) clockLabel(f *ClockFigure) string {
	var tcs []string
	for _, n := range f.Rungs {
		for i := range c.Rungs {
			if r := &c.Rungs[i]; r.Name == n && !slices.Contains(tcs, r.TC) {
				tcs = append(tcs, r.TC)
			}
		}
	}
	return strings.Join(tcs, ", ")
}

func figureName(f *ClockFigure) string { return "clocks-" + f.Name + ".svg" }

// clockUse reads the clock use of f's finished matches in out; nil when
// none has finished. nnuelab's player is named by arch and threads in
// every match, so a rung that sets its own concurrency (a control played
// one game at a time) adds it to the name: its games stay apart from
// those of the rung it replays.
func (c *Config) clockUse(f *ClockFigure, out string) ([]clocks.Engine, error) {
	cells, err := c.Cells(f.Rungs)
	if err != nil {
		return nil, err
	}
	var all []clocks.Engine
	for _, cell := range cells {
		base := filepath.Join(out, cell.ID())
		if _, err := os.Stat(base + ".json"); os.IsNotExist(err) {
			continue
		}
		pgn := base + ".pgn.zst"
		if _, err := os.Stat(pgn); err != nil {
			return nil, fmt.Errorf("%s.json is kept but its games are not: %w", cell.ID(), err)
		}
		es, err := clocks.Read(pgn)
		if err != nil {
			return nil, err
		}
		if r := cell.Rung; r.ownConcurrency {
			for i := range es {
				if strings.HasPrefix(es[i].Name, "nnuelab") {
					es[i].Name += fmt.Sprintf(" (%d at a time)", r.Concurrency)
				}
			}
		}
		all = append(all, es...)
	}
	return clocks.Merge(all), nil
}

// depthIntro explains the depth table.
const depthIntro = "Stockfish 15.1 limited to a `UCI_Elo` level turns it into a skill level " +
	"((Elo − 1346.6) / 143.4)^(1/0.806) and chooses its move, with noise, among its 4 best lines " +
	"when an iteration reaches its pick depth 1 + int(level), or at the end of its search if it " +
	"never gets there (`search.cpp`, `Skill`). Per finished match, from the depths in the PGN's " +
	"move comments (mate scores left out): how deep Stockfish searched, how often it reached its " +
	"pick depth, and how deep nnuelab searched."

// PickDepth is the iteration depth at which Stockfish 15.1, limited to
// UCI_Elo elo, picks its move (search.cpp's Skill: level
// ((elo-1346.6)/143.4)^(1/0.806), picked at depth 1+int(level)); 0 when
// the level reaches 20 and the limit is off.
func PickDepth(elo int) int {
	level := math.Pow(max(float64(elo)-1346.6, 0)/143.4, 1/0.806)
	if level >= 20 {
		return 0
	}
	return 1 + int(level)
}

// depthRow reads a finished match's games and returns its row of the
// depth table: Stockfish's pick depth at level, its median depth and the
// share of its moves that reached the pick depth, and nnuelab's median
// depth.
func depthRow(r *Rung, level int, o *outcome, pgn string) (string, error) {
	es, err := clocks.Read(pgn)
	if err != nil {
		return "", fmt.Errorf("its games: %w", err)
	}
	var nn, sf []int
	for _, e := range es {
		switch e.Name {
		case o.Engines[0]:
			nn = e.Depths()
		case o.Engines[1]:
			sf = e.Depths()
		default:
			return "", fmt.Errorf("%s: player %q is neither of the match's engines %q", pgn, e.Name, o.Engines)
		}
	}
	median := func(d []int) string {
		if len(d) == 0 {
			return "–"
		}
		return fmt.Sprint(d[len(d)/2])
	}
	pick, reached := PickDepth(level), "–"
	if pick > 0 && len(sf) > 0 {
		n := len(sf) - sort.SearchInts(sf, pick)
		reached = fmt.Sprintf("%.1f%%", 100*float64(n)/float64(len(sf)))
	}
	pickText := fmt.Sprint(pick)
	if pick == 0 {
		pickText = "none (not limited)"
	}
	return fmt.Sprintf("| %s | %s | %d | %s | %s | %s | %s |\n", r.Name, r.TC, level, pickText, median(sf), reached, median(nn)), nil
}

func eloText(o *outcome) string {
	if o.Elo.Value == nil {
		return "– (all games one way)"
	}
	if o.Elo.Lower == nil || o.Elo.Upper == nil {
		return fmt.Sprintf("%+.1f", *o.Elo.Value)
	}
	return fmt.Sprintf("%+.1f [%+.1f, %+.1f]", *o.Elo.Value, *o.Elo.Lower, *o.Elo.Upper)
}

func impliedText(level int, o *outcome) string {
	if o.Elo.Value == nil {
		return "–"
	}
	return fmt.Sprintf("%.0f", float64(level)+*o.Elo.Value)
}

// short cuts a revision to 7 hex digits and its marks; a match whose
// chunks several binaries played lists each.
func short(rev string) string {
	if revs := strings.Split(rev, " + "); len(revs) > 1 {
		for i, r := range revs {
			revs[i] = short(r)
		}
		return strings.Join(revs, " + ")
	}
	if len(rev) < 7 {
		return rev
	}
	s := rev[:7]
	if strings.Contains(rev, "+dirty") {
		s += "+dirty"
	}
	if strings.Contains(rev, "not VCS-stamped") {
		s += " (unstamped)"
	}
	return s
}

// The markers around the generated part of the page the report goes in.
const (
	BeginMarker = "<!-- ladder:begin: generated by `nnuelab ladder` from the ladder file and its results; do not edit by hand -->"
	EndMarker   = "<!-- ladder:end -->"
)

// Splice puts report between the page's markers (replacing what stood
// there); a page without both markers, in order, is an error.
func Splice(page, report string) (string, error) {
	i := strings.Index(page, "<!-- ladder:begin")
	j := strings.Index(page, EndMarker)
	if i < 0 || j < i {
		return "", fmt.Errorf("no %q ... %q markers, in that order, to put the table between", "<!-- ladder:begin -->", EndMarker)
	}
	return page[:i] + BeginMarker + "\n\n" + report + "\n" + page[j:], nil
}
