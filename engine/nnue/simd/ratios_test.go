package simd

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"time"
)

// The go test -bench figures are wall-clock means, which a shared machine
// inflates by whatever else runs. TestKernelRatios prints the same
// comparisons as a markdown table of minimum per-call times over many short
// trials, which preemption and neighbours can only raise, so the minimum is
// a stable estimate of the kernel's own speed and the ratios are repeatable:
//
//	go test ./engine/nnue/simd -run TestKernelRatios -ratios -v
var ratios = flag.Bool("ratios", false, "print the AVX2/Go and AddSub/copy ratio table (TestKernelRatios)")

// minNsPerCall times reps calls of f per trial and returns the fastest
// trial's time per call.
func minNsPerCall(reps, trials int, f func()) float64 {
	best := 1e18
	for range trials {
		t0 := time.Now()
		for range reps {
			f()
		}
		best = min(best, float64(time.Since(t0).Nanoseconds())/float64(reps))
	}
	return best
}

// timeBoth returns the per-call minimum under the Go twins and, where
// available, under AVX2 (0 if there is no assembly).
func timeBoth(reps int, f func()) (goNs, asmNs float64) {
	const trials = 400
	withImpl(impl{asm: false}, func() { goNs = minNsPerCall(reps, trials, f) })
	if hasAVX2 {
		withImpl(impl{asm: true}, func() { asmNs = minNsPerCall(reps, trials, f) })
	}
	return
}

func TestKernelRatios(t *testing.T) {
	if !*ratios {
		t.Skip("run with -ratios to print the ratio table")
	}
	r := rand.New(rand.NewPCG(3, 4))
	var b strings.Builder
	b.WriteString("| kernel | width | Go ns | AVX2 ns | Go/AVX2 speed-up |\n|---|---|---:|---:|---:|\n")
	row := func(name, width string, reps int, f func()) {
		goNs, asmNs := timeBoth(reps, f)
		fmt.Fprintf(&b, "| %s | %s | %.1f | %.1f | %.1fx |\n", name, width, goNs, asmNs, goNs/asmNs)
	}
	var copyRows strings.Builder
	copyRows.WriteString("\n| update | width | builtin copy ns | AVX2 ns | AVX2 / copy |\n|---|---|---:|---:|---:|\n")
	for _, n := range benchWidths {
		w := fmt.Sprint(n)
		reps := 20000 / n * 10
		d, s, a1, a2, s1, s2 := make([]int16, n), rand16(r, n), rand16(r, n), rand16(r, n), rand16(r, n), rand16(r, n)
		u := make([]uint8, n)
		i8 := make([]int8, n)
		for i := range u {
			u[i], i8[i] = uint8(r.Uint32()), int8(r.Uint32())
		}
		row("Copy", w, reps, func() { Copy(d, s) })
		row("Add", w, reps, func() { Add(d, a1) })
		row("Sub", w, reps, func() { Sub(d, a1) })
		row("AddSub", w, reps, func() { AddSub(d, s, a1, s1) })
		row("AddSubSub", w, reps, func() { AddSubSub(d, s, a1, s1, s2) })
		row("AddAddSubSub", w, reps, func() { AddAddSubSub(d, s, a1, a2, s1, s2) })
		row("ClippedReLU", w, reps, func() { ClippedReLU(u, s, 127) })
		row("PairwiseClippedReLU", w+" -> "+fmt.Sprint(n/2), reps, func() { PairwiseClippedReLU(u[:n/2], s) })
		row("DotUint8Int8", w, reps, func() { sinkInt32 += DotUint8Int8(u, i8) })
		row("DotReLU", w, reps, func() { sinkInt32 += DotReLU(s, a1) })
		row("DotClippedReLU", w, reps, func() { sinkInt32 += DotClippedReLU(s, a1, 255) })
		row("DotSquaredClippedReLU", w, reps, func() { sinkInt32 += DotSquaredClippedReLU(s, a1, 255) })

		cp := minNsPerCall(reps, 400, func() { copy(d, s) })
		for _, k := range []struct {
			name string
			f    func()
		}{
			{"Copy", func() { Copy(d, s) }},
			{"AddSub", func() { AddSub(d, s, a1, s1) }},
			{"AddSubSub", func() { AddSubSub(d, s, a1, s1, s2) }},
			{"AddAddSubSub", func() { AddAddSubSub(d, s, a1, a2, s1, s2) }},
		} {
			var ns float64
			withImpl(impl{asm: hasAVX2}, func() { ns = minNsPerCall(reps, 400, k.f) })
			fmt.Fprintf(&copyRows, "| %s | %d | %.1f | %.1f | %.2f |\n", k.name, n, cp, ns, ns/cp)
		}
	}
	for _, shape := range [][2]int{{1024, 16}, {512, 32}, {32, 32}, {32, 1}} {
		cols, rows := shape[0], shape[1]
		in, w := make([]uint8, cols), make([]int8, rows*cols)
		for i := range in {
			in[i] = uint8(r.IntN(128))
		}
		for i := range w {
			w[i] = int8(r.Uint32())
		}
		out, bias := make([]int32, rows), make([]int32, rows)
		row("Affine", fmt.Sprintf("%d -> %d", cols, rows), 200000/(rows*cols)+10, func() { Affine(out, in, w, bias) })
	}
	sums, act := make([]int32, 32), make([]uint8, 32)
	for i := range sums {
		sums[i] = int32(r.IntN(1<<16) - 1<<15)
	}
	row("ClipShift", "32", 20000, func() { ClipShift(act, sums, 6, 127) })
	psqt := make([]int32, 8)
	row("AddSubInt32 (Go both)", "8", 2000, func() { AddSubInt32(psqt, psqt, psqt, psqt) })
	t.Logf("implementation: %s\n%s%s", Implementation(), b.String(), copyRows.String())
}
