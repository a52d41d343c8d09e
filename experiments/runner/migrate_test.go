package runner

import (
	"bytes"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/experiments/plan"
	"github.com/nnuelab/nnuelab/internal/fsutil"
	"github.com/nnuelab/nnuelab/internal/zstdfile"
)

// legacyFolder is a results folder as an earlier nnuelab left it: plain
// PGN games (a generations part's too), a lock file and a killed writer's
// temporary file.
var legacyFolder = map[string]string{
	"results.jsonl":                           "{\"metric\":\"elo\"}\n",
	"run.json":                                "{}\n",
	"tasks/elo-a-c000.json":                   "{\"id\":\"elo-a-c000\"}\n",
	"games/elo-a-c000.pgn":                    strings.Repeat("[Event \"x\"]\n\n1. e4 e5 2. Nf3 Nc6 1-0\n\n", 50),
	"games/elo-a-c001.pgn":                    "",
	"gen-1/train/games/elo-gen1-c000.pgn":     "[Event \"g\"]\n\n1. d4 d5 1/2-1/2\n\n",
	"gen-1/train/tasks/elo-gen1-c000.json":    "{}\n",
	"logs/elo-a-c000.log":                     "log\n",
	".lock":                                   "",
	"games/" + fsutil.TempName("x.pgn", 1, 1): "partial",
}

// migrated is what legacyFolder becomes.
var migrated = map[string]string{
	"results.jsonl":                           legacyFolder["results.jsonl"],
	"run.json":                                legacyFolder["run.json"],
	"tasks/elo-a-c000.json":                   legacyFolder["tasks/elo-a-c000.json"],
	"games/elo-a-c000.pgn.zst":                legacyFolder["games/elo-a-c000.pgn"],
	"games/elo-a-c001.pgn.zst":                "",
	"gen-1/train/games/elo-gen1-c000.pgn.zst": legacyFolder["gen-1/train/games/elo-gen1-c000.pgn"],
	"gen-1/train/tasks/elo-gen1-c000.json":    "{}\n",
	"logs/elo-a-c000.log":                     "log\n",
}

