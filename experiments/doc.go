// Package experiments runs nnuelab's architecture experiments: a manifest
// (experiments/*.toml) names a base architecture and variants given as
// overrides of its arch keys, the nets to use or the data and schedule to
// train them with, the metrics to measure and the Elo test to play. Run
// expands the grid into tasks, runs them on an executor (local processes or
// a Slurm array), keeps every finished task's result on disk so that a
// killed run resumes where it stopped, merges the results into one JSONL
// file and writes the report (a markdown table, a short text and SVG
// plots).
//
// The work is split into packages that import downward:
//
//	manifest     parse, validate, defaults (manifest.Load)
//	data         the built-in data files
//	metrics      the measurements; the registry a new metric joins (metrics.Def)
//	plan         variants, tasks, content keys, task results, SPRT, estimate
//	records      task results merged into results.jsonl
//	runner       task bodies, the runner, local and Slurm executors
//	report       the report, the scaling section, the claims table
//	generations  the self-play, train, gate loop and its report
//
// The flow of `nnuelab experiment run FILE`:
//
//	manifest ──manifest.Load──▶ Manifest ──plan.New──▶ Plan (variants, tasks, keys)
//	                                         │ plan.json, variants/*.toml
//	runner: an executor (local | slurm) runs waves of ready tasks, each one process:
//	    nnuelab experiment task --out DIR ID   ──▶ DIR/tasks/ID.json (atomic)
//	records.Merge ──▶ DIR/results.jsonl ──report.Write──▶ docs/reports/NAME.md + SVGs
//
// DIR is results/NAME at the repository's top level (plan.DefaultOut),
// outside the Go package folders; an Elo chunk's games are kept there as
// games/ID.pgn.zst (plan.GamesPath). runner.Migrate (`nnuelab experiment
// migrate`) moves a folder an earlier nnuelab wrote under
// experiments/results, compressing its games.
//
// Tasks are train (one per distinct net to train, content-addressed in the
// net cache), measure (per variant and seed: agreement with Stockfish 15.1,
// quantization error, validation loss, history-depth shares and the
// registered metrics), activations, speed (one task, run alone: evaluations/s
// and bench nps of every variant, interleaved so that the ratios to the base
// come from the same conditions) and elo (chunks of `nnuelab match` games of
// a variant against the base).
//
// A manifest with a [generations] section is the self-play, train, gate
// loop (package generations): each generation becomes ordinary
// sub-experiments planned in memory and run by the same runner, one after
// the other, and the report follows the generations.
//
// The claims table of docs/claims.md is rendered from docs/claims.toml,
// whose rows read every number they quote from the experiments' results
// (report.RenderClaims, `nnuelab experiment claims`).
//
// This package's tests run experiments end to end through the nnuelab
// binary (internal/exptest builds it).
package experiments
