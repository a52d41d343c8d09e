// Package ladder measures nnuelab's playing strength on Stockfish's
// UCI_Elo scale: each rung is one nnuelab setting (an architecture, a
// thread count, a clock) played against Stockfish 15.1 limited to several
// UCI_Elo levels, one match a level. The matches are resumable (a match is
// played and kept in chunks of game pairs, a finished level as its summary
// and PGN), and Report turns them into the
// table docs/strength.md quotes, with a rating on the UCI_Elo scale that
// combines the levels.
package ladder

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/nnuelab/nnuelab/bench/match"
	"github.com/nnuelab/nnuelab/internal/configerr"
)

// Config is a ladder file.
type Config struct {
	// Stockfish is the opponent: Stockfish 15.1 (default
	// /usr/games/stockfish, Debian's build), played with
	// UCI_LimitStrength at each level's UCI_Elo.
	Stockfish string `toml:"stockfish"`
	// StockfishOverhead is Stockfish's Move Overhead in ms unless a rung
	// says otherwise (default 10, Stockfish's own). Stockfish 15.1
	// budgets from its clock plus 49 increments minus 52 overheads, so a
	// larger one shortens every move it thinks: at 5+0.05, 100 ms cuts
	// its first budget to a third, and at 1+0.01, 30 ms leaves it 1 ms a
	// move (depth 1).
	StockfishOverhead int `toml:"stockfish_move_overhead"`
	// TC is the default clock of a rung (default "5+0.05").
	TC string `toml:"tc"`
	// TimeMargin (ms) lets a move overrun its clock by this much before
	// the flag falls: the runner's pipe round trip (default 50).
	TimeMargin int `toml:"timemargin"`
	// Hash (MB) for both engines (default 16).
	Hash int `toml:"hash"`
	// Games per level unless a rung says otherwise (default 100, even:
	// game pairs with colours reversed).
	Games int `toml:"games"`
	// Openings is an EPD book, relative to the ladder file's folder;
	// played in random order from Seed.
	Openings string `toml:"openings"`
	Seed     uint64 `toml:"seed"`
	// Concurrency is the games played at once by rungs of one thread
	// (default 2); a rung of more threads plays one game at a time, and a
	// rung may set its own.
	Concurrency int `toml:"concurrency"`
	// Chunk is the games of a match kept at a time unless a rung says
	// otherwise (default 20, even): an interrupted match resumes after its
	// last finished chunk instead of starting over.
	Chunk int `toml:"chunk"`
	// Rungs are the settings measured, in the report's order.
	Rungs []Rung `toml:"rung"`
	// Clocks are the time-management figures the report draws, each from
	// the finished matches of its rungs.
	Clocks []ClockFigure `toml:"clocks"`

	dir string // the file's folder
}

// Rung is one nnuelab setting and the Stockfish levels it plays.
type Rung struct {
	// Name identifies the rung's files (default ARCH-tTHREADS, plus the
	// clock when it is not the ladder's).
	Name string `toml:"name"`
	// Arch is the UCI Arch option (a name the engine lists).
	Arch string `toml:"arch"`
	// Threads is nnuelab's Threads option (default 1).
	Threads int `toml:"threads"`
	// TC overrides the ladder's clock; Games its games per level.
	TC    string `toml:"tc"`
	Games int    `toml:"games"`
	// Chunk overrides the ladder's games per kept chunk (long clocks want
	// small ones).
	Chunk int `toml:"chunk"`
	// Concurrency overrides the games the rung plays at once: by default
	// the ladder's for one thread and 1 for more, so that the threads of
	// a game have the cores to themselves.
	Concurrency int `toml:"concurrency"`
	// StockfishOverhead overrides the ladder's Move Overhead for
	// Stockfish (ms); set, it is resolved into Overhead.
	StockfishOverhead *int `toml:"stockfish_move_overhead"`
	// Overhead is the Move Overhead (ms) Stockfish plays this rung with.
	Overhead int `toml:"-"`
	// Levels are Stockfish's UCI_Elo values played, each one match.
	Levels []int `toml:"levels"`
	// Note is printed under the rung's table (why these levels, ...).
	Note string `toml:"note"`

	ownConcurrency bool // Concurrency was set in the file
}

