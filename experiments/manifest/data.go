package manifest

import (
	"fmt"
	"strings"

	"github.com/nnuelab/nnuelab/datasets/datagen"
)

// This file holds the datasets an experiment makes itself: self-play games
// ([[datagen]]) and positions rescored by a UCI engine ([[label]]). Each is
// split into shards that run as tasks (Slurm array elements on a cluster);
// training data lists name them "datagen:NAME" or "label:NAME", which
// stands for the shards' files in order. Their outputs live in the cache
// beside the trained nets, under a key of everything they depend on, so
// that experiments sharing a dataset make it once.

// DatagenSpec is a self-play dataset (nnuelab datagen) made by the runner.
type DatagenSpec struct {
	// Name is how data lists refer to it ("datagen:NAME").
	Name string `toml:"name" json:"name"`
	// Positions (at least; shards stop at chunk boundaries) or Games of
	// the whole set, over all shards.
	Positions int64 `toml:"positions" json:"positions,omitempty"`
	Games     int64 `toml:"games" json:"games,omitempty"`
	// Shards are separate tasks, one core each (default 1).
	Shards int `toml:"shards" json:"shards"`
	// Seed selects the games (default 1).
	Seed    uint64 `toml:"-" json:"seed"`
	RawSeed int64  `toml:"seed" json:"-"`
	// Arch is the evaluator that plays (default classical); Nodes per move
	// (default 5000) and Depth limit its searches; RandomPlies open each
	// game (default 10). The other settings are datagen's defaults (the
	// recording rules of Koivisto's data).
	Arch        string `toml:"arch" json:"arch"`
	Nodes       uint64 `toml:"nodes" json:"nodes"`
	Depth       int    `toml:"depth" json:"depth,omitempty"`
	RandomPlies *int   `toml:"random_plies" json:"random_plies"` // nil: the default (0 is a value)
	// Net is the network file the evaluator plays with (datagen's
	// EvalFile; default: the arch's shipped net). The key holds its
	// content hash, not its path, and a file equal to the arch's shipped
	// net counts as the shipped net (EvalFile "").
	Net string `toml:"net" json:"net,omitempty"`
	// Keep is which positions are recorded: "quiet" (the default: from
	// ply 16, not in check, quiet best move, no mate score) or "all"
	// (every searched position with its move; the shards are then
	// Stockfish .binpack files, and training filters, [train] filter).
	Keep string `toml:"keep" json:"keep,omitempty"`
	// MaxOpeningScore > 0 plays only openings that a search at the game's
	// limits scores within ±this many centipawns after the random plies
	// (datagen's --max-opening-score); 0 plays every opening.
	MaxOpeningScore int `toml:"max_opening_score" json:"max_opening_score,omitempty"`
	// SoftNodes ends a move's search after the first iteration reaching
	// this many nodes (nodes is then the hard limit; datagen's
	// --soft-nodes); Start is "standard" (the default), "chess960" or
	// "dfrc" (datagen's --start).
	SoftNodes uint64 `toml:"soft_nodes" json:"soft_nodes,omitempty"`
	Start     string `toml:"start" json:"start,omitempty"`
	// NoMoveLoopPruning searches every move of a shallow node (CudAD's
	// setting for Koivisto's self-play; datagen's --no-move-loop-pruning).
	NoMoveLoopPruning bool `toml:"no_move_loop_pruning" json:"no_move_loop_pruning,omitempty"`
	// Adjudication (datagen's defaults when 0): a win once |score| >
	// win_score for win_plies plies in a row, a draw once |score| <
	// draw_score for draw_plies plies in a row from ply 80.
	WinScore  int `toml:"win_score" json:"win_score,omitempty"`
	WinPlies  int `toml:"win_plies" json:"win_plies,omitempty"`
	DrawScore int `toml:"draw_score" json:"draw_score,omitempty"`
	DrawPlies int `toml:"draw_plies" json:"draw_plies,omitempty"`
	// Syzygy names directories of Syzygy tables (':'-separated, relative
	// to the manifest) both sides search with and that end a game with
	// their result (datagen's --syzygy). The key holds the tables by name
	// and checksum, not by path.
	Syzygy string `toml:"syzygy" json:"syzygy,omitempty"`

	// Not manifest keys: the generations driver sets them. NetID keys Net
	// when another plan makes it (a trained generation's net, by its
	// training's cache key); ArchID keys Arch when it is an architecture
	// file the runner writes (by the architecture's hash); External marks
	// a dataset an earlier plan makes: its files and key are planned as
	// usual, but it adds no tasks (the driver sees that the files exist).
	NetID    string `toml:"-" json:"net_id,omitempty"`
	ArchID   string `toml:"-" json:"arch_id,omitempty"`
	External bool   `toml:"-" json:"external,omitempty"`
}

