package datasets

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/nnuelab/nnuelab/internal/fsutil"
)

// Temporary files and folders name the process that made them, so that a
// later run can tell one a killed process left behind (kill -9 runs no
// cleanup) from one a running process is writing:
//
//	.NAME.tmpPID-N          an atomic write of NAME (Create, createTemp)
//	.shuffle-HOST-PID-N/    Shuffle's bucket files
//
// A temporary is stale when its process is gone: no process has its PID,
// or the one that has it started after the temporary was last written
// (the PID was reused, as happens across container restarts). Stale ones
// are removed by the next run that writes NAME or shuffles into the
// folder, and by a datagen or label run resuming in its parts folder (and
// writing its output and manifest); a live process's temporaries are left
// alone.

// staleGrace is how much later than a temporary's last write a process
// with its PID must have started to count as another process: clocks and
// the kernel's start-time bookkeeping differ by less.
const staleGrace = 5 * time.Second

// ownerGone reports whether the process pid that last wrote a temporary at
// written is gone.
func ownerGone(pid int, written time.Time) bool {
	if pid <= 0 {
		return false
	}
	if !processAlive(pid) {
		return true
	}
	start, ok := processStart(pid)
	return ok && start.After(written.Add(staleGrace))
}

// tempName is the name of this process's n-th temporary of base
// (internal/fsutil's atomic writes).
func tempName(base string, pid int, n uint64) string { return fsutil.TempName(base, pid, n) }

// RemoveStaleTemps removes the temporary files atomic writes of path left
// when their process died (".NAME.tmpPID-N" beside path, NAME path's base
// name, whose process is gone) and returns their paths. Create and
// Shuffle call it for their outputs; the commands call it first to say
// what they removed.
func RemoveStaleTemps(path string) ([]string, error) {
	dir, want := filepath.Dir(path), filepath.Base(path)
	return removeStaleTemps(dir, func(base string) bool { return base == want })
}

// RemoveStaleTempsIn removes the temporary files of atomic writes of any
// name in dir whose process is gone (a datagen's or label's parts folder:
// game, chunk and settings files), and returns their paths.
func RemoveStaleTempsIn(dir string) ([]string, error) {
	return removeStaleTemps(dir, func(string) bool { return true })
}

// removeStaleTemps removes the temporary files in dir (fsutil.TempOwner)
// of the base names of accepts whose owner is gone.
func removeStaleTemps(dir string, accept func(base string) bool) ([]string, error) {
	ents, err := os.ReadDir(dir)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil
		}
		return nil, err
	}
	var removed []string
	for _, e := range ents {
		base, pid, ok := fsutil.TempOwner(e.Name())
		if !ok || e.IsDir() || !accept(base) {
			continue
		}
		info, err := e.Info()
		if err != nil || !ownerGone(pid, info.ModTime()) {
			continue
		}
		p := filepath.Join(dir, e.Name())
		if err := os.Remove(p); err != nil && !os.IsNotExist(err) {
			return removed, fmt.Errorf("removing the stale temporary file %s: %w", p, err)
		}
		removed = append(removed, p)
	}
	return removed, nil
}

// shufflePrefix begins the name of this process's bucket folder (os.MkdirTemp
// adds a random number).
func shufflePrefix() string {
	host, _ := os.Hostname()
	return fmt.Sprintf(".shuffle-%s-%d-", sanitizeHost(host), os.Getpid())
}

// sanitizeHost keeps a host name usable inside a file name.
func sanitizeHost(h string) string {
	if h == "" {
		return "localhost"
	}
	return strings.Map(func(r rune) rune {
		if r == '/' || r == os.PathSeparator || r < ' ' {
			return '_'
		}
		return r
	}, h)
}

var (
	shuffleDirRE    = regexp.MustCompile(`^\.shuffle-(.+)-(\d+)-\d+$`)
	oldShuffleDirRE = regexp.MustCompile(`^\.shuffle-\d+$`)
)

// removeStaleShuffleDirs removes the bucket folders in root that shuffles
// on this host left when their process died, and returns them (removed);
// unknown are folders of an older nnuelab, whose names carry no process ID:
// nothing tells whether a shuffle still uses them, so they are named for
// the user to remove. Folders of other hosts (a shared file system) and of
// live processes are left alone.
func removeStaleShuffleDirs(root string) (removed, unknown []string, err error) {
	ents, err := os.ReadDir(root)
	if err != nil {
		if os.IsNotExist(err) {
			return nil, nil, nil
		}
		return nil, nil, err
	}
	host, _ := os.Hostname()
	host = sanitizeHost(host)
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		name := e.Name()
		p := filepath.Join(root, name)
		if oldShuffleDirRE.MatchString(name) {
			unknown = append(unknown, p)
			continue
		}
		m := shuffleDirRE.FindStringSubmatch(name)
		if m == nil || m[1] != host {
			continue
		}
		pid, _ := strconv.Atoi(m[2])
		if !ownerGone(pid, lastWrite(p)) {
			continue
		}
		if err := os.RemoveAll(p); err != nil {
			return removed, unknown, fmt.Errorf("removing the stale shuffle folder %s: %w", p, err)
		}
		removed = append(removed, p)
	}
	return removed, unknown, nil
}

// lastWrite is the latest modification time of a folder and the files in
// it (a shuffle writes its buckets for a long time after making the
// folder).
func lastWrite(dir string) time.Time {
	var t time.Time
	if info, err := os.Stat(dir); err == nil {
		t = info.ModTime()
	}
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if info, err := e.Info(); err == nil && info.ModTime().After(t) {
			t = info.ModTime()
		}
	}
	return t
}
