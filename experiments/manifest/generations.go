package manifest

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/datasets/datagen"
	"github.com/nnuelab/nnuelab/nets"
)

// This file holds generations: the loop engine authors improve their nets
// with. Self-play with the best net so far, optionally rescored by a UCI
// engine, trains the next net (warm-started from the previous one), which
// a match against the best net so far gates; then again. A manifest with a
// [generations] section runs it as one command.
//
// The driver reuses the runner rather than rewriting it: generation k
// becomes ordinary manifests, built in memory, each with its own results
// folder under OUT/gen-K/:
//
//   - train: the self-play shards of generation k ([[datagen]] played by
//     the best net so far, [[label]] when rescored), a variant trained on
//     the window's data with Init = generation k-1's net, the per-net
//     metrics (val_loss, bench_nps) of the best net (the base) and of the
//     new one, and the gate: an SPRT of the new net against the base;
//   - vs-gen0 and vs-reference: fixed numbers of games of the new net
//     against gen 0 and against the reference architecture's shipped net.
//
// Every task is keyed by content as in any experiment; the nets and data
// of earlier generations enter later plans by their identities (a trained
// net by its training's cache key, a self-play set by its key), so a
// plan never needs an earlier generation's files to be made, only to be
// run. Generation k+1 is planned once generation k's gate has decided:
// which net plays its self-play depends on it.

// GenerationsSpec is a manifest's [generations] section.
type GenerationsSpec struct {
	// Count is the number of generations after gen 0; the runner stops
	// after this many, and raising it later continues the loop.
	Count int `toml:"count" json:"count"`
	// Arch (a name from archs/ or a .toml path) with Overrides is the
	// architecture trained every generation.
	Arch      string   `toml:"arch" json:"arch"`
	Overrides []string `toml:"overrides" json:"overrides,omitempty"`
	// Gen0Net is the net that plays generation 1's self-play (default: the
	// arch's shipped net); a float net of the arch also warm-starts
	// generation 1's training.
	Gen0Net string `toml:"gen0_net" json:"gen0_net,omitempty"`
	// Reference is an architecture whose shipped net every generation
	// plays head to head ("" = none).
	Reference string `toml:"reference" json:"reference,omitempty"`
	// Positions of new self-play per generation, over all Shards (one task
	// each, a Slurm array element with the slurm executor); or Games (each
	// shard stops at the end of a chunk of 64 games once it has its share
	// of the positions, so small sets are given in games).
	Positions int64 `toml:"positions" json:"positions,omitempty"`
	Games     int64 `toml:"games" json:"games,omitempty"`
	Shards    int   `toml:"shards" json:"shards"`
	// Seed: generation k plays seed + k - 1 (default 1).
	Seed    uint64 `toml:"-" json:"seed"`
	RawSeed int64  `toml:"seed" json:"-"`
	// Nodes per move (default 5000) and Depth limit the self-play searches;
	// RandomPlies open each game (default 10).
	Nodes       uint64 `toml:"nodes" json:"nodes"`
	Depth       int    `toml:"depth" json:"depth,omitempty"`
	RandomPlies int    `toml:"random_plies" json:"random_plies"`
	// SoftNodes and Start are [[datagen]]'s: no new iteration once a
	// move's search has this many nodes (Nodes stays the hard limit), and
	// the start position ("standard", "chess960" or "dfrc").
	SoftNodes uint64 `toml:"soft_nodes" json:"soft_nodes,omitempty"`
	Start     string `toml:"start" json:"start,omitempty"`
	// Keep is datagen's choice of positions: "quiet" (the default) or
	// "all" (every searched position with its move, in .binpack shards;
	// training filters then).
	Keep string `toml:"keep" json:"keep,omitempty"`
	// Window trains generation k on the last Window generations' data (0:
	// all of it); ExtraData are files trained on in every generation.
	Window    int      `toml:"window" json:"window,omitempty"`
	ExtraData []string `toml:"extra_data" json:"extra_data,omitempty"`
	// WarmStart starts generation k's training from generation k-1's float
	// net (generation 1 from gen 0's when it is a float net of the arch);
	// default true.
	WarmStart bool `toml:"warm_start" json:"warm_start"`
	// Filter is the trainer's filter ([train] filter's values); default
	// "default" with keep = "all", else "none".
	Filter string `toml:"filter" json:"filter,omitempty"`
	// LabelNodes > 0 rescores each generation's self-play with LabelEngine
	// (default /usr/games/stockfish, Stockfish 15.1) at this many nodes
	// per position ([[label]], one shard per self-play shard); a
	// [[generations.gen]] label_nodes rescores that generation's alone.
	LabelNodes  uint64 `toml:"label_nodes" json:"label_nodes,omitempty"`
	LabelEngine string `toml:"label_engine" json:"label_engine,omitempty"`
	// MaxOpeningScore > 0 plays only openings scored within ±this many
	// centipawns after the random plies ([[datagen]] max_opening_score);
	// a [[generations.gen]] max_opening_score sets one generation's.
	MaxOpeningScore int `toml:"max_opening_score" json:"max_opening_score,omitempty"`
	// WinScore and WinPlies adjudicate a self-play game as won once the
	// searches' score stays above WinScore centipawns, the same side
	// ahead, for WinPlies plies in a row ([[datagen]] win_score,
	// win_plies); 0 keeps datagen's default (1500 cp, 4 plies).
	WinScore int `toml:"win_score" json:"win_score,omitempty"`
	WinPlies int `toml:"win_plies" json:"win_plies,omitempty"`
	// Gen changes the self-play of single generations ([[generations.gen]]).
	Gen []GenSettings `toml:"gen" json:"gen,omitempty"`
	// PositionsPerCPUSecond is self-play's measured rate with the player
	// net on one core, which turns the report's extrapolation to the goal
	// into CPU time (0 leaves the time out); Rate says where it was
	// measured.
	PositionsPerCPUSecond float64 `toml:"positions_per_cpu_second" json:"positions_per_cpu_second,omitempty"`
	Rate                  string  `toml:"rate" json:"rate,omitempty"`
}