// LabelSpec is a dataset rescored by a UCI engine (nnuelab label).
type LabelSpec struct {
	// Name is how data lists refer to it ("label:NAME").
	Name string `toml:"name" json:"name"`
	// Inputs are data files or "datagen:NAME" / "label:NAME" of datasets
	// defined before this one.
	Inputs []string `toml:"inputs" json:"inputs"`
	// Engine is the UCI engine (default /usr/games/stockfish), run with
	// one thread and Hash MB (default 16).
	Engine string `toml:"engine" json:"engine"`
	Hash   int    `toml:"hash" json:"hash"`
	// Nodes or Depth limit each search.
	Nodes uint64 `toml:"nodes" json:"nodes,omitempty"`
	Depth int    `toml:"depth" json:"depth,omitempty"`
	// Shards are separate tasks, one core each (default 1); shard k
	// labels the input chunks k-1 mod Shards.
	Shards int `toml:"shards" json:"shards"`
	// External is not a manifest key: as DatagenSpec.External.
	External bool `toml:"-" json:"external,omitempty"`
}

// Data reference prefixes.
const (
	RefDatagen = "datagen:"
	RefLabel   = "label:"
)

// isDataRef reports whether a data entry names a dataset the runner makes.
func isDataRef(s string) bool {
	return strings.HasPrefix(s, RefDatagen) || strings.HasPrefix(s, RefLabel)
}

// DefaultsMade fills the defaults of the made datasets.
func (m *Manifest) DefaultsMade() *Error {
	for i := range m.Datagen {
		g := &m.Datagen[i]
		key := fmt.Sprintf("datagen[%d]", i)
		if g.RawSeed < 0 {
			return &Error{Key: key + ".seed", Reason: fmt.Sprintf("seed %d is negative", g.RawSeed)}
		}
		// A zero value stands for "not given" (MetaData.IsDefined does not
		// index arrays of tables); seed 0 is seed 1.
		g.Seed = max(uint64(g.RawSeed), 1)
		if g.Shards == 0 {
			g.Shards = 1
		}
		if g.Arch == "" {
			g.Arch = "classical"
		}
		if g.Nodes == 0 && g.Depth == 0 && g.SoftNodes == 0 {
			g.Nodes = 5000
		}
		if g.RandomPlies == nil {
			n := datagen.DefaultConfig().RandomPlies
			g.RandomPlies = &n
		}
	}
	for i := range m.Label {
		l := &m.Label[i]
		if l.Engine == "" {
			l.Engine = "/usr/games/stockfish"
		}
		if l.Hash == 0 {
			l.Hash = 16
		}
		if l.Shards == 0 {
			l.Shards = 1
		}
	}
	return nil
}