// ClockFigure is one figure of the share of the clock each move used,
// with its table (time forfeits, shares, least clock left), over the
// finished matches of some rungs: one clock at one and two threads, say.
type ClockFigure struct {
	// Name names the figure's file: clocks-NAME.svg in the results folder.
	Name string `toml:"name"`
	// Title heads the figure and its part of the report.
	Title string `toml:"title"`
	// Rungs are the names of the rungs whose games it draws.
	Rungs []string `toml:"rungs"`
}

// Stockfish 15.1 accepts UCI_Elo in this range (later releases widened
// it).
const (
	minUCIElo = 1350
	maxUCIElo = 2850
)

var nameRE = regexp.MustCompile(`^[A-Za-z0-9._+=-]+$`)

// Load reads and checks a ladder file: unknown keys, bad values and
// duplicate names are errors naming the file and the key.
func Load(path string) (*Config, error) {
	text, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, string(text))
}

// Parse is Load on text already read; path names the file in errors and
// anchors the openings' relative path.
func Parse(path, text string) (*Config, error) {
	bad := func(key, format string, a ...any) error {
		return &configerr.Error{File: path, Key: key, Reason: fmt.Sprintf(format, a...)}
	}
	var c Config
	md, err := configerr.DecodeTOML(path, []byte(text), &c, nil)
	if err != nil {
		return nil, err
	}
	c.dir = filepath.Dir(path)
	if c.Stockfish == "" {
		c.Stockfish = "/usr/games/stockfish"
	}
	if !md.IsDefined("stockfish_move_overhead") {
		c.StockfishOverhead = 10
	}
	if c.TC == "" {
		c.TC = "5+0.05"
	}
	if !md.IsDefined("timemargin") {
		c.TimeMargin = 50
	}
	if c.Hash == 0 {
		c.Hash = 16
	}
	if c.Games == 0 {
		c.Games = 100
	}
	if c.Concurrency == 0 {
		c.Concurrency = 2
	}
	if c.Chunk == 0 {
		c.Chunk = 20
	}
	switch {
	case c.StockfishOverhead < 0 || c.StockfishOverhead > 5000:
		return nil, bad("stockfish_move_overhead", "must be 0..5000 ms, got %d", c.StockfishOverhead)
	case c.TimeMargin < 0 || c.TimeMargin > 10000:
		return nil, bad("timemargin", "must be 0..10000 ms, got %d", c.TimeMargin)
	case c.Hash < 1 || c.Hash > 65536:
		return nil, bad("hash", "must be 1..65536 MB, got %d", c.Hash)
	case c.Games < 2 || c.Games%2 != 0:
		return nil, bad("games", "must be even and at least 2 (game pairs), got %d", c.Games)
	case c.Chunk < 2 || c.Chunk%2 != 0:
		return nil, bad("chunk", "must be even and at least 2 (game pairs), got %d", c.Chunk)
	case c.Concurrency < 1 || c.Concurrency > 64:
		return nil, bad("concurrency", "must be 1..64, got %d", c.Concurrency)
	case c.Openings == "":
		return nil, bad("openings", "missing: an EPD book (relative to this file's folder)")
	}
	if _, err := match.ParseTimeControl(c.TC); err != nil {
		return nil, bad("tc", "%v", err)
	}
	if len(c.Rungs) == 0 {
		return nil, bad("rung", "no [[rung]]: nothing to measure")
	}
	seen := map[string]bool{}
	for i := range c.Rungs {
		r := &c.Rungs[i]
		key := func(k string) string { return fmt.Sprintf("rung[%d].%s", i+1, k) }
		if r.Arch == "" {
			return nil, bad(key("arch"), "missing: the Arch option nnuelab plays with")
		}
		if r.Threads == 0 {
			r.Threads = 1
		}
		if r.Threads < 1 || r.Threads > 256 {
			return nil, bad(key("threads"), "must be 1..256, got %d", r.Threads)
		}
		if r.TC == "" {
			r.TC = c.TC
		}
		if _, err := match.ParseTimeControl(r.TC); err != nil {
			return nil, bad(key("tc"), "%v", err)
		}
		if r.Games == 0 {
			r.Games = c.Games
		}
		if r.Games < 2 || r.Games%2 != 0 {
			return nil, bad(key("games"), "must be even and at least 2 (game pairs), got %d", r.Games)
		}
		if r.Chunk == 0 {
			r.Chunk = c.Chunk
		}
		if r.Chunk < 2 || r.Chunk%2 != 0 {
			return nil, bad(key("chunk"), "must be even and at least 2 (game pairs), got %d", r.Chunk)
		}
		r.ownConcurrency = r.Concurrency != 0
		if r.Concurrency == 0 {
			r.Concurrency = c.Concurrency
			if r.Threads > 1 {
				r.Concurrency = 1
			}
		}
		if r.Concurrency < 1 || r.Concurrency > 64 {
			return nil, bad(key("concurrency"), "must be 1..64, got %d", r.Concurrency)
		}
		r.Overhead = c.StockfishOverhead
		if r.StockfishOverhead != nil {
			r.Overhead = *r.StockfishOverhead
		}
		if r.Overhead < 0 || r.Overhead > 5000 {
			return nil, bad(key("stockfish_move_overhead"), "must be 0..5000 ms, got %d", r.Overhead)
		}
		if len(r.Levels) == 0 {
			return nil, bad(key("levels"), "missing: Stockfish's UCI_Elo values to play")
		}
		lv := map[int]bool{}
		for _, l := range r.Levels {
			if l < minUCIElo || l > maxUCIElo {
				return nil, bad(key("levels"), "%d is outside Stockfish 15.1's UCI_Elo range %d..%d", l, minUCIElo, maxUCIElo)
			}
			if lv[l] {
				return nil, bad(key("levels"), "%d listed twice", l)
			}
			lv[l] = true
		}
		if r.Name == "" {
			r.Name = fmt.Sprintf("%s-t%d", r.Arch, r.Threads)
			if r.TC != c.TC {
				r.Name += "-" + strings.NewReplacer("/", "m", "+", "p").Replace(r.TC)
			}
		}
		if !nameRE.MatchString(r.Name) {
			return nil, bad(key("name"), "%q: use letters, digits and ._+=- (it names files)", r.Name)
		}
		if seen[r.Name] {
			return nil, bad(key("name"), "%q is the name of an earlier rung (give one a name)", r.Name)
		}
		seen[r.Name] = true
	}
	figs := map[string]bool{}
	for i := range c.Clocks {
		f := &c.Clocks[i]
		key := func(k string) string { return fmt.Sprintf("clocks[%d].%s", i+1, k) }
		switch {
		case !nameRE.MatchString(f.Name):
			return nil, bad(key("name"), "%q: use letters, digits and ._+=- (it names the figure's file)", f.Name)
		case figs[f.Name]:
			return nil, bad(key("name"), "%q names an earlier figure", f.Name)
		case len(f.Rungs) == 0:
			return nil, bad(key("rungs"), "missing: the rungs whose games the figure draws")
		}
		figs[f.Name] = true
		if f.Title == "" {
			f.Title = f.Name
		}
		for _, n := range f.Rungs {
			if !seen[n] {
				return nil, bad(key("rungs"), "no rung named %q", n)
			}
		}
	}
	return &c, nil
}

