package ladder

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nnuelab/nnuelab/bench/clocks"
	"github.com/nnuelab/nnuelab/bench/match"
	"github.com/nnuelab/nnuelab/bench/stats"
	"github.com/nnuelab/nnuelab/internal/fsutil"
	"github.com/nnuelab/nnuelab/internal/version"
	"github.com/nnuelab/nnuelab/internal/zstdfile"
)

// Options say what Run plays and where it keeps the results.
type Options struct {
	// Binary is the nnuelab executable that plays (the running one, as a
	// rule).
	Binary string
	// Out is the results folder: RUNG-eLEVEL.json and .pgn.zst per match.
	Out string
	// Only restricts the run to the rungs of these names.
	Only []string
	// Log receives the matches' progress; nil discards it.
	Log io.Writer
}

// Result is a finished match as Out keeps it (RUNG-eLEVEL.json).
type Result struct {
	Rung     string `json:"rung"`
	Arch     string `json:"arch"`
	Threads  int    `json:"threads"`
	TC       string `json:"tc"`
	Level    int    `json:"level"`
	Settings string `json:"settings"` // everything that decides the games; a rerun with other settings is refused
	Revision string `json:"revision"` // nnuelab's
	Finished string `json:"finished"`
	// Summary is `nnuelab match -json`'s summary of the games.
	Summary json.RawMessage `json:"summary"`
}

// settings returns what decides a cell's games, as one line. The games
// played at once are in it only when the rung sets its own: the ladder's
// default was not recorded by the matches kept before rungs could.
func (c *Config) settings(cell Cell, booksha string) string {
	r := cell.Rung
	s := fmt.Sprintf("arch=%s threads=%d tc=%s games=%d chunk=%d level=%d hash=%d timemargin=%d sf_overhead=%d stockfish=%s openings=%s seed=%d",
		r.Arch, r.Threads, r.TC, r.Games, r.Chunk, cell.Level, c.Hash, c.TimeMargin, r.Overhead, c.Stockfish, booksha, c.Seed)
	if r.ownConcurrency {
		s += fmt.Sprintf(" concurrency=%d", r.Concurrency)
	}
	return s
}

// chunks returns the games of each chunk of a cell's match: the rung's
// chunk size, the last one the rest.
func chunks(r *Rung) []int {
	var g []int
	for left := r.Games; left > 0; left -= r.Chunk {
		g = append(g, min(left, r.Chunk))
	}
	return g
}

// matchConfig is chunk k of the match of one cell: nnuelab (first, the
// engine Elo is reported for) against Stockfish at the cell's level. Every
// chunk takes its openings from the one seeded random order, where the
// chunks before it stopped, so the chunks together play the games one
// match of the cell would.
func (c *Config) matchConfig(cell Cell, k int, binary, pgn string) (match.Config, error) {
	r := cell.Rung
	tc, err := match.ParseTimeControl(r.TC)
	if err != nil {
		return match.Config{}, err
	}
	lim := match.Limits{TC: tc, Margin: time.Duration(c.TimeMargin) * time.Millisecond}
	hash := strconv.Itoa(c.Hash)
	return match.Config{
		Engines: []match.EngineConfig{
			{Name: fmt.Sprintf("nnuelab-%s-t%d", r.Arch, r.Threads), Cmd: binary, Limits: lim, Options: []match.Option{
				{Name: "Arch", Value: r.Arch}, {Name: "Threads", Value: strconv.Itoa(r.Threads)}, {Name: "Hash", Value: hash}}},
			{Name: fmt.Sprintf("sf15.1-elo%d", cell.Level), Cmd: c.Stockfish, Limits: lim, Options: []match.Option{
				{Name: "UCI_LimitStrength", Value: "true"}, {Name: "UCI_Elo", Value: strconv.Itoa(cell.Level)},
				{Name: "Threads", Value: "1"}, {Name: "Hash", Value: hash},
				{Name: "Move Overhead", Value: strconv.Itoa(r.Overhead)}}},
		},
		Games:       2,
		Rounds:      chunks(r)[k] / 2,
		Concurrency: r.Concurrency,
		Openings:    match.OpeningsConfig{File: c.OpeningsPath(), Order: "random", Start: 1 + k*r.Chunk/2},
		Seed:        c.Seed,
		PGNOut:      pgn,
		Event:       fmt.Sprintf("nnuelab ladder %s, chunk %d", cell.ID(), k+1),
	}, nil
}

