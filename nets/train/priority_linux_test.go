package train

import (
	"syscall"
	"testing"
)

// TestBackground: the stream's thread runs backgroundNice below the
// process, and the thread the test runs on keeps the process's priority.
func TestBackground(t *testing.T) {
	proc, err := syscall.Getpriority(syscall.PRIO_PROCESS, 0)
	if err != nil {
		t.Fatal(err)
	}
	type got struct {
		ok   bool
		prio int
	}
	ch := make(chan got)
	go func() {
		ok := background()
		prio, _ := syscall.Getpriority(syscall.PRIO_PROCESS, syscall.Gettid())
		ch <- got{ok, prio}
	}()
	g := <-ch
	want := 20 - min(20-proc+backgroundNice, 19)
	if !g.ok || g.prio != want {
		t.Fatalf("stream thread: ok %v, priority %d (nice %d), want nice %d", g.ok, g.prio, 20-g.prio, 20-want)
	}
	if p, _ := syscall.Getpriority(syscall.PRIO_PROCESS, syscall.Gettid()); p != proc {
		t.Fatalf("the test's own thread has priority %d, the process %d", p, proc)
	}
}
