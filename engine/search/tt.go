package search

import (
	"fmt"
	"math"
	"math/bits"
	"runtime/debug"
	"sync/atomic"
	"unsafe"

	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/internal/hugepage"
)

// Bound says what a stored or reported score is: exact, a lower bound (the
// search failed high) or an upper bound (it failed low).
type Bound uint8

// Score bounds.
const (
	BoundNone  Bound = 0
	BoundUpper Bound = 1
	BoundLower Bound = 2
	BoundExact Bound = BoundUpper | BoundLower
)

// ttEntry is one transposition-table entry, decoded:
//
//	move     uint16  best or refutation move, 0 if none
//	score    int16   search score, mate scores relative to this node
//	eval     int16   static evaluation
//	depth    uint8   draft + depthOffset (quiescence entries have draft 0)
//	genBound uint8   generation (5 bits) | pv flag (1 bit) | Bound (2 bits)
//
// It packs into one 64-bit word in that order, low bits first.
type ttEntry struct {
	move     board.Move
	score    int16
	eval     int16
	depth    uint8
	genBound uint8
}

func (e ttEntry) pack() uint64 {
	return uint64(e.move) | uint64(uint16(e.score))<<16 | uint64(uint16(e.eval))<<32 |
		uint64(e.depth)<<48 | uint64(e.genBound)<<56
}

func unpack(d uint64) ttEntry {
	return ttEntry{move: board.Move(d), score: int16(d >> 16), eval: int16(d >> 32),
		depth: uint8(d >> 48), genBound: uint8(d >> 56)}
}

// ttSlot stores one entry as two words, each written and read atomically,
// so that the threads of a Lazy SMP search share the table without locks:
// data is the packed entry and check is the full Zobrist key XOR data. A
// probe that reads the two words of different writes (another thread
// storing meanwhile) finds a key that does not match and misses, rather
// than using a torn entry; a match also checks all 64 bits of the key.
type ttSlot struct {
	check, data atomic.Uint64
}

// clusterSize slots share one 64-byte cluster, so a probe touches one
// cache line.
const clusterSize = 4

type ttCluster struct {
	s [clusterSize]ttSlot
}

const (
	depthOffset = 1 // stored depth = draft + depthOffset, so 0 means empty
	genStep     = 8 // generation lives above the pv flag and the bound
	genMask     = 0xF8
	pvFlag      = 4
)

// TT is the transposition table: an array (of any length) of 64-byte
// clusters indexed by the high bits of the Zobrist key. Entries are
// replaced by depth and age: a probe that misses writes over the entry of
// its cluster with the smallest depth - 8*age. Any number of searchers may
// probe and store concurrently; Resize, Clear and the start of a search
// (which ages the table) must not run while another search does.
type TT struct {
	clusters []ttCluster
	gen      uint8
}

// MaxHashMB is the largest table size NewTT and Resize take, in MB:
// Stockfish's Hash maximum (32 TB), so that a GUI's setting is never out
// of range; whether the machine can hold the table is checked when it is
// allocated (see Resize).
const MaxHashMB = 1 << 25

// unknownMemoryMaxMB bounds a table where the machine's memory cannot be
// read (no /proc/meminfo): the size the engine allowed before it checked.
const unknownMemoryMaxMB = 1 << 16

// NewTT returns a table of about mb megabytes (at least one cluster).
func NewTT(mb int) (*TT, error) {
	t := &TT{}
	if err := t.Resize(mb); err != nil {
		return nil, err
	}
	return t, nil
}

// Resize reallocates the table to about mb megabytes, clearing it. A table
// the machine cannot hold is refused before anything is allocated, and the
// old table stays: the Go runtime cannot recover from an allocation the
// kernel refuses, and one the kernel overcommits is killed when the
// table is first cleared. The table may take at most three quarters of
// the machine's memory and at most the memory available now (the kernel's
// MemAvailable and the cgroup's limit, plus the old table's own size,
// which is released first); where the memory cannot be read, at most
// 65536 MB.
func (t *TT) Resize(mb int) error {
	if mb < 1 || mb > MaxHashMB {
		return fmt.Errorf("hash size %d MB out of range 1..%d", mb, MaxHashMB)
	}
	cur := int(uint64(len(t.clusters)) * uint64(unsafe.Sizeof(ttCluster{})) >> 20)
	phys, avail := physicalMemoryMB(), availableMemoryMB()
	switch {
	case phys > 0 && mb > phys*3/4:
		return fmt.Errorf("hash size %d MB exceeds three quarters of this machine's %d MB of memory", mb, phys)
	case avail > 0 && mb > avail+cur:
		return fmt.Errorf("hash size %d MB exceeds the memory available now (%d MB free for it, of %d MB)", mb, avail+cur, phys)
	case phys <= 0 && mb > unknownMemoryMaxMB:
		return fmt.Errorf("hash size %d MB: this machine's memory is unknown, and without it at most %d MB is allocated", mb, unknownMemoryMaxMB)
	}
	n := int(uint64(mb) << 20 / uint64(unsafe.Sizeof(ttCluster{})))
	t.clusters = nil // let the old table go before allocating the new one
	if cur >= 64 {
		// Hand a large old table back before taking the new one, so that
		// the two are never held at once.
		debug.FreeOSMemory()
	}
	// 2 MB-aligned and advised for huge pages: every probe is a random
	// line, and with 4 KB pages nearly every one also missed the TLB.
	t.clusters = hugepage.Make[ttCluster](n)
	t.gen = 0
	return nil
}

