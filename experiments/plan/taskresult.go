package plan

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/nnuelab/nnuelab/bench/stats"
	"github.com/nnuelab/nnuelab/experiments/metrics"
	"github.com/nnuelab/nnuelab/internal/fsutil"
	"github.com/nnuelab/nnuelab/internal/zstdfile"
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

// GamesPath is where an Elo chunk keeps its games: PGN compressed with
// zstd (internal/zstdfile), written once the chunk's match has ended.
func GamesPath(out, id string) string { return MatchPGNPath(out, id) + zstdfile.Ext }

// MatchPGNPath is the plain PGN an Elo chunk's match appends its games to
// (its -pgnout, recorded with the result) until the runner compresses it
// into GamesPath; runs before the results moved to results/ kept it as
// their games.
func MatchPGNPath(out, id string) string { return filepath.Join(out, "games", id+".pgn") }

// FindGames returns the file holding an Elo chunk's games: GamesPath, or
// the plain PGN of a run made before the games were compressed; an error
// (naming both) when there is neither.
func FindGames(out, id string) (string, error) {
	p := GamesPath(out, id)
	if _, err := os.Stat(p); err == nil {
		return p, nil
	}
	plain := MatchPGNPath(out, id)
	if _, err := os.Stat(plain); err == nil {
		return plain, nil
	}
	return "", fmt.Errorf("no games of %s: neither %s nor %s", id, RelPath(p), RelPath(plain))
}

// ReadGames returns an Elo chunk's games as PGN text, from FindGames's
// file (decompressed); a damaged file is an error naming it.
func ReadGames(out, id string) ([]byte, error) {
	p, err := FindGames(out, id)
	if err != nil {
		return nil, err
	}
	return zstdfile.ReadFile(p)
}

// RemoveGames removes an Elo chunk's games in either form, and the
// temporary file of a compression that was killed (a chunk that is played
// again, or stopped and not counted).
func RemoveGames(out, id string) {
	p := GamesPath(out, id)
	os.Remove(p)
	os.Remove(MatchPGNPath(out, id))
	temps, _ := filepath.Glob(filepath.Join(filepath.Dir(p), "."+filepath.Base(p)+".tmp*"))
	for _, f := range temps {
		if base, _, ok := fsutil.TempOwner(filepath.Base(f)); ok && base == filepath.Base(p) {
			os.Remove(f)
		}
	}
}

// FailOnceEnv names an environment variable for tests of the executors'
// retries: a task whose ID it holds fails on its first run (a marker file
// in the results folder remembers that it did).
const FailOnceEnv = "NNUELAB_EXPERIMENT_FAIL_ONCE"
