// Package experiment runs nnuelab's architecture experiments: a manifest
// (experiments/*.toml) names a base architecture and variants given as
// overrides of its arch keys, the nets to use or the data and schedule to
// train them with, the metrics to measure and the Elo test to play. The
// runner expands the grid into tasks, runs them on an executor (local
// processes or a Slurm array), keeps every finished task's result on disk so
// that a killed run resumes where it stopped, merges the results into one
// JSONL file and writes the report (a markdown table, a short text and SVG
// plots).
//
// The flow of `nnuelab experiment run FILE`:
//
//	manifest ──Parse──▶ Manifest ──NewPlan──▶ Plan (variants, tasks, keys)
//	                                         │ plan.json, variants/*.toml
//	executor (local | slurm) runs waves of ready tasks, each one process:
//	    nnuelab experiment task --out DIR ID   ──▶ DIR/tasks/ID.json (atomic)
//	Merge(tasks) ──▶ DIR/results.jsonl ──WriteReport──▶ docs/reports/NAME.md + SVGs
//
// Tasks are train (one per distinct net to train, content-addressed in the
// net cache), measure (per variant and seed: agreement with Stockfish 15.1,
// quantization error, validation loss, history-depth shares), speed (one
// task, run alone: evaluations/s and bench nps of every variant, interleaved
// so that the ratios to the base come from the same conditions) and elo
// (chunks of `nnuelab match` games of a variant against the base).
//
// A manifest with a [generations] section is the self-play, train, gate
// loop (generations.go): each generation becomes ordinary sub-experiments
// planned in memory and run by the same runner, one after the other, and
// the report follows the generations (generations_report.go).
//
// The claims table of docs/claims.md is rendered from docs/claims.toml,
// whose rows read every number they quote from the experiments' results
// (claims.go, `nnuelab experiment claims`).
package experiments