// Run plays every cell of the ladder whose result is not in opts.Out yet,
// one match at a time, each in chunks of game pairs kept as they finish
// (in RUNG-eLEVEL.parts/): an interrupted run loses only the chunk in
// progress. When a match's last chunk is in, its chunks are merged into
// the cell's result and PGN. A kept result or chunk whose settings differ
// from the ladder's now is an error naming it (remove it to replay).
func Run(ctx context.Context, c *Config, opts Options) error {
	cells, err := c.Cells(opts.Only)
	if err != nil {
		return err
	}
	log := opts.Log
	if log == nil {
		log = io.Discard
	}
	if err := checkArchs(opts.Binary, cells); err != nil {
		return err
	}
	if _, err := exec.LookPath(c.Stockfish); err != nil {
		return fmt.Errorf("the opponent %s: %w (Stockfish 15.1: apt-get install stockfish)", c.Stockfish, err)
	}
	book, _, err := fsutil.FileSHA256(c.OpeningsPath())
	if err != nil {
		return fmt.Errorf("openings: %w", err)
	}
	if err := os.MkdirAll(opts.Out, 0o755); err != nil {
		return err
	}
	for i, cell := range cells {
		id := cell.ID()
		want := c.settings(cell, book[:16])
		if old, err := readResult(filepath.Join(opts.Out, id+".json")); err == nil {
			if old.Settings != want {
				return fmt.Errorf("%s: kept with other settings (%s; the ladder now says %s): remove %s.json and %s.pgn.zst to replay it",
					id, old.Settings, want, id, id)
			}
			fmt.Fprintf(log, "[%d/%d] %s: done (%s)\n", i+1, len(cells), id, old.Finished)
			continue
		} else if !os.IsNotExist(err) {
			return err
		}
		fmt.Fprintf(log, "[%d/%d] %s: %d games at %s against Stockfish 15.1 at UCI_Elo %d\n", i+1, len(cells), id, cell.Rung.Games, cell.Rung.TC, cell.Level)
		if err := c.playCell(ctx, cell, want, opts.Binary, opts.Out, log); err != nil {
			return err
		}
	}
	return nil
}

// playCell plays the chunks of a cell's match that are not kept yet, then
// merges them into the cell's result.
func (c *Config) playCell(ctx context.Context, cell Cell, want, binary, out string, log io.Writer) error {
	id := cell.ID()
	parts := filepath.Join(out, id+".parts")
	if err := os.MkdirAll(parts, 0o755); err != nil {
		return err
	}
	sizes := chunks(cell.Rung)
	var kept []*Result
	for k, n := range sizes {
		name := filepath.Join(parts, fmt.Sprintf("c%03d", k+1))
		if old, err := readResult(name + ".json"); err == nil {
			if old.Settings != want {
				return fmt.Errorf("%s: chunk %d kept with other settings (%s; the ladder now says %s): remove %s to replay the match",
					id, k+1, old.Settings, want, parts)
			}
			kept = append(kept, old)
			continue
		} else if !os.IsNotExist(err) {
			return err
		}
		part := name + ".pgn.part"
		if err := os.Remove(part); err != nil && !os.IsNotExist(err) {
			return err
		}
		mc, err := c.matchConfig(cell, k, binary, part)
		if err != nil {
			return err
		}
		fmt.Fprintf(log, "%s: chunk %d of %d, %d games\n", id, k+1, len(sizes), n)
		sum, err := match.Run(ctx, mc, match.Output{Log: log, Quiet: true})
		if err != nil {
			return fmt.Errorf("%s: chunk %d: %w", id, k+1, err)
		}
		if sum.Interrupted {
			return fmt.Errorf("%s: chunk %d interrupted after %d of %d games (the %d chunks before it are kept; rerun to go on)",
				id, k+1, sum.Games(), sum.Planned, k)
		}
		res, err := newResult(cell, want, sum)
		if err != nil {
			return err
		}
		// The games are kept compressed, checked against the plain PGN the
		// match appended to before that goes.
		if err := zstdfile.CompressFile(part, name+".pgn.zst"); err != nil {
			return fmt.Errorf("%s: chunk %d: games: %w", id, k+1, err)
		}
		if err := os.Remove(part); err != nil {
			return err
		}
		if err := writeResult(name+".json", res); err != nil {
			return err
		}
		kept = append(kept, res)
	}
	merged, err := mergeChunks(kept)
	if err != nil {
		return fmt.Errorf("%s: %w", id, err)
	}
	res, err := newResult(cell, want, merged)
	if err != nil {
		return err
	}
	res.Revision = revisions(kept)
	var pgn []byte
	for k := range sizes {
		b, err := zstdfile.ReadFile(filepath.Join(parts, fmt.Sprintf("c%03d.pgn.zst", k+1)))
		if err != nil {
			return fmt.Errorf("%s: chunk %d: games: %w", id, k+1, err)
		}
		pgn = append(pgn, b...)
	}
	if err := zstdfile.WriteFile(filepath.Join(out, id+".pgn.zst"), pgn, 0o644); err != nil {
		return fmt.Errorf("%s: games: %w", id, err)
	}
	if err := writeResult(filepath.Join(out, id+".json"), res); err != nil {
		return err
	}
	fmt.Fprintf(log, "%s\n", strings.TrimSpace(merged.String()))
	return os.RemoveAll(parts)
}

