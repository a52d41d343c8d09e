// Package plantest holds what the tests of the records, report and runner
// packages and the end-to-end tests of package experiments share: a plan
// from manifest text in temporary folders (PlanOf) and an Elo chunk's task
// result written as a task would (WriteEloResult). Only tests import it.
package plantest
