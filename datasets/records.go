package datasets

import (
	"io"
	"iter"
)

// Scan is one pass over the records of a dataset: Records opens a file for
// it, ScanReader takes a Reader already open. All iterates; Skipped and
// Dropped count what the pass left out. It replaces the open / Next until
// io.EOF / Close loop every reader of a file would otherwise write.
type Scan struct {
	open    func() (Reader, error)
	skipped int64
	dropped int64
}

// Records returns a pass over the file at path read with o (OpenWith:
// format detected from the content; bad entries skipped and positions
// filtered as o says).
func Records(path string, o Options) *Scan {
	return &Scan{open: func() (Reader, error) { return OpenWith(path, o) }}
}

// ScanReader returns a pass over r's remaining records; All closes r when
// the pass ends.
func ScanReader(r Reader) *Scan {
	return &Scan{open: func() (Reader, error) { return r, nil }}
}

// All yields every record with a nil error, in file order. A file that
// cannot be opened or an entry that cannot be read (an *EntryError naming
// the file and the line or record) is yielded once as a zero Record with
// the error, and the pass ends there; the clean end of the file is not an
// error. Breaking out of the loop is fine: the file is closed either way.
func (s *Scan) All() iter.Seq2[Record, error] {
	return func(yield func(Record, error) bool) {
		r, err := s.open()
		if err != nil {
			yield(Record{}, err)
			return
		}
		defer func() {
			s.skipped, s.dropped = r.Skipped(), Dropped(r)
			r.Close()
		}()
		for {
			rec, err := r.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				yield(Record{}, err)
				return
			}
			if !yield(rec, nil) {
				return
			}
		}
	}
}

// Skipped returns how many bad entries Options.SkipBad skipped in the last
// pass of All.
func (s *Scan) Skipped() int64 { return s.skipped }

// Dropped returns how many positions Options.Filter dropped in the last
// pass of All.
func (s *Scan) Dropped() int64 { return s.dropped }
