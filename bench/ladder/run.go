package ladder

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/nnuelab/nnuelab/bench/match"
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

// settings returns what decides a cell's games, as one line.
func (c *Config) settings(cell Cell, booksha string) string {
	r := cell.Rung
	return fmt.Sprintf("arch=%s threads=%d tc=%s games=%d level=%d hash=%d timemargin=%d sf_overhead=%d stockfish=%s openings=%s seed=%d",
		r.Arch, r.Threads, r.TC, r.Games, cell.Level, c.Hash, c.TimeMargin, c.StockfishOverhead, c.Stockfish, booksha, c.Seed)
}

// matchConfig is the match of one cell: nnuelab (first, the engine Elo is
// reported for) against Stockfish at the cell's level.
func (c *Config) matchConfig(cell Cell, binary, pgn string) (match.Config, error) {
	r := cell.Rung
	tc, err := match.ParseTimeControl(r.TC)
	if err != nil {
		return match.Config{}, err
	}
	lim := match.Limits{TC: tc, Margin: time.Duration(c.TimeMargin) * time.Millisecond}
	conc := c.Concurrency
	if r.Threads > 1 {
		conc = 1
	}
	hash := strconv.Itoa(c.Hash)
	return match.Config{
		Engines: []match.EngineConfig{
			{Name: fmt.Sprintf("nnuelab-%s-t%d", r.Arch, r.Threads), Cmd: binary, Limits: lim, Options: []match.Option{
				{Name: "Arch", Value: r.Arch}, {Name: "Threads", Value: strconv.Itoa(r.Threads)}, {Name: "Hash", Value: hash}}},
			{Name: fmt.Sprintf("sf15.1-elo%d", cell.Level), Cmd: c.Stockfish, Limits: lim, Options: []match.Option{
				{Name: "UCI_LimitStrength", Value: "true"}, {Name: "UCI_Elo", Value: strconv.Itoa(cell.Level)},
				{Name: "Threads", Value: "1"}, {Name: "Hash", Value: hash},
				{Name: "Move Overhead", Value: strconv.Itoa(c.StockfishOverhead)}}},
		},
		Games:       2,
		Rounds:      r.Games / 2,
		Concurrency: conc,
		Openings:    match.OpeningsConfig{File: c.OpeningsPath(), Order: "random"},
		Seed:        c.Seed,
		PGNOut:      pgn,
		Event:       "nnuelab ladder " + cell.ID(),
	}, nil
}

// Run plays every cell of the ladder whose result is not in opts.Out yet,
// one match at a time, and keeps each as it finishes: an interrupted run
// loses only the match in progress. A kept result whose settings differ
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
		pgn := filepath.Join(opts.Out, id+".pgn.zst")
		part := filepath.Join(opts.Out, id+".pgn.part")
		if err := os.Remove(part); err != nil && !os.IsNotExist(err) {
			return err
		}
		mc, err := c.matchConfig(cell, opts.Binary, part)
		if err != nil {
			return err
		}
		fmt.Fprintf(log, "[%d/%d] %s: %d games at %s against Stockfish 15.1 at UCI_Elo %d\n", i+1, len(cells), id, cell.Rung.Games, cell.Rung.TC, cell.Level)
		sum, err := match.Run(ctx, mc, match.Output{Log: log, Quiet: true})
		if err != nil {
			return fmt.Errorf("%s: %w", id, err)
		}
		if sum.Interrupted {
			return fmt.Errorf("%s: interrupted after %d of %d games (nothing kept; rerun to replay it)", id, sum.Games(), sum.Planned)
		}
		js, err := json.Marshal(sum)
		if err != nil {
			return err
		}
		res := Result{Rung: cell.Rung.Name, Arch: cell.Rung.Arch, Threads: cell.Rung.Threads, TC: cell.Rung.TC, Level: cell.Level,
			Settings: want, Revision: version.Revision(), Finished: time.Now().UTC().Format(time.RFC3339), Summary: js}
		out, err := json.MarshalIndent(res, "", "  ")
		if err != nil {
			return err
		}
		// The games are kept compressed, checked against the plain PGN the
		// match appended to before that goes.
		if err := zstdfile.CompressFile(part, pgn); err != nil {
			return fmt.Errorf("%s: games: %w", id, err)
		}
		if err := os.Remove(part); err != nil {
			return err
		}
		if err := fsutil.WriteFileAtomic(filepath.Join(opts.Out, id+".json"), append(out, '\n'), 0o644); err != nil {
			return err
		}
		fmt.Fprintf(log, "%s\n", strings.TrimSpace(sum.String()))
	}
	return nil
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