// OpeningsPath is the book's path as the runner opens it.
func (c *Config) OpeningsPath() string {
	if filepath.IsAbs(c.Openings) {
		return c.Openings
	}
	return filepath.Join(c.dir, c.Openings)
}

// Cell is one match of a rung: the rung against Stockfish at one level.
type Cell struct {
	Rung  *Rung
	Level int
}

// ID names the cell's files: RUNG-eLEVEL.
func (c Cell) ID() string { return c.Rung.Name + "-e" + strconv.Itoa(c.Level) }

// Cells lists every match of the ladder in order, only the rungs named in
// only when it is not empty (an unknown name is an error).
func (c *Config) Cells(only []string) ([]Cell, error) {
	var names []string
	for i := range c.Rungs {
		names = append(names, c.Rungs[i].Name)
	}
	for _, n := range only {
		if !slices.Contains(names, n) {
			return nil, fmt.Errorf("no rung named %q (the ladder's rungs: %s)", n, strings.Join(names, ", "))
		}
	}
	var cells []Cell
	for i := range c.Rungs {
		r := &c.Rungs[i]
		if len(only) > 0 && !slices.Contains(only, r.Name) {
			continue
		}
		for _, l := range r.Levels {
			cells = append(cells, Cell{Rung: r, Level: l})
		}
	}
	if len(cells) == 0 {
		return nil, errors.New("no rung to play")
	}
	return cells, nil
}
