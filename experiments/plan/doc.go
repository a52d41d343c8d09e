// Package plan expands a validated manifest into what runs: the variants
// (each an architecture with its nets, trained or given) and the tasks
// that make data, train nets and measure them, each keyed by a hash of
// what its result depends on (architecture, data, training configuration,
// seed, the plan's version) so that a finished task is found again in the
// results folder or the net cache and a killed run resumes where it
// stopped. New makes a plan; its Write puts it in OUT/plan.json, which
// every task process reads (Read).
//
// It also holds what decides from task results without running anything:
// the task result files (ResultPath, ReadResult), the SPRT stopping rule
// of an Elo test (SPRTLooks), adopting Elo chunks an earlier run played
// (AdoptElo), and the cost estimate of a dry run (EstimateTask,
// WallEstimate, Describe).
package plan
