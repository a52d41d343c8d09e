package plan

import (
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/nnuelab/nnuelab/datasets/datagen"
	"github.com/nnuelab/nnuelab/internal/fsutil"
	"github.com/nnuelab/nnuelab/internal/zstdfile"
)

// Elo chunks are keyed by content (both players' nets and settings, the
// book, the chunk's games), not by the experiment that played them: the
// same games asked for by two experiments (generation 1 against Leorik 3.1
// in generations.toml, and the 4M-position point of data-scaling.toml) are
// played once. adoptElo copies a finished chunk with the task's key from
// another results folder under the shared results root into this plan's
// folder, so that each experiment's results stay self-contained (a report
// is rewritten from its own folder alone) while git stores the identical
// games (compressed the same way, so byte for byte the same) once.

// EloIndex maps an Elo chunk's key to the task file that holds it, over
// every results folder under root.
type EloIndex map[string]string

// IndexElo reads the kind and key of every task result under root; files
// it cannot read are left out (an adoption is an optimisation: a chunk not
// found is played).
func IndexElo(root string) EloIndex {
	idx := EloIndex{}
	_ = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			if d != nil && d.IsDir() && path != root {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() || !strings.HasSuffix(path, ".json") || filepath.Base(filepath.Dir(path)) != "tasks" {
			return nil
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return nil
		}
		var r struct {
			Kind string `json:"kind"`
			Key  string `json:"key"`
		}
		if json.Unmarshal(data, &r) == nil && r.Kind == KindElo && r.Key != "" {
			if _, ok := idx[r.Key]; !ok {
				idx[r.Key] = path
			}
		}
		return nil
	})
	return idx
}

// AdoptElo gives the plan's unfinished Elo chunks that idx holds their
// results: the task file (its ID and variant renamed to this plan's, and
// AdoptedFrom naming the source) and its games, copied byte for byte (an
// older run's plain PGN is compressed). It returns the IDs adopted.
func AdoptElo(p *Plan, done map[string]bool, idx EloIndex, log io.Writer) ([]string, error) {
	var ids []string
	for _, t := range p.Tasks {
		if t.Kind != KindElo || done[t.ID] {
			continue
		}
		src, ok := idx[t.Key]
		if !ok || inFolder(p.Out, src) {
			continue
		}
		data, err := os.ReadFile(src)
		if err != nil {
			continue
		}
		var r TaskResult
		if err := json.Unmarshal(data, &r); err != nil || r.Key != t.Key || r.Elo == nil {
			continue
		}
		// Only a chunk that is what its task wrote, and whose counts are
		// its games', is adopted.
		if err := checkSeal(src, data, r.ContentSHA256); err != nil {
			fmt.Fprintf(log, "task %s: not adopting %s: %v\n", t.ID, relTo(p.Out, src), err)
			continue
		}
		if err := checkEloGames(filepath.Dir(filepath.Dir(src)), src, &r); err != nil {
			fmt.Fprintf(log, "task %s: not adopting %s: %v\n", t.ID, relTo(p.Out, src), err)
			continue
		}
		// A chunk without its games is not adopted: the games are the
		// evidence. Compressed games are copied as they are (the same
		// bytes); a plain PGN of an older run is compressed.
		games, err := FindGames(filepath.Dir(filepath.Dir(src)), r.ID)
		if err != nil {
			continue
		}
		pgn, err := zstdfile.ReadFile(games)
		if err != nil {
			fmt.Fprintf(log, "task %s: not adopting %s: %v\n", t.ID, relTo(p.Out, src), err)
			continue
		}
		if zstdfile.IsCompressed(games) {
			pgn, err = os.ReadFile(games)
			if err == nil {
				err = fsutil.WriteFileAll(GamesPath(p.Out, t.ID), pgn, 0o644)
			}
		} else {
			if err = os.MkdirAll(filepath.Dir(GamesPath(p.Out, t.ID)), 0o755); err == nil {
				err = zstdfile.WriteFile(GamesPath(p.Out, t.ID), pgn, 0o644)
			}
		}
		if err != nil {
			return ids, err
		}
		os.Remove(MatchPGNPath(p.Out, t.ID)) // a killed chunk's, played no more
		from := relTo(p.Out, src)
		r.ID, r.Variant, r.AdoptedFrom = t.ID, t.Variant, from
		if err := WriteResult(p.Out, &r); err != nil {
			return ids, err
		}
		done[t.ID] = true
		ids = append(ids, t.ID)
		fmt.Fprintf(log, "task %s: the same games are in %s; adopted\n", t.ID, from)
	}
	return ids, nil
}

// adoptableFrom names the task file, relative to the plan's folder, that a
// run would adopt for t ("" when none).
func (p *Plan) adoptableFrom(t *Task) string {
	src, ok := p.Adoptable[t.Key]
	if !ok || t.Kind != KindElo || inFolder(p.Out, src) {
		return ""
	}
	return relTo(p.Out, src)
}

// inFolder reports whether the task file src belongs to the results folder
// out (OUT/tasks/ID.json): a chunk is never adopted from its own folder.
func inFolder(out, src string) bool {
	return relTo(out, filepath.Dir(filepath.Dir(src))) == "."
}

// relTo names path relative to dir (both made absolute first: the index
// walks a root given relative to the working directory, a plan's folder
// is absolute), in slash form.
func relTo(dir, path string) string {
	ad, err1 := filepath.Abs(dir)
	ap, err2 := filepath.Abs(path)
	if err1 == nil && err2 == nil {
		if rel, err := filepath.Rel(ad, ap); err == nil {
			return filepath.ToSlash(rel)
		}
	}
	return filepath.ToSlash(path)
}

// CommittedData is where a datagen task looks for a committed copy of its
// shard before playing it: the repository's datasets folder, beside the
// experiment's folder (experiments/NAME.toml and datasets/selfplay-*).
func (p *Plan) CommittedData() string { return p.Manifest.Path("../datasets") }

// committedFrom names, for the dry run, the committed self-play shard a
// datagen task not yet done would adopt instead of playing it (one with its
// exact settings: datagen.FindCommitted); "" when there is none or it
// cannot be checked yet (a player net not trained).
func (p *Plan) committedFrom(t *Task) string {
	if t.Kind != KindDatagen || t.Data == nil || t.Data.Gen == nil {
		return ""
	}
	src, err := datagen.FindCommitted(*t.Data.Gen, []string{p.CommittedData()})
	if err != nil || src == "" {
		return ""
	}
	return relTo(filepath.Dir(p.CommittedData()), src) // datasets/...
}