// GenSettings ([[generations.gen]]) changes the self-play from one
// generation on: its size (positions or games, shards) and recipe (nodes,
// soft_nodes, start, random_plies) hold for that generation and the ones
// after it, until a later [[generations.gen]] changes them again, so that
// a loop can adopt a better recipe without changing the data, and so the
// keys, of the generations before; zero values keep what held before.
// warm_start and label_nodes are the one generation's alone.
type GenSettings struct {
	Gen       int    `toml:"gen" json:"gen"`
	Positions int64  `toml:"positions" json:"positions,omitempty"`
	Games     int64  `toml:"games" json:"games,omitempty"`
	Shards    int    `toml:"shards" json:"shards,omitempty"`
	Nodes     uint64 `toml:"nodes" json:"nodes,omitempty"`
	SoftNodes uint64 `toml:"soft_nodes" json:"soft_nodes,omitempty"`
	Start     string `toml:"start" json:"start,omitempty"`
	// RandomPlies, when given, replaces [generations] random_plies (0 is
	// a value: no random plies).
	RandomPlies *int `toml:"random_plies" json:"random_plies,omitempty"`
	// WarmStart, when given, overrides [generations] warm_start for this
	// generation (e.g. a first generation trained from scratch, so that
	// the lineage holds only the loop's own self-play).
	WarmStart *bool `toml:"warm_start" json:"warm_start,omitempty"`
	// LabelNodes > 0 rescores this generation's self-play (from then on a
	// loop can rescore without changing the data, and so the keys, of the
	// generations before it).
	LabelNodes uint64 `toml:"label_nodes" json:"label_nodes,omitempty"`
	// MaxOpeningScore > 0 bounds this generation's openings (and those of
	// the generations after it that set none), leaving the data and keys
	// of the generations before it.
	MaxOpeningScore int `toml:"max_opening_score" json:"max_opening_score,omitempty"`
	// WinScore and WinPlies > 0 change the win adjudication from this
	// generation on, as the recipe keys above do.
	WinScore int `toml:"win_score" json:"win_score,omitempty"`
	WinPlies int `toml:"win_plies" json:"win_plies,omitempty"`
	// Arch and Overrides change the trained architecture from this
	// generation on, until a later [[generations.gen]] changes it again
	// (overrides alone keep the arch in force), so that a loop can widen
	// its net as its data grows without changing the keys of the
	// generations before. A generation whose architecture differs from
	// the previous generation's trains from random weights: the previous
	// net does not fit it.
	Arch      string   `toml:"arch" json:"arch,omitempty"`
	Overrides []string `toml:"overrides" json:"overrides,omitempty"`
}

