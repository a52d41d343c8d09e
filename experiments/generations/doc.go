// Package generations runs a manifest with a [generations] section: the
// self-play, train, gate loop. Each generation plays self-play games with
// the best net so far, optionally rescores them, trains a net (warm-started
// from the previous one) and gates it against the best net with an SPRT.
// A generation's steps are ordinary sub-experiments planned in memory and
// run by the runner one after the other, so that the loop resumes wherever
// it was stopped; the report follows the generations
// (experiments/generations.toml, docs/reports/generations.md).
package generations
