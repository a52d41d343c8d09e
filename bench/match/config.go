package match

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/nnuelab/nnuelab/bench/stats"
)

// Config is a whole match: two engines, the schedule, openings, rules and
// output. ParseArgs builds one from the command line and a TOML file; Run
// plays it.
type Config struct {
	Engines     []EngineConfig // exactly two; the first is the one Elo is reported for
	Games       int            // games per round (default 2)
	Rounds      int            // rounds (default 1); total games = Games*Rounds, even
	Concurrency int            // games played at once (default 1)
	Openings    OpeningsConfig
	Seed        uint64      // seed of the random opening order
	SPRT        *stats.SPRT // nil: no sequential test
	Draw        DrawRule
	Resign      ResignRule
	MaxMoves    int    // full moves after which a game is drawn; 0 = no limit
	PGNOut      string // PGN file games are appended to; "" = none
	// Resume counts the games an earlier run of the same match left in
	// PGNOut (checked against this configuration) and plays only the
	// missing ones: a stopped match goes on where it stopped.
	Resume bool
	Event  string // PGN Event tag

	// InitTimeout bounds how long an engine may take to answer uci, isready
	// and ucinewgame (default 30 s).
	InitTimeout time.Duration

	each *EngineConfig // the [each] table of a config file, merged by ParseArgs
}

// EngineConfig is one engine: how to start it, its UCI options and its
// search limits.
type EngineConfig struct {
	Name    string   // name in PGN and summary; default the engine's "id name"
	Cmd     string   // executable
	Args    []string // command-line arguments
	Dir     string   // working directory; default the current one
	Options []Option // UCI options, set in this order
	Limits  Limits
}

// Option is a UCI option to set at start-up; buttons take no value.
type Option struct {
	Name, Value string
}

// Limits are the search limits an engine plays with. Any combination of a
// clock, fixed time per move, nodes and depth may be given; at least one is
// required.
type Limits struct {
	TC       TimeControl   // chess clock (tc=)
	MoveTime time.Duration // fixed time per move (st=)
	Nodes    int64         // nodes per move (nodes=)
	Depth    int           // depth per move (depth=)
	// Margin is how far a move may overrun the clock or the fixed move time
	// before the flag falls (timemargin=, milliseconds on the command line).
	Margin time.Duration
	// Timeout is how long a move may take when neither a clock nor a fixed
	// move time limits it (timeout=, seconds; default 60 s). An engine that
	// takes longer is taken to hang.
	Timeout time.Duration
	set     map[string]bool // which fields were given, for merging -each
}

// OpeningsConfig selects the start positions.
type OpeningsConfig struct {
	File   string // EPD or PGN file; "" = the standard start position
	Format string // "epd" or "pgn"; default from the file name
	Order  string // "sequential" (default) or "random"
	Plies  int    // PGN openings: play at most this many plies (0 = all)
	Start  int    // first opening of the order, counting from 1 (random order: the seeded sequence's, those before it skipped)
}

// DrawRule adjudicates a draw once the game has reached MoveNumber full
// moves and both engines' scores have stayed within ±Score centipawns for
// MoveCount consecutive moves each, with no capture or pawn move resetting
// the count. MoveCount 0 disables it.
type DrawRule struct {
	MoveNumber, MoveCount, Score int
}

// ResignRule adjudicates a loss once an engine's score has been at or below
// -Score centipawns for MoveCount consecutive moves of its own and, if
// TwoSided (the default on the command line), its opponent's score at or
// above +Score for as many moves of the opponent. MoveCount 0 disables it.
type ResignRule struct {
	MoveCount, Score int
	TwoSided         bool
}

const (
	defaultMoveTimeout = 60 * time.Second
	defaultInitTimeout = 30 * time.Second
)

// TotalGames returns the number of games the match schedules.
func (c *Config) TotalGames() int { return c.Games * c.Rounds }

