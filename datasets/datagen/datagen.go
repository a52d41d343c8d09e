// Package datagen plays self-play games with nnuelab's own search and writes
// their positions as a data set (any datasets format) with a manifest beside
// it: deterministic by seed whatever the thread count, sharded, resumable
// after a kill, optionally adjudicated by Syzygy tables (`nnuelab datagen`,
// an experiment's datagen task).
package datagen

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/klauspost/compress/zstd"

	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/datasets/internal/runparts"
	"github.com/nnuelab/nnuelab/datasets/internal/splitmix"
	"github.com/nnuelab/nnuelab/datasets/internal/tablebase"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/eval"
	"github.com/nnuelab/nnuelab/engine/search"
	"github.com/nnuelab/nnuelab/engine/syzygy"
	"github.com/nnuelab/nnuelab/internal/cputime"
	"github.com/nnuelab/nnuelab/internal/fsutil"
	"github.com/nnuelab/nnuelab/internal/version"
)

// Config holds every self-play setting. All fields but Threads decide the
// output: the same Config gives the same games, whatever the thread count
// and however often the run is interrupted and resumed.
type Config struct {
	// Seed selects the game stream.
	Seed uint64 `toml:"seed"`
	// Games is the number of games of the whole run, over all shards
	// (0: no game limit; Positions must then be set).
	Games int64 `toml:"games"`
	// Positions stops a shard at the end of the first chunk at which it has
	// written at least ceil(Positions/Shards) positions (0: no limit).
	Positions int64 `toml:"positions"`
	// Shard (1-based) of Shards: the shard plays the games whose index is
	// Shard-1 modulo Shards. Shards of one seed never share a game, and
	// together they play exactly the games of a one-shard run.
	Shard  int `toml:"shard"`
	Shards int `toml:"shards"`

	// Arch and EvalFile name the evaluator (any eval.New accepts).
	Arch           string `toml:"arch"`
	EvalFile       string `toml:"evalfile"`
	EvalFileSHA256 string `toml:"evalfile_sha256"` // filled in by Generate
	// Nodes per move (and Depth, if not 0) limit each search.
	Nodes uint64 `toml:"nodes"`
	Depth int    `toml:"depth"`
	// SoftNodes > 0 ends a move's search at the end of the first
	// iteration that has searched this many nodes (Nodes, if set, still
	// stops it mid-iteration). Left out of the TOML and JSON forms when 0,
	// as are the settings below added after the first sets were made, so
	// that their manifests and keys stay as they were.
	SoftNodes uint64 `toml:"soft_nodes,omitzero" json:",omitempty"`
	// HashMB is the size of the transposition table both sides share.
	HashMB int `toml:"hash_mb"`
	// NoMoveLoopPruning searches every move of a shallow node (no
	// late-move, futility, history or SEE pruning in the move loop;
	// search.Searcher.SetMoveLoopPruning), CudAD's setting for Koivisto's
	// self-play. Left out of the TOML and JSON forms when false.
	NoMoveLoopPruning bool `toml:"no_move_loop_pruning,omitempty" json:",omitempty"`

	// RandomPlies uniformly random legal moves open each game, played from
	// the start position or from a random line of Book (an EPD file).
	RandomPlies int    `toml:"random_plies"`
	Book        string `toml:"book"`
	BookSHA256  string `toml:"book_sha256"` // filled in by Generate
	// Start is where games start before the random plies: "" (or
	// "standard") the start position, StartChess960 one of the 960
	// Chess960 positions, StartDFRC each side's back rank drawn on its own
	// (double Fischer random, 921,600 starts); uniformly at random.
	Start string `toml:"start,omitempty" json:",omitempty"`
	// MaxOpeningScore > 0 keeps only balanced openings: after the random
	// plies a search at the game's limits scores the position, and one
	// scored beyond ±MaxOpeningScore centipawns is thrown away for the
	// game's next random opening (random plies otherwise open many games
	// already decided, whose positions teach a net little). 0: every
	// opening is played. Left out of the TOML and JSON forms when 0, so
	// that manifests and experiments' keys of sets made before it existed
	// stay as they were.
	MaxOpeningScore int `toml:"max_opening_score,omitzero" json:",omitempty"`

	// MinPly: positions are recorded from this game ply on.
	MinPly int `toml:"min_ply"`
	// Keep says which positions are recorded: "quiet" (or empty, the
	// default) only those a trainer uses, i.e. from MinPly on, not in
	// check, best move neither a capture nor a promotion, no mate score;
	// "all" every position the search played from, with its move, so that
	// a game's positions chain in binpack at about 2 bytes each and the
	// trainer filters (datasets.Filter) as Stockfish's trainer does.
	Keep string `toml:"keep,omitempty"`
	// A win is adjudicated when |score| > WinScore for WinPlies plies in a
	// row (same side ahead); a draw when |score| < DrawScore for DrawPlies
	// plies in a row once the game is DrawMinPly plies long.
	WinScore   int `toml:"win_score"`
	WinPlies   int `toml:"win_plies"`
	DrawScore  int `toml:"draw_score"`
	DrawPlies  int `toml:"draw_plies"`
	DrawMinPly int `toml:"draw_min_ply"`
	// MaxPlies ends a game as a draw (0: no limit).
	MaxPlies int `toml:"max_plies"`

	// ChunkGames is the number of games per output chunk.
	ChunkGames int `toml:"chunk_games"`

	// Syzygy, if set, names directories of Syzygy endgame tables
	// (separated by ':'): both sides search with them, and a game ends as
	// soon as its position is in them, with the tables' result under the
	// fifty-move rule (TermTablebase). The path is not part of the
	// output's identity; SyzygyTables, filled in by Generate, is: every
	// table file found, as NAME:CHECKSUM (the checksum embedded in the
	// file, as the official lists give it).
	Syzygy       string   `toml:"-" json:",omitempty"`
	SyzygyTables []string `toml:"syzygy_tables,omitempty" json:",omitempty"`
	tables       *syzygy.Tables

	// Threads is the number of games played at once.
	Threads int `toml:"-"`
}

