package plan

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sync"

	"github.com/nnuelab/nnuelab/bench/match"
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

	// ContentSHA256 seals the file (WriteResult): the SHA-256 of its text
	// up to this key, which is the file's last. A task file whose text
	// does not match it was edited (or damaged) after its task wrote it
	// and is an error, never a result used. Files written before it
	// existed have none and are read as they are.
	ContentSHA256 string `json:"content_sha256,omitempty"`
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

// ReadResult reads a task's result; ok is false when there is none, it
// was made under another key (the manifest changed since), or it is not
// what its task wrote (LoadResult's error; a run refuses such a file
// before it gets here: CheckResults).
func ReadResult(out string, t *Task) (*TaskResult, bool) {
	r, err := LoadResult(out, t)
	return r, err == nil && r != nil
}

// LoadResult reads a task's result: nil (and no error) when there is none
// or it was made under another key, so that the task runs (again). A file
// that is not what its task wrote is an error naming it: text that does not
// match its content_sha256 (a count or a metric edited by hand, a damaged
// file), JSON that does not parse or names another task, or an Elo chunk
// whose wins, draws, losses or pairs are not those of its kept games.
// Files already checked (the same size and time stamp, and the same for
// their games) are not read again in this process.
func LoadResult(out string, t *Task) (*TaskResult, error) {
	path := ResultPath(out, t.ID)
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var r TaskResult
	if err := json.Unmarshal(data, &r); err != nil {
		return nil, fmt.Errorf("%s: %w (a task file is written whole: edited or damaged since; restore it, or remove it to run the task again)", path, err)
	}
	if err := checkSeal(path, data, r.ContentSHA256); err != nil {
		return nil, err
	}
	if r.ID != t.ID {
		return nil, fmt.Errorf("%s: the result of task %q, not of %q", path, r.ID, t.ID)
	}
	if r.Key != t.Key {
		return nil, nil
	}
	if r.Elo != nil {
		if err := checkEloGames(out, path, &r); err != nil {
			return nil, err
		}
	}
	return &r, nil
}

// CheckResults reads every task result of the plan that is there
// (LoadResult), so that a run or a report stops at an edited or damaged
// one, naming it, before it counts anything.
func CheckResults(p *Plan) error {
	for _, t := range p.Tasks {
		if _, err := LoadResult(p.Out, t); err != nil {
			return err
		}
	}
	return nil
}

// WriteResult stores a task's result in OUT/tasks/ID.json atomically,
// sealed: its last key, content_sha256, is the SHA-256 of the text before
// it (the indented JSON of r up to there).
func WriteResult(out string, r *TaskResult) error {
	c := *r
	c.ContentSHA256 = ""
	body, err := json.MarshalIndent(&c, "", "  ")
	if err != nil {
		return err
	}
	// body ends "\n}": the key goes before the closing brace.
	head := body[:len(body)-2]
	sum := sha256.Sum256(head)
	data := fmt.Appendf(append([]byte{}, head...), ",\n  \"content_sha256\": %q\n}\n", hex.EncodeToString(sum[:]))
	return fsutil.WriteFileAll(ResultPath(out, r.ID), data, 0o644)
}

// sealRE finds a sealed file's last key, as WriteResult writes it.
var sealRE = regexp.MustCompile(`,\n  "content_sha256": "([0-9a-f]{64})"\n}\n$`)

// checkSeal checks a task file's text against its content_sha256 (sum, as
// the JSON gave it; "" for a file written before seals).
func checkSeal(path string, data []byte, sum string) error {
	m := sealRE.FindSubmatchIndex(data)
	switch {
	case m == nil && sum == "" && !bytes.Contains(data, []byte(`"content_sha256"`)):
		return nil // written before seals
	case m == nil || string(data[m[2]:m[3]]) != sum:
		return fmt.Errorf("%s: content_sha256 is not the file's last key as its task wrote it (edited since); restore the file, or remove it to run the task again", path)
	}
	got := sha256.Sum256(data[:m[0]])
	if hex.EncodeToString(got[:]) != sum {
		return fmt.Errorf("%s: checksum mismatch: its text has SHA-256 %s, its content_sha256 says %s (edited or damaged after its task wrote it); restore the file, or remove it to run the task again",
			path, hex.EncodeToString(got[:]), sum)
	}
	return nil
}

