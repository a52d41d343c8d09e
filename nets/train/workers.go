package train

import (
	"sync/atomic"
	"time"
)

// workers runs the engine's parallel regions: the calling goroutine is
// worker 0, and helpers 1..n-1 are goroutines that, after a region, wait
// for the next one by polling for a while (spinWait) before they exit. A
// step is a few dozen regions (Rengar's: 66) separated by microseconds of
// serial work; a goroutine started per region begins tens of microseconds
// late (the runtime wakes a parked thread for it), which on two threads
// cost Rengar ~12% of a step's wall time. A helper that is still polling
// starts on the next region within a fraction of a microsecond, and one
// that has exited is started again by the next region, so no goroutine
// outlives the engine's use by more than spinWait.
//
// Which worker runs an item does not change what it computes (each worker
// has its own scratch; every sum has a fixed order), so neither does the
// helpers' timing.
type workers struct {
	n     int
	cur   atomic.Pointer[region]
	alive []atomic.Bool // per helper: its goroutine is running (index 0 unused)
}

// region is one call of run: items [0, n) of fn, claimed through next;
// done counts the finished ones, and the one that finishes the last
// closes fin.
type region struct {
	fn   func(w, i int)
	n    int64
	next atomic.Int64
	done atomic.Int64
	fin  chan struct{}
}

// spinWait is how long an idle worker polls before it blocks (the caller,
// for the helpers to finish) or exits (a helper, for the next region).
const spinWait = 100 * time.Microsecond

func newWorkers(n int) *workers {
	return &workers{n: n, alive: make([]atomic.Bool, n)}
}

// run calls fn(w, i) for every i in [0, n), on min(n, workers) workers; w
// < workers names the worker, so that fn can use per-worker scratch.
func (p *workers) run(n int, fn func(w, i int)) {
	if p.n <= 1 || n <= 1 {
		for i := 0; i < n; i++ {
			fn(0, i)
		}
		return
	}
	r := &region{fn: fn, n: int64(n), fin: make(chan struct{})}
	p.cur.Store(r)
	for h := 1; h < min(p.n, n); h++ {
		if p.alive[h].CompareAndSwap(false, true) {
			go p.helper(h, r)
		}
	}
	r.work(0)
	if r.done.Load() == r.n {
		return
	}
	// The helpers are finishing their last items: poll, then block.
	deadline := time.Now().Add(spinWait)
	for k := 0; r.done.Load() != r.n; k++ {
		if k%64 == 63 && time.Now().After(deadline) {
			<-r.fin
			return
		}
	}
}

// work runs items of r as worker w until none is left.
func (r *region) work(w int) {
	for {
		i := r.next.Add(1) - 1
		if i >= r.n {
			return
		}
		r.fn(w, int(i))
		if r.done.Add(1) == r.n {
			close(r.fin)
		}
	}
}

// helper is worker h: it works on r, then on each region published after
// it, until none comes within spinWait.
func (p *workers) helper(h int, r *region) {
	for {
		r.work(h)
		next := p.await(r)
		if next == nil {
			// Exit, unless a region came after all and run saw this
			// helper still alive (so started none in its place).
			p.alive[h].Store(false)
			next = p.cur.Load()
			if next == r || !p.alive[h].CompareAndSwap(false, true) {
				return
			}
		}
		r = next
	}
}

// await polls for a region other than r for up to spinWait.
func (p *workers) await(r *region) *region {
	deadline := time.Now().Add(spinWait)
	for k := 0; ; k++ {
		if next := p.cur.Load(); next != r {
			return next
		}
		if k%64 == 63 && time.Now().After(deadline) {
			return nil
		}
	}
}
