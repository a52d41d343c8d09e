package syzygy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
)

// WDL is a position's game-theoretic value from the side to move, with
// the fifty-move rule's two in-between results.
type WDL int8

// The five WDL values, -2..2.
const (
	Loss        WDL = -2 // lost, whatever the fifty-move counter
	BlessedLoss WDL = -1 // lost, but the fifty-move rule saves a draw (with the counter at 0)
	Draw        WDL = 0
	CursedWin   WDL = 1 // won, but the fifty-move rule spoils it to a draw (with the counter at 0)
	Win         WDL = 2
)

// String returns the value's name as `nnuelab tb probe` prints it: loss,
// blessed-loss, draw, cursed-win or win.
func (w WDL) String() string {
	switch w {
	case Loss:
		return "loss"
	case BlessedLoss:
		return "blessed-loss"
	case Draw:
		return "draw"
	case CursedWin:
		return "cursed-win"
	case Win:
		return "win"
	}
	return fmt.Sprintf("WDL(%d)", int(w))
}

// Errors a probe returns for positions the tables cannot answer. Damaged
// files give a *CorruptError, missing ones a *MissingError.
var (
	// ErrCastling: the tables hold no position with castling rights.
	ErrCastling = errors.New("syzygy: position has castling rights")
	// ErrTooManyPieces: the position has more pieces than any table
	// present (or than the format's 7).
	ErrTooManyPieces = errors.New("syzygy: position has more pieces than the tables")
	// ErrInvalidPosition: the position is not legal (a king missing or in
	// check with the other side to move, a pawn on the first or last
	// rank, an en-passant square without the pawn that made it).
	ErrInvalidPosition = errors.New("syzygy: position is not legal")
	// ErrClosed: the tables were closed.
	ErrClosed = errors.New("syzygy: tables closed")
)

// MissingError reports that no table file for a material is present.
type MissingError struct {
	Table string // e.g. "KRNvKB"
	DTZ   bool   // the .rtbz file is missing (the .rtbw may be there)
}

func (e *MissingError) Error() string {
	ext := ".rtbw"
	if e.DTZ {
		ext = ".rtbz"
	}
	return fmt.Sprintf("syzygy: no table %s%s", e.Table, ext)
}

// Options configures Open.
type Options struct {
	// VerifyLimit: files up to this many bytes have their embedded
	// checksum verified when they are first loaded, and are refused if it
	// does not match. 0 means DefaultVerifyLimit; a negative value
	// verifies none.
	VerifyLimit int64
}

// DefaultVerifyLimit is the largest file verified by default: reading 64
// MiB costs some tens of milliseconds once, at the file's first probe.
// Larger files (the big 6- and 7-piece tables, up to tens of GB) are not
// verified by default: check them once with CheckFile after download.
const DefaultVerifyLimit = 64 << 20

// Tables is a set of Syzygy tables found in some directories. Probes are
// safe from many goroutines at once; a table file is loaded on its first
// probe.
type Tables struct {
	entries   []*entry
	slots     []slot // open addressing by material key
	maxPieces int
	verify    int64
	files     []string
}

type slot struct {
	key uint64
	e   *entry
}

// entry is one material's tables.
type entry struct {
	m        material
	wdl, dtz lazyFile
}

// lazyFile is a table file loaded on first use; loaded is nil until then
// and holds the load's error if it failed.
type lazyFile struct {
	path   string // "" when absent
	mu     sync.Mutex
	loaded atomic.Pointer[tableFile]
}

// Open scans the directories for table files (KQvKR.rtbw, KQvKR.rtbz
// ...); a material is present when its .rtbw file is. When a file is in
// several directories the first directory's is used. A directory that
// cannot be read is an error; one without tables is not.
func Open(dirs ...string) (*Tables, error) { return OpenWith(Options{}, dirs...) }