// Clear empties the table.
func (t *TT) Clear() {
	clear(t.clusters)
	t.gen = 0
}

// newSearch ages the table so that entries of earlier searches are
// replaced first.
func (t *TT) newSearch() { t.gen += genStep }

func (t *TT) cluster(key uint64) *ttCluster {
	hi, _ := bits.Mul64(key, uint64(len(t.clusters)))
	return &t.clusters[hi]
}

// holds reports whether the packed entry d, read from a slot whose check
// word is check, is a non-empty entry for key. Testing the packed words
// and unpacking only a hit keeps the probe's loop short.
func holds(check, d, key uint64) bool {
	return check^d == key && uint8(d>>48) != 0 // depth byte: 0 means empty
}

// probe returns the entry stored for key, if any.
func (t *TT) probe(key uint64) (ttEntry, bool) {
	c := t.cluster(key)
	for i := range c.s {
		d := c.s[i].data.Load()
		if holds(c.s[i].check.Load(), d, key) {
			return unpack(d), true
		}
	}
	return ttEntry{}, false
}

// age returns how many searches ago an entry was written (mod 32).
func (t *TT) age(e ttEntry) int {
	return int(uint8(t.gen-e.genBound&genMask)) / genStep
}

// store writes a result for key. draft is the remaining depth (0 in
// quiescence); score must already be adjusted with scoreToTT.
func (t *TT) store(key uint64, m board.Move, score, eval, draft int, b Bound, pv bool) {
	c := t.cluster(key)
	// Choose the slot: this key's, else an empty one, else the one with
	// the smallest depth - 8*age. Entries are read once into locals, so a
	// concurrent store can make the choice stale but never inconsistent.
	slot, same := 0, false
	var old ttEntry
	worst := math.MaxInt
	for i := range c.s {
		d := c.s[i].data.Load()
		if holds(c.s[i].check.Load(), d, key) {
			slot, same, old = i, true, unpack(d)
			break
		}
		e := unpack(d)
		if e.depth == 0 {
			if worst != math.MinInt {
				slot, old, worst = i, ttEntry{}, math.MinInt
			}
			continue
		}
		if v := int(e.depth) - 8*t.age(e); v < worst {
			slot, old, worst = i, e, v
		}
	}
	d := draft + depthOffset
	if d < 1 {
		d = 1
	}
	if d > 255 {
		d = 255
	}
	// Keep the old move if the new result has none for the same position.
	move := m
	if m == board.NullMove && same {
		move = old.move
	}
	// A shallower non-exact result for the same position from this search
	// does not overwrite a deeper one.
	if b != BoundExact && same && d+4 <= int(old.depth) && t.age(old) == 0 {
		return
	}
	flags := t.gen | uint8(b)
	if pv {
		flags |= pvFlag
	}
	data := ttEntry{move: move, score: int16(score), eval: int16(eval), depth: uint8(d), genBound: flags}.pack()
	c.s[slot].data.Store(data)
	c.s[slot].check.Store(key ^ data)
}

func (e *ttEntry) bound() Bound  { return Bound(e.genBound & 3) }
func (e *ttEntry) isPV() bool    { return e.genBound&pvFlag != 0 }
func (e *ttEntry) draft() int    { return int(e.depth) - depthOffset }
func (e *ttEntry) ttScore() int  { return int(e.score) }
func (e *ttEntry) staticEv() int { return int(e.eval) }

// HashFull returns the permille of entries written by the current search,
// sampled from the first 1000 clusters, as UCI's "hashfull" reports it.
func (t *TT) HashFull() int {
	n := len(t.clusters)
	if n > 1000 {
		n = 1000
	}
	used := 0
	for i := 0; i < n; i++ {
		for j := range t.clusters[i].s {
			e := unpack(t.clusters[i].s[j].data.Load())
			if e.depth != 0 && e.genBound&genMask == t.gen {
				used++
			}
		}
	}
	return used * 1000 / (n * clusterSize)
}

// scoreToTT converts a score relative to the root into one relative to the
// node at ply, so that a mate (or a table win) found through a
// transposition keeps its distance; scoreFromTT converts back.
func scoreToTT(score, ply int) int {
	switch {
	case score >= TBBound:
		return score + ply
	case score <= -TBBound:
		return score - ply
	}
	return score
}

func scoreFromTT(score, ply int) int {
	switch {
	case score >= TBBound:
		return score - ply
	case score <= -TBBound:
		return score + ply
	}
	return score
}
