package datasets

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/nnuelab/nnuelab/internal/fsutil"
	"github.com/nnuelab/nnuelab/internal/version"

	"github.com/nnuelab/nnuelab/datasets/internal/splitmix"
	"github.com/nnuelab/nnuelab/engine/board"
)

// ShuffleConfig says how Shuffle mixes and splits.
type ShuffleConfig struct {
	// Seed decides the order and, with ValFrac, the split.
	Seed uint64
	// Outputs are the training files; records are dealt to them in turn
	// from one random permutation, so each is a random sample in random
	// order. Formats follow the names.
	Outputs []string
	// ValOutput, if set, receives the validation split: every position
	// (by BoardHash) whose seeded hash falls below ValFrac, so a position
	// is never in both splits and ValFrac is the expected share.
	ValOutput string
	ValFrac   float64
	// MemRecords bounds the records held in memory at once (about 40
	// bytes each); 0 means 4,000,000.
	MemRecords int
	// TempDir holds the bucket files ("" means the first output's
	// directory); they take 32 bytes per record and are removed at the end.
	TempDir string
	// Read are the options for reading the inputs (SkipBad).
	Read Options
}

// ShuffleSummary counts what Shuffle did.
type ShuffleSummary struct {
	Read    int64   // records read
	Skipped int64   // bad entries skipped (Read.SkipBad)
	Train   []int64 // records per training output
	Val     int64   // records in the validation output
	Buckets int     // bucket files used per split
	// StaleRemoved are temporaries killed runs left (bucket folders in the
	// temp folder, temp files of the outputs), removed before starting;
	// StaleUnknown are bucket folders of an older nnuelab, whose names say
	// not which process made them: left for the user to remove.
	StaleRemoved []string
	StaleUnknown []string
}

// IsValidation reports whether a position goes to the validation split of a
// shuffle with this seed and fraction. It depends only on the board hash,
// so equal positions always land on the same side.
func IsValidation(h, seed uint64, frac float64) bool {
	if frac <= 0 {
		return false
	}
	u := float64(splitmix.Mix64(h^splitmix.Mix64(seed^0xa0761d6478bd642f))>>11) / (1 << 53)
	return u < frac
}

