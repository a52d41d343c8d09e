package hugepage

import (
	"fmt"
	"os"
	"runtime"
	"strings"
	"testing"
	"unsafe"
)

// TestMake checks lengths, zeroing, alignment above the threshold and
// plain slices below it, for element sizes that divide the page size.
// The allocations before each Make leave dirty memory behind for the
// runtime to recycle, so the zeroing check covers pages Make dropped.
func TestMake(t *testing.T) {
	for range 4 {
		junk := make([]int16, 3*Threshold)
		for i := range junk {
			junk[i] = -1
		}
		junk = nil
		runtime.GC()
	}
	small := Make[int16](100)
	if len(small) != 100 || cap(small) != 100 {
		t.Fatalf("small: len %d cap %d", len(small), cap(small))
	}
	for _, n := range []int{Threshold / 2, Threshold/2 + 7, 3 * Threshold} {
		s := Make[int16](n)
		if len(s) != n || cap(s) != n {
			t.Fatalf("n %d: len %d cap %d", n, len(s), cap(s))
		}
		if a := uintptr(unsafe.Pointer(&s[0])); a%Size != 0 {
			t.Errorf("n %d: starts at %#x, not on a %d boundary", n, a, Size)
		}
		for i := range s {
			if s[i] != 0 {
				t.Fatalf("n %d: element %d is %d, want 0", n, i, s[i])
			}
		}
		for i := 0; i < n; i += 4099 {
			if s[i] != 0 {
				t.Fatalf("n %d: element %d is %d, want 0", n, i, s[i])
			}
			s[i] = int16(i)
		}
		type cluster struct{ a, b [4]uint64 }
		c := Make[cluster](n / 32)
		if a := uintptr(unsafe.Pointer(&c[0])); a%Size != 0 {
			t.Errorf("clusters: starts at %#x", a)
		}
	}
}

// TestAdvised looks for the advice in /proc/self/smaps (Linux with
// transparent huge pages in "madvise" or "always" mode): the mapping that
// holds an aligned slice is marked "hg" (VM_HUGEPAGE).
func TestAdvised(t *testing.T) {
	mode, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	if err != nil || !strings.Contains(string(mode), "[madvise]") && !strings.Contains(string(mode), "[always]") {
		t.Skipf("no transparent huge pages to advise here (%q, %v)", mode, err)
	}
	s := Make[int16](2 * Threshold)
	for i := range s {
		s[i] = 1
	}
	smaps, err := os.ReadFile("/proc/self/smaps")
	if err != nil {
		t.Skip(err)
	}
	addr := uintptr(unsafe.Pointer(&s[0]))
	var in bool
	for _, line := range strings.Split(string(smaps), "\n") {
		f := strings.Fields(line)
		if len(f) > 1 && strings.Contains(f[0], "-") && !strings.HasSuffix(f[0], ":") {
			var lo, hi uintptr
			if _, err := fmtSscanf(f[0], &lo, &hi); err == nil {
				in = lo <= addr && addr < hi
			}
			continue
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			if !strings.Contains(line, " hg") {
				t.Errorf("the mapping at %#x is not advised: %s", addr, line)
			}
			return
		}
	}
	t.Errorf("no mapping holds %#x", addr)
}

// fmtSscanf parses smaps' "lo-hi" address range.
func fmtSscanf(s string, lo, hi *uintptr) (int, error) {
	return fmt.Sscanf(s, "%x-%x", lo, hi)
}