// DefaultConfig returns the settings Koivisto's data used: 10 random
// plies, positions from ply 16, 5000 nodes per move with one 16 MB table for
// both sides, win adjudication at |score| > 1500 for 4 plies, draw
// adjudication at |score| < 8 for 10 plies from ply 80, the classical
// evaluator.
func DefaultConfig() Config {
	return Config{
		Seed:        1,
		Shard:       1,
		Shards:      1,
		Arch:        eval.Classical,
		Nodes:       5000,
		HashMB:      16,
		RandomPlies: 10,
		MinPly:      16,
		WinScore:    1500,
		WinPlies:    4,
		DrawScore:   8,
		DrawPlies:   10,
		DrawMinPly:  80,
		MaxPlies:    600,
		ChunkGames:  64,
		Threads:     1,
	}
}

func (c *Config) check() error {
	switch {
	case c.Seed > 1<<63-1:
		return fmt.Errorf("seed %d: want at most 2^63-1", c.Seed)
	case c.Shards < 1 || c.Shard < 1 || c.Shard > c.Shards:
		return fmt.Errorf("shard %d/%d: want 1 <= k <= N", c.Shard, c.Shards)
	case c.Games < 0 || c.Positions < 0:
		return errors.New("games and positions must not be negative")
	case c.Games == 0 && c.Positions == 0:
		return errors.New("set games or positions (or both)")
	case c.Nodes == 0 && c.Depth == 0 && c.SoftNodes == 0:
		return errors.New("set nodes, soft nodes or depth per move")
	case c.Depth < 0 || c.Depth >= search.MaxPly:
		return fmt.Errorf("depth %d outside 0..%d", c.Depth, search.MaxPly-1)
	case c.HashMB < 1:
		return fmt.Errorf("hash %d MB: want at least 1", c.HashMB)
	case c.MaxOpeningScore < 0:
		return fmt.Errorf("max opening score %d: want 0 (off) or a positive bound in centipawns", c.MaxOpeningScore)
	case c.RandomPlies < 0 || c.MinPly < 0 || c.WinPlies < 1 || c.DrawPlies < 1 || c.DrawMinPly < 0 || c.MaxPlies < 0:
		return errors.New("ply counts must not be negative (win and draw plies at least 1)")
	case c.ChunkGames < 1:
		return fmt.Errorf("chunk games %d: want at least 1", c.ChunkGames)
	case c.Keep != "" && c.Keep != KeepQuiet && c.Keep != KeepAll:
		return fmt.Errorf("keep %q: want %q or %q", c.Keep, KeepQuiet, KeepAll)
	case c.Threads < 1:
		return fmt.Errorf("threads %d: want at least 1", c.Threads)
	case c.SoftNodes > 0 && c.Nodes > 0 && c.SoftNodes > c.Nodes:
		return fmt.Errorf("soft nodes %d above the hard limit of %d nodes", c.SoftNodes, c.Nodes)
	case c.Start != "" && c.Start != StartStandard && c.Start != StartChess960 && c.Start != StartDFRC:
		return fmt.Errorf("start %q: want %s, %s or %s", c.Start, StartStandard, StartChess960, StartDFRC)
	case c.Start != "" && c.Start != StartStandard && c.Book != "":
		return fmt.Errorf("start %s and a book: a game starts from one or the other", c.Start)
	}
	return nil
}

// The start positions of Config.Start.
const (
	StartStandard = "standard"
	StartChess960 = "chess960"
	StartDFRC     = "dfrc"
)

// randomBackRank draws one of the 960 Chess960 back ranks uniformly: a
// bishop on a random light and a random dark square, the queen and the
// knights on random free squares, then rook, king, rook on the three left.
func randomBackRank(r *splitmix.RNG) [8]byte {
	var rank [8]byte
	rank[2*r.Intn(4)+1] = 'B' // light squares of White's first rank: b1, d1, f1, h1
	rank[2*r.Intn(4)] = 'B'
	put := func(pc byte, k int) { // on the k-th free square
		for i := range rank {
			if rank[i] == 0 {
				if k == 0 {
					rank[i] = pc
					return
				}
				k--
			}
		}
	}
	put('Q', r.Intn(6))
	put('N', r.Intn(5))
	put('N', r.Intn(4))
	put('R', 0)
	put('K', 0)
	put('R', 0)
	return rank
}

// startFEN returns a random start position of the kind Config.Start
// names, in Shredder-FEN (castling rights by the rooks' files).
func startFEN(kind string, r *splitmix.RNG) string {
	white := randomBackRank(r)
	black := white
	if kind == StartDFRC {
		black = randomBackRank(r)
	}
	rights := func(rank [8]byte, file func(int) byte) string {
		var out []byte
		for i := 7; i >= 0; i-- { // the h-side rook first, as Shredder-FEN writes
			if rank[i] == 'R' {
				out = append(out, file(i))
			}
		}
		return string(out)
	}
	return fmt.Sprintf("%s/pppppppp/8/8/8/8/PPPPPPPP/%s w %s%s - 0 1",
		strings.ToLower(string(black[:])), string(white[:]),
		rights(white, func(i int) byte { return 'A' + byte(i) }), rights(black, func(i int) byte { return 'a' + byte(i) }))
}