// Shuffle mixes the records of all inputs into a random order and writes
// them to cfg.Outputs (and the validation split to cfg.ValOutput), in
// memory bounded by cfg.MemRecords: the first pass deals every record to a
// random bucket file, the second shuffles each bucket in memory and deals
// its records to the outputs. Concatenating uniformly shuffled buckets of
// multinomial sizes is a uniform permutation, so the result is as random as
// an in-memory shuffle. All outputs are written atomically; the same inputs
// and seed give the same outputs.
func Shuffle(inputs []string, cfg ShuffleConfig) (ShuffleSummary, error) {
	var sum ShuffleSummary
	if len(inputs) == 0 || len(cfg.Outputs) == 0 {
		return sum, errors.New("shuffle needs inputs and at least one output")
	}
	if cfg.ValFrac < 0 || cfg.ValFrac >= 1 || math.IsNaN(cfg.ValFrac) {
		return sum, fmt.Errorf("validation fraction %v outside [0, 1)", cfg.ValFrac)
	}
	if (cfg.ValFrac > 0) != (cfg.ValOutput != "") {
		return sum, errors.New("give both a validation output and a fraction, or neither")
	}
	all := append([]string(nil), cfg.Outputs...)
	if cfg.ValOutput != "" {
		all = append(all, cfg.ValOutput)
	}
	seen := map[string]bool{}
	for _, o := range all {
		if _, err := FormatOf(o); err != nil {
			return sum, err
		}
		abs, _ := filepath.Abs(o)
		if seen[abs] {
			return sum, fmt.Errorf("output %s given twice", o)
		}
		seen[abs] = true
		for _, in := range inputs {
			if ai, _ := filepath.Abs(in); ai == abs {
				return sum, fmt.Errorf("output %s is also an input", o)
			}
		}
	}
	mem := cfg.MemRecords
	if mem <= 0 {
		mem = 4_000_000
	}
	// Bucket count from the inputs' sizes, generously: a text line is
	// over 50 bytes, a compressed one over 4, a binary record over 4.
	var est int64
	for _, in := range inputs {
		fi, err := os.Stat(in)
		if err != nil {
			return sum, err
		}
		est += fi.Size() / 4
	}
	buckets := int(min(est/int64(mem)+1, 500)) // two splits of 500 open files stay under common limits
	sum.Buckets = buckets
	tmpRoot := cfg.TempDir
	if tmpRoot == "" {
		tmpRoot = filepath.Dir(cfg.Outputs[0])
	}
	// What killed shuffles left: bucket folders (tens of MB each) and
	// temp files of the outputs.
	var err error
	if sum.StaleRemoved, sum.StaleUnknown, err = removeStaleShuffleDirs(tmpRoot); err != nil {
		return sum, err
	}
	for _, o := range all {
		removed, err := RemoveStaleTemps(o)
		if err != nil {
			return sum, err
		}
		sum.StaleRemoved = append(sum.StaleRemoved, removed...)
	}
	tmp, err := os.MkdirTemp(tmpRoot, shufflePrefix())
	if err != nil {
		return sum, err
	}
	defer os.RemoveAll(tmp)

	// Pass 1: deal records to buckets.
	splits := 1
	if cfg.ValOutput != "" {
		splits = 2
	}
	bw := make([][]*rawBucket, splits)
	for s := range bw {
		bw[s] = make([]*rawBucket, buckets)
		for b := range bw[s] {
			if bw[s][b], err = newRawBucket(filepath.Join(tmp, fmt.Sprintf("%d-%05d", s, b))); err != nil {
				return sum, err
			}
		}
	}
	closeAll := func() {
		for _, s := range bw {
			for _, b := range s {
				b.close()
			}
		}
	}
	r := splitmix.New(cfg.Seed, 0)
	for _, in := range inputs {
		scan := Records(in, cfg.Read)
		for rec, err := range scan.All() {
			if err == nil {
				s := 0
				if splits == 2 && IsValidation(rec.BoardHash(), cfg.Seed, cfg.ValFrac) {
					s = 1
				}
				err = bw[s][r.Intn(buckets)].write(&rec)
			}
			if err != nil {
				closeAll()
				return sum, err
			}
			sum.Read++
		}
		sum.Skipped += scan.Skipped()
	}
	for _, s := range bw {
		for _, b := range s {
			if err := b.finish(); err != nil {
				closeAll()
				return sum, err
			}
		}
	}

	// Pass 2: shuffle each bucket in memory and deal it out.
	outs := make([]Writer, len(cfg.Outputs))
	abort := func() {
		for _, w := range outs {
			if w != nil {
				w.Abort()
			}
		}
	}
	for i, o := range cfg.Outputs {
		if outs[i], err = Create(o); err != nil {
			abort()
			return sum, err
		}
	}
	sum.Train = make([]int64, len(outs))
	next := 0
	var buf []Record
	for b := 0; b < buckets; b++ {
		if buf, err = bw[0][b].load(buf[:0]); err != nil {
			abort()
			return sum, err
		}
		shuffleRecords(buf, r)
		for i := range buf {
			if err := outs[next].Write(buf[i]); err != nil {
				abort()
				return sum, err
			}
			sum.Train[next]++
			next = (next + 1) % len(outs)
		}
	}
	if splits == 2 {
		vw, err := Create(cfg.ValOutput)
		if err != nil {
			abort()
			return sum, err
		}
		for b := 0; b < buckets; b++ {
			if buf, err = bw[1][b].load(buf[:0]); err != nil {
				vw.Abort()
				abort()
				return sum, err
			}
			shuffleRecords(buf, r)
			for i := range buf {
				if err := vw.Write(buf[i]); err != nil {
					vw.Abort()
					abort()
					return sum, err
				}
			}
			sum.Val += int64(len(buf))
		}
		if err := vw.Close(); err != nil {
			abort()
			return sum, err
		}
	}
	for i, w := range outs {
		if err := w.Close(); err != nil {
			outs[i] = nil
			abort()
			return sum, err
		}
		outs[i] = nil
	}
	return sum, nil
}

// shuffleRecords is a Fisher-Yates shuffle.
func shuffleRecords(recs []Record, r *splitmix.RNG) {
	for i := len(recs) - 1; i > 0; i-- {
		j := r.Intn(i + 1)
		recs[i], recs[j] = recs[j], recs[i]
	}
}

// bucketEntry is a record's size in a bucket: the 32-byte record and the
// move played (little-endian), so that binpack and .plain outputs keep it.
const bucketEntry = RecordSize + 2

// rawBucket is a temp file of raw records with their moves.
type rawBucket struct {
	path string
	f    *os.File
	w    *bufio.Writer
	n    int64
}

func newRawBucket(path string) (*rawBucket, error) {
	f, err := os.Create(path)
	if err != nil {
		return nil, err
	}
	return &rawBucket{path: path, f: f, w: bufio.NewWriterSize(f, 1<<15)}, nil
}

func (b *rawBucket) write(r *Record) error {
	var buf [bucketEntry]byte
	r.put((*[RecordSize]byte)(buf[:RecordSize]))
	binary.LittleEndian.PutUint16(buf[RecordSize:], uint16(r.Move))
	_, err := b.w.Write(buf[:])
	b.n++
	return err
}

