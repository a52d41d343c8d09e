package plan

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/internal/zstdfile"
)

// An Elo chunk played by one experiment is adopted by another that asks
// for the same key: the games byte for byte, the result under this plan's
// task ID and variant with its source named. A chunk under another key, one
// without its games, or one already done here is left alone.
func TestAdoptElo(t *testing.T) {
	root := t.TempDir()
	other := filepath.Join(root, "gens", "gen-1", "vs-reference")
	write := func(path, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	chunk := func(id, key string) string {
		r := TaskResult{ID: id, Kind: KindElo, Key: key, Variant: "gen1", Seed: 1,
			Elo: &EloResult{Wins: 1}}
		data, _ := json.Marshal(r)
		return string(data)
	}
	write(filepath.Join(other, "tasks", "elo-gen1-c000.json"), chunk("elo-gen1-c000", "k0"))
	write(filepath.Join(other, "games", "elo-gen1-c000.pgn"), "[Event \"x\"]\n[Round \"1\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n")
	write(filepath.Join(other, "tasks", "elo-gen1-c001.json"), chunk("elo-gen1-c001", "k1")) // no games
	write(filepath.Join(other, "tasks", "train-x.json"), `{"id":"train-x","kind":"train","key":"k2"}`)

	// The index's root is relative to the working directory, as the
	// command line gives it; the plan's folder is absolute.
	t.Chdir(root)
	out := filepath.Join(root, "scaling")
	p := &Plan{Out: out, Tasks: []*Task{
		{ID: "elo-own-c000", Kind: KindElo, Key: "k0", Variant: "own"},
		{ID: "elo-own-c001", Kind: KindElo, Key: "k1", Variant: "own"},
		{ID: "elo-own-c002", Kind: KindElo, Key: "k2", Variant: "own"},
		{ID: "elo-own-c003", Kind: KindElo, Key: "k9", Variant: "own"},
	}}
	idx := IndexElo(".")
	p.Adoptable = idx
	if got := p.adoptableFrom(p.Tasks[0]); got != "../gens/gen-1/vs-reference/tasks/elo-gen1-c000.json" {
		t.Errorf("dry run shows %q for the chunk played elsewhere", got)
	}
	for _, tk := range p.Tasks[2:] {
		if got := p.adoptableFrom(tk); got != "" {
			t.Errorf("%s: dry run would adopt %q", tk.ID, got)
		}
	}
	done := map[string]bool{}
	var log bytes.Buffer
	ids, err := AdoptElo(p, done, idx, &log)
	if err != nil {
		t.Fatal(err)
	}
	if len(ids) != 1 || ids[0] != "elo-own-c000" || !done["elo-own-c000"] || len(done) != 1 {
		t.Fatalf("adopted %v (done %v), want only elo-own-c000", ids, done)
	}
	r, ok := ReadResult(out, p.Tasks[0])
	if !ok {
		t.Fatal("the adopted chunk does not read back as done")
	}
	if r.Variant != "own" || r.AdoptedFrom != "../gens/gen-1/vs-reference/tasks/elo-gen1-c000.json" || r.Elo.Wins != 1 {
		t.Errorf("adopted result %+v", r)
	}
	pgn, err := zstdfile.ReadFile(GamesPath(out, "elo-own-c000"))
	if err != nil || string(pgn) != "[Event \"x\"]\n[Round \"1\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n" {
		t.Errorf("games %q, %v", pgn, err)
	}
	// A second pass finds nothing new, and a chunk of this folder is never
	// adopted from itself.
	if ids, err := AdoptElo(p, done, IndexElo("."), &log); err != nil || len(ids) != 0 {
		t.Errorf("second pass adopted %v, %v", ids, err)
	}
	delete(done, "elo-own-c000")
	os.Remove(filepath.Join(other, "tasks", "elo-gen1-c000.json"))
	if ids, err := AdoptElo(p, done, IndexElo("."), &log); err != nil || len(ids) != 0 {
		t.Errorf("adopted %v from its own folder, %v", ids, err)
	}
}

// TestAdoptEloGames: the source chunk's games in each form a results
// folder may hold them. Compressed games are copied byte for byte, an
// older run's plain PGN is compressed, and a damaged file is not adopted
// (the log names it) and fails nothing.
func TestAdoptEloGames(t *testing.T) {
	const pgn = "[Event \"x\"]\n[Round \"1\"]\n[Result \"1-0\"]\n\n1. e4 e5 1-0\n"
	var compressed bytes.Buffer
	{
		p := filepath.Join(t.TempDir(), "g.pgn.zst")
		if err := zstdfile.WriteFile(p, []byte(pgn), 0o644); err != nil {
			t.Fatal(err)
		}
		b, _ := os.ReadFile(p)
		compressed.Write(b)
	}
	for _, tc := range []struct {
		name    string
		files   map[string][]byte // under the source's games/
		adopted bool
		log     string
	}{
		{"compressed", map[string][]byte{"elo-g-c000.pgn.zst": compressed.Bytes()}, true, "adopted"},
		{"plain (an older run)", map[string][]byte{"elo-g-c000.pgn": []byte(pgn)}, true, "adopted"},
		{"both: the compressed wins", map[string][]byte{"elo-g-c000.pgn.zst": compressed.Bytes(), "elo-g-c000.pgn": []byte("stale")}, true, "adopted"},
		{"damaged", map[string][]byte{"elo-g-c000.pgn.zst": compressed.Bytes()[:compressed.Len()-3]}, false, "elo-g-c000.pgn.zst: damaged zstd file"},
		{"none", nil, false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			src := filepath.Join(root, "other")
			os.MkdirAll(filepath.Join(src, "tasks"), 0o755)
			os.MkdirAll(filepath.Join(src, "games"), 0o755)
			data, _ := json.Marshal(TaskResult{ID: "elo-g-c000", Kind: KindElo, Key: "k", Variant: "g", Elo: &EloResult{Wins: 1}})
			os.WriteFile(filepath.Join(src, "tasks", "elo-g-c000.json"), data, 0o644)
			for name, b := range tc.files {
				os.WriteFile(filepath.Join(src, "games", name), b, 0o644)
			}
			out := filepath.Join(root, "here")
			// A killed chunk's plain PGN here is replaced by the adopted games.
			os.MkdirAll(filepath.Join(out, "games"), 0o755)
			os.WriteFile(MatchPGNPath(out, "elo-h-c000"), []byte("partial"), 0o644)
			p := &Plan{Out: out, Tasks: []*Task{{ID: "elo-h-c000", Kind: KindElo, Key: "k", Variant: "h"}}}
			var log bytes.Buffer
			ids, err := AdoptElo(p, map[string]bool{}, IndexElo(root), &log)
			if err != nil {
				t.Fatal(err)
			}
			if (len(ids) == 1) != tc.adopted || !strings.Contains(log.String(), tc.log) {
				t.Fatalf("adopted %v, log %q", ids, log.String())
			}
			if !tc.adopted {
				if _, err := os.Stat(GamesPath(out, "elo-h-c000")); err == nil {
					t.Error("games written for a chunk not adopted")
				}
				return
			}
			got, err := os.ReadFile(GamesPath(out, "elo-h-c000"))
			if err != nil || !bytes.Equal(got, compressed.Bytes()) {
				t.Errorf("games here: %d bytes, %v; want the compressed source's %d", len(got), err, compressed.Len())
			}
			if _, err := os.Stat(MatchPGNPath(out, "elo-h-c000")); err == nil {
				t.Error("the plain PGN of the killed chunk is still there")
			}
		})
	}
}
