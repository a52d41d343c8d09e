// Package runner runs a plan: it starts the ready tasks in waves on an
// executor (Local processes or a Slurm array), shows their progress, stops
// an Elo test once its SPRT decides, merges the results and writes the
// report. Each task is one process of `nnuelab experiment task` running
// RunTask, which stores its result atomically, so that a killed run
// resumes with the tasks that did not finish.
//
// It also checks provenance (CheckBuild: results under results/ come from
// a committed build), locks a results folder against a second run
// (LockDir), and moves results an earlier nnuelab wrote under
// experiments/results to results/ (Migrate).
package runner
