package train

// The scan cache: what the stream's scan found in a training file, kept in
// a directory (Config.ScanCache) so that a resumed or repeated streamed run
// does not read the file again. On Stockfish-sized data the scan is hours
// of decoding (504M positions: about 90 s on 2 cores), and --resume would
// otherwise repeat it on every restart.
//
// An entry is one file under one selection (filter, validation files,
// skip-bad) and is used only while the file has the size and modification
// time it had when scanned; the stream still checks every block's count as
// it reads it, so a file changed behind the cache's back stops the run
// naming it, as it does without the cache. Data split for validation by
// board hash (no validation files) is not cached: its held-out positions
// come from every block.

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/nnuelab/nnuelab/internal/fsutil"
)

// scanCacheVersion names what an entry holds and how its counts were made.
// Change it with any change to what a scan counts (selection.sort, the
// readers' decoding and filtering, datasets.Blocks' split), so that older
// entries are not read.
const scanCacheVersion = 1

// scanEntry is what the scan found in one training file.
type scanEntry struct {
	Version   int          `json:"version"`
	Path      string       `json:"path"` // absolute
	Size      int64        `json:"size"`
	ModTime   int64        `json:"mod_time_ns"`
	Selection string       `json:"selection"`
	SHA256    string       `json:"sha256"`
	Blocks    []scanCounts `json:"blocks"`
}

// scanCounts is a block's line of a scanEntry: where it is and blockScan's
// counts (a cached file holds no held-out validation positions).
type scanCounts struct {
	Offset   int64 `json:"offset"`
	Size     int64 `json:"size"`
	Entries  int64 `json:"entries"`
	Train    int64 `json:"train"`
	Filtered int64 `json:"filtered"`
	Excluded int64 `json:"excluded"`
	Skipped  int64 `json:"skipped"`
	Bad      int64 `json:"bad"`
}

// selectionKey names everything besides the file that decides a scan's
// counts, or "" when they cannot be cached (validation split by hash).
func (sd *streamData) selectionKey(valFiles []FileHash) (string, error) {
	if sd.sel.hashed {
		return "", nil
	}
	filter, err := json.Marshal(sd.sel.filter)
	if err != nil {
		return "", err
	}
	var val []string
	for _, f := range valFiles {
		val = append(val, f.SHA256)
	}
	slices.Sort(val)
	return fmt.Sprintf("v%d max-features=%d filter=%s one-in=%d skip-bad=%t val=%s",
		scanCacheVersion, maxFeatures, filter, sd.sel.sample.OneIn, sd.skip, strings.Join(val, ",")), nil
}

// scanCachePath is the entry of file f under selection key in dir.
func scanCachePath(dir, abs, key string) string {
	h := sha256.Sum256([]byte(abs + "\x00" + key))
	return filepath.Join(dir, hex.EncodeToString(h[:16])+".json")
}

// loadScanEntry returns f's entry if dir holds one that still describes it
// (same size, modification time, selection and blocks), else nil: a
// missing, stale or unreadable entry means the file is scanned again.
func loadScanEntry(dir, key string, f *streamFile, blocks []streamBlock) *scanEntry {
	abs, err := filepath.Abs(f.path)
	if err != nil {
		return nil
	}
	b, err := os.ReadFile(scanCachePath(dir, abs, key))
	if err != nil {
		return nil
	}
	var e scanEntry
	if json.Unmarshal(b, &e) != nil || e.Version != scanCacheVersion || e.Path != abs || e.Selection != key ||
		e.Size != f.size || e.ModTime != f.modTime.UnixNano() || len(e.SHA256) != 64 || len(e.Blocks) != len(blocks) {
		return nil
	}
	for i, c := range e.Blocks {
		if c.Offset != blocks[i].Offset || c.Size != blocks[i].Size || c.Entries < 0 || c.Train < 0 || c.Train > c.Entries {
			return nil
		}
	}
	return &e
}

// saveScanEntry writes e for f in dir, atomically (a run killed while it
// writes leaves the old entry or none).
func saveScanEntry(dir, key string, f *streamFile, e *scanEntry) error {
	abs, err := filepath.Abs(f.path)
	if err != nil {
		return err
	}
	e.Version, e.Path, e.Selection, e.Size, e.ModTime = scanCacheVersion, abs, key, f.size, f.modTime.UnixNano()
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(scanCachePath(dir, abs, key), b, 0o644)
}