// normalize fills defaults and checks the configuration, returning an error
// that names the offending setting.
func (c *Config) normalize() error {
	if len(c.Engines) != 2 {
		return fmt.Errorf("a match needs exactly two engines (-engine ... twice), got %d", len(c.Engines))
	}
	if c.Games == 0 {
		c.Games = 2
	}
	if c.Rounds == 0 {
		c.Rounds = 1
	}
	if c.Concurrency == 0 {
		c.Concurrency = 1
	}
	if c.InitTimeout == 0 {
		c.InitTimeout = defaultInitTimeout
	}
	if c.Event == "" {
		c.Event = "nnuelab match"
	}
	switch {
	case c.Games < 0 || c.Rounds < 0 || c.Games > 1e7 || c.Rounds > 1e7 || c.TotalGames() > 1e8:
		return fmt.Errorf("-games and -rounds must be positive (and not absurd), got %d and %d", c.Games, c.Rounds)
	case c.Resume && c.PGNOut == "":
		return fmt.Errorf("-resume needs -pgnout: the file whose games the match goes on from")
	case c.TotalGames()%2 != 0:
		return fmt.Errorf("games*rounds must be even: each opening is played twice with colours reversed (got %d)", c.TotalGames())
	case c.Concurrency < 0 || c.Concurrency > 256:
		return fmt.Errorf("-concurrency must be from 1 to 256, got %d", c.Concurrency)
	case c.MaxMoves < 0:
		return fmt.Errorf("-maxmoves must not be negative")
	case c.Draw.MoveCount < 0 || c.Draw.MoveNumber < 0 || c.Draw.Score < 0:
		return fmt.Errorf("-draw values must not be negative")
	case c.Resign.MoveCount < 0 || c.Resign.Score < 0:
		return fmt.Errorf("-resign values must not be negative")
	case c.Resign.MoveCount > 0 && c.Resign.Score == 0:
		return fmt.Errorf("-resign needs score= (centipawns) above 0")
	}
	if c.SPRT != nil {
		if c.SPRT.Model == "" {
			c.SPRT.Model = stats.Normalized
		}
		if err := c.SPRT.Validate(); err != nil {
			return err
		}
	}
	o := &c.Openings
	if o.Order == "" {
		o.Order = "sequential"
	}
	if o.Order != "sequential" && o.Order != "random" {
		return fmt.Errorf("openings order must be sequential or random, got %q", o.Order)
	}
	if o.File != "" && o.Format == "" {
		switch strings.ToLower(filepath.Ext(o.File)) {
		case ".pgn":
			o.Format = "pgn"
		default:
			o.Format = "epd"
		}
	}
	if o.File != "" && o.Format != "epd" && o.Format != "pgn" {
		return fmt.Errorf("openings format must be epd or pgn, got %q", o.Format)
	}
	if o.Plies < 0 || o.Start < 0 {
		return fmt.Errorf("openings plies and start must not be negative")
	}
	for i := range c.Engines {
		e := &c.Engines[i]
		if e.Cmd == "" {
			return fmt.Errorf("engine %d: cmd= is required", i+1)
		}
		l := &e.Limits
		if !l.TC.Enabled() && l.MoveTime == 0 && l.Nodes == 0 && l.Depth == 0 {
			return fmt.Errorf("engine %d (%s): no search limit: give tc=, st=, nodes= or depth= (in -each or -engine)", i+1, e.displayName())
		}
		if l.TC.Enabled() && l.MoveTime > 0 {
			return fmt.Errorf("engine %d (%s): tc= and st= cannot be combined", i+1, e.displayName())
		}
		if l.Timeout == 0 {
			l.Timeout = defaultMoveTimeout
		}
		if l.Nodes < 0 || l.Depth < 0 || l.Margin < 0 || l.Timeout < 0 || l.MoveTime < 0 {
			return fmt.Errorf("engine %d (%s): limits must not be negative", i+1, e.displayName())
		}
	}
	if c.Engines[0].Name != "" && c.Engines[0].Name == c.Engines[1].Name {
		return fmt.Errorf("both engines are named %q; give them different name= values", c.Engines[0].Name)
	}
	return nil
}

func (e *EngineConfig) displayName() string {
	if e.Name != "" {
		return e.Name
	}
	return filepath.Base(e.Cmd)
}

// errHelp is returned by ParseArgs for -h/--help.
var errHelp = errors.New("help requested")

// IsHelp reports whether err is ParseArgs' answer to -h or --help.
func IsHelp(err error) bool { return errors.Is(err, errHelp) }
