package train

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/datasets"
)

// sameScan fails unless two scans of the same data agree on everything the
// stream and the run's identity use.
func sameScan(t *testing.T, what string, d1 *Data, sd1 *streamData, d2 *Data, sd2 *streamData) {
	t.Helper()
	if d1.SHA256 != d2.SHA256 || !slices.Equal(d1.Files, d2.Files) || sd1.n != sd2.n || d1.Filtered != d2.Filtered ||
		d1.Excluded != d2.Excluded || d1.Skipped != d2.Skipped || len(d1.Val) != len(d2.Val) || len(sd1.blocks) != len(sd2.blocks) {
		t.Fatalf("%s: %d training, %d filtered, %d excluded, %d skipped, hash %.12s; want %d, %d, %d, %d, %.12s", what,
			sd2.n, d2.Filtered, d2.Excluded, d2.Skipped, d2.SHA256, sd1.n, d1.Filtered, d1.Excluded, d1.Skipped, d1.SHA256)
	}
	for i := range sd1.blocks {
		a, b := sd1.blocks[i], sd2.blocks[i]
		if a.n != b.n || a.first != b.first || a.Offset != b.Offset || a.file != b.file {
			t.Fatalf("%s: block %d: %+v, want %+v", what, i, b, a)
		}
	}
}

// TestScanCache: a streamed run's scan taken from the cache equals a fresh
// one (counts, hashes, the stream itself); an entry is used only for the
// same file, size, modification time and selection; a damaged entry is
// scanned again; an entry that lies about a block stops the run when the
// block is read; data split by hash is not cached.
func TestScanCache(t *testing.T) {
	files := streamFiles(t, 3000)
	val := filepath.Join(t.TempDir(), "val.binpack")
	writeParts(t, val, testRecords(t, 300), 1)
	filter, err := datasets.ParseFilter("min-ply=12,one-in=2")
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	cfg := Config{Data: files, ValData: []string{val}, Filter: filter, ShuffleBuffer: 100}
	scan := func(cfg Config) (*Data, *streamData) {
		t.Helper()
		d, sd, err := scanStream(&cfg, 2)
		if err != nil {
			t.Fatal(err)
		}
		return d, sd
	}
	d0, sd0 := scan(cfg)
	if d0.Excluded == 0 || d0.Filtered == 0 {
		t.Fatalf("the test data should exclude validation positions and filter some: %d, %d", d0.Excluded, d0.Filtered)
	}
	cfg.ScanCache = cache
	d1, sd1 := scan(cfg)
	if sd1.cachedFiles != 0 || sd1.cacheErr != nil {
		t.Fatalf("first scan: %d files from an empty cache, error %v", sd1.cachedFiles, sd1.cacheErr)
	}
	sameScan(t, "first scan", d0, sd0, d1, sd1)
	entries, _ := filepath.Glob(filepath.Join(cache, "*.json"))
	if len(entries) != len(files) {
		t.Fatalf("%d cache entries, want %d", len(entries), len(files))
	}
	d2, sd2 := scan(cfg)
	if sd2.cachedFiles != len(files) {
		t.Fatalf("second scan: %d of %d files from the cache", sd2.cachedFiles, len(files))
	}
	sameScan(t, "from the cache", d0, sd0, d2, sd2)
	if n := sd0.n; !slices.Equal(drawStream(t, sd0, 5, 100, 50, 0, 2*n), drawStream(t, sd2, 5, 100, 50, 0, 2*n)) {
		t.Fatal("the stream of a cached scan differs")
	}

	// Another selection is another entry.
	other := cfg
	other.Filter = &datasets.Filter{MinPly: 20}
	do, sdo := scan(other)
	if sdo.cachedFiles != 0 {
		t.Fatalf("another filter: %d files from the cache", sdo.cachedFiles)
	}
	other.ScanCache = ""
	dr, sdr := scan(other)
	sameScan(t, "another filter", dr, sdr, do, sdo)

	// A file touched since is scanned again.
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(files[1], later, later); err != nil {
		t.Fatal(err)
	}
	d3, sd3 := scan(cfg)
	if sd3.cachedFiles != len(files)-1 {
		t.Fatalf("one file touched: %d files from the cache, want %d", sd3.cachedFiles, len(files)-1)
	}
	sameScan(t, "one file touched", d0, sd0, d3, sd3)

	// Damaged entries are scanned again, whatever is in them.
	key, err := sd0.selectionKey(d0.Files[len(files):])
	if err != nil {
		t.Fatal(err)
	}
	abs, _ := filepath.Abs(files[0])
	entry := scanCachePath(cache, abs, key)
	good, err := os.ReadFile(entry)
	if err != nil {
		t.Fatalf("no entry for %s where expected: %v", files[0], err)
	}
	for _, bad := range []string{"", "{", "null", strings.Replace(string(good), `"version":1`, `"version":0`, 1)} {
		if err := os.WriteFile(entry, []byte(bad), 0o644); err != nil {
			t.Fatal(err)
		}
		d4, sd4 := scan(cfg)
		if sd4.cachedFiles != len(files)-1 {
			t.Fatalf("damaged entry %q: %d files from the cache, want %d", bad, sd4.cachedFiles, len(files)-1)
		}
		sameScan(t, "damaged entry", d0, sd0, d4, sd4)
	}

	// An entry that lies about a block (valid, same size and time): the
	// block's count is checked when the stream reads it.
	var e scanEntry
	if err := json.Unmarshal(good, &e); err != nil {
		t.Fatal(err)
	}
	e.Blocks[0].Train--
	e.Blocks[0].Filtered++
	if err := saveScanEntry(cache, key, &sd0.files[0], &e); err != nil {
		t.Fatal(err)
	}
	_, sd5 := scan(cfg)
	if sd5.cachedFiles != len(files) {
		t.Fatalf("lying entry: %d files from the cache", sd5.cachedFiles)
	}
	src := newStreamSource(sd5, 5, 100, 50, 0)
	defer src.close()
	var streamErr error
	for k := int64(0); k < 2*sd5.n && streamErr == nil; k += 50 {
		_, streamErr = src.next(k, 50)
	}
	if streamErr == nil || !strings.Contains(streamErr.Error(), files[0]) || !strings.Contains(streamErr.Error(), "the file changed") {
		t.Fatalf("a block that does not match its cached count: %v", streamErr)
	}

	// Validation split by board hash: nothing cached.
	hashed := t.TempDir()
	byHash := Config{Data: files, ValFraction: 0.1, ShuffleBuffer: 100, ScanCache: hashed}
	scan(byHash)
	if _, sd := scan(byHash); sd.cachedFiles != 0 {
		t.Fatalf("hash split: %d files from the cache", sd.cachedFiles)
	}
	if got, _ := filepath.Glob(filepath.Join(hashed, "*")); len(got) != 0 {
		t.Fatalf("hash split: cache holds %v", got)
	}
}

