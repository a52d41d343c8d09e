package search

import (
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"unsafe"

	"github.com/nnuelab/nnuelab/engine/board"
)

func TestTTLayout(t *testing.T) {
	if s := unsafe.Sizeof(ttSlot{}); s != 16 {
		t.Errorf("slot is %d bytes, want 16", s)
	}
	if s := unsafe.Sizeof(ttCluster{}); s != 64 {
		t.Errorf("cluster is %d bytes, want 64 (one cache line)", s)
	}
	tt, _ := NewTT(1)
	if a := uintptr(unsafe.Pointer(&tt.clusters[0])); a%64 != 0 {
		t.Errorf("table starts at %#x, not on a cache line", a)
	}
	e := ttEntry{move: 0xFEDC, score: -31000, eval: 1234, depth: 200, genBound: 0xFF}
	if got := unpack(e.pack()); got != e {
		t.Errorf("pack/unpack: %+v, want %+v", got, e)
	}
}

func TestTTStoreProbe(t *testing.T) {
	tt, err := NewTT(1)
	if err != nil {
		t.Fatal(err)
	}
	key := uint64(0x123456789ABCDEF0)
	m := board.Move(0x0C1C)
	tt.store(key, m, 57, -12, 9, BoundLower, true)
	e, ok := tt.probe(key)
	if !ok || e.move != m || e.ttScore() != 57 || e.staticEv() != -12 || e.draft() != 9 || e.bound() != BoundLower || !e.isPV() {
		t.Fatalf("probe = %+v, %v", e, ok)
	}
	if _, ok := tt.probe(key ^ 1); ok {
		t.Error("probe of another key hit")
	}
	// A result without a move keeps the stored move.
	tt.store(key, board.NullMove, 60, -12, 10, BoundExact, false)
	if e, _ := tt.probe(key); e.move != m || e.draft() != 10 || e.bound() != BoundExact {
		t.Errorf("after a move-less store: %+v", e)
	}
	// A much shallower bound does not replace a deeper entry of this search.
	tt.store(key, board.NullMove, 1, -12, 2, BoundUpper, false)
	if e, _ := tt.probe(key); e.draft() != 10 {
		t.Errorf("shallow upper bound replaced depth 10: %+v", e)
	}
	// Quiescence entries (draft 0) are stored and found.
	tt.store(key^0x7FFF000000000000, board.NullMove, 5, 5, 0, BoundUpper, false)
	if e, ok := tt.probe(key ^ 0x7FFF000000000000); !ok || e.draft() != 0 {
		t.Errorf("draft-0 entry: %+v, %v", e, ok)
	}
	tt.Clear()
	if _, ok := tt.probe(key); ok {
		t.Error("hit after Clear")
	}
}

// TestTTReplacement fills one cluster and checks that a new position
// replaces the shallowest entry, and old generations before new ones.
func TestTTReplacement(t *testing.T) {
	tt, _ := NewTT(1)
	n := uint64(len(tt.clusters))
	// Keys with the same high bits map to the same cluster.
	base := uint64(0x8000000000000000)
	keys := []uint64{base | 1, base | 2, base | 3, base | 4, base | 5}
	for _, k := range keys {
		if tt.cluster(k) != tt.cluster(base) {
			t.Fatalf("keys do not share a cluster (%d clusters)", n)
		}
	}
	tt.store(keys[0], 0, 0, 0, 10, BoundExact, false)
	tt.store(keys[1], 0, 0, 0, 3, BoundExact, false)
	tt.store(keys[2], 0, 0, 0, 7, BoundExact, false)
	tt.store(keys[3], 0, 0, 0, 6, BoundExact, false)
	tt.store(keys[4], 0, 0, 0, 5, BoundExact, false)
	if _, ok := tt.probe(keys[1]); ok {
		t.Error("the shallowest entry survived")
	}
	for _, k := range []uint64{keys[0], keys[2], keys[3], keys[4]} {
		if _, ok := tt.probe(k); !ok {
			t.Errorf("key %x was replaced instead of the shallowest", k)
		}
	}
	// After a few searches the deep but old entry goes first.
	for i := 0; i < 3; i++ {
		tt.newSearch()
	}
	tt.store(keys[2], 0, 0, 0, 7, BoundExact, false) // refreshed: current generation
	tt.store(keys[3], 0, 0, 0, 6, BoundExact, false)
	tt.store(keys[4], 0, 0, 0, 5, BoundExact, false)
	tt.store(keys[1], 0, 0, 0, 1, BoundExact, false)
	if _, ok := tt.probe(keys[0]); ok {
		t.Error("an entry three searches old survived a fresh shallow one")
	}
}