// newResult is the kept form of a match (or a chunk of one) of cell.
func newResult(cell Cell, settings string, sum *match.Summary) (*Result, error) {
	js, err := json.Marshal(sum)
	if err != nil {
		return nil, err
	}
	return &Result{Rung: cell.Rung.Name, Arch: cell.Rung.Arch, Threads: cell.Rung.Threads, TC: cell.Rung.TC, Level: cell.Level,
		Settings: settings, Revision: version.Revision(), Finished: time.Now().UTC().Format(time.RFC3339), Summary: js}, nil
}

func writeResult(path string, r *Result) error {
	out, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, append(out, '\n'), 0o644)
}

// chunkSummary is what a merge reads of a chunk's kept summary.
type chunkSummary struct {
	Engines      [2]string                     `json:"engines"`
	Limits       string                        `json:"limits"`
	Planned      int                           `json:"planned"`
	Wins         int                           `json:"wins"`
	Draws        int                           `json:"draws"`
	Losses       int                           `json:"losses"`
	Penta        stats.Penta                   `json:"pentanomial"`
	Terminations map[string]int                `json:"terminations"`
	Faults       map[string]*match.FaultCounts `json:"faults"`
	Interrupted  bool                          `json:"interrupted"`
	Seconds      float64                       `json:"seconds"`
}

// mergeChunks adds the chunks' games into one match summary: counts,
// pentanomial (the Elo estimate is the pentanomial one of the whole),
// terminations, faults and time. Chunks of other engines or clocks, or an
// interrupted one, are an error.
func mergeChunks(parts []*Result) (*match.Summary, error) {
	var m *match.Summary
	for k, r := range parts {
		var s chunkSummary
		if err := json.Unmarshal(r.Summary, &s); err != nil {
			return nil, fmt.Errorf("chunk %d: summary: %w", k+1, err)
		}
		if s.Interrupted || s.Wins+s.Draws+s.Losses != s.Planned {
			return nil, fmt.Errorf("chunk %d: %d of %d games played", k+1, s.Wins+s.Draws+s.Losses, s.Planned)
		}
		if m == nil {
			m = &match.Summary{Engines: s.Engines, Limits: s.Limits, Terminations: map[string]int{}, Faults: map[string]*match.FaultCounts{}}
			for _, e := range s.Engines {
				m.Faults[e] = &match.FaultCounts{}
			}
		} else if s.Engines != m.Engines || s.Limits != m.Limits {
			return nil, fmt.Errorf("chunk %d: %s vs %s at %s, not %s vs %s at %s", k+1, s.Engines[0], s.Engines[1], s.Limits, m.Engines[0], m.Engines[1], m.Limits)
		}
		m.Planned += s.Planned
		m.Wins += s.Wins
		m.Draws += s.Draws
		m.Losses += s.Losses
		for i, n := range s.Penta {
			m.Penta[i] += n
		}
		for t, n := range s.Terminations {
			m.Terminations[t] += n
		}
		for e, f := range s.Faults {
			if f == nil {
				continue
			}
			if m.Faults[e] == nil {
				m.Faults[e] = &match.FaultCounts{}
			}
			g := m.Faults[e]
			g.Crashes += f.Crashes
			g.Hangs += f.Hangs
			g.IllegalMoves += f.IllegalMoves
			g.TimeForfeits += f.TimeForfeits
		}
		m.Elapsed += time.Duration(s.Seconds * float64(time.Second))
	}
	if m == nil {
		return nil, errors.New("no chunk to merge")
	}
	return m, nil
}

// revisions names the binaries that played the chunks: one revision, or
// the distinct ones in order joined by " + ".
func revisions(parts []*Result) string {
	var revs []string
	for _, r := range parts {
		if !slices.Contains(revs, r.Revision) {
			revs = append(revs, r.Revision)
		}
	}
	return strings.Join(revs, " + ")
}

// readResult reads a kept result.
func readResult(path string) (*Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r Result
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return &r, nil
}

