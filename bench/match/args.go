package match

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/nnuelab/nnuelab/bench/stats"
	"github.com/nnuelab/nnuelab/engine/uciclient"
	"github.com/nnuelab/nnuelab/internal/configerr"
)

// CommandOptions are the command-line settings that shape the command's
// output rather than the match.
type CommandOptions struct {
	JSON  bool // print the summary as JSON on stdout
	Debug bool // log every line exchanged with the engines
	Quiet bool // no per-game lines, only faults and the summary
	// RatingInterval logs the full summary every so many games (0: never).
	RatingInterval int
}

// Usage is the help text of `nnuelab match`.
const Usage = `Usage: nnuelab match -engine KEY=VALUE... -engine KEY=VALUE... [options]

Plays games between two UCI engines, in pairs from the same opening with
colours reversed, and reports W/D/L, Elo with its 95% interval, LOS, draw
ratio, pentanomial pair counts and, with -sprt, the log-likelihood ratio.
Arguments follow cutechess-cli; a TOML file (-config) may hold the same
settings. Flags may be written with one dash or two.

Engines (-engine for each of the two, -each for settings both share):
  cmd=PATH            executable (required)
  name=NAME           name in PGN and summary (default: the engine's id name)
  dir=DIR             working directory
  arg=ARG             command-line argument (repeatable)
  option.NAME=VALUE   UCI option, e.g. option.Hash=16 option.Threads=1
  tc=[MOVES/]TIME[+INC]  clock, seconds or m:ss (10+0.1, 40/60, 1:00+1, inf)
  st=SECONDS          fixed time per move
  nodes=N             nodes per move
  depth=N             depth per move
  timemargin=MS       how far a move may overrun the clock before the flag
                      falls (default 0)
  timeout=SECONDS     how long a move may take when no clock or st= bounds it
                      before the engine is taken to hang (default 60)

Match:
  -games N            games per round (default 2)
  -rounds N           rounds (default 1); games*rounds games in all, each
                      opening played twice with colours reversed
  -concurrency N      games played at once (default 1); each game has its
                      own two engine processes
  -openings file=F [format=epd|pgn] [order=sequential|random] [plies=N] [start=N]
                      start positions (also: -openings F); default startpos
  -seed N             seed of the random opening order (default 0); -srand too
  -sprt elo0=E0 elo1=E1 [alpha=0.05] [beta=0.05] [model=normalized|logistic]
                      stop when the pentanomial GSPRT accepts a hypothesis
  -draw movenumber=N movecount=M score=CP
                      adjudicate a draw after move N when both scores stay
                      within CP for M moves each
  -resign movecount=M score=CP [twosided=true|false]
                      adjudicate a loss when the loser's score stays at or
                      below -CP for M moves and (twosided, the default) the
                      winner's at or above CP
  -maxmoves N         adjudicate a draw after N full moves
  -pgnout FILE        append each finished game to FILE
  -resume             go on from the games already in -pgnout (a stopped run
                      of the same match): they count, only the rest is played
  -event NAME         PGN Event tag (default "nnuelab match")
  -config FILE        read settings from a TOML file first (see docs/match.md)

Output:
  -json               print the final summary as JSON on stdout
  -quiet              no per-game lines on stderr
  -ratinginterval N   print the full summary on stderr every N games
  -debug              log every line sent to and read from the engines

Checkmate, stalemate, threefold repetition, the fifty-move rule and
insufficient material are judged by the runner. An engine that crashes,
hangs, overruns its clock or plays an illegal move loses the game and is
restarted. Ctrl-C stops the match and prints the summary of the games
finished so far; the PGN holds exactly those games.
`