// TestScanCacheRun: a streamed run whose scan comes from the cache trains
// the same net as one without a cache.
func TestScanCacheRun(t *testing.T) {
	files := streamFiles(t, 3000)
	val := filepath.Join(t.TempDir(), "val.binpack")
	writeParts(t, val, testRecords(t, 300), 1)
	config := func(cache string) Config {
		cfg := streamConfig(t, t.TempDir(), files)
		cfg.ValData, cfg.ScanCache = []string{val}, cache
		return cfg
	}
	ref, err := Run(context.Background(), config(""), Options{})
	if err != nil {
		t.Fatal(err)
	}
	cache := t.TempDir()
	for i := range 2 {
		var log strings.Builder
		got, err := Run(context.Background(), config(cache), Options{Log: &log})
		if err != nil {
			t.Fatal(err)
		}
		want := []string{"0 of 3 files", "3 of 3 files"}[i]
		if !strings.Contains(log.String(), want) {
			t.Fatalf("run %d: log does not say %q:\n%s", i+1, want, log.String())
		}
		if got.Data.SHA256 != ref.Data.SHA256 {
			t.Fatalf("run %d: data hash %.12s, want %.12s", i+1, got.Data.SHA256, ref.Data.SHA256)
		}
		sameTensors(t, ref.Model, got.Model)
	}
}