// checkArchs asks the binary for its Arch option's values and refuses a
// rung whose arch it does not offer, before any game is played.
func checkArchs(binary string, cells []Cell) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, binary)
	cmd.Stdin = strings.NewReader("uci\nquit\n")
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("%s (asking for its UCI options): %w", binary, err)
	}
	var offered []string
	sc := bufio.NewScanner(strings.NewReader(string(out)))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) > 4 && f[0] == "option" && f[1] == "name" && f[2] == "Arch" {
			for i := 3; i+1 < len(f); i++ {
				if f[i] == "var" || f[i] == "default" {
					offered = append(offered, f[i+1])
				}
			}
		}
	}
	for _, cell := range cells {
		if !slices.Contains(offered, cell.Rung.Arch) {
			return fmt.Errorf("rung %s: %s offers no Arch %q (it offers %s)", cell.Rung.Name, binary, cell.Rung.Arch, strings.Join(offered, ", "))
		}
	}
	return nil
}

// CellState is how far a cell's match has got and roughly how long the
// rest takes.
type CellState struct {
	ID          string
	Games, Kept int     // planned, and kept (a finished match or its chunks)
	Left        float64 // estimated wall seconds of the games not kept
	// Measured says Left comes from the length of the games kept at the
	// match's clock, not from the model of gameSeconds.
	Measured bool
}

// Estimate of a game's length for planning: each side uses this share of
// its clock over a game of this many moves (estimates, not measurements;
// experiments/plan uses the same).
const (
	estMovesPerSide = 65
	estClockShare   = 0.9
)

// gameSeconds estimates the wall time of one game at tc.
func gameSeconds(tc match.TimeControl) float64 {
	periods := 1.0
	if tc.Moves > 0 {
		periods = float64(estMovesPerSide) / float64(tc.Moves)
	}
	// float64(x*y) here and below: no FMA fusion at GOAMD64=v3 (make fma-check).
	side := float64(tc.Base.Seconds()*periods) + float64(tc.Increment.Seconds()*estMovesPerSide)
	return 2 * estClockShare * side
}

// meanGameSeconds is the mean time a game of these PGN files took: both
// sides' thinking, from the move times in its comments.
func meanGameSeconds(pgns []string) (float64, error) {
	es, err := clocks.Read(pgns...)
	if err != nil {
		return 0, err
	}
	var sum float64
	games := 0
	for _, e := range es {
		for _, g := range e.Games {
			for _, m := range g.Moves {
				sum += m.Used.Seconds()
			}
		}
		games += len(e.Games)
	}
	if games == 0 {
		return 0, fmt.Errorf("no games in %s", strings.Join(pgns, ", "))
	}
	return 2 * sum / float64(games), nil // each game counted once per player
}

// States lists each cell of the ladder (only the rungs named in only, if
// any) with the games kept in out and an estimate of the time the rest
// takes at the rung's games played at once: a game lasts as long as the
// mean of the games the ladder has kept at its clock (any rung's), or
// else as gameSeconds models it.
func (c *Config) States(out string, only []string) ([]CellState, error) {
	all, err := c.Cells(nil)
	if err != nil {
		return nil, err
	}
	cells, err := c.Cells(only)
	if err != nil {
		return nil, err
	}
	kept := map[string]int{}
	pgns := map[string][]string{} // kept games by clock
	for _, cell := range all {
		r, id := cell.Rung, cell.ID()
		if _, err := os.Stat(filepath.Join(out, id+".json")); err == nil {
			kept[id] = r.Games
			pgns[r.TC] = append(pgns[r.TC], filepath.Join(out, id+".pgn.zst"))
			continue
		}
		for k, n := range chunks(r) {
			base := filepath.Join(out, id+".parts", fmt.Sprintf("c%03d", k+1))
			if _, err := os.Stat(base + ".json"); err == nil {
				kept[id] += n
				pgns[r.TC] = append(pgns[r.TC], base+".pgn.zst")
			}
		}
	}
	mean := map[string]float64{}
	var st []CellState
	for _, cell := range cells {
		r := cell.Rung
		s := CellState{ID: cell.ID(), Games: r.Games, Kept: kept[cell.ID()]}
		if s.Kept < s.Games {
			game, ok := mean[r.TC]
			if !ok && len(pgns[r.TC]) > 0 {
				if game, err = meanGameSeconds(pgns[r.TC]); err != nil {
					return nil, fmt.Errorf("the kept games at %s: %w", r.TC, err)
				}
				mean[r.TC], ok = game, true
			}
			if !ok {
				tc, err := match.ParseTimeControl(r.TC)
				if err != nil {
					return nil, err
				}
				game = gameSeconds(tc)
			}
			s.Measured = ok
			s.Left = float64(r.Games-s.Kept) * game / float64(r.Concurrency)
		}
		st = append(st, s)
	}
	return st, nil
}
