package train

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/internal/fsutil"
)

// Data is a training set in memory: records (datasets.Record, 40 bytes),
// split into training and validation positions.
type Data struct {
	Train, Val []datasets.Record
	// Files are the files read, with their SHA-256 (hex), in order.
	Files []FileHash
	// SHA256 identifies the training data: the SHA-256 of the one file, or
	// of the files' "sha256  name" lines when there are several (validation
	// files included).
	SHA256 string
	// Skipped counts the bad entries skipped (LoadData with skipBad).
	Skipped int64
	// Filtered counts the positions the filter dropped.
	Filtered int64
	// Excluded counts the training positions dropped because the same
	// position (by board hash) is in the validation files.
	Excluded int64
	// Streamed is the number of training positions a pass over streamed
	// data gives (Config.ShuffleBuffer); Train is empty then.
	Streamed int64
}

// TrainPositions is the number of training positions, in memory or
// streamed.
func (d *Data) TrainPositions() int64 {
	if d.Streamed > 0 {
		return d.Streamed
	}
	return int64(len(d.Train))
}

// FileHash is one data file and its SHA-256.
type FileHash struct {
	Path, SHA256 string // the path as given, the hex SHA-256 of its bytes
}

// maxLoad guards against exhausting memory (about 40 bytes per position).
const maxLoad = 400_000_000

// readRecords appends the records of path to dst (at most limit in all,
// 0 = no limit) and returns the file's SHA-256. Bad entries are an error
// naming the file and line (datasets' readers do that), or, with skip,
// skipped and counted in *skipped.
func readRecords(path string, dst []datasets.Record, limit int, skip bool, skipped *int64, filter *datasets.Filter, filtered *int64) ([]datasets.Record, string, error) {
	sum, _, err := fsutil.FileSHA256(path)
	if err != nil {
		return nil, "", fmt.Errorf("data: %w", err)
	}
	full := func() bool { return limit > 0 && len(dst) >= limit }
	if full() {
		return dst, sum, nil
	}
	scan := datasets.Records(path, datasets.Options{SkipBad: skip, Filter: filter})
	for rec, err := range scan.All() {
		if err != nil {
			return nil, "", fmt.Errorf("data: %w", err)
		}
		if n := rec.PieceCount(); n > maxFeatures || rec.King(0) > 63 || rec.King(1) > 63 {
			if skip {
				*skipped++
				continue
			}
			return nil, "", fmt.Errorf("data %s: record %d (%s) has %d pieces or a missing king", path, len(dst)+1, rec.Text(), n)
		}
		if len(dst) >= maxLoad {
			return nil, "", fmt.Errorf("data: more than %d positions to hold in memory; stream them (--shuffle-buffer N) or read fewer (--max-positions)", maxLoad)
		}
		dst = append(dst, rec)
		if full() {
			break
		}
	}
	if skip {
		*skipped += scan.Skipped()
	}
	if filter != nil {
		*filtered += scan.Dropped()
	}
	return dst, sum, nil
}

// LoadData reads the training files (at most limit positions, 0 = all) and
// splits off the validation positions: those of valFiles if given, else
// the fraction valFraction of the positions chosen by board hash, so that
// a position and its repetitions land on the same side, and the split is
// the same for every architecture and seed. With valFiles, training
// positions that also occur in them (by board hash) are dropped, so that a
// validation set cut from the same source never leaks into training. A bad
// entry is an error naming its file and line, unless skipBad skips (and
// counts) it. A filter, if not nil, drops positions from both sides as they
// are read (counted in Filtered), except its one-in subsample, which thins
// only the training positions.
func LoadData(files, valFiles []string, valFraction float64, limit int, skipBad bool, filter *datasets.Filter) (*Data, error) {
	var sample datasets.Filter // the filter's one-in subsample: the training side only
	if filter != nil {
		if err := filter.Check(); err != nil {
			return nil, err
		}
		if filter.OneIn > 1 {
			rest := *filter
			sample.OneIn, rest.OneIn = filter.OneIn, 0
			filter = &rest
		}
	}
	if len(files) == 0 {
		return nil, errors.New("no training data given")
	}
	if !(valFraction >= 0 && valFraction < 1) {
		return nil, fmt.Errorf("validation fraction %g out of range [0, 1)", valFraction)
	}
	d := &Data{}
	var all []datasets.Record
	for _, f := range files {
		var sum string
		var err error
		if all, sum, err = readRecords(f, all, limit, skipBad, &d.Skipped, filter, &d.Filtered); err != nil {
			return nil, err
		}
		d.Files = append(d.Files, FileHash{f, sum})
	}
	if len(valFiles) > 0 {
		for _, f := range valFiles {
			var sum string
			var err error
			if d.Val, sum, err = readRecords(f, d.Val, 0, skipBad, &d.Skipped, filter, &d.Filtered); err != nil {
				return nil, err
			}
			d.Files = append(d.Files, FileHash{f, sum})
		}
		inVal := make(map[uint64]struct{}, len(d.Val))
		for i := range d.Val {
			inVal[d.Val[i].BoardHash()] = struct{}{}
		}
		d.Train = all[:0]
		for _, r := range all {
			if _, ok := inVal[r.BoardHash()]; ok {
				d.Excluded++
				continue
			}
			d.Train = append(d.Train, r)
		}
	} else {
		cut := uint64(valFraction * (1 << 32))
		for _, r := range all {
			if r.BoardHash()>>32 < cut {
				d.Val = append(d.Val, r)
			} else {
				d.Train = append(d.Train, r)
			}
		}
	}
	if sample.OneIn > 1 {
		// Thinned after the split, so that validation stays whole.
		kept := d.Train[:0]
		for i := range d.Train {
			if sample.Sampled(&d.Train[i]) {
				kept = append(kept, d.Train[i])
			} else {
				d.Filtered++
			}
		}
		d.Train = kept
	}
	if len(d.Train) == 0 {
		return nil, errors.New("data: no training positions")
	}
	d.SHA256 = dataSHA256(d.Files)
	return d, nil
}

// dataSHA256 identifies training data by its files: the SHA-256 of the one
// file, or of the files' "sha256  name" lines when there are several.
func dataSHA256(files []FileHash) string {
	if len(files) == 1 {
		return files[0].SHA256
	}
	h := sha256.New()
	for _, f := range files {
		fmt.Fprintf(h, "%s  %s\n", f.SHA256, filepath.Base(f.Path))
	}
	return hex.EncodeToString(h.Sum(nil))
}
