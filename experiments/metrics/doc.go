// Package metrics is the one place an experiment's metric is defined: the
// measurements (agreement with Stockfish 15.1, quantization error,
// validation loss, history-depth shares, nodes to depth, activations,
// evaluation and search speed) and the registry a new metric joins.
//
// A metric is a Def (registry.go): the task it is measured in, what its
// task result stores, the records it gives, what it needs of the manifest,
// its columns in the report's table, its line in the report's setup and
// its cost in the dry run's estimate. The manifest, the plan, the runner,
// the merge and the report read every metric from the registry, so that
// adding one touches this package only (docs/experiments-manifest.md,
// "Adding a metric").
package metrics