// ArchOf returns the architecture (name or .toml path) and overrides
// generation k trains: the last [[generations.gen]] at or before k that
// sets them, else [generations]'. Generation 0 is [generations]'.
func (g *GenerationsSpec) ArchOf(k int) (arch string, overrides []string) {
	arch, overrides = g.Arch, g.Overrides
	archAt, ovrAt := 0, 0
	for _, o := range g.Gen {
		if o.Gen > k {
			continue
		}
		if o.Arch != "" && o.Gen > archAt {
			// A new arch replaces the overrides with its own (none when it
			// gives none), unless a later generation's overrides hold.
			arch, archAt = o.Arch, o.Gen
			if o.Gen >= ovrAt {
				overrides, ovrAt = o.Overrides, o.Gen
			}
		} else if o.Overrides != nil && o.Gen > ovrAt {
			overrides, ovrAt = o.Overrides, o.Gen
		}
	}
	return arch, overrides
}

// OpeningBoundOf returns generation k's max_opening_score: the last
// [[generations.gen]] at or before k that sets one, else [generations]'.
func (g *GenerationsSpec) OpeningBoundOf(k int) int {
	bound, at := g.MaxOpeningScore, 0
	for _, o := range g.Gen {
		if o.Gen <= k && o.Gen > at && o.MaxOpeningScore > 0 {
			bound, at = o.MaxOpeningScore, o.Gen
		}
	}
	return bound
}

// LabelNodesOf returns the nodes generation k's self-play is rescored at,
// 0 for none.
func (g *GenerationsSpec) LabelNodesOf(k int) uint64 {
	for _, o := range g.Gen {
		if o.Gen == k && o.LabelNodes > 0 {
			return o.LabelNodes
		}
	}
	return g.LabelNodes
}

// WarmStarts reports whether generation k starts from the previous net.
func (g *GenerationsSpec) WarmStarts(k int) bool {
	for _, o := range g.Gen {
		if o.Gen == k && o.WarmStart != nil {
			return *o.WarmStart
		}
	}
	return g.WarmStart
}

// Defaults of a generations manifest's Elo tests.
const (
	GenGamesDefault    = 400  // vs gen 0 and vs the reference
	GenMaxGamesDefault = 2000 // the gate's SPRT
)

// GenerationMetrics are the metrics a generations manifest may list.
var GenerationMetrics = []string{MetricValLoss, MetricBenchNPS, MetricElo}

// IsGenerations reports whether the manifest is a generations manifest.
func (m *Manifest) IsGenerations() bool { return m.Generations != nil }