// checkMade validates the made datasets and every data reference.
func (m *Manifest) checkMade() *Error {
	defined := map[string]bool{}
	// define checks a dataset's name and records it.
	define := func(key, ref, name string) *Error {
		switch {
		case !nameRE.MatchString(name):
			return &Error{Key: key + ".name", Reason: fmt.Sprintf("%q: use letters, digits and ._=+-", name)}
		case defined[ref+name]:
			return &Error{Key: key + ".name", Reason: fmt.Sprintf("%s%s defined twice", ref, name)}
		}
		defined[ref+name] = true
		return nil
	}
	for i, g := range m.Datagen {
		key := fmt.Sprintf("datagen[%d]", i)
		if err := define(key, RefDatagen, g.Name); err != nil {
			return err
		}
		switch {
		case g.Positions < 0 || g.Games < 0 || (g.Positions == 0 && g.Games == 0):
			return &Error{Key: key + ".positions", Reason: "give positions or games (> 0)"}
		case g.Shards < 1 || g.Shards > 10000:
			return &Error{Key: key + ".shards", Reason: fmt.Sprintf("must be 1..10000, got %d", g.Shards)}
		case g.Depth < 0 || g.RandomPlies != nil && *g.RandomPlies < 0:
			return &Error{Key: key, Reason: "depth and random_plies must be >= 0"}
		case g.MaxOpeningScore < 0:
			return &Error{Key: key + ".max_opening_score", Reason: fmt.Sprintf("must be 0 (every opening) or a bound in centipawns > 0, got %d", g.MaxOpeningScore)}
		case g.SoftNodes > 0 && g.Nodes > 0 && g.SoftNodes > g.Nodes:
			return &Error{Key: key + ".soft_nodes", Reason: fmt.Sprintf("%d is above the hard limit nodes = %d", g.SoftNodes, g.Nodes)}
		case g.Start != "" && g.Start != datagen.StartStandard && g.Start != datagen.StartChess960 && g.Start != datagen.StartDFRC:
			return &Error{Key: key + ".start", Reason: fmt.Sprintf("%q is not one of %s, %s, %s", g.Start, datagen.StartStandard, datagen.StartChess960, datagen.StartDFRC)}
		case g.WinScore < 0 || g.WinPlies < 0 || g.DrawScore < 0 || g.DrawPlies < 0:
			return &Error{Key: key, Reason: "win_score, win_plies, draw_score and draw_plies must be >= 0 (0: datagen's default)"}
		case g.Keep != "" && g.Keep != datagen.KeepQuiet && g.Keep != datagen.KeepAll:
			return &Error{Key: key + ".keep", Reason: fmt.Sprintf("%q is not one of %s, %s", g.Keep, datagen.KeepQuiet, datagen.KeepAll)}
		case g.Net != "" && strings.TrimSpace(g.Net) == "":
			return &Error{Key: key + ".net", Reason: "an empty path"}
		}
	}
	for i, l := range m.Label {
		key := fmt.Sprintf("label[%d]", i)
		switch {
		case len(l.Inputs) == 0:
			return &Error{Key: key + ".inputs", Reason: "lists no input"}
		case l.Nodes == 0 && l.Depth <= 0:
			return &Error{Key: key + ".nodes", Reason: "give nodes or depth per position"}
		case l.Depth < 0 || l.Hash < 1:
			return &Error{Key: key, Reason: "depth must be >= 0 and hash >= 1"}
		case l.Shards < 1 || l.Shards > 10000:
			return &Error{Key: key + ".shards", Reason: fmt.Sprintf("must be 1..10000, got %d", l.Shards)}
		}
		for _, in := range l.Inputs {
			if strings.TrimSpace(in) == "" {
				return &Error{Key: key + ".inputs", Reason: "an empty path"}
			}
			if isDataRef(in) && !defined[in] {
				return &Error{Key: key + ".inputs", Reason: fmt.Sprintf("%q is not a dataset defined above it", in)}
			}
		}
		if err := define(key, RefLabel, l.Name); err != nil {
			return err
		}
	}
	var lists [][2]any
	if m.Data != nil {
		for _, f := range m.Data.Validation {
			if isDataRef(f) {
				return &Error{Key: "data.validation", Reason: fmt.Sprintf("%q: validation is a file (a made dataset can only be trained on)", f)}
			}
		}
		lists = append(lists, [2]any{"data.train", m.Data.Train})
	}
	for i, v := range m.All() {
		key := "base.data"
		if i > 0 {
			key = fmt.Sprintf("variant[%d].data", i-1)
		}
		lists = append(lists, [2]any{key, v.Data})
	}
	for _, l := range lists {
		for _, f := range l[1].([]string) {
			if isDataRef(f) && !defined[f] {
				return &Error{Key: l[0].(string), Reason: fmt.Sprintf("%q: no such [[datagen]] or [[label]] dataset", f)}
			}
		}
	}
	return nil
}
