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

	Measure     *metrics.MeasureResult     `json:"measure,omitempty"`
	Activations *metrics.ActivationsResult `json:"activations,omitempty"`
	Speed       *metrics.SpeedResult       `json:"speed,omitempty"`
	Elo         *EloResult                 `json:"elo,omitempty"`
	Train       *TrainResult               `json:"train,omitempty"`
	Data        *DataResult                `json:"data,omitempty"`
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
