package datasets

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestRecords: a pass yields every record in order; a bad entry ends it
// with one error naming the file and line; SkipBad and Filter are counted
// (Skipped, Dropped) as the Reader counts them; a missing file is one
// error; breaking out of the loop closes the file (a ScanReader's reader
// is closed too).
func TestRecords(t *testing.T) {
	dir := t.TempDir()
	good := "4k3/8/8/8/8/8/8/4K3 w - - 0 1 [0.5] 0"
	late := "4k3/8/8/8/8/8/8/4K3 w - - 0 40 [0.5] 0" // ply 79: kept by min-ply=30
	path := filepath.Join(dir, "r.txt")
	content := good + "\n" + late + "\nnot a position\n" + late + "\n"
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	minPly, err := ParseFilter("min-ply=30")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name             string
		path             string
		o                Options
		stopAfter        int // break after this many records (0: never)
		records          int
		errLike          string
		skipped, dropped int64
	}{
		{name: "bad line ends the pass", path: path, records: 2, errLike: "r.txt: line 3"},
		{name: "skip bad", path: path, o: Options{SkipBad: true}, records: 3, skipped: 1},
		{name: "filter", path: path, o: Options{SkipBad: true, Filter: minPly}, records: 2, skipped: 1, dropped: 1},
		{name: "break", path: path, stopAfter: 1, records: 1},
		{name: "missing file", path: filepath.Join(dir, "none.txt"), errLike: "none.txt"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			scan := Records(tc.path, tc.o)
			var got []Record
			var errs []error
			for rec, err := range scan.All() {
				if err != nil {
					errs = append(errs, err)
					continue // the pass must end by itself after an error
				}
				got = append(got, rec)
				if len(got) == tc.stopAfter {
					break
				}
			}
			if len(got) != tc.records {
				t.Errorf("%d records, want %d", len(got), tc.records)
			}
			switch {
			case tc.errLike == "" && len(errs) > 0:
				t.Errorf("errors %v", errs)
			case tc.errLike != "" && (len(errs) != 1 || !strings.Contains(errs[0].Error(), tc.errLike)):
				t.Errorf("errors %v, want one containing %q", errs, tc.errLike)
			}
			if scan.Skipped() != tc.skipped || scan.Dropped() != tc.dropped {
				t.Errorf("skipped %d, dropped %d; want %d, %d", scan.Skipped(), scan.Dropped(), tc.skipped, tc.dropped)
			}
		})
	}
	var ee *EntryError
	for _, err := range Records(path, Options{}).All() {
		if err != nil && (!errors.As(err, &ee) || ee.N != 3) {
			t.Errorf("error %v, want an *EntryError at line 3", err)
		}
	}

	// ScanReader closes the reader it was given, also on break.
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	cr := &closeCounter{Reader: r}
	for range ScanReader(cr).All() {
		break
	}
	if cr.closed != 1 {
		t.Errorf("the reader was closed %d times, want 1", cr.closed)
	}
}

// closeCounter counts the Close calls of a Reader.
type closeCounter struct {
	Reader
	closed int
}

func (c *closeCounter) Close() error {
	c.closed++
	return c.Reader.Close()
}