// ParseArgs parses the arguments of `nnuelab match` (see Usage). A -config
// file is read first wherever it appears; the other arguments then add
// engines and override its settings.
func ParseArgs(args []string) (Config, CommandOptions, error) {
	var cfg Config
	var opts CommandOptions
	p := &argParser{args: args}
	// The config file comes first so that the command line overrides it.
	for i := 0; i < len(args); i++ {
		if n := flagName(args[i]); n == "config" {
			if i+1 >= len(args) {
				return cfg, opts, fmt.Errorf("-config needs a file name")
			}
			fc, err := loadFile(args[i+1])
			if err != nil {
				return cfg, opts, err
			}
			cfg = fc
			p.each = fc.each
		}
	}
	p.cfg = &cfg
	p.opts = &opts
	if err := p.parse(); err != nil {
		return cfg, opts, err
	}
	if err := cfg.finish(p.each); err != nil {
		return cfg, opts, err
	}
	return cfg, opts, nil
}

// flagName returns the name of a flag argument ("-games" or "--games" →
// "games"), or "" for anything else.
func flagName(s string) string {
	if !strings.HasPrefix(s, "-") || len(s) < 2 {
		return ""
	}
	n := strings.TrimPrefix(strings.TrimPrefix(s, "-"), "-")
	if n == "" || (n[0] >= '0' && n[0] <= '9') {
		return ""
	}
	return n
}

type argParser struct {
	args []string
	i    int
	cfg  *Config
	opts *CommandOptions
	each *EngineConfig
}

// next returns the value of a flag that takes one.
func (p *argParser) next(name string) (string, error) {
	if p.i+1 >= len(p.args) || flagName(p.args[p.i+1]) != "" {
		return "", fmt.Errorf("-%s needs a value", name)
	}
	p.i++
	return p.args[p.i], nil
}

// pairs returns the KEY=VALUE arguments after a flag. A bare first word
// is returned with an empty key.
func (p *argParser) pairs(name string, bareOK bool) ([][2]string, error) {
	var kv [][2]string
	for p.i+1 < len(p.args) && flagName(p.args[p.i+1]) == "" {
		p.i++
		a := p.args[p.i]
		k, v, ok := strings.Cut(a, "=")
		if !ok {
			if bareOK && len(kv) == 0 {
				kv = append(kv, [2]string{"", a})
				continue
			}
			return nil, fmt.Errorf("-%s: expected KEY=VALUE, got %q", name, a)
		}
		kv = append(kv, [2]string{k, v})
	}
	if len(kv) == 0 {
		return nil, fmt.Errorf("-%s needs KEY=VALUE arguments", name)
	}
	return kv, nil
}

func (p *argParser) intFlag(name string, dst *int) error {
	v, err := p.next(name)
	if err != nil {
		return err
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return fmt.Errorf("-%s: %q is not an integer", name, v)
	}
	*dst = n
	return nil
}

