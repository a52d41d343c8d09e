// Package records merges a plan's task results into records, one per
// metric of a variant (and seed), and reads and writes them as
// OUT/results.jsonl: the one file every report is written from. A record
// holds nothing that depends on where or when its task ran, so that two
// runs of a deterministic manifest (local or on Slurm) write the same
// bytes; timing metrics are the exception, by nature.
package records