// localGames returns how many games the shard plays (-1: no game limit).
func (c *Config) localGames() int64 {
	if c.Games == 0 {
		return -1
	}
	k := int64(c.Shard - 1)
	if c.Games <= k {
		return 0
	}
	return (c.Games-k-1)/int64(c.Shards) + 1
}

// The values of Config.Keep.
const (
	KeepQuiet = "quiet"
	KeepAll   = "all"
)

// Termination names how a game ended.
const (
	TermCheckmate    = "checkmate"
	TermStalemate    = "stalemate"
	TermRepetition   = "repetition"
	TermFiftyMoves   = "fifty-moves"
	TermMaterial     = "insufficient-material"
	TermAdjudgedWin  = "adjudicated-win"
	TermAdjudgedDraw = "adjudicated-draw"
	TermMaxPlies     = "max-plies"
	TermTablebase    = "tablebase"
)

// Game is one self-play game's outcome and recorded positions.
type Game struct {
	Index       uint64 // global game index (the game's seed stream)
	Plies       int
	Result      datasets.Result
	Termination string
	Records     []datasets.Record
	// Rejected counts the openings thrown away before this game's for
	// scoring beyond Config.MaxOpeningScore.
	Rejected int
	// Nodes is what the game's searches searched, its opening's included.
	Nodes uint64
}

// player plays games with one searcher and one table for both sides.
type player struct {
	nodes uint64 // searched so far, for Game.Nodes
	cfg   *Config
	tt    *search.TT
	s     *search.Searcher
	ev    eval.Evaluator
	// tbErr holds the first probe in search that failed on a damaged
	// table: the game stops with it.
	tbErr atomic.Pointer[error]
	book  []string
}

func newPlayer(cfg *Config, book []string) (*player, error) {
	ev, err := eval.New(cfg.Arch, cfg.EvalFile)
	if err != nil {
		return nil, err
	}
	tt, err := search.NewTT(cfg.HashMB)
	if err != nil {
		return nil, err
	}
	if n, ok := ev.(eval.Notifier); ok {
		// A plugin's failure stops the run (search below), not a message
		// while the fallback evaluation plays on.
		n.SetNotify(func(string) {})
	}
	pl := &player{cfg: cfg, tt: tt, s: search.New(ev, tt), ev: ev, book: book}
	pl.s.SetMoveLoopPruning(!cfg.NoMoveLoopPruning)
	if cfg.tables != nil {
		pl.s.SetTablebase(search.TBConfig{Tables: search.Syzygy(cfg.tables), ProbeDepth: 1, Rule50: true,
			Warn: func(err error) { pl.tbErr.CompareAndSwap(nil, &err) }})
	}
	return pl, nil
}

// SyzygyTables lists the Syzygy table files in dirs (separated by ':') as
// NAME:CHECKSUM, sorted: the tables' identity, wherever they are (the
// checksum is the one embedded at each file's end, as the official lists
// give it; tb check verifies it).
func SyzygyTables(dirs string) ([]string, error) {
	t, sums, err := tablebase.Open(dirs)
	if err != nil {
		return nil, err
	}
	t.Close()
	return sums, nil
}

// openTables opens the tables of cfg.Syzygy for the run and records which
// they are in cfg.SyzygyTables.
func openTables(cfg *Config) (*syzygy.Tables, error) {
	t, sums, err := tablebase.Open(cfg.Syzygy)
	if err != nil {
		return nil, err
	}
	cfg.SyzygyTables, cfg.tables = sums, t
	return t, nil
}

// opening returns the position after the book line and random plies of
// game g, with the number of openings thrown away before it as unbalanced
// (MaxOpeningScore), or an error if 1000 attempts all ended the game
// during the random plies or were unbalanced.
func (pl *player) opening(ctx context.Context, r *splitmix.RNG) (*board.Position, int, error) {
	var ml board.MoveList
	rejected := 0
	for attempt := 0; attempt < 1000; attempt++ {
		p := board.StartPosition()
		if pl.cfg.Start == StartChess960 || pl.cfg.Start == StartDFRC {
			var err error
			if p, err = board.ParseFEN(startFEN(pl.cfg.Start, r)); err != nil {
				return nil, 0, fmt.Errorf("start: %w", err)
			}
		}
		if len(pl.book) > 0 {
			line := pl.book[r.Intn(len(pl.book))]
			var err error
			if p, err = board.ParseFEN(line); err != nil {
				return nil, 0, fmt.Errorf("book: %w", err)
			}
		}
		ok := true
		for i := 0; i < pl.cfg.RandomPlies; i++ {
			p.GenerateLegal(&ml)
			if ml.N == 0 {
				ok = false
				break
			}
			p.MakeMove(ml.Moves[r.Intn(ml.N)])
		}
		if !ok || p.CountLegal() == 0 {
			continue
		}
		if max := pl.cfg.MaxOpeningScore; max > 0 {
			sr, err := pl.search(ctx, p)
			if err != nil {
				return nil, 0, err
			}
			if sr.Score > max || sr.Score < -max {
				rejected++
				continue
			}
		}
		return p, rejected, nil
	}
	return nil, 0, fmt.Errorf("no playable opening in 1000 attempts (%d unbalanced beyond ±%d cp)", rejected, pl.cfg.MaxOpeningScore)
}

// search scores p at the game's limits from a cleared table and
// histories, so that the result depends on p alone.
func (pl *player) search(ctx context.Context, p *board.Position) (search.Result, error) {
	pl.tt.Clear()
	pl.s.Clear()
	sctx, cancel := searchWatch(ctx)
	defer cancel()
	sr := pl.s.Search(sctx, p, search.Limits{Nodes: pl.cfg.Nodes, Depth: pl.cfg.Depth, SoftNodes: pl.cfg.SoftNodes}, nil)
	pl.nodes += sr.Nodes
	if err := ctx.Err(); err != nil {
		return sr, err
	}
	if sctx.Err() != nil {
		return sr, fmt.Errorf("the search of %s did not end within %v of CPU time (a search bug: the run stops rather than hang; the position reproduces it)", p.FEN(), searchTimeout)
	}
	return sr, pl.fault(p)
}