func (b *rawBucket) finish() error {
	if err := b.w.Flush(); err != nil {
		return err
	}
	err := b.f.Close()
	b.f = nil
	return err
}

func (b *rawBucket) close() {
	if b.f != nil {
		b.f.Close()
		b.f = nil
	}
}

// load appends the bucket's records to buf and removes the file.
func (b *rawBucket) load(buf []Record) ([]Record, error) {
	f, err := os.Open(b.path)
	if err != nil {
		return buf, err
	}
	defer os.Remove(b.path)
	defer f.Close()
	br := bufio.NewReaderSize(f, 1<<16)
	var raw [bucketEntry]byte
	for i := int64(0); i < b.n; i++ {
		if _, err := io.ReadFull(br, raw[:]); err != nil {
			return buf, fmt.Errorf("bucket %s: record %d: %w", b.path, i+1, noEOF(err))
		}
		var r Record
		if err := r.get((*[RecordSize]byte)(raw[:RecordSize])); err != nil {
			return buf, fmt.Errorf("bucket %s: record %d: %w", b.path, i+1, err)
		}
		r.Move = board.Move(binary.LittleEndian.Uint16(raw[RecordSize:]))
		buf = append(buf, r)
	}
	return buf, nil
}

// ShuffleOutputNames returns N output names from a pattern with one "%d"
// (1-based), or the name itself for N = 1 without one.
func ShuffleOutputNames(pattern string, n int) ([]string, error) {
	if n < 1 {
		return nil, fmt.Errorf("%d outputs: want at least 1", n)
	}
	if !strings.Contains(pattern, "%d") {
		if n == 1 {
			return []string{pattern}, nil
		}
		return nil, fmt.Errorf("output pattern %q needs a %%d for %d outputs", pattern, n)
	}
	if strings.Count(pattern, "%") != 1 {
		return nil, fmt.Errorf("output pattern %q: use exactly one %%d and no other %%", pattern)
	}
	names := make([]string, n)
	for i := range names {
		names[i] = fmt.Sprintf(pattern, i+1)
	}
	return names, nil
}

// ShuffleManifest records how a shuffle's outputs were made, so that a
// committed split can be checked against its inputs and regenerated.
type ShuffleManifest struct {
	Command        string      `toml:"command"`
	EngineRevision string      `toml:"engine_revision"`
	Seed           uint64      `toml:"seed"`
	ValFrac        float64     `toml:"val_frac"`
	Read           int64       `toml:"read"`
	Skipped        int64       `toml:"skipped"`
	Inputs         []FileEntry `toml:"input"`
	Outputs        []FileEntry `toml:"output"`
}

// FileEntry names one file of a manifest with its size and SHA-256 and,
// for outputs, its split and record count.
type FileEntry struct {
	Path    string `toml:"path"`
	Split   string `toml:"split,omitempty"`
	Records int64  `toml:"records,omitempty"`
	SHA256  string `toml:"sha256"`
	Bytes   int64  `toml:"bytes"`
}

// NewShuffleManifest describes a finished Shuffle of inputs with cfg and
// its summary, hashing every input and output. Outputs are named by base
// name (the manifest lives beside them), inputs as given.
func NewShuffleManifest(command string, inputs []string, cfg ShuffleConfig, sum ShuffleSummary) (*ShuffleManifest, error) {
	m := &ShuffleManifest{Command: command, EngineRevision: version.Revision(), Seed: cfg.Seed,
		ValFrac: cfg.ValFrac, Read: sum.Read, Skipped: sum.Skipped}
	entry := func(path, name, split string, records int64) (FileEntry, error) {
		h, n, err := fsutil.FileSHA256(path)
		return FileEntry{Path: name, Split: split, Records: records, SHA256: h, Bytes: n}, err
	}
	for _, in := range inputs {
		e, err := entry(in, in, "", 0)
		if err != nil {
			return nil, err
		}
		m.Inputs = append(m.Inputs, e)
	}
	for i, o := range cfg.Outputs {
		e, err := entry(o, filepath.Base(o), "train", sum.Train[i])
		if err != nil {
			return nil, err
		}
		m.Outputs = append(m.Outputs, e)
	}
	if cfg.ValOutput != "" {
		e, err := entry(cfg.ValOutput, filepath.Base(cfg.ValOutput), "validation", sum.Val)
		if err != nil {
			return nil, err
		}
		m.Outputs = append(m.Outputs, e)
	}
	return m, nil
}

// Write stores the manifest at path atomically.
func (m *ShuffleManifest) Write(path string) error {
	var b bytes.Buffer
	if err := toml.NewEncoder(&b).Encode(m); err != nil {
		return err
	}
	return fsutil.WriteFileAtomic(path, b.Bytes(), 0o644)
}
