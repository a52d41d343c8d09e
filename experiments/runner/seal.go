package runner

import (
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/nnuelab/nnuelab/experiments/plan"
)

// SealStats counts what Seal did.
type SealStats struct {
	Sealed  int // task files given their content_sha256
	Checked int // task files sealed already, checked
}

// Seal gives every task file under dir (DIR/tasks/*.json, and those of a
// generations folder's parts) that was written before task files were
// sealed its content_sha256 (plan.SealResult), checking each first; a
// folder a run is using (its lock held) is refused, as is a file that
// does not check (an Elo chunk whose counts are not its games'), naming it.
// Files sealed before it stay as they are.
func Seal(dir string, log io.Writer) (SealStats, error) {
	var st SealStats
	if log == nil {
		log = io.Discard
	}
	var tasks []string // the tasks folders, each a results folder's
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && d.Name() == "tasks" {
			tasks = append(tasks, path)
			return fs.SkipDir
		}
		return nil
	})
	if err != nil {
		return st, err
	}
	if len(tasks) == 0 {
		return st, fmt.Errorf("%s holds no tasks folder: not a results folder", dir)
	}
	for _, t := range tasks {
		out := filepath.Dir(t)
		unlock, err := LockDir(out)
		if err != nil {
			return st, fmt.Errorf("cannot seal %s: %w", out, err)
		}
		ents, err := os.ReadDir(t)
		if err != nil {
			unlock()
			return st, err
		}
		n := st.Sealed
		for _, e := range ents {
			if e.IsDir() || !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".") {
				continue // a killed writer's temporary is .NAME.tmp...
			}
			sealed, err := plan.SealResult(filepath.Join(t, e.Name()))
			if err != nil {
				unlock()
				return st, err
			}
			if sealed {
				st.Sealed++
			} else {
				st.Checked++
			}
		}
		unlock()
		fmt.Fprintf(log, "%s: sealed %d task files\n", t, st.Sealed-n)
	}
	return st, nil
}