// fault is the error of a search whose evaluator answered from its
// fallback (a plugin that died): the run stops rather than put another
// evaluation's games into a set whose manifest names this one. Its
// finished games are kept for a rerun.
func (pl *player) fault(p *board.Position) error {
	if err := eval.Fault(pl.ev); err != nil {
		return fmt.Errorf("evaluator %s, searching %s: %w; datagen stopped (its positions would mix in the fallback evaluation; finished games are kept, rerun to go on)", pl.cfg.Arch, p.FEN(), err)
	}
	return nil
}

// searchTimeout bounds one move's search in self-play. A search at the
// node counts datagen uses takes milliseconds; one that runs for minutes is
// a bug (one did: engine/search TestPoisonedTableEval), and a run must stop
// loudly, not hang with its other thread waiting on the chunk.
var searchTimeout = 5 * time.Minute

// searchWatch returns a context that ends once the process has spent
// searchTimeout of CPU time since the call. A search that does not end
// burns CPU; a process that is stopped (SIGSTOP, a suspended machine) or
// starved by other work does not, and is not taken for a hung search, as
// a wall-clock timeout took it. Without a process CPU clock it falls back
// to wall time.
func searchWatch(ctx context.Context) (context.Context, context.CancelFunc) {
	cpu0 := cputime.Process()
	if cpu0 == 0 {
		return context.WithTimeout(ctx, searchTimeout)
	}
	sctx, cancel := context.WithCancel(ctx)
	go func() {
		tick := time.NewTicker(min(time.Second, searchTimeout))
		defer tick.Stop()
		for {
			select {
			case <-sctx.Done():
				return
			case <-tick.C:
				if cputime.Process()-cpu0 >= searchTimeout {
					cancel()
					return
				}
			}
		}
	}()
	return sctx, cancel
}

// play plays game g. Its moves depend only on the settings and g: the table
// and the searcher's histories are cleared first.
func (pl *player) play(ctx context.Context, g uint64) (game *Game, err error) {
	cfg := pl.cfg
	r := splitmix.New(cfg.Seed, g)
	nodes0 := pl.nodes
	defer func() {
		if game != nil {
			game.Nodes = pl.nodes - nodes0
		}
	}()
	p, rejected, err := pl.opening(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("game %d: %w", g, err)
	}
	pl.tt.Clear()
	pl.s.Clear()
	game = &Game{Index: g, Rejected: rejected}
	lim := search.Limits{Nodes: cfg.Nodes, Depth: cfg.Depth, SoftNodes: cfg.SoftNodes}
	winStreak, drawStreak := 0, 0
	plies := p.Ply() // plies played in this game, the random ones included
	var result datasets.Result
	for {
		if term, res, over := gameOver(p, plies, cfg.MaxPlies); over {
			game.Termination, result = term, res
			break
		}
		if res, ok, err := tablebase.Result(pl.cfg.tables, p); err != nil {
			return nil, fmt.Errorf("game %d: %w", g, err)
		} else if ok {
			game.Termination, result = TermTablebase, res
			break
		}
		sctx, cancel := searchWatch(ctx)
		sr := pl.s.Search(sctx, p, lim, nil)
		pl.nodes += sr.Nodes
		stuck := sctx.Err() != nil && ctx.Err() == nil
		cancel()
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if stuck {
			return nil, fmt.Errorf("game %d: the search of %s did not end within %v of CPU time (a search bug: the run stops rather than hang; the position reproduces it)", g, p.FEN(), searchTimeout)
		}
		if err := pl.fault(p); err != nil {
			return nil, fmt.Errorf("game %d: %w", g, err)
		}
		if sr.Best == board.NullMove {
			return nil, fmt.Errorf("game %d: search returned no move in %s", g, p.FEN())
		}
		if err := pl.tbErr.Load(); err != nil {
			return nil, fmt.Errorf("game %d: syzygy tables in search: %w", g, *err)
		}
		white := sr.Score
		if p.SideToMove() == board.Black {
			white = -white
		}
		mate := sr.Score >= search.MateBound || sr.Score <= -search.MateBound
		if cfg.Keep == KeepAll || plies >= cfg.MinPly && !mate && !p.InCheck() && !noisy(p, sr.Best) {
			rec, err := datasets.FromPosition(p, white, datasets.Draw)
			if err != nil {
				return nil, fmt.Errorf("game %d: %w", g, err)
			}
			rec.Move = sr.Best
			game.Records = append(game.Records, rec)
		}
		// Adjudication on the scores of consecutive plies.
		switch {
		case white > cfg.WinScore:
			winStreak = max(winStreak, 0) + 1
		case white < -cfg.WinScore:
			winStreak = min(winStreak, 0) - 1
		default:
			winStreak = 0
		}
		if white < cfg.DrawScore && white > -cfg.DrawScore {
			drawStreak++
		} else {
			drawStreak = 0
		}
		p.MakeMove(sr.Best)
		plies++
		if winStreak >= cfg.WinPlies {
			game.Termination, result = TermAdjudgedWin, datasets.WhiteWin
			break
		}
		if -winStreak >= cfg.WinPlies {
			game.Termination, result = TermAdjudgedWin, datasets.BlackWin
			break
		}
		if drawStreak >= cfg.DrawPlies && plies >= cfg.DrawMinPly {
			game.Termination, result = TermAdjudgedDraw, datasets.Draw
			break
		}
	}
	game.Plies, game.Result = plies, result
	for i := range game.Records {
		game.Records[i].Result = result
	}
	return game, nil
}