func TestTTMateScores(t *testing.T) {
	tests := []struct{ score, ply int }{
		{MateScore - 5, 3}, {-(MateScore - 8), 6}, {123, 10}, {-50, 0}, {MateBound, 1},
	}
	for _, tc := range tests {
		stored := scoreToTT(tc.score, tc.ply)
		if got := scoreFromTT(stored, tc.ply); got != tc.score {
			t.Errorf("round trip of %d at ply %d: %d", tc.score, tc.ply, got)
		}
		// The same node reached 2 plies deeper (a transposition) is mated
		// 2 plies later counted from the root.
		if tc.score >= MateBound {
			if got := scoreFromTT(stored, tc.ply+2); got != tc.score-2 {
				t.Errorf("mate %d stored at ply %d read at ply %d: %d, want %d", tc.score, tc.ply, tc.ply+2, got, tc.score-2)
			}
		}
	}
}

func TestTTResizeAndHashFull(t *testing.T) {
	tt, _ := NewTT(2)
	if got := len(tt.clusters); got != 2<<20/64 {
		t.Errorf("2 MB gives %d clusters", got)
	}
	if err := tt.Resize(0); err == nil {
		t.Error("Resize(0) accepted")
	}
	if err := tt.Resize(MaxHashMB + 1); err == nil {
		t.Error("Resize beyond the maximum accepted")
	}
	// Stockfish's maximum is in range, more than this machine holds, and
	// refused before anything is allocated: the old table stays.
	if err := tt.Resize(MaxHashMB); err == nil || !strings.Contains(err.Error(), "exceeds") {
		t.Errorf("Resize(%d): %v, want an error naming the memory", MaxHashMB, err)
	}
	if got := len(tt.clusters); got != 2<<20/64 {
		t.Errorf("after a refused Resize the table has %d clusters", got)
	}
	if phys := physicalMemoryMB(); phys > 0 && phys < MaxHashMB {
		if err := tt.Resize(phys); err == nil {
			t.Errorf("Resize to all %d MB of memory accepted", phys)
		}
	}
	// A gigabyte beyond what is available now (when that is below the
	// three quarters): refused by the memory available, not the total.
	if avail := availableMemoryMB(); avail > 0 && avail+1024 < physicalMemoryMB()*3/4 {
		if err := tt.Resize(avail + 1024); err == nil || !strings.Contains(err.Error(), "available") {
			t.Errorf("Resize beyond the %d MB available: %v", avail, err)
		}
	}
	if tt.HashFull() != 0 {
		t.Errorf("empty table hashfull %d", tt.HashFull())
	}
	for i := 0; i < 1000; i++ {
		for j := range tt.clusters[i].s {
			tt.clusters[i].s[j].data.Store(ttEntry{depth: 5, genBound: tt.gen | uint8(BoundExact)}.pack())
		}
	}
	if tt.HashFull() != 1000 {
		t.Errorf("full sample gives hashfull %d", tt.HashFull())
	}
	tt.newSearch()
	if tt.HashFull() != 0 {
		t.Errorf("after a new search old entries count: %d", tt.HashFull())
	}
}

// TestTTConcurrent has threads store and probe the same clusters at once,
// every entry's fields derived from its key: a probe that returned a torn
// entry (one word of one store, the other of another) would show fields
// that do not belong to the key it asked for. Run it with -race as well.
func TestTTConcurrent(t *testing.T) {
	tt, _ := NewTT(1)
	tt.clusters = tt.clusters[:4] // 16 slots for many keys: constant replacement
	fields := func(k uint64) (board.Move, int, int, int) {
		return board.Move(k >> 3), int(int16(k >> 20)), int(int16(k >> 40)), int(k>>60) + 1
	}
	const threads, rounds = 4, 20000
	var wg sync.WaitGroup
	var bad atomic.Int64
	for th := 0; th < threads; th++ {
		wg.Add(1)
		go func(seed uint64) {
			defer wg.Done()
			x := seed
			for i := 0; i < rounds; i++ {
				x ^= x << 13
				x ^= x >> 7
				x ^= x << 17
				k := x%64*0x9E3779B97F4A7C15 | 1 // 64 keys shared by all threads
				if i&1 == 0 {
					m, sc, ev, d := fields(k)
					tt.store(k, m, sc, ev, d, BoundExact, false)
					continue
				}
				if e, ok := tt.probe(k); ok {
					m, sc, ev, d := fields(k)
					if e.move != m || e.ttScore() != sc || e.staticEv() != ev || e.draft() != d {
						bad.Add(1)
					}
				}
			}
		}(uint64(th)*0x2545F4914F6CDD1D + 1)
	}
	wg.Wait()
	if n := bad.Load(); n > 0 {
		t.Errorf("%d probes returned an entry that does not belong to their key", n)
	}
}

func BenchmarkTTProbe(b *testing.B) {
	tt, _ := NewTT(16)
	for i := uint64(0); i < 100000; i++ {
		tt.store(i*0x9E3779B97F4A7C15, 0, 0, 0, 5, BoundExact, false)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		tt.probe(uint64(i) * 0x9E3779B97F4A7C15)
	}
}