func (p *argParser) parse() error {
	for p.i = 0; p.i < len(p.args); p.i++ {
		a := p.args[p.i]
		name := flagName(a)
		if name == "" {
			return fmt.Errorf("unexpected argument %q (flags start with -; see --help)", a)
		}
		var err error
		switch name {
		case "h", "help":
			return errHelp
		case "config":
			p.i++ // read already
		case "engine":
			var kv [][2]string
			if kv, err = p.pairs(name, false); err == nil {
				var e EngineConfig
				for _, x := range kv {
					if err = applyEngineKey(&e, x[0], x[1], false); err != nil {
						err = fmt.Errorf("-engine: %w", err)
						break
					}
				}
				p.cfg.Engines = append(p.cfg.Engines, e)
			}
		case "each":
			var kv [][2]string
			if kv, err = p.pairs(name, false); err == nil {
				if p.each == nil {
					p.each = &EngineConfig{}
				}
				for _, x := range kv {
					if err = applyEngineKey(p.each, x[0], x[1], true); err != nil {
						err = fmt.Errorf("-each: %w", err)
						break
					}
				}
			}
		case "games", "rounds", "concurrency":
			dst := map[string]*int{"games": &p.cfg.Games, "rounds": &p.cfg.Rounds, "concurrency": &p.cfg.Concurrency}[name]
			if err = p.intFlag(name, dst); err == nil && *dst <= 0 {
				// 0 is not "the default": a user who asks for no games is told.
				err = fmt.Errorf("-%s %d: want a positive number", name, *dst)
			}
		case "maxmoves":
			err = p.intFlag(name, &p.cfg.MaxMoves)
		case "seed", "srand":
			var v string
			if v, err = p.next(name); err == nil {
				if p.cfg.Seed, err = strconv.ParseUint(v, 10, 64); err != nil {
					err = fmt.Errorf("-%s: %q is not a non-negative integer", name, v)
				}
			}
		case "pgnout":
			p.cfg.PGNOut, err = p.next(name)
		case "event":
			p.cfg.Event, err = p.next(name)
		case "openings":
			var kv [][2]string
			if kv, err = p.pairs(name, true); err == nil {
				for _, x := range kv {
					if x[0] == "seed" { // also accepted here, as fastchess does
						if p.cfg.Seed, err = strconv.ParseUint(x[1], 10, 64); err != nil {
							err = fmt.Errorf("-openings seed: %q is not a non-negative integer", x[1])
							break
						}
						continue
					}
					if err = applyOpeningsKey(&p.cfg.Openings, x[0], x[1]); err != nil {
						break
					}
				}
			}
		case "sprt":
			var kv [][2]string
			if kv, err = p.pairs(name, false); err == nil {
				if p.cfg.SPRT == nil {
					p.cfg.SPRT = &stats.SPRT{Alpha: 0.05, Beta: 0.05, Model: stats.Normalized}
				}
				for _, x := range kv {
					if err = applySPRTKey(p.cfg.SPRT, x[0], x[1]); err != nil {
						break
					}
				}
			}
		case "draw":
			var kv [][2]string
			if kv, err = p.pairs(name, false); err == nil {
				for _, x := range kv {
					if err = applyIntKey("draw", map[string]*int{"movenumber": &p.cfg.Draw.MoveNumber, "movecount": &p.cfg.Draw.MoveCount, "score": &p.cfg.Draw.Score}, x[0], x[1]); err != nil {
						break
					}
				}
			}
		case "resign":
			var kv [][2]string
			if kv, err = p.pairs(name, false); err == nil {
				p.cfg.Resign.TwoSided = true
				for _, x := range kv {
					if x[0] == "twosided" {
						if p.cfg.Resign.TwoSided, err = uciclient.ParseBool(x[1]); err != nil {
							err = fmt.Errorf("-resign twosided: %w", err)
							break
						}
						continue
					}
					if err = applyIntKey("resign", map[string]*int{"movecount": &p.cfg.Resign.MoveCount, "score": &p.cfg.Resign.Score}, x[0], x[1]); err != nil {
						break
					}
				}
			}
		case "ratinginterval":
			err = p.intFlag(name, &p.opts.RatingInterval)
			if err == nil && p.opts.RatingInterval < 0 {
				err = fmt.Errorf("-ratinginterval must not be negative")
			}
		case "json":
			p.opts.JSON = true
		case "debug":
			p.opts.Debug = true
		case "quiet":
			p.opts.Quiet = true
		case "resume":
			p.cfg.Resume = true
		case "repeat", "recover":
			// cutechess-cli habits: openings are always repeated with
			// colours reversed and crashed engines always restarted.
		default:
			return fmt.Errorf("unknown flag %q (see --help)", a)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

func applyIntKey(flag string, keys map[string]*int, k, v string) error {
	dst, ok := keys[k]
	if !ok {
		return fmt.Errorf("-%s: unknown key %q", flag, k)
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return fmt.Errorf("-%s %s: %q is not an integer", flag, k, v)
	}
	*dst = n
	return nil
}

func applyOpeningsKey(o *OpeningsConfig, k, v string) error {
	var err error
	switch k {
	case "", "file":
		o.File = v
	case "format":
		o.Format = strings.ToLower(v)
	case "order":
		o.Order = strings.ToLower(v)
	case "plies":
		o.Plies, err = strconv.Atoi(v)
	case "start":
		o.Start, err = strconv.Atoi(v)
	case "policy":
		// cutechess-cli's policy=round is what pairs already do.
	default:
		return fmt.Errorf("-openings: unknown key %q (file, format, order, plies, start, seed)", k)
	}
	if err != nil {
		return fmt.Errorf("-openings %s: %q is not an integer", k, v)
	}
	return nil
}

func applySPRTKey(s *stats.SPRT, k, v string) error {
	if k == "model" {
		s.Model = stats.Model(strings.ToLower(v))
		return nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil {
		return fmt.Errorf("-sprt %s: %q is not a number", k, v)
	}
	switch k {
	case "elo0":
		s.Elo0 = f
	case "elo1":
		s.Elo1 = f
	case "alpha":
		s.Alpha = f
	case "beta":
		s.Beta = f
	default:
		return fmt.Errorf("-sprt: unknown key %q (elo0, elo1, alpha, beta, model)", k)
	}
	return nil
}

// applyEngineKey sets one KEY=VALUE of -engine or -each.
func applyEngineKey(e *EngineConfig, k, v string, each bool) error {
	l := &e.Limits
	mark := func() {
		if l.set == nil {
			l.set = map[string]bool{}
		}
		l.set[k] = true
	}
	if name, ok := strings.CutPrefix(k, "option."); ok {
		if name == "" {
			return fmt.Errorf("option. needs a UCI option name")
		}
		for i := range e.Options {
			if strings.EqualFold(e.Options[i].Name, name) {
				e.Options[i].Value = v
				return nil
			}
		}
		e.Options = append(e.Options, Option{name, v})
		return nil
	}
	switch k {
	case "cmd", "name":
		if each {
			return fmt.Errorf("%s= belongs to -engine, not -each", k)
		}
		if k == "cmd" {
			e.Cmd = v
		} else {
			e.Name = v
		}
	case "dir":
		e.Dir = v
	case "arg":
		e.Args = append(e.Args, v)
	case "proto":
		if v != "uci" {
			return fmt.Errorf("proto=%s: only uci engines are supported", v)
		}
	case "tc":
		tc, err := ParseTimeControl(v)
		if err != nil {
			return err
		}
		l.TC = tc
		mark()
	case "st":
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f > 0 && f < 1e6) {
			return fmt.Errorf("st=%s: want a positive number of seconds", v)
		}
		l.MoveTime = seconds(f)
		mark()
	case "nodes":
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil || n <= 0 {
			return fmt.Errorf("nodes=%s: want a positive integer", v)
		}
		l.Nodes = n
		mark()
	case "depth":
		n, err := strconv.Atoi(v)
		if err != nil || n <= 0 || n > 1000 {
			return fmt.Errorf("depth=%s: want a positive integer", v)
		}
		l.Depth = n
		mark()
	case "timemargin":
		n, err := strconv.Atoi(v)
		if err != nil || n < 0 {
			return fmt.Errorf("timemargin=%s: want a non-negative number of milliseconds", v)
		}
		l.Margin = time.Duration(n) * time.Millisecond
		mark()
	case "timeout":
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f > 0 && f < 1e6) {
			return fmt.Errorf("timeout=%s: want a positive number of seconds", v)
		}
		l.Timeout = seconds(f)
		mark()
	default:
		return fmt.Errorf("unknown key %q (cmd, name, dir, arg, option.NAME, tc, st, nodes, depth, timemargin, timeout)", k)
	}
	return nil
}

// finish merges the -each settings into both engines and checks the result.
func (c *Config) finish(each *EngineConfig) error {
	if each != nil {
		for i := range c.Engines {
			e := &c.Engines[i]
			if e.Dir == "" {
				e.Dir = each.Dir
			}
			if len(e.Args) == 0 {
				e.Args = append([]string(nil), each.Args...)
			}
			var opts []Option
			for _, o := range each.Options {
				if !hasOption(e.Options, o.Name) {
					opts = append(opts, o)
				}
			}
			e.Options = append(opts, e.Options...)
			mergeLimits(&e.Limits, &each.Limits)
		}
	}
	return c.normalize()
}

func hasOption(opts []Option, name string) bool {
	for _, o := range opts {
		if strings.EqualFold(o.Name, name) {
			return true
		}
	}
	return false
}

// mergeLimits copies the limits given in each that the engine did not set.
func mergeLimits(l, each *Limits) {
	has := func(k string) bool { return l.set[k] }
	from := func(k string) bool { return each.set[k] && !has(k) }
	if from("tc") && !has("st") {
		l.TC = each.TC
	}
	if from("st") && !has("tc") {
		l.MoveTime = each.MoveTime
	}
	if from("nodes") {
		l.Nodes = each.Nodes
	}
	if from("depth") {
		l.Depth = each.Depth
	}
	if from("timemargin") {
		l.Margin = each.Margin
	}
	if from("timeout") {
		l.Timeout = each.Timeout
	}
}

// fileConfig is the TOML form of Config; every key is optional.
type fileConfig struct {
	Games       *int         `toml:"games"`
	Rounds      *int         `toml:"rounds"`
	Concurrency *int         `toml:"concurrency"`
	Seed        uint64       `toml:"seed"`
	MaxMoves    int          `toml:"maxmoves"`
	PGNOut      string       `toml:"pgnout"`
	Resume      bool         `toml:"resume"`
	Event       string       `toml:"event"`
	Each        *fileEngine  `toml:"each"`
	Engine      []fileEngine `toml:"engine"`
	Openings    *struct {
		File   string `toml:"file"`
		Format string `toml:"format"`
		Order  string `toml:"order"`
		Plies  int    `toml:"plies"`
		Start  int    `toml:"start"`
	} `toml:"openings"`
	SPRT *struct {
		Elo0  float64  `toml:"elo0"`
		Elo1  float64  `toml:"elo1"`
		Alpha *float64 `toml:"alpha"`
		Beta  *float64 `toml:"beta"`
		Model string   `toml:"model"`
	} `toml:"sprt"`
	Draw   *DrawRule `toml:"draw"`
	Resign *struct {
		MoveCount int   `toml:"movecount"`
		Score     int   `toml:"score"`
		TwoSided  *bool `toml:"twosided"`
	} `toml:"resign"`
}

type fileEngine struct {
	Name       string         `toml:"name"`
	Cmd        string         `toml:"cmd"`
	Dir        string         `toml:"dir"`
	Args       []string       `toml:"args"`
	Options    map[string]any `toml:"options"`
	TC         string         `toml:"tc"`
	ST         float64        `toml:"st"`
	Nodes      int64          `toml:"nodes"`
	Depth      int            `toml:"depth"`
	TimeMargin *int           `toml:"timemargin"`
	Timeout    float64        `toml:"timeout"`
}

// loadFile reads a match configuration from a TOML file with the same
// settings as the command line (see docs/match.md). Unknown keys and bad
// values are errors that name the file and the key. The result still needs
// the merging and checks ParseArgs does after it.
func loadFile(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return Config{}, err
	}
	var fc fileConfig
	// An engine's options are UCI option names, spelt as the engine does.
	options := func(k toml.Key) bool { return len(k) > 2 && k[len(k)-2] == "options" }
	if _, err := configerr.DecodeTOML(path, data, &fc, options); err != nil {
		return Config{}, err
	}
	cfg := Config{
		Seed: fc.Seed, MaxMoves: fc.MaxMoves, PGNOut: fc.PGNOut, Resume: fc.Resume, Event: fc.Event,
	}
	bad := func(key string, err error) (Config, error) {
		return Config{}, fmt.Errorf("%s: %s: %w", path, key, err)
	}
	for _, x := range []struct {
		key string
		v   *int
		dst *int
	}{{"games", fc.Games, &cfg.Games}, {"rounds", fc.Rounds, &cfg.Rounds}, {"concurrency", fc.Concurrency, &cfg.Concurrency}} {
		if x.v == nil {
			continue // the default
		}
		if *x.v <= 0 {
			return bad(x.key, fmt.Errorf("%d: want a positive number", *x.v))
		}
		*x.dst = *x.v
	}
	if fc.Each != nil {
		if fc.Each.Cmd != "" || fc.Each.Name != "" {
			return bad("each", fmt.Errorf("cmd and name belong to [[engine]]"))
		}
		e, err := fc.Each.engine(true)
		if err != nil {
			return bad("each", err)
		}
		cfg.each = &e
	}
	for i, fe := range fc.Engine {
		e, err := fe.engine(false)
		if err != nil {
			return bad(fmt.Sprintf("engine[%d]", i+1), err)
		}
		cfg.Engines = append(cfg.Engines, e)
	}
	if o := fc.Openings; o != nil {
		cfg.Openings = OpeningsConfig{File: o.File, Format: strings.ToLower(o.Format), Order: strings.ToLower(o.Order), Plies: o.Plies, Start: o.Start}
	}
	if s := fc.SPRT; s != nil {
		sp := stats.SPRT{Elo0: s.Elo0, Elo1: s.Elo1, Alpha: 0.05, Beta: 0.05, Model: stats.Model(strings.ToLower(s.Model))}
		if s.Alpha != nil {
			sp.Alpha = *s.Alpha
		}
		if s.Beta != nil {
			sp.Beta = *s.Beta
		}
		if sp.Model == "" {
			sp.Model = stats.Normalized
		}
		if err := sp.Validate(); err != nil {
			return bad("sprt", err)
		}
		cfg.SPRT = &sp
	}
	if fc.Draw != nil {
		cfg.Draw = *fc.Draw
	}
	if r := fc.Resign; r != nil {
		cfg.Resign = ResignRule{MoveCount: r.MoveCount, Score: r.Score, TwoSided: r.TwoSided == nil || *r.TwoSided}
	}
	return cfg, nil
}

// engine converts a TOML engine table through the same checks as the
// command line's KEY=VALUE.
func (fe *fileEngine) engine(each bool) (EngineConfig, error) {
	var e EngineConfig
	set := func(k, v string) error { return applyEngineKey(&e, k, v, each) }
	var kv [][2]string
	if fe.Cmd != "" {
		kv = append(kv, [2]string{"cmd", fe.Cmd})
	}
	if fe.Name != "" {
		kv = append(kv, [2]string{"name", fe.Name})
	}
	if fe.Dir != "" {
		kv = append(kv, [2]string{"dir", fe.Dir})
	}
	for _, a := range fe.Args {
		kv = append(kv, [2]string{"arg", a})
	}
	if fe.TC != "" {
		kv = append(kv, [2]string{"tc", fe.TC})
	}
	if fe.ST != 0 {
		kv = append(kv, [2]string{"st", strconv.FormatFloat(fe.ST, 'g', -1, 64)})
	}
	if fe.Nodes != 0 {
		kv = append(kv, [2]string{"nodes", strconv.FormatInt(fe.Nodes, 10)})
	}
	if fe.Depth != 0 {
		kv = append(kv, [2]string{"depth", strconv.Itoa(fe.Depth)})
	}
	if fe.TimeMargin != nil {
		kv = append(kv, [2]string{"timemargin", strconv.Itoa(*fe.TimeMargin)})
	}
	if fe.Timeout != 0 {
		kv = append(kv, [2]string{"timeout", strconv.FormatFloat(fe.Timeout, 'g', -1, 64)})
	}
	for _, x := range kv {
		if err := set(x[0], x[1]); err != nil {
			return e, err
		}
	}
	names := make([]string, 0, len(fe.Options))
	for n := range fe.Options {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		var v string
		switch x := fe.Options[n].(type) {
		case string:
			v = x
		case bool:
			v = strconv.FormatBool(x)
		case int64:
			v = strconv.FormatInt(x, 10)
		case float64:
			if x != math.Trunc(x) {
				v = strconv.FormatFloat(x, 'g', -1, 64)
			} else {
				v = strconv.FormatInt(int64(x), 10)
			}
		default:
			return e, fmt.Errorf("options.%s: want a string, number or boolean, got %T", n, x)
		}
		if err := set("option."+n, v); err != nil {
			return e, err
		}
	}
	return e, nil
}