// gameOver applies the rules: mate, stalemate, threefold repetition, the
// fifty-move rule, dead positions and the ply limit.
func gameOver(p *board.Position, plies, maxPlies int) (string, datasets.Result, bool) {
	if p.CountLegal() == 0 {
		if p.InCheck() {
			if p.SideToMove() == board.White {
				return TermCheckmate, datasets.BlackWin, true
			}
			return TermCheckmate, datasets.WhiteWin, true
		}
		return TermStalemate, datasets.Draw, true
	}
	switch {
	case p.Repetitions() >= 2:
		return TermRepetition, datasets.Draw, true
	case p.HalfmoveClock() >= 100:
		return TermFiftyMoves, datasets.Draw, true
	case p.InsufficientMaterial():
		return TermMaterial, datasets.Draw, true
	case maxPlies > 0 && plies >= maxPlies:
		return TermMaxPlies, datasets.Draw, true
	}
	return "", datasets.Draw, false
}

// noisy reports whether m captures or promotes.
func noisy(p *board.Position, m board.Move) bool {
	switch m.Kind() {
	case board.Promotion, board.EnPassant:
		return true
	case board.Castling:
		return false
	}
	return p.PieceOn(m.To()) != board.NoPiece
}

// Progress is a progress report of a running Generate.
type Progress struct {
	Games, Positions int64 // done so far, resumed work included
	// NewPositions were generated by this process in Elapsed, searching
	// NewNodes nodes (openings scored included): the datagen rate's bound
	// is the search's nodes per second over NewNodes/NewPositions.
	NewPositions int64
	NewNodes     uint64
	Elapsed      time.Duration
	// TargetGames and TargetPositions are the shard's goals (0: none).
	TargetGames, TargetPositions int64
}

// Rate returns this process's positions per second.
func (g Progress) Rate() float64 {
	if g.Elapsed <= 0 {
		return 0
	}
	return float64(g.NewPositions) / g.Elapsed.Seconds()
}

// ETA estimates the time left, or -1 if unknown.
func (g Progress) ETA() time.Duration {
	rate := g.Rate()
	if rate <= 0 {
		return -1
	}
	left := -1.0
	if g.TargetPositions > 0 {
		left = float64(g.TargetPositions - g.Positions)
	}
	if g.TargetGames > 0 && g.Games > 0 {
		l := float64(g.TargetGames-g.Games) * float64(g.Positions) / float64(g.Games)
		if left < 0 || l < left {
			left = l
		}
	}
	if left < 0 {
		return -1
	}
	return time.Duration(left / rate * float64(time.Second))
}

// Options are the parts of a run that do not change its output.
type Options struct {
	// Command is recorded in the manifest.
	Command string
	// Progress, if not nil, is called about once a second, and once at the
	// end.
	Progress func(Progress)
}

// Summary counts what a run produced.
type Summary struct {
	Games        int64            `toml:"games"`
	Positions    int64            `toml:"positions"`
	Plies        int64            `toml:"plies"`
	GameResults  map[string]int64 `toml:"game_results"`     // "1.0", "0.5", "0.0"
	PosResults   map[string]int64 `toml:"position_results"` // by the game's result
	Terminations map[string]int64 `toml:"terminations"`
	// OpeningsRejected counts the openings thrown away as unbalanced
	// (Config.MaxOpeningScore).
	OpeningsRejected int64 `toml:"openings_rejected,omitzero"`
}

// Manifest is written beside the output as OUT.manifest.toml.
type Manifest struct {
	Command        string  `toml:"command"`
	EngineRevision string  `toml:"engine_revision"`
	GoVersion      string  `toml:"go_version"`
	Output         string  `toml:"output"`
	Format         string  `toml:"format"`
	SHA256         string  `toml:"sha256"`
	Bytes          int64   `toml:"bytes"`
	Settings       Config  `toml:"settings"`
	Summary        Summary `toml:"summary"`
}

func readBook(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		l := strings.TrimSpace(sc.Text())
		if l == "" || l[0] == '#' {
			continue
		}
		if _, err := board.ParseFEN(l); err != nil {
			return nil, fmt.Errorf("%s: line %d: %w", path, n, err)
		}
		lines = append(lines, l)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if len(lines) == 0 {
		return nil, fmt.Errorf("%s: no positions", path)
	}
	return lines, nil
}

// settingsText is the canonical TOML of the settings that decide the output.
// A net or book named by path counts by its content: where its sha256 is
// known the path is left out, so that a finished or half-played run is
// recognised from any checkout (a committed shard's manifest records the
// path it was made with, which another clone does not have).
func settingsText(cfg Config) (string, error) {
	if cfg.EvalFileSHA256 != "" {
		cfg.EvalFile = ""
	}
	if cfg.BookSHA256 != "" {
		cfg.Book = ""
	}
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(cfg); err != nil {
		return "", err
	}
	return b.String(), nil
}

