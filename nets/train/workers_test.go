package train

import (
	"sync/atomic"
	"testing"
	"time"
)

// TestWorkers runs regions back to back and after pauses longer than
// spinWait (the helpers exit and are started again): every item runs
// exactly once, on a worker below the pool's size, and never on two
// workers with the same number at once.
func TestWorkers(t *testing.T) {
	for _, n := range []int{1, 2, 3} {
		p := newWorkers(n)
		busy := make([]atomic.Int32, n)
		for r := 0; r < 200; r++ {
			items := r % 37
			hits := make([]atomic.Int32, items)
			p.run(items, func(w, i int) {
				if w < 0 || w >= n {
					t.Errorf("worker %d of %d", w, n)
					return
				}
				if busy[w].Add(1) != 1 {
					t.Errorf("worker %d runs two items at once", w)
				}
				hits[i].Add(1)
				busy[w].Add(-1)
			})
			for i := range hits {
				if h := hits[i].Load(); h != 1 {
					t.Fatalf("%d workers, region %d: item %d ran %d times", n, r, i, h)
				}
			}
			if r%50 == 49 {
				time.Sleep(3 * spinWait)
			}
		}
	}
}
