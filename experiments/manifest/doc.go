// Package manifest reads an experiment file (experiments/*.toml): Load
// parses it strictly (an unknown key or a bad value is an error naming the
// file, the key and the reason), checks it and fills in the defaults, so
// that everything downstream (plan, runner, report) works from a Manifest
// that is known to be complete. It also holds the specs of a manifest's
// sections that are not variants: the data to make (datagen, label), the
// Elo test and its SPRT, the speed task, the scaling fit and the
// self-play loop ([generations]).
//
// The schema is documented in docs/experiments-manifest.md.
package manifest