// Generate plays self-play games and writes their positions to out (format
// by name: .txt, .txt.zst or .bin), with OUT.manifest.toml beside it.
//
// Work is kept in datasets.PartsDir(out): every finished game is written at once (temp
// file + rename) and every ChunkGames games are merged into a chunk, so a
// kill loses only the games being played. Running Generate again with the
// same settings continues from there, and the final output is the same as
// an uninterrupted run's. Different settings for an existing run are an
// error. When all games are done the chunks are merged into out, the
// manifest is written and the parts directory is removed.
func Generate(ctx context.Context, cfg Config, out string, opt Options) (*Manifest, error) {
	// The revision the manifest records is looked up (once) now: for a
	// binary without a VCS stamp it is a guess from the working tree, which
	// is right when the run starts and may have moved on when it ends.
	version.Revision()
	if err := cfg.check(); err != nil {
		return nil, err
	}
	format, err := datasets.FormatOf(out)
	if err != nil {
		return nil, err
	}
	var book []string
	if cfg.Book != "" {
		if book, err = readBook(cfg.Book); err != nil {
			return nil, err
		}
	}
	if err := hashFiles(&cfg); err != nil {
		return nil, err
	}
	if cfg.Syzygy != "" {
		t, err := openTables(&cfg)
		if err != nil {
			return nil, err
		}
		defer t.Close()
	}
	// Fail early on a bad evaluator or table size.
	if _, err := newPlayer(&cfg, book); err != nil {
		return nil, err
	}
	settings, err := settingsText(cfg)
	if err != nil {
		return nil, err
	}

	parts := datasets.PartsDir(out)
	_, partsErr := os.Stat(parts)
	if _, err := os.Stat(out); err == nil && (os.IsNotExist(partsErr) || runparts.OutputComplete(out)) {
		// Finished (a kill may have interrupted the removal of the parts).
		m, err := finishedRun(out, settings)
		if err == nil && partsErr == nil {
			err = os.RemoveAll(parts)
		}
		return m, err
	}
	if err := os.MkdirAll(parts, 0o755); err != nil {
		return nil, err
	}
	unlock, err := runparts.Lock(parts, opt.Command)
	if err != nil {
		return nil, err
	}
	defer unlock()
	if runparts.OutputComplete(out) {
		// Finished by the run that held the lock a moment ago.
		m, err := finishedRun(out, settings)
		if err == nil {
			err = os.RemoveAll(parts)
		}
		return m, err
	}
	settingsFile := filepath.Join(parts, "settings.toml")
	if old, err := os.ReadFile(settingsFile); err == nil {
		if string(old) != settings {
			return nil, fmt.Errorf("%s holds a run with other settings (%s); use another output name or remove it", parts, settingsFile)
		}
	} else if os.IsNotExist(err) {
		if err := fsutil.WriteFileAtomic(settingsFile, []byte(settings), 0o644); err != nil {
			return nil, err
		}
	} else {
		return nil, err
	}

	// Temp files of a merge a kill interrupted (a live process's are
	// left alone: datasets.RemoveStaleTemps checks their owner).
	if err := runparts.RemoveStaleOutputTemps(out); err != nil {
		return nil, err
	}
	run := &genRun{cfg: &cfg, parts: parts, book: book, opt: opt}
	if err := run.scan(); err != nil {
		return nil, err
	}
	last, err := run.play(ctx)
	if err != nil {
		return nil, err
	}
	return run.merge(out, format, last)
}

// finishedRun returns the manifest of a finished run, checking that it was
// made with these settings.
func finishedRun(out, settings string) (*Manifest, error) {
	var m Manifest
	if _, err := toml.DecodeFile(datasets.ManifestPath(out), &m); err != nil {
		return nil, fmt.Errorf("%s exists but its manifest cannot be read (%w); remove it to regenerate", out, err)
	}
	old, err := settingsText(m.Settings)
	if err != nil {
		return nil, err
	}
	if old != settings {
		return nil, fmt.Errorf("%s was generated with other settings (see %s)", out, datasets.ManifestPath(out))
	}
	return &m, nil
}

// genRun is the state of one Generate call.
type genRun struct {
	cfg   *Config
	parts string
	book  []string
	opt   Options

	chunkPos  map[int64]int64 // positions of each finished chunk
	gameFiles map[int64]bool  // local game index -> game file present
	games     int64           // games done (chunks and game files)
	positions int64           // positions done
}

func (r *genRun) chunkFile(c int64) string {
	return filepath.Join(r.parts, fmt.Sprintf("c-%08d.txt.zst", c))
}

func (r *genRun) gameFile(j int64) string {
	return filepath.Join(r.parts, fmt.Sprintf("g-%010d.txt", j))
}

// global returns the global game index of the shard's j-th game.
func (r *genRun) global(j int64) uint64 {
	return uint64(j)*uint64(r.cfg.Shards) + uint64(r.cfg.Shard-1)
}

// chunkRange returns the shard's local game indices of chunk c.
func (r *genRun) chunkRange(c int64) (lo, hi int64) {
	g := int64(r.cfg.ChunkGames)
	lo, hi = c*g, (c+1)*g
	if n := r.cfg.localGames(); n >= 0 && hi > n {
		hi = n
	}
	return lo, hi
}

// scan finds the finished chunks and games of an earlier run and removes
// temp files a kill left behind.
func (r *genRun) scan() error {
	r.chunkPos = map[int64]int64{}
	r.gameFiles = map[int64]bool{}
	// Temporaries of game, chunk and settings files whose process died
	// (a live process's are left: their names start with a dot, so they
	// are not read as games or chunks either).
	if _, err := datasets.RemoveStaleTempsIn(r.parts); err != nil {
		return err
	}
	ents, err := os.ReadDir(r.parts)
	if err != nil {
		return err
	}
	for _, e := range ents {
		name := e.Name()
		path := filepath.Join(r.parts, name)
		switch {
		case strings.HasPrefix(name, "c-") && strings.HasSuffix(name, ".txt.zst"):
			c, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(name, "c-"), ".txt.zst"), 10, 64)
			if err != nil {
				continue
			}
			games, pos, err := countGameFile(path)
			if err != nil {
				return err
			}
			r.chunkPos[c] = pos
			r.games += games
			r.positions += pos
		case strings.HasPrefix(name, "g-") && strings.HasSuffix(name, ".txt"):
			j, err := strconv.ParseInt(strings.TrimSuffix(strings.TrimPrefix(name, "g-"), ".txt"), 10, 64)
			if err != nil {
				continue
			}
			r.gameFiles[j] = true
		}
	}
	// Game files of finished chunks are leftovers of a kill during a merge.
	for j := range r.gameFiles {
		if _, ok := r.chunkPos[j/int64(r.cfg.ChunkGames)]; ok {
			delete(r.gameFiles, j)
			if err := os.Remove(r.gameFile(j)); err != nil {
				return err
			}
			continue
		}
		games, pos, err := countGameFile(r.gameFile(j))
		if err != nil {
			return err
		}
		r.games += games
		r.positions += pos
	}
	return nil
}

