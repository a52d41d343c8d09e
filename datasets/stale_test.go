package datasets

import (
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/datasets/internal/datatest"
)

// TestRemoveStaleTemps: after a kill -9 an atomic write's temp file
// ".NAME.tmpPID-N" stays; the next write of NAME removes it when its
// process is gone (or its PID now belongs to a process started after the
// file was written), and leaves a live process's temp and other names'.
func TestRemoveStaleTemps(t *testing.T) {
	dir := t.TempDir()
	out := filepath.Join(dir, "out.bin")
	dead, live, self := datatest.DeadPID(t), datatest.LivePID(t), os.Getpid()
	tmp := func(base string, pid, n int) string {
		return filepath.Join(dir, tempName(base, pid, uint64(n)))
	}
	cases := []struct {
		name   string
		path   string
		dir    bool
		age    time.Duration
		remove bool
	}{
		{"a dead process's temp", tmp("out.bin", dead, 1), false, 0, true},
		{"a dead process's old temp", tmp("out.bin", dead, 2), false, 48 * time.Hour, true},
		{"a live process's temp", tmp("out.bin", live, 3), false, 0, false},
		{"this process's own temp", tmp("out.bin", self, 4), false, 0, false},
		{"another output's temp", tmp("other.bin", dead, 1), false, 0, false},
		{"a folder with a temp's name", tmp("out.bin", dead, 5), true, 0, false},
		{"not a temp name", filepath.Join(dir, ".out.bin.tmpx-1"), false, 0, false},
		{"the output itself", out, false, 0, false},
	}
	if runtime.GOOS == "linux" {
		// A PID in use by a process started after the temp was written
		// is another process's (the PID was reused): here ours, an hour
		// younger than the temp.
		cases = append(cases, struct {
			name   string
			path   string
			dir    bool
			age    time.Duration
			remove bool
		}{"a reused PID's temp", tmp("out.bin", self, 6), false, 365 * 24 * time.Hour, true})
	}
	setup := func() {
		for _, c := range cases {
			os.RemoveAll(c.path)
			datatest.MakeTemp(t, c.path, c.dir, c.age)
		}
	}
	check := func(how string) {
		for _, c := range cases {
			_, err := os.Stat(c.path)
			if gone := os.IsNotExist(err); gone != c.remove {
				t.Errorf("%s: %s: removed %v, want %v", how, c.name, gone, c.remove)
			}
		}
	}

	setup()
	removed, err := RemoveStaleTemps(out)
	if err != nil {
		t.Fatal(err)
	}
	check("RemoveStaleTemps")
	var want []string
	for _, c := range cases {
		if c.remove {
			want = append(want, c.path)
		}
	}
	slices.Sort(removed)
	slices.Sort(want)
	if !slices.Equal(removed, want) {
		t.Errorf("RemoveStaleTemps returned %q, want %q", removed, want)
	}

	// A convert's next run (Create) removes them too.
	setup()
	w, err := Create(out)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	check("Create")

	if _, err := RemoveStaleTemps(filepath.Join(dir, "no-such-folder", "x.bin")); err != nil {
		t.Errorf("a missing folder: %v", err)
	}
}

// TestShuffleRemovesStaleTemps: a shuffle killed with -9 leaves its bucket
// folder and its outputs' temp files; the next shuffle into the same place
// removes those of dead processes on this host, leaves a live shuffle's
// and another host's, and names an older nnuelab's folder (no PID in its
// name) for the user to remove.
func TestShuffleRemovesStaleTemps(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.bin")
	writeAll(t, in, sampleRecords(t))
	out := filepath.Join(dir, "out.bin")
	host, _ := os.Hostname()
	host = sanitizeHost(host)
	dead, live := datatest.DeadPID(t), datatest.LivePID(t)
	shuf := func(host string, pid int) string {
		return filepath.Join(dir, ".shuffle-"+host+"-"+strconv.Itoa(pid)+"-12345")
	}
	cases := []struct {
		name     string
		path     string
		dir      bool
		removed  bool
		unknown  bool
		survives bool
	}{
		{"a dead shuffle's buckets", shuf(host, dead), true, true, false, false},
		{"a live shuffle's buckets", shuf(host, live), true, false, false, true},
		{"another host's buckets", shuf("other-host", dead), true, false, false, true},
		{"an older nnuelab's buckets", filepath.Join(dir, ".shuffle-987654"), true, false, true, true},
		{"a dead shuffle's output temp", filepath.Join(dir, tempName("out.bin", dead, 7)), false, true, false, false},
		{"a live process's output temp", filepath.Join(dir, tempName("out.bin", live, 8)), false, false, false, true},
	}
	for _, c := range cases {
		datatest.MakeTemp(t, c.path, c.dir, 0)
	}
	s, err := Shuffle([]string{in}, ShuffleConfig{Seed: 1, Outputs: []string{out}})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range cases {
		_, err := os.Stat(c.path)
		if exists := err == nil; exists != c.survives {
			t.Errorf("%s: exists %v after the shuffle, want %v", c.name, exists, c.survives)
		}
		if got := slices.Contains(s.StaleRemoved, c.path); got != c.removed {
			t.Errorf("%s: in StaleRemoved %v, want %v (%q)", c.name, got, c.removed, s.StaleRemoved)
		}
		if got := slices.Contains(s.StaleUnknown, c.path); got != c.unknown {
			t.Errorf("%s: in StaleUnknown %v, want %v (%q)", c.name, got, c.unknown, s.StaleUnknown)
		}
	}
	// The shuffle's own folder is gone, and its name says whose it was.
	left, _ := filepath.Glob(filepath.Join(dir, ".shuffle-"+host+"-"+strconv.Itoa(os.Getpid())+"-*"))
	if len(left) > 0 {
		t.Errorf("the shuffle left its folder %v", left)
	}
	if p := shufflePrefix(); !shuffleDirRE.MatchString(p + "42") {
		t.Errorf("shuffle folder %q does not parse", p+"42")
	}
}
