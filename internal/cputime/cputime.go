// Package cputime measures CPU time, so that rates measured on a shared
// machine do not drop when other jobs take the cores: the process's
// (Process) and the calling thread's (Thread, RusageThread; callers lock
// the goroutine to its thread).
package cputime