// countGameFile counts the games (header comments) and positions of a game
// or chunk file.
func countGameFile(path string) (games, positions int64, err error) {
	err = runparts.EachLine(path, func(line []byte) error {
		if len(line) > 0 && line[0] == '#' {
			games++
		} else if len(line) > 0 {
			positions++
		}
		return nil
	})
	return games, positions, err
}

// checkGameFile checks a finished game's file before it is packed into a
// chunk (a file damaged on disk would otherwise surface only at the final
// merge, naming the chunk): one header line, then records that parse, each
// move legal. It returns the number of positions.
func checkGameFile(path string, b []byte) (int64, error) {
	bad := func(line int, format string, args ...any) error {
		return fmt.Errorf("%s: line %d: %s (a damaged game file: remove it and rerun to replay the game)", path, line, fmt.Sprintf(format, args...))
	}
	if len(b) == 0 || b[len(b)-1] != '\n' {
		return 0, bad(1, "the file does not end with a newline (truncated)")
	}
	var pos int64
	for i, l := range bytes.Split(b[:len(b)-1], []byte{'\n'}) {
		switch {
		case i == 0:
			if !bytes.HasPrefix(l, []byte("# game ")) {
				return 0, bad(1, "no game header")
			}
		case len(l) == 0 || l[0] == '#':
			return 0, bad(i+1, "a blank or second header line")
		default:
			if _, err := runparts.ParseLine(string(l)); err != nil {
				return 0, bad(i+1, "%v", err)
			}
			pos++
		}
	}
	return pos, nil
}