// checkedElo remembers the Elo chunks whose counts agree with their games,
// by task file, with the files' sizes and times then.
var checkedElo sync.Map // path -> string

// checkEloGames checks an Elo chunk's counts against its games, where they
// are kept (FindGames): the same wins, draws and losses of the variant and
// the same pentanomial pairs (match.CountPGN).
func checkEloGames(out, path string, r *TaskResult) error {
	games, err := FindGames(out, r.ID)
	if err != nil {
		return nil // none kept (an older run's chunk)
	}
	stamp := func(p string) string {
		st, err := os.Stat(p)
		if err != nil {
			return ""
		}
		return fmt.Sprint(st.Size(), st.ModTime().UnixNano())
	}
	id := stamp(path) + "|" + games + "|" + stamp(games)
	if v, ok := checkedElo.Load(path); ok && v == id {
		return nil
	}
	pgn, err := zstdfile.ReadFile(games)
	if err != nil {
		return err
	}
	c, err := match.CountPGN(bytes.NewReader(pgn), games)
	if err != nil {
		return fmt.Errorf("%s: its games: %w", path, err)
	}
	e := r.Elo
	if c.Wins != e.Wins || c.Draws != e.Draws || c.Losses != e.Losses || c.Penta != e.Penta {
		return fmt.Errorf("%s: +%d =%d -%d, pairs %v, but its games %s are +%d =%d -%d, pairs %v (a count edited, or games not its own); restore the files, or remove both to play the chunk again",
			path, e.Wins, e.Draws, e.Losses, e.Penta, games, c.Wins, c.Draws, c.Losses, c.Penta)
	}
	checkedElo.Store(path, id)
	return nil
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

// SealResult gives a task file written before task files were sealed its
// content_sha256, in place (atomically): its text is kept as it is and the
// key appended last, as WriteResult writes it. What can be checked is
// first: the file parses, names its own task, and an Elo chunk's counts are
// those of its kept games. A sealed file is checked and left as it is. It
// reports whether it sealed the file. `nnuelab experiment migrate --seal`
// runs it over results folders, so that the results committed before
// seals are protected too.
func SealResult(path string) (bool, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return false, err
	}
	var r TaskResult
	if err := json.Unmarshal(data, &r); err != nil {
		return false, fmt.Errorf("%s: %w", path, err)
	}
	if err := checkSeal(path, data, r.ContentSHA256); err != nil {
		return false, err
	}
	if r.ID+".json" != filepath.Base(path) {
		return false, fmt.Errorf("%s: the result of task %q", path, r.ID)
	}
	if r.Elo != nil {
		if err := checkEloGames(filepath.Dir(filepath.Dir(path)), path, &r); err != nil {
			return false, err
		}
	}
	if r.ContentSHA256 != "" {
		return false, nil
	}
	head, ok := bytes.CutSuffix(data, []byte("\n}\n"))
	if !ok || len(bytes.TrimSpace(head)) < 2 {
		return false, fmt.Errorf("%s: not laid out as a task writes its file (indented JSON ending in \"}\\n\"); not sealed", path)
	}
	sum := sha256.Sum256(head)
	sealed := fmt.Appendf(append([]byte{}, head...), ",\n  \"content_sha256\": %q\n}\n", hex.EncodeToString(sum[:]))
	// The sealed text must read back as the same result.
	var back TaskResult
	if err := json.Unmarshal(sealed, &back); err != nil || back.ContentSHA256 != hex.EncodeToString(sum[:]) {
		return false, fmt.Errorf("%s: sealed, it would not read back (%v); not sealed", path, err)
	}
	if err := fsutil.WriteFileAtomic(path, sealed, 0o644); err != nil {
		return false, err
	}
	return true, nil
}
