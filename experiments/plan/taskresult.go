package plan

import (
	"encoding/json"
	"os"
	"path/filepath"

	"github.com/nnuelab/nnuelab/bench/stats"
	"github.com/nnuelab/nnuelab/experiments/metrics"
	"github.com/nnuelab/nnuelab/nets/train"
)

// TaskResult is what a finished task leaves in OUT/tasks/ID.json.
type TaskResult struct {
	ID      string `json:"id"`
	Kind    string `json:"kind"`
	Key     string `json:"key"`
	Variant string `json:"variant,omitempty"`
	Seed    uint64 `json:"seed,omitempty"`
	// Host, Seconds and Finished describe the run (not part of the
	// merged results, which must not depend on where tasks ran).
	Host     string  `json:"host"`
	Seconds  float64 `json:"seconds"`
	Finished string  `json:"finished"`
	// Revision is the nnuelab build that ran the task (VCS revision,
	// "+dirty" when modified): results are reused across builds, so this
	// tells which engine produced them.
	Revision string `json:"revision,omitempty"`
	// DiffSHA256 is the sha256 of `git diff HEAD` when the build was
	// dirty (a run with --allow-dirty): which uncommitted changes ran it.
	DiffSHA256 string `json:"diff_sha256,omitempty"`
	// AdoptedFrom names the task file (relative to this results folder)
	// whose games this chunk is: another experiment played the same games
	// under the same key (adoptElo).
	AdoptedFrom string `json:"adopted_from,omitempty"`

	Measure     *MeasureResult             `json:"measure,omitempty"`
	Activations *metrics.ActivationsResult `json:"activations,omitempty"`
	Speed       *SpeedResult               `json:"speed,omitempty"`
	Elo         *EloResult                 `json:"elo,omitempty"`
	Train       *TrainResult               `json:"train,omitempty"`
	Data        *DataResult                `json:"data,omitempty"`
}

// MeasureResult holds a variant's per-net metrics.
type MeasureResult struct {
	Agreement *metrics.Agreement  `json:"agreement,omitempty"`
	Reference string              `json:"reference,omitempty"`
	Quant     *metrics.QuantError `json:"quant,omitempty"`
	// QuantNote says why there is no quantization error.
	QuantNote string           `json:"quant_note,omitempty"`
	ValLoss   *metrics.ValLoss `json:"val_loss,omitempty"`
	Shares    *metrics.Shares  `json:"shares,omitempty"`
	// SharesQuiet counts only the searches whose root is not in check.
	SharesQuiet *metrics.Shares `json:"shares_quiet,omitempty"`
	// Metrics holds the values of the registered metrics (metrics.Def),
	// by name, as their Measure returned them.
	Metrics map[string]json.RawMessage `json:"metrics,omitempty"`
}

// SpeedResult holds the timing of every variant, round by round.
type SpeedResult struct {
	Clock string `json:"clock"`
	// ClockResolutionNS is the smallest step of Clock observed (its
	// resolution, or the cost of a reading for a nanosecond clock); Reps
	// the passes of the trace in one variant's round, as many as make a
	// round last speedRoundTarget. Both are 0 in results made before
	// rounds were sized to the clock (one pass a round).
	ClockResolutionNS int64 `json:"clock_resolution_ns,omitempty"`
	Reps              int   `json:"reps,omitempty"`
	Evals             int   `json:"evals"`
	// BenchClock times bench_nps (the bench process's CPU time), with
	// its resolution as observed; BenchRuns is the bench runs a round
	// sums (as many as make the base's round last speedRoundTarget).
	// Empty in results made before they were recorded (one run a round).
	BenchClock             string         `json:"bench_clock,omitempty"`
	BenchClockResolutionNS int64          `json:"bench_clock_resolution_ns,omitempty"`
	BenchRuns              int            `json:"bench_runs,omitempty"`
	Variants               []VariantSpeed `json:"variants"`
}

// VariantSpeed is one variant's timings; index r is round r.
type VariantSpeed struct {
	Name        string    `json:"name"`
	EvalsPerSec []float64 `json:"evals_per_sec,omitempty"`
	BenchNodes  uint64    `json:"bench_nodes,omitempty"`
	// BenchNPS is nodes per CPU second of the bench process,
	// BenchNPSWall the Nodes/second bench printed.
	BenchNPS     []float64 `json:"bench_nps,omitempty"`
	BenchNPSWall []float64 `json:"bench_nps_wall,omitempty"`
}

// EloResult is one chunk of games of a variant against the base.
type EloResult struct {
	Wins   int         `json:"wins"`
	Draws  int         `json:"draws"`
	Losses int         `json:"losses"`
	Penta  stats.Penta `json:"pentanomial"`
	LLR    *float64    `json:"llr,omitempty"`
	// Decision is the SPRT's ("H0 accepted", "H1 accepted", "continue").
	Decision string `json:"decision,omitempty"`
	// Args are the match's arguments, paths relative to the results
	// folder.
	Args   []string        `json:"args"`
	Faults json.RawMessage `json:"faults,omitempty"`
}

// TrainResult is a trained net in the cache.
type TrainResult struct {
	Key       string             `json:"key"`
	NetSHA256 string             `json:"net_sha256"`
	History   []train.EpochStats `json:"history"`
}

// ResultPath is where task id's result lives.
func ResultPath(out, id string) string { return filepath.Join(out, "tasks", id+".json") }

// ReadResult reads a task's result; ok is false when there is none or it
// was made under another key (the manifest changed since).
func ReadResult(out string, t *Task) (*TaskResult, bool) {
	data, err := os.ReadFile(ResultPath(out, t.ID))
	if err != nil {
		return nil, false
	}
	var r TaskResult
	if err := json.Unmarshal(data, &r); err != nil || r.Key != t.Key || r.ID != t.ID {
		return nil, false
	}
	return &r, true
}

// GamesPath is where an Elo chunk keeps its games (PGN).
func GamesPath(out, id string) string { return filepath.Join(out, "games", id+".pgn") }

// FailOnceEnv names an environment variable for tests of the executors'
// retries: a task whose ID it holds fails on its first run (a marker file
// in the results folder remembers that it did).
const FailOnceEnv = "NNUELAB_EXPERIMENT_FAIL_ONCE"