// gameText is a game as it is stored in a game file: a header comment and
// its positions, each a text line with the move played appended (partLine).
func gameText(g *Game) []byte {
	var b bytes.Buffer
	fmt.Fprintf(&b, "# game %d plies %d result %s termination %s", g.Index, g.Plies, g.Result, g.Termination)
	if g.Rejected > 0 {
		fmt.Fprintf(&b, " rejected %d", g.Rejected)
	}
	b.WriteByte('\n')
	for i := range g.Records {
		b.WriteString(runparts.Line(&g.Records[i]))
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// gameDone reports one finished game to the collector.
type gameDone struct {
	j         int64
	positions int64
	nodes     uint64
	err       error
}

// play runs the games still missing and returns the last chunk of the
// output.
func (r *genRun) play(parent context.Context) (int64, error) {
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	cfg := r.cfg
	localGames := cfg.localGames()
	if localGames == 0 {
		return -1, nil // an empty shard
	}
	target := int64(0)
	if cfg.Positions > 0 {
		target = (cfg.Positions + int64(cfg.Shards) - 1) / int64(cfg.Shards)
	}
	// stopChunk is the last chunk of the output once known (-1: not yet).
	stopChunk := int64(-1)
	if localGames >= 0 {
		stopChunk = (localGames+int64(cfg.ChunkGames)-1)/int64(cfg.ChunkGames) - 1
	}
	// With a position target, the last chunk is the first whose prefix
	// sum reaches it.
	var prefix int64
	nextPrefix := int64(0) // first chunk not yet in prefix
	advance := func() {
		for target > 0 && (stopChunk < 0 || nextPrefix <= stopChunk) {
			pos, ok := r.chunkPos[nextPrefix]
			if !ok {
				return
			}
			prefix += pos
			if prefix >= target && (stopChunk < 0 || nextPrefix < stopChunk) {
				stopChunk = nextPrefix
			}
			nextPrefix++
		}
	}
	advance()

	// doneIn counts finished games per unfinished chunk.
	doneIn := map[int64]int64{}
	for j := range r.gameFiles {
		doneIn[j/int64(cfg.ChunkGames)]++
	}
	chunkFull := func(c int64) bool {
		lo, hi := r.chunkRange(c)
		return doneIn[c] == hi-lo
	}
	// Chunks completed by game files alone (a kill before their merge).
	for c := range doneIn {
		if chunkFull(c) {
			if err := r.mergeChunk(c); err != nil {
				return 0, err
			}
			delete(doneIn, c)
		}
	}
	advance()

	needed := func(j int64) bool {
		c := j / int64(cfg.ChunkGames)
		if stopChunk >= 0 && c > stopChunk {
			return false
		}
		if _, ok := r.chunkPos[c]; ok {
			return false
		}
		return !r.gameFiles[j]
	}
	finished := func() bool {
		if stopChunk < 0 {
			return false
		}
		for c := int64(0); c <= stopChunk; c++ {
			if _, ok := r.chunkPos[c]; !ok {
				return false
			}
		}
		return true
	}
	if finished() {
		return stopChunk, nil
	}

	jobs := make(chan int64)
	results := make(chan gameDone, cfg.Threads)
	var wg sync.WaitGroup
	var startErr error
	players := make([]*player, cfg.Threads)
	for i := range players {
		if players[i], startErr = newPlayer(cfg, r.book); startErr != nil {
			return 0, startErr
		}
	}
	for _, pl := range players {
		wg.Add(1)
		go func(pl *player) {
			defer wg.Done()
			for j := range jobs {
				g, err := pl.play(ctx, r.global(j))
				if err == nil {
					err = fsutil.WriteFileAtomic(r.gameFile(j), gameText(g), 0o644)
				}
				if err != nil {
					results <- gameDone{j: j, err: err}
					continue
				}
				results <- gameDone{j: j, positions: int64(len(g.Records)), nodes: g.Nodes}
			}
		}(pl)
	}
	// The dispatcher hands out the missing games in order until the stop
	// chunk is known and reached.
	var mu sync.Mutex
	go func() {
		defer close(jobs)
		for j := int64(0); localGames < 0 || j < localGames; j++ {
			mu.Lock()
			need := needed(j)
			stop := stopChunk >= 0 && j/int64(cfg.ChunkGames) > stopChunk
			mu.Unlock()
			if stop {
				return
			}
			if !need {
				continue
			}
			select {
			case jobs <- j:
			case <-ctx.Done():
				return
			}
		}
	}()
	go func() { wg.Wait(); close(results) }()

	start := time.Now()
	var newPos int64
	var newNodes uint64
	report := func() {
		if r.opt.Progress == nil {
			return
		}
		tg := localGames
		if tg < 0 {
			tg = 0
		}
		r.opt.Progress(Progress{Games: r.games, Positions: r.positions, NewPositions: newPos, NewNodes: newNodes,
			Elapsed: time.Since(start), TargetGames: tg, TargetPositions: target})
	}
	tick := time.NewTicker(time.Second)
	defer tick.Stop()
	var firstErr error
	for {
		select {
		case d, ok := <-results:
			if !ok {
				report()
				if err := parent.Err(); err != nil {
					return 0, err
				}
				if firstErr != nil {
					return 0, firstErr
				}
				if !finished() {
					return 0, errors.New("internal error: games ran out before the output was complete")
				}
				return stopChunk, nil
			}
			if d.err != nil {
				// Cancelled games are those beyond the end, or an interrupt
				// (reported from parent above).
				if firstErr == nil && !errors.Is(d.err, context.Canceled) {
					firstErr = d.err
					cancel()
				}
				continue
			}
			mu.Lock()
			r.gameFiles[d.j] = true
			r.games++
			r.positions += d.positions
			newPos += d.positions
			newNodes += d.nodes
			c := d.j / int64(cfg.ChunkGames)
			doneIn[c]++
			var err error
			if chunkFull(c) {
				err = r.mergeChunk(c)
				delete(doneIn, c)
				advance()
			}
			done := finished()
			mu.Unlock()
			if err != nil && firstErr == nil {
				firstErr = err
				cancel()
			}
			if done {
				cancel() // games beyond the stop chunk are not needed
			}
		case <-tick.C:
			mu.Lock()
			report()
			mu.Unlock()
		}
	}
}

// mergeChunk writes chunk c from its game files and removes them.
func (r *genRun) mergeChunk(c int64) error {
	lo, hi := r.chunkRange(c)
	path := r.chunkFile(c)
	af, err := fsutil.Create(path, 0o644)
	if err != nil {
		return err
	}
	zw, err := zstd.NewWriter(af)
	if err != nil {
		af.Abort()
		return err
	}
	var pos int64
	for j := lo; j < hi; j++ {
		b, err := os.ReadFile(r.gameFile(j))
		if err == nil {
			var n int64
			n, err = checkGameFile(r.gameFile(j), b)
			pos += n
		}
		if err != nil {
			zw.Close()
			af.Abort()
			return err
		}
		if _, err := zw.Write(b); err != nil {
			zw.Close()
			af.Abort()
			return err
		}
	}
	if err := zw.Close(); err != nil {
		af.Abort()
		return err
	}
	if err := af.Commit(); err != nil {
		return err
	}
	r.chunkPos[c] = pos
	for j := lo; j < hi; j++ {
		delete(r.gameFiles, j)
		if err := os.Remove(r.gameFile(j)); err != nil && !os.IsNotExist(err) {
			return err
		}
	}
	return nil
}

// merge writes chunks 0..last to out, then the manifest, then removes the
// parts directory.
func (r *genRun) merge(out string, format datasets.Format, last int64) (*Manifest, error) {
	sum := Summary{GameResults: map[string]int64{}, PosResults: map[string]int64{}, Terminations: map[string]int64{}}
	header := func(_ int64, line []byte) error {
		var idx uint64
		var plies int
		var res, term string
		if _, err := fmt.Sscanf(string(line), "# game %d plies %d result %s termination %s", &idx, &plies, &res, &term); err != nil {
			return fmt.Errorf("bad game header %q", line)
		}
		if _, tail, ok := strings.Cut(string(line), " rejected "); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(tail), 10, 64)
			if err != nil || n < 1 {
				return fmt.Errorf("bad game header %q", line)
			}
			sum.OpeningsRejected += n
		}
		sum.Games++
		sum.Plies += int64(plies)
		sum.GameResults[res]++
		sum.Terminations[term]++
		return nil
	}
	record := func(rec datasets.Record) {
		sum.Positions++
		sum.PosResults[rec.Result.String()]++
	}
	if err := runparts.Merge(out, format, last+1, r.chunkFile, header, record); err != nil {
		return nil, err
	}
	m := &Manifest{
		Command:        r.opt.Command,
		EngineRevision: version.Revision(),
		GoVersion:      version.GoVersion(),
		Output:         filepath.Base(out),
		Format:         format.String(),
		Settings:       *r.cfg,
		Summary:        sum,
	}
	if err := runparts.Finish(out, r.parts, m, &m.SHA256, &m.Bytes); err != nil {
		return nil, err
	}
	return m, nil
}
