package runner

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/nnuelab/nnuelab/experiments/plan"
	"github.com/nnuelab/nnuelab/internal/fsutil"
	"github.com/nnuelab/nnuelab/internal/zstdfile"
)

// MigrateStats counts what Migrate did.
type MigrateStats struct {
	// Files copied as they are, PGN files compressed, and files that were
	// already at the destination with the same content (an earlier,
	// interrupted migration's).
	Copied, Compressed, Present int
	// Bytes before (in src) and after (written to or found in dst).
	BytesBefore, BytesAfter int64
}

// LegacyDest returns where Migrate puts src by default: src's place under
// plan.LegacyResultsRoot (experiments/results), under plan.ResultsRoot
// instead (experiments/results/NAME/gen-3 -> results/NAME/gen-3; the old
// root itself -> the new one). Both roots are relative to the working
// folder (the repository's root). A folder elsewhere has no default.
func LegacyDest(src string) (string, error) {
	abs, err := filepath.Abs(src)
	if err != nil {
		return "", err
	}
	old, err := filepath.Abs(plan.LegacyResultsRoot)
	if err != nil {
		return "", err
	}
	rel, err := filepath.Rel(old, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is not under %s (run from the repository's root, or give the destination)", src, plan.LegacyResultsRoot)
	}
	return filepath.Join(plan.ResultsRoot, rel), nil
}

// Migrate moves a results folder written by an earlier nnuelab (under
// experiments/results, games as plain .pgn) to dst in the current layout:
// every file copied as it is, except the games (games/*.pgn), which are
// compressed to .pgn.zst; then src is removed. Each file is written under
// a temporary name and renamed, and checked against its source (a
// compressed PGN decompressed) before anything is removed, so a migration
// that is interrupted is finished by running it again; a file already at
// dst with the same content is left as it is, one with other content is an
// error (nothing is removed). Run on a folder that is gone (migrated
// already) with dst there, it does nothing. Lock files and the temporary
// files of killed writers are not copied. A folder a run is using (its
// lock held) is refused.
func Migrate(src, dst string, log io.Writer) (MigrateStats, error) {
	var st MigrateStats
	if log == nil {
		log = io.Discard
	}
	info, err := os.Stat(src)
	if errors.Is(err, fs.ErrNotExist) {
		if d, err := os.Stat(dst); err == nil && d.IsDir() {
			fmt.Fprintf(log, "%s: migrated already (to %s)\n", src, dst)
			return st, nil
		}
		return st, fmt.Errorf("nothing to migrate: neither %s nor %s exists", src, dst)
	}
	if err != nil {
		return st, err
	}
	if !info.IsDir() {
		return st, fmt.Errorf("%s is not a folder", src)
	}
	if a, b, err := absPair(src, dst); err != nil {
		return st, err
	} else if a == b || strings.HasPrefix(b, a+string(filepath.Separator)) || strings.HasPrefix(a, b+string(filepath.Separator)) {
		return st, fmt.Errorf("cannot migrate %s into %s: one holds the other", src, dst)
	}
	// Every folder a run has locked (it leaves a .lock) must be free: a run
	// still writing there would lose what it writes after the copy.
	var unlocks []func()
	defer func() {
		for _, u := range unlocks {
			u()
		}
	}()
	var files []string
	err = filepath.WalkDir(src, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		switch {
		case d.IsDir():
			return nil
		case name == ".lock":
			unlock, err := LockDir(filepath.Dir(path))
			if err != nil {
				return fmt.Errorf("cannot migrate %s: %w", src, err)
			}
			unlocks = append(unlocks, unlock)
			return nil
		case !d.Type().IsRegular():
			return fmt.Errorf("%s: not a regular file", path)
		}
		if _, _, ok := fsutil.TempOwner(name); ok {
			return nil // a killed writer's temporary (the lock is free: no writer is alive)
		}
		files = append(files, path)
		return nil
	})
	if err != nil {
		return st, err
	}
	for _, path := range files {
		rel, err := filepath.Rel(src, path)
		if err != nil {
			return st, err
		}
		target := filepath.Join(dst, rel)
		compress := isGamesPGN(rel)
		if compress {
			target += zstdfile.Ext
		}
		fi, err := os.Stat(path)
		if err != nil {
			return st, err
		}
		st.BytesBefore += fi.Size()
		if _, err := os.Stat(target); err == nil {
			same, err := zstdfile.SameContent(target, path)
			if err != nil {
				return st, fmt.Errorf("%s is already there and does not read: %w", target, err)
			}
			if !same {
				return st, fmt.Errorf("%s is already there with other content than %s: resolve by hand (nothing was removed)", target, path)
			}
			st.Present++
		} else {
			if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
				return st, err
			}
			if compress {
				err = zstdfile.CompressFile(path, target)
				st.Compressed++
			} else {
				err = copyFile(path, target, fi.Mode().Perm())
				st.Copied++
			}
			if err != nil {
				return st, err
			}
		}
		if ti, err := os.Stat(target); err == nil {
			st.BytesAfter += ti.Size()
		}
	}
	for _, u := range unlocks {
		u()
	}
	unlocks = nil
	if err := os.RemoveAll(src); err != nil {
		return st, fmt.Errorf("everything is in %s, but removing %s: %w", dst, src, err)
	}
	fmt.Fprintf(log, "%s -> %s: %d files copied, %d games compressed, %d already there; %d bytes -> %d\n",
		src, dst, st.Copied, st.Compressed, st.Present, st.BytesBefore, st.BytesAfter)
	return st, nil
}

// isGamesPGN tells whether a file (relative to a results folder) is an Elo
// chunk's plain PGN: games/ID.pgn at any depth (generations keep parts in
// gen-K/PART/).
func isGamesPGN(rel string) bool {
	return strings.HasSuffix(rel, ".pgn") && filepath.Base(filepath.Dir(rel)) == "games"
}

func absPair(a, b string) (string, string, error) {
	x, err := filepath.Abs(a)
	if err != nil {
		return "", "", err
	}
	y, err := filepath.Abs(b)
	return x, y, err
}

// copyFile copies src to dst atomically, with permissions perm, and checks
// the copy.
func copyFile(src, dst string, perm os.FileMode) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	f, err := fsutil.Create(dst, perm)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, in); err != nil {
		f.Abort()
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Abort()
		return err
	}
	if err := f.Commit(); err != nil {
		return err
	}
	same, err := zstdfile.SameContent(dst, src)
	if err != nil {
		return err
	}
	if !same {
		return fmt.Errorf("%s does not read back as %s", dst, src)
	}
	return nil
}