// checkGenerations fills the defaults of a generations manifest and
// validates it (Parse's other checks are for ordinary manifests).
func (m *Manifest) checkGenerations(md toml.MetaData) *Error {
	g := m.Generations
	bad := func(key, format string, a ...any) *Error {
		return &Error{Key: key, Reason: fmt.Sprintf(format, a...)}
	}
	if !nameRE.MatchString(m.Name) {
		return bad("name", "%q: use letters, digits and ._=+- (it names files)", m.Name)
	}
	for _, s := range []struct{ key, why string }{
		{"base", "the nets are the generations' own: the arch is [generations] arch, gen 0's net gen0_net"},
		{"variant", "every generation trains [generations] arch"},
		{"grid", "every generation trains [generations] arch"},
		{"datagen", "each generation's self-play is [generations]' (positions, shards, nodes, ...)"},
		{"label", "[generations] label_nodes rescores the self-play"},
	} {
		if md.IsDefined(s.key) {
			return bad(s.key, "not allowed in a generations manifest: %s", s.why)
		}
	}
	if len(m.Seeds) != 1 {
		return bad("seeds", "a generations manifest trains one net per generation: give one seed")
	}
	if len(m.Metrics) == 0 {
		return bad("metrics", "lists nothing to measure (choose from %s)", strings.Join(GenerationMetrics, ", "))
	}
	seen := map[string]bool{}
	for _, x := range m.Metrics {
		if !slices.Contains(GenerationMetrics, x) {
			return bad("metrics", "%q is not measured in a generations manifest (choose from %s)", x, strings.Join(GenerationMetrics, ", "))
		}
		if seen[x] {
			return bad("metrics", "metric %q listed twice", x)
		}
		seen[x] = true
	}
	if m.Positions.Limit < 0 {
		return bad("positions.limit", "must be >= 0, got %d", m.Positions.Limit)
	}
	if e := m.checkSpeed(); e != nil {
		return e
	}
	if e := m.checkLoss(); e != nil {
		return e
	}
	if e := m.checkData(); e != nil {
		return e
	}
	if m.Data != nil && len(m.Data.Train) > 0 {
		return bad("data.train", "the generations' self-play is the training data: give other files as [generations] extra_data")
	}
	t := m.Train
	switch {
	case t == nil:
		return bad("train", "missing: a generations manifest needs a [train] section (the schedule of every generation's training)")
	case t.Init != "":
		return bad("train.init", "set by [generations] warm_start: each generation starts from the previous one's net")
	case t.Filter != "":
		return bad("train.filter", "give the filter as [generations] filter")
	}
	if e := m.checkTrain("train", &VariantSpec{}); e != nil {
		return e
	}

	// The loop.
	if g.Count < 1 || g.Count > 1000 {
		return bad("generations.count", "must be 1..1000 (generations after gen 0), got %d", g.Count)
	}
	if g.Arch == "" {
		return bad("generations.arch", "missing: name the architecture trained every generation (%s, or a .toml path)", strings.Join(archs.Builtin(), ", "))
	}
	if _, err := m.Spec(&VariantSpec{Arch: g.Arch, Overrides: g.Overrides}); err != nil {
		key := "generations.arch"
		if len(g.Overrides) > 0 {
			key = "generations.overrides"
		}
		return bad(key, "%v", err)
	}
	if g.Gen0Net != "" && strings.TrimSpace(g.Gen0Net) == "" {
		return bad("generations.gen0_net", "an empty path")
	}
	if g.Reference != "" {
		spec, err := archs.Load(m.ArchRef(g.Reference))
		if err != nil {
			return bad("generations.reference", "%v", err)
		}
		if e, err := nets.Default(spec.Name); err != nil || e == nil && spec.Net.Format != "sf15.1" {
			return bad("generations.reference", "%s ships no network to play against", g.Reference)
		}
	}
	if g.RawSeed < 0 {
		return bad("generations.seed", "seed %d is negative", g.RawSeed)
	}
	if g.MaxOpeningScore < 0 {
		return bad("generations.max_opening_score", "must be 0 (every opening) or a bound in centipawns > 0, got %d", g.MaxOpeningScore)
	}
	if g.WinScore < 0 {
		return bad("generations.win_score", "must be 0 (datagen's default) or centipawns > 0, got %d", g.WinScore)
	}
	if g.WinPlies < 0 {
		return bad("generations.win_plies", "must be 0 (datagen's default) or plies > 0, got %d", g.WinPlies)
	}
	for i, o := range g.Gen {
		// Indexed from 0 like [[datagen]] tables: the i-th [[generations.gen]].
		key := fmt.Sprintf("generations.gen[%d]", i)
		if o.MaxOpeningScore < 0 {
			return bad(key+".max_opening_score", "must be 0 (keep the loop's) or a bound in centipawns > 0, got %d", o.MaxOpeningScore)
		}
		if o.WinScore < 0 {
			return bad(key+".win_score", "must be 0 (keep the loop's) or centipawns > 0, got %d", o.WinScore)
		}
		if o.WinPlies < 0 {
			return bad(key+".win_plies", "must be 0 (keep the loop's) or plies > 0, got %d", o.WinPlies)
		}
	}
	if !(g.PositionsPerCPUSecond >= 0) || math.IsInf(g.PositionsPerCPUSecond, 0) {
		return bad("generations.positions_per_cpu_second", "must be a finite rate >= 0, got %v", g.PositionsPerCPUSecond)
	}
	if g.PositionsPerCPUSecond > 0 && strings.TrimSpace(g.Rate) == "" {
		return bad("generations.rate", "missing: say where positions_per_cpu_second was measured (a doc and the command)")
	}
	g.Seed = uint64(g.RawSeed)
	if !md.IsDefined("generations", "seed") {
		g.Seed = 1
	}
	if g.Nodes == 0 && g.Depth == 0 {
		g.Nodes = 5000
	}
	if !md.IsDefined("generations", "random_plies") {
		g.RandomPlies = datagen.DefaultConfig().RandomPlies
	}
	if !md.IsDefined("generations", "warm_start") {
		g.WarmStart = true
	}
	if g.Keep == datagen.KeepQuiet {
		g.Keep = "" // one spelling of the default
	}
	if g.Filter == "" {
		g.Filter = "none"
		if g.Keep == datagen.KeepAll {
			g.Filter = "default"
		}
	}
	rescores := g.LabelNodes > 0
	for _, o := range g.Gen {
		rescores = rescores || o.LabelNodes > 0
	}
	if rescores && g.LabelEngine == "" {
		g.LabelEngine = "/usr/games/stockfish"
	}
	switch {
	case g.Positions < 0 || g.Games < 0 || g.Positions == 0 && g.Games == 0:
		return bad("generations.positions", "give positions or games (> 0): the new self-play of each generation")
	case g.Shards < 1 || g.Shards > 10000:
		return bad("generations.shards", "must be 1..10000, got %d", g.Shards)
	case g.Depth < 0 || g.RandomPlies < 0:
		return bad("generations.depth", "depth and random_plies must be >= 0")
	case !validStart(g.Start):
		return bad("generations.start", "%q is not one of %s, %s, %s", g.Start, datagen.StartStandard, datagen.StartChess960, datagen.StartDFRC)
	case g.Keep != "" && g.Keep != datagen.KeepAll:
		return bad("generations.keep", "%q is not one of %s, %s", g.Keep, datagen.KeepQuiet, datagen.KeepAll)
	case g.Window < 0:
		return bad("generations.window", "must be >= 0 (0 = every generation's data), got %d", g.Window)
	case g.LabelEngine != "" && !rescores:
		return bad("generations.label_engine", "rescoring needs label_nodes > 0")
	}
	if _, err := (&TrainSpec{Filter: g.Filter}).DataFilter(); err != nil {
		return bad("generations.filter", "%v", err)
	}
	for i, f := range g.ExtraData {
		if strings.TrimSpace(f) == "" {
			return bad("generations.extra_data", "file %d is an empty path", i)
		}
		if isDataRef(f) {
			return bad("generations.extra_data", "%q: extra data are files", f)
		}
	}
	gens := map[int]bool{}
	for i, o := range g.Gen {
		key := fmt.Sprintf("generations.gen[%d]", i)
		switch {
		case o.Gen < 1:
			return bad(key+".gen", "must name a generation >= 1, got %d", o.Gen)
		case gens[o.Gen]:
			return bad(key+".gen", "generation %d is given twice", o.Gen)
		case o.Positions < 0 || o.Games < 0:
			return bad(key+".positions", "positions and games must be >= 0")
		case o.Shards < 0 || o.Shards > 10000:
			return bad(key+".shards", "must be 0..10000")
		case o.RandomPlies != nil && *o.RandomPlies < 0:
			return bad(key+".random_plies", "must be >= 0, got %d", *o.RandomPlies)
		case !validStart(o.Start):
			return bad(key+".start", "%q is not one of %s, %s, %s", o.Start, datagen.StartStandard, datagen.StartChess960, datagen.StartDFRC)
		}
		gens[o.Gen] = true
	}
	for i, o := range g.Gen {
		if o.Arch == "" && o.Overrides == nil {
			continue
		}
		key := fmt.Sprintf("generations.gen[%d]", i)
		arch, ovr := g.ArchOf(o.Gen)
		spec, err := m.Spec(&VariantSpec{Arch: arch, Overrides: ovr})
		if err != nil {
			if o.Arch == "" {
				return bad(key+".overrides", "%v", err)
			}
			return bad(key+".arch", "%v", err)
		}
		parch, povr := g.ArchOf(o.Gen - 1)
		prev, err := m.Spec(&VariantSpec{Arch: parch, Overrides: povr})
		if err == nil && prev.NetSHA256() != spec.NetSHA256() && o.WarmStart != nil && *o.WarmStart {
			return bad(key+".warm_start", "generation %d changes the architecture (%s to %s): the previous net cannot warm-start it", o.Gen, archText(parch, povr), archText(arch, ovr))
		}
	}

	// Elo: the gate is an SPRT ([elo.sprt], default [0, 10], up to
	// max_games), the tests against gen 0 and the reference fixed numbers
	// of games (games).
	if seen[MetricElo] && m.Elo == nil {
		return bad("elo", "metric \"elo\" needs an [elo] section (tc or nodes; games, [elo.sprt])")
	}
	if e := m.Elo; e != nil {
		if !seen[MetricElo] {
			return bad("elo", "an [elo] section without \"elo\" in metrics")
		}
		if e.Opponent != "" || len(e.Variants) > 0 {
			return bad("elo", "opponent and variants are the generations' own: gen k plays the best net so far, gen 0 and the reference")
		}
		if !md.IsDefined("elo", "games") {
			e.Games = GenGamesDefault
		}
		if !md.IsDefined("elo", "max_games") {
			e.MaxGames = GenMaxGamesDefault
		}
		if e.SPRT == nil {
			e.SPRT = &SPRTSpec{Elo0: 0, Elo1: 10, Alpha: 0.05, Beta: 0.05, Model: "normalized"}
		}
		for _, spec := range []EloSpec{m.GateElo(), m.FixedElo()} {
			tmp := &Manifest{Elo: &spec}
			if err := tmp.checkElo(); err != nil {
				return err
			}
		}
	}
	return nil
}