func writeTree(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for rel, data := range files {
		p := filepath.Join(root, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// readTree returns every file under root, decompressed.
func readTree(t *testing.T, root string) map[string]string {
	t.Helper()
	got := map[string]string{}
	filepath.WalkDir(root, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := zstdfile.ReadFile(p)
		if err != nil {
			t.Errorf("%v", err)
		}
		rel, _ := filepath.Rel(root, p)
		got[filepath.ToSlash(rel)] = string(b)
		return nil
	})
	return got
}

func TestMigrate(t *testing.T) {
	for _, tc := range []struct {
		name string
		// before sets up dst (and src) beyond the legacy folder.
		before  func(t *testing.T, src, dst string) func()
		wantErr string
	}{
		{"fresh", nil, ""},
		{"interrupted earlier: part of it there already", func(t *testing.T, src, dst string) func() {
			writeTree(t, dst, map[string]string{"results.jsonl": legacyFolder["results.jsonl"], "games/.keep": ""})
			os.Remove(filepath.Join(dst, "games", ".keep"))
			if err := zstdfile.WriteFile(filepath.Join(dst, "games", "elo-a-c000.pgn.zst"), []byte(legacyFolder["games/elo-a-c000.pgn"]), 0o644); err != nil {
				t.Fatal(err)
			}
			return nil
		}, ""},
		{"a file there with other content", func(t *testing.T, src, dst string) func() {
			writeTree(t, dst, map[string]string{"run.json": "{\"other\":1}\n"})
			return nil
		}, "with other content"},
		{"a damaged compressed file there", func(t *testing.T, src, dst string) func() {
			writeTree(t, dst, map[string]string{"games/elo-a-c000.pgn.zst": "\x28\xb5\x2f\xfd\x00"})
			return nil
		}, "does not read"},
		{"a run still using it", func(t *testing.T, src, dst string) func() {
			if runtime.GOOS != "linux" {
				t.Skip("no flock")
			}
			unlock, err := LockDir(filepath.Join(src))
			if err != nil {
				t.Fatal(err)
			}
			return unlock
		}, "another run is using"},
		{"into itself", func(t *testing.T, src, dst string) func() {
			return nil
		}, "one holds the other"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			src, dst := filepath.Join(root, "experiments", "results", "exp"), filepath.Join(root, "results", "exp")
			if tc.name == "into itself" {
				dst = filepath.Join(src, "new")
			}
			writeTree(t, src, legacyFolder)
			if tc.before != nil {
				if done := tc.before(t, src, dst); done != nil {
					defer done()
				}
			}
			var log bytes.Buffer
			st, err := Migrate(src, dst, &log)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				if _, err := os.Stat(filepath.Join(src, "games", "elo-a-c000.pgn")); err != nil {
					t.Errorf("a failed migration removed its source: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := readTree(t, dst)
			if len(got) != len(migrated) {
				t.Errorf("migrated files %v", keys(got))
			}
			for rel, want := range migrated {
				if got[rel] != want {
					t.Errorf("%s: %q, want %q", rel, trim(got[rel]), trim(want))
				}
			}
			if _, err := os.Stat(src); !os.IsNotExist(err) {
				t.Errorf("the source is still there (%v)", err)
			}
			if st.Compressed+st.Copied+st.Present != len(migrated) || st.BytesAfter >= st.BytesBefore {
				t.Errorf("stats %+v", st)
			}
			// Again: nothing to do, nothing changed.
			log.Reset()
			if _, err := Migrate(src, dst, &log); err != nil || !strings.Contains(log.String(), "migrated already") {
				t.Errorf("second migration: %v, %q", err, log.String())
			}
			if again := readTree(t, dst); len(again) != len(got) {
				t.Errorf("second migration changed %v", keys(again))
			}
		})
	}
	if _, err := Migrate(filepath.Join(t.TempDir(), "none"), filepath.Join(t.TempDir(), "nowhere"), nil); err == nil || !strings.Contains(err.Error(), "nothing to migrate") {
		t.Errorf("migrating nothing: %v", err)
	}
}

// TestMigrateReadable: a migrated chunk reads back through the plan's
// games readers, and so does an unmigrated (plain) one.
func TestMigrateReadable(t *testing.T) {
	root := t.TempDir()
	src, dst := filepath.Join(root, "old"), filepath.Join(root, "new")
	writeTree(t, src, legacyFolder)
	keep := filepath.Join(root, "keep")
	writeTree(t, keep, legacyFolder)
	if _, err := Migrate(src, dst, nil); err != nil {
		t.Fatal(err)
	}
	for _, out := range []string{dst, keep} {
		b, err := plan.ReadGames(out, "elo-a-c000")
		if err != nil || string(b) != legacyFolder["games/elo-a-c000.pgn"] {
			t.Errorf("%s: games %d bytes, %v", out, len(b), err)
		}
	}
	if _, err := plan.ReadGames(dst, "elo-b-c000"); err == nil || !strings.Contains(err.Error(), "no games of elo-b-c000") {
		t.Errorf("missing games: %v", err)
	}
}

func TestLegacyDest(t *testing.T) {
	t.Chdir(t.TempDir())
	for _, tc := range []struct {
		src, want, err string
	}{
		{"experiments/results/threat-inputs", "results/threat-inputs", ""},
		{"experiments/results/generations/gen-3", "results/generations/gen-3", ""},
		{"experiments/results", "results", ""},
		{"./experiments/results/x/", "results/x", ""},
		{"results/x", "", "not under experiments/results"},
		{"experiments/results-mine/x", "", "not under experiments/results"},
	} {
		got, err := LegacyDest(filepath.FromSlash(tc.src))
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s: %q, %v; want an error %q", tc.src, got, err, tc.err)
			}
			continue
		}
		if err != nil || filepath.ToSlash(got) != tc.want {
			t.Errorf("%s: %q, %v; want %q", tc.src, got, err, tc.want)
		}
	}
}

func keys(m map[string]string) []string {
	var ks []string
	for k := range m {
		ks = append(ks, k)
	}
	return ks
}

func trim(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
