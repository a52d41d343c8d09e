package plan

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/bench/stats"
	"github.com/nnuelab/nnuelab/experiments/metrics"
	"github.com/nnuelab/nnuelab/internal/zstdfile"
)

// eloGames is the PGN of an Elo chunk of n games as the match writes its
// tags: odd rounds the variant (the first engine) has White; results
// gives each game's result token.
func eloGames(results ...string) string {
	var b strings.Builder
	for i, r := range results {
		b.WriteString("[Event \"x\"]\n[Round \"" + itoa(i+1) + "\"]\n[Result \"" + r + "\"]\n\n1. e4 e5 " + r + "\n\n")
	}
	return b.String()
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

// TestTaskFileSealed: a task file written by WriteResult reads back as it
// was; one edited afterwards (a count, a metric, the seal itself, its
// place) is an error naming the file, never a result used; a file written
// before seals (none) reads as before, its Elo counts still checked
// against its games.
func TestTaskFileSealed(t *testing.T) {
	out := t.TempDir()
	measure := &Task{ID: "measure-a-s1", Kind: KindMeasure, Key: "km"}
	elo := &Task{ID: "elo-a-c000", Kind: KindElo, Key: "ke"}
	mr := &TaskResult{ID: measure.ID, Kind: KindMeasure, Key: "km", Variant: "a", Seed: 1,
		Measure: &metrics.MeasureResult{Agreement: &metrics.Agreement{N: 100, Scale: 1.1, MAE: 41.25}}}
	// Game 1 the variant wins with White, game 2 it draws with Black,
	// game 3 (no pair yet) it loses with White.
	er := &TaskResult{ID: elo.ID, Kind: KindElo, Key: "ke", Variant: "a",
		Elo: &EloResult{Wins: 1, Draws: 1, Losses: 1, Penta: stats.Penta{0, 0, 0, 1, 0}, Args: []string{"-games", "4"}}}
	if err := os.MkdirAll(filepath.Join(out, "games"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := zstdfile.WriteFile(GamesPath(out, elo.ID), []byte(eloGames("1-0", "1/2-1/2", "0-1")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, r := range []*TaskResult{mr, er} {
		if err := WriteResult(out, r); err != nil {
			t.Fatal(err)
		}
	}
	good := map[string][]byte{}
	for _, tk := range []*Task{measure, elo} {
		r, err := LoadResult(out, tk)
		if err != nil || r == nil || r.ContentSHA256 == "" {
			t.Fatalf("%s: %+v, %v", tk.ID, r, err)
		}
		good[tk.ID], _ = os.ReadFile(ResultPath(out, tk.ID))
	}
	if r, _ := LoadResult(out, measure); r.Measure.Agreement.MAE != 41.25 || r.Seed != 1 {
		t.Errorf("read back %+v", r.Measure.Agreement)
	}
	unsealed := func(r *TaskResult) []byte { b, _ := json.MarshalIndent(r, "", "  "); return append(b, '\n') }
	for _, tc := range []struct {
		name string
		task *Task
		edit func(string) string
		want string // "" reads
	}{
		{"mae_cp edited", measure, func(s string) string { return strings.Replace(s, `"mae_cp": 41.25`, `"mae_cp": 40.25`, 1) }, "checksum"},
		{"wins 1 -> 2", elo, func(s string) string { return strings.Replace(s, `"wins": 1`, `"wins": 2`, 1) }, "checksum"},
		{"a space added", elo, func(s string) string { return strings.Replace(s, `"wins": 1`, `"wins":  1`, 1) }, "checksum"},
		{"the seal edited", measure, func(s string) string {
			i := strings.Index(s, `"content_sha256": "`) + len(`"content_sha256": "`)
			return s[:i] + "0" + s[i+1:]
		}, "checksum"},
		{"the seal moved", measure, func(s string) string {
			i := strings.Index(s, `,`+"\n"+`  "content_sha256"`)
			seal := s[i+1 : len(s)-3]
			return strings.Replace(s[:i]+"\n}\n", `{`+"\n", "{\n"+seal+",\n", 1)
		}, "last key"},
		{"the seal removed, a count edited (the games disagree)", elo, func(string) string {
			r := *er
			e := *r.Elo
			e.Wins = 2
			r.Elo = &e
			return string(unsealed(&r))
		}, "its games"},
		{"written before seals", elo, func(string) string { return string(unsealed(er)) }, ""},
		{"not JSON", measure, func(s string) string { return s[:len(s)/2] }, measure.ID},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := ResultPath(out, tc.task.ID)
			defer os.WriteFile(path, good[tc.task.ID], 0o644)
			edited := tc.edit(string(good[tc.task.ID]))
			if edited == string(good[tc.task.ID]) {
				t.Fatal("the edit changed nothing")
			}
			if err := os.WriteFile(path, []byte(edited), 0o644); err != nil {
				t.Fatal(err)
			}
			r, err := LoadResult(out, tc.task)
			if tc.want == "" {
				if err != nil || r == nil {
					t.Errorf("%v, %v; want the result", r, err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), path) {
				t.Errorf("error %v, want one naming %s and saying %q", err, path, tc.want)
			}
			if _, ok := ReadResult(out, tc.task); ok {
				t.Error("ReadResult takes the edited file as a result")
			}
			p := &Plan{Out: out, Tasks: []*Task{measure, elo}}
			if err := CheckResults(p); err == nil {
				t.Error("CheckResults passes the edited file")
			}
		})
	}
	// Another key: not this task's result (it runs again), no error.
	if r, err := LoadResult(out, &Task{ID: measure.ID, Kind: KindMeasure, Key: "other"}); r != nil || err != nil {
		t.Errorf("a result under another key: %v, %v", r, err)
	}
}

// TestEloGamesChecked: an Elo chunk's counts must be those of its kept
// games (wins, draws, losses of the variant, pentanomial pairs): a count or
// a game's result edited is an error naming both files; a chunk whose
// games are not kept reads as it is.
func TestEloGamesChecked(t *testing.T) {
	out := t.TempDir()
	tk := &Task{ID: "elo-a-c000", Kind: KindElo, Key: "k"}
	res := &TaskResult{ID: tk.ID, Kind: KindElo, Key: "k", Elo: &EloResult{Wins: 1, Losses: 1, Penta: stats.Penta{0, 0, 1, 0, 0}}}
	if err := WriteResult(out, res); err != nil {
		t.Fatal(err)
	}
	if r, err := LoadResult(out, tk); err != nil || r == nil {
		t.Fatalf("no games kept: %v, %v", r, err)
	}
	os.MkdirAll(filepath.Join(out, "games"), 0o755)
	for _, tc := range []struct {
		name, games string
		ok          bool
	}{
		// The variant wins game 1 with White and loses game 2 with Black.
		{"its games", eloGames("1-0", "1-0"), true},
		{"a result edited", eloGames("1-0", "1/2-1/2"), false},
		{"a game more", eloGames("1-0", "1-0", "1-0"), false},
		{"a game missing", eloGames("1-0"), false},
	} {
		if err := os.WriteFile(MatchPGNPath(out, tk.ID), []byte(tc.games), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := LoadResult(out, tk)
		if tc.ok != (err == nil) || (err != nil && (!strings.Contains(err.Error(), ResultPath(out, tk.ID)) || !strings.Contains(err.Error(), MatchPGNPath(out, tk.ID)))) {
			t.Errorf("%s: %v", tc.name, err)
		}
	}
}