// OpenWith is Open with options.
func OpenWith(o Options, dirs ...string) (*Tables, error) {
	t := &Tables{verify: o.VerifyLimit}
	if t.verify == 0 {
		t.verify = DefaultVerifyLimit
	}
	byKey := map[uint64]*entry{}
	dtz := map[uint64]string{}
	for _, dir := range dirs {
		if dir == "" {
			continue
		}
		list, err := os.ReadDir(dir)
		if err != nil {
			return nil, fmt.Errorf("syzygy: %w", err)
		}
		for _, de := range list {
			name := de.Name()
			ext := filepath.Ext(name)
			if ext != ".rtbw" && ext != ".rtbz" || de.IsDir() {
				continue
			}
			m, ok := parseMaterial(strings.TrimSuffix(name, ext))
			if !ok {
				continue
			}
			path := filepath.Join(dir, name)
			if ext == ".rtbz" {
				if _, seen := dtz[m.key]; !seen {
					dtz[m.key] = path
				}
				continue
			}
			if _, seen := byKey[m.key]; seen {
				continue
			}
			if _, seen := byKey[m.mirrorKey]; seen {
				continue // the same material under its other name
			}
			e := &entry{m: m}
			e.wdl.path = path
			byKey[m.key] = e
			t.entries = append(t.entries, e)
		}
	}
	for _, e := range t.entries {
		if p, ok := dtz[e.m.key]; ok {
			e.dtz.path = p
		}
		t.maxPieces = max(t.maxPieces, e.m.n)
		t.files = append(t.files, e.wdl.path)
		if e.dtz.path != "" {
			t.files = append(t.files, e.dtz.path)
		}
	}
	sort.Strings(t.files)
	n := 16
	for n < 4*len(t.entries) {
		n *= 2
	}
	t.slots = make([]slot, n)
	for _, e := range t.entries {
		t.insert(e.m.key, e)
		if !e.m.symmetric {
			t.insert(e.m.mirrorKey, e)
		}
	}
	return t, nil
}

func slotOf(key uint64, n int) int { return int((key * 0x9e3779b97f4a7c15) >> 32 & uint64(n-1)) }

func (t *Tables) insert(key uint64, e *entry) {
	i := slotOf(key, len(t.slots))
	for t.slots[i].e != nil {
		i = (i + 1) & (len(t.slots) - 1)
	}
	t.slots[i] = slot{key, e}
}

// lookup returns the tables of a material key, nil if absent.
func (t *Tables) lookup(key uint64) *entry {
	if len(t.slots) == 0 {
		return nil
	}
	i := slotOf(key, len(t.slots))
	for {
		s := &t.slots[i]
		if s.e == nil {
			return nil
		}
		if s.key == key {
			return s.e
		}
		i = (i + 1) & (len(t.slots) - 1)
	}
}

// MaxPieces is the most pieces (kings included) of any table present, 0
// when there is none.
func (t *Tables) MaxPieces() int { return t.maxPieces }

// Files lists the paths of every table file found, sorted.
func (t *Tables) Files() []string { return append([]string(nil), t.files...) }

// Close unmaps every loaded file. No probe may run during or after it
// (those after it return ErrClosed).
func (t *Tables) Close() error {
	var first error
	closed := &tableFile{err: ErrClosed}
	for _, e := range t.entries {
		for _, l := range []*lazyFile{&e.wdl, &e.dtz} {
			l.mu.Lock()
			if f := l.loaded.Swap(closed); f != nil && f.unmap != nil {
				if err := f.unmap(); err != nil && first == nil {
					first = fmt.Errorf("syzygy: unmapping %s: %w", f.path, err)
				}
			}
			l.mu.Unlock()
		}
	}
	return first
}

// file returns the loaded table file of an entry, loading it first if
// need be.
func (t *Tables) file(e *entry, dtz bool) (*tableFile, error) {
	l := &e.wdl
	if dtz {
		l = &e.dtz
	}
	f := l.loaded.Load()
	if f == nil {
		f = t.load(e, l, dtz)
	}
	if f.err != nil {
		return nil, f.err
	}
	return f, nil
}

// load maps, checks and parses a file once; a failure is kept and
// returned by every later probe that needs the file.
func (t *Tables) load(e *entry, l *lazyFile, dtz bool) *tableFile {
	l.mu.Lock()
	defer l.mu.Unlock()
	if f := l.loaded.Load(); f != nil {
		return f
	}
	f, err := t.open(e, l.path, dtz)
	if err != nil {
		f = &tableFile{path: l.path, err: err}
	}
	l.loaded.Store(f)
	return f
}

func (t *Tables) open(e *entry, path string, dtz bool) (*tableFile, error) {
	if path == "" {
		return nil, &MissingError{Table: e.m.name, DTZ: dtz}
	}
	data, unmap, err := mapFile(path)
	if err != nil {
		return nil, fmt.Errorf("syzygy: %w", err)
	}
	f, err := parseTable(path, data, &e.m, !dtz)
	if err == nil && int64(len(data)) <= t.verify {
		err = verifyData(path, data)
	}
	if err != nil {
		unmap()
		return nil, err
	}
	f.unmap = unmap
	return f, nil
}