// GateElo is the Elo test of the gate: [elo] as an SPRT.
func (m *Manifest) GateElo() EloSpec {
	e := *m.Elo
	e.Games = 0
	return e
}

// FixedElo is the Elo test against gen 0 and the reference: [elo] with a
// fixed number of games.
func (m *Manifest) FixedElo() EloSpec {
	e := *m.Elo
	e.SPRT, e.MaxGames = nil, 0
	return e
}

// Selfplay is one generation's self-play size and recipe.
type Selfplay struct {
	Positions, Games int64
	Shards           int
	Nodes, SoftNodes uint64
	Start            string
	RandomPlies      int
	// WinScore and WinPlies adjudicate wins; 0 is datagen's default.
	WinScore, WinPlies int
}

// SelfplayOf returns generation k's self-play: [generations]' settings
// with every [[generations.gen]] of generation k or earlier applied in
// order of generation.
func (g *GenerationsSpec) SelfplayOf(k int) Selfplay {
	sp := Selfplay{Positions: g.Positions, Games: g.Games, Shards: g.Shards, Nodes: g.Nodes, SoftNodes: g.SoftNodes,
		Start: g.Start, RandomPlies: g.RandomPlies, WinScore: g.WinScore, WinPlies: g.WinPlies}
	over := slices.Clone(g.Gen)
	slices.SortFunc(over, func(a, b GenSettings) int { return a.Gen - b.Gen })
	for _, o := range over {
		if o.Gen > k {
			break
		}
		if o.Positions > 0 || o.Games > 0 {
			sp.Positions, sp.Games = o.Positions, o.Games
		}
		if o.Shards > 0 {
			sp.Shards = o.Shards
		}
		if o.Nodes > 0 {
			sp.Nodes = o.Nodes
		}
		if o.SoftNodes > 0 {
			sp.SoftNodes = o.SoftNodes
		}
		if o.Start != "" {
			sp.Start = o.Start
		}
		if o.RandomPlies != nil {
			sp.RandomPlies = *o.RandomPlies
		}
		if o.WinScore > 0 {
			sp.WinScore = o.WinScore
		}
		if o.WinPlies > 0 {
			sp.WinPlies = o.WinPlies
		}
	}
	return sp
}

// validStart reports whether s names a self-play start ("" is the default).
func validStart(s string) bool {
	return s == "" || s == datagen.StartStandard || s == datagen.StartChess960 || s == datagen.StartDFRC
}

// archText names an architecture with its overrides, as an error shows it:
// two generations of one arch may differ only in them.
func archText(arch string, overrides []string) string {
	if len(overrides) == 0 {
		return arch
	}
	return arch + " (" + strings.Join(overrides, ", ") + ")"
}
