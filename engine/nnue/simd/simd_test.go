package simd

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

// impl is one kernel set: the assembly (where this build and CPU have it) or
// the pure-Go twins.
type impl struct {
	name string
	asm  bool
}

// impls lists the kernel sets that can run here; "generic" always can.
func impls() []impl {
	list := []impl{{"generic", false}}
	if hasAVX2 {
		list = append(list, impl{"avx2", true})
	}
	return list
}

// withImpl runs f with useAVX2 forced to im.asm and restores it afterwards.
// Tests in this package never run in parallel: the switch is global.
func withImpl(im impl, f func()) {
	saved := useAVX2
	useAVX2 = im.asm
	defer func() { useAVX2 = saved }()
	f()
}

// forEachImpl runs f as a subtest under every available kernel set.
func forEachImpl(t *testing.T, f func(t *testing.T)) {
	t.Helper()
	for _, im := range impls() {
		t.Run(im.name, func(t *testing.T) { withImpl(im, func() { f(t) }) })
	}
}

func TestImplementation(t *testing.T) {
	withImpl(impl{asm: false}, func() {
		if got := Implementation(); got != "generic" {
			t.Errorf("Implementation() with the twins forced = %q, want generic", got)
		}
	})
	want := "generic"
	if hasAVX2 {
		want = "avx2"
	}
	if got := Implementation(); got != want {
		t.Errorf("Implementation() = %q, want %q (hasAVX2 = %v)", got, want, hasAVX2)
	}
	t.Logf("live implementation: %s", Implementation())
}

// Lengths under test: every element count the kernels accept from one vector
// up to a few past the unroll factors, and the real network widths.
var (
	lens16 = []int{16, 32, 48, 64, 80, 112, 128, 144, 256, 496, 512, 1008, 1024, 1536, 2048}
	lens32 = []int{32, 64, 96, 128, 160, 224, 256, 288, 512, 992, 1024, 2048, 4064, 4096, 8192, 8224}
)

// Value generators. Each test draws from all of them so that random middling
// values, small activations and the extremes (int16 min/max, 0/255, -128/127)
// all occur, both mixed and filling whole vectors.
type gen16 func(r *rand.Rand) int16

var gens16 = map[string]gen16{
	"uniform": func(r *rand.Rand) int16 { return int16(r.Uint32()) },
	"small":   func(r *rand.Rand) int16 { return int16(r.IntN(601) - 300) },
	"extreme": func(r *rand.Rand) int16 {
		return []int16{math.MinInt16, math.MaxInt16, -1, 0, 1, 127, 128, 255, 256, 181, 182}[r.IntN(11)]
	},
	"min": func(*rand.Rand) int16 { return math.MinInt16 },
	"max": func(*rand.Rand) int16 { return math.MaxInt16 },
}

func fill16(r *rand.Rand, g gen16, n int) []int16 {
	s := make([]int16, n)
	for i := range s {
		s[i] = g(r)
	}
	return s
}

type genBytes func(r *rand.Rand) byte

var gensBytes = map[string]genBytes{
	"uniform": func(r *rand.Rand) byte { return byte(r.Uint32()) },
	"extreme": func(r *rand.Rand) byte { return []byte{0, 1, 127, 128, 255}[r.IntN(5)] },
	"255":     func(*rand.Rand) byte { return 255 },
	"128":     func(*rand.Rand) byte { return 128 }, // -128 as int8
	"127":     func(*rand.Rand) byte { return 127 },
}

func fillU8(r *rand.Rand, g genBytes, n int) []uint8 {
	s := make([]uint8, n)
	for i := range s {
		s[i] = g(r)
	}
	return s
}

func fillI8(r *rand.Rand, g genBytes, n int) []int8 {
	s := make([]int8, n)
	for i := range s {
		s[i] = int8(g(r))
	}
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// Scalar references, written as plainly as possible and independently of the
// twins: int64 sums, explicit clamps, truncation to the result width at the
// end (which is what wraparound means).

func clampRef(v, lo, hi int64) int64 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

func refAddSub(src []int16, adds, subs [][]int16) []int16 {
	out := make([]int16, len(src))
	for i := range src {
		v := int64(src[i])
		for _, a := range adds {
			v += int64(a[i])
		}
		for _, s := range subs {
			v -= int64(s[i])
		}
		out[i] = int16(v)
	}
	return out
}

func refClipped(src []int16, max int16) []uint8 {
	out := make([]uint8, len(src))
	for i, v := range src {
		out[i] = uint8(clampRef(int64(v), 0, int64(max)))
	}
	return out
}

// refPairwise is the pairwise product with clip ceil: 127 (divided by
// 128, Stockfish 15.1) or 255 (divided by 512, Stockfish 18's threat net).
func refPairwise(src []int16, ceil int64) []uint8 {
	div := map[int64]int64{127: 128, 255: 512}[ceil]
	n := len(src) / 2
	out := make([]uint8, n)
	for j := range n {
		a := clampRef(int64(src[j]), 0, ceil)
		b := clampRef(int64(src[j+n]), 0, ceil)
		out[j] = uint8(a * b / div)
	}
	return out
}

func refDotU8I8(a []uint8, w []int8) int32 {
	var s int64
	for i := range a {
		s += int64(a[i]) * int64(w[i])
	}
	return int32(s)
}

func refDotAct(acc, w []int16, act func(int64) int64) int32 {
	var s int64
	for i := range acc {
		s += act(int64(acc[i])) * int64(w[i])
	}
	return int32(s)
}

// each16 runs f for every length and generator with a deterministic RNG;
// eachBytes does the same for byte vectors.
func each16(t *testing.T, f func(t *testing.T, r *rand.Rand, n int, g gen16)) {
	t.Helper()
	seed := uint64(1)
	for _, n := range lens16 {
		for _, name := range sortedKeys(gens16) {
			seed++
			r := rand.New(rand.NewPCG(seed, uint64(n)))
			t.Run(fmt.Sprintf("n=%d/%s", n, name), func(t *testing.T) { f(t, r, n, gens16[name]) })
		}
	}
}

func eachBytes(t *testing.T, f func(t *testing.T, r *rand.Rand, n int, g genBytes)) {
	t.Helper()
	seed := uint64(100)
	for _, n := range lens32 {
		for _, name := range sortedKeys(gensBytes) {
			seed++
			r := rand.New(rand.NewPCG(seed, uint64(n)))
			t.Run(fmt.Sprintf("n=%d/%s", n, name), func(t *testing.T) { f(t, r, n, gensBytes[name]) })
		}
	}
}

// guarded returns a slice of n elements whose backing array continues with
// sentinel values, and a check that the kernel wrote nothing past n.
func guarded[T int16 | uint8](n int, sentinel T) ([]T, func(t *testing.T)) {
	back := make([]T, n+48)
	for i := range back {
		back[i] = sentinel
	}
	return back[:n], func(t *testing.T) {
		t.Helper()
		for i := n; i < len(back); i++ {
			if back[i] != sentinel {
				t.Fatalf("kernel wrote past the end: element %d of %d", i, n)
			}
		}
	}
}

func firstDiff[T comparable](a, b []T) int {
	for i := range a {
		if a[i] != b[i] {
			return i
		}
	}
	return -1
}

func TestCopy(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		each16(t, func(t *testing.T, r *rand.Rand, n int, g gen16) {
			src := fill16(r, g, n)
			dst, check := guarded[int16](n, 0x5a5a)
			Copy(dst, src)
			check(t)
			if !slices.Equal(dst, src) {
				t.Fatalf("Copy differs at %d", firstDiff(dst, src))
			}
		})
	})
}

// TestUpdates covers Add, Sub and the fused updates against the reference
// and against the pure-Go twins, out of place and in place (dst == src).
func TestUpdates(t *testing.T) {
	type kernel struct {
		name       string
		nadd, nsub int
		run        func(dst, src []int16, adds, subs [][]int16) // dst already holds src when in place
		twin       func(dst, src []int16, adds, subs [][]int16)
		inPlace    bool // the kernel is dst op= a, src is dst
	}
	kernels := []kernel{
		{"Add", 1, 0, func(d, _ []int16, a, _ [][]int16) { Add(d, a[0]) }, func(d, _ []int16, a, _ [][]int16) { addGeneric(d, a[0]) }, true},
		{"Sub", 0, 1, func(d, _ []int16, _, s [][]int16) { Sub(d, s[0]) }, func(d, _ []int16, _, s [][]int16) { subGeneric(d, s[0]) }, true},
		{"AddSub", 1, 1,
			func(d, src []int16, a, s [][]int16) { AddSub(d, src, a[0], s[0]) },
			func(d, src []int16, a, s [][]int16) { addSubGeneric(d, src, a[0], s[0]) }, false},
		{"AddSubSub", 1, 2,
			func(d, src []int16, a, s [][]int16) { AddSubSub(d, src, a[0], s[0], s[1]) },
			func(d, src []int16, a, s [][]int16) { addSubSubGeneric(d, src, a[0], s[0], s[1]) }, false},
		{"AddAddSubSub", 2, 2,
			func(d, src []int16, a, s [][]int16) { AddAddSubSub(d, src, a[0], a[1], s[0], s[1]) },
			func(d, src []int16, a, s [][]int16) { addAddSubSubGeneric(d, src, a[0], a[1], s[0], s[1]) }, false},
	}
	for _, k := range kernels {
		t.Run(k.name, func(t *testing.T) {
			forEachImpl(t, func(t *testing.T) {
				each16(t, func(t *testing.T, r *rand.Rand, n int, g gen16) {
					src := fill16(r, g, n)
					var adds, subs [][]int16
					for range k.nadd {
						adds = append(adds, fill16(r, g, n))
					}
					for range k.nsub {
						subs = append(subs, fill16(r, g, n))
					}
					want := refAddSub(src, adds, subs)
					twin := slices.Clone(src)
					k.twin(twin, slices.Clone(src), adds, subs)
					if !slices.Equal(twin, want) {
						t.Fatalf("pure-Go twin differs from the reference at %d", firstDiff(twin, want))
					}

					// Out of place (for the fused kernels): dst starts as garbage.
					dst, check := guarded[int16](n, 0x7777)
					if k.inPlace {
						copy(dst, src)
					}
					srcCopy := slices.Clone(src)
					k.run(dst, src, adds, subs)
					check(t)
					if !slices.Equal(dst, want) {
						t.Fatalf("differs from the reference at %d", firstDiff(dst, want))
					}
					if !slices.Equal(src, srcCopy) {
						t.Fatalf("modified its source")
					}
					if k.inPlace {
						return
					}
					// In place: dst is src.
					inPlace := slices.Clone(src)
					k.run(inPlace, inPlace, adds, subs)
					if !slices.Equal(inPlace, want) {
						t.Fatalf("in place (dst == src) differs at %d", firstDiff(inPlace, want))
					}
				})
			})
		})
	}
}

// TestInt8Updates covers AddInt8 and SubInt8 (int8 rows, sign-extended,
// into int16 accumulators) against the reference and the pure-Go twins,
// with accumulators at the int16 limits so that wraparound is exercised.
func TestInt8Updates(t *testing.T) {
	for _, k := range []struct {
		name string
		sign int64
		run  func(dst []int16, a []int8)
		twin func(dst []int16, a []int8)
	}{
		{"AddInt8", 1, AddInt8, addInt8Generic},
		{"SubInt8", -1, SubInt8, subInt8Generic},
	} {
		t.Run(k.name, func(t *testing.T) {
			forEachImpl(t, func(t *testing.T) {
				each16(t, func(t *testing.T, r *rand.Rand, n int, g gen16) {
					src := fill16(r, g, n)
					row := fillI8(r, gensBytes[sortedKeys(gensBytes)[r.IntN(len(gensBytes))]], n)
					want := make([]int16, n)
					for i := range want {
						want[i] = int16(int64(src[i]) + k.sign*int64(row[i]))
					}
					twin := slices.Clone(src)
					k.twin(twin, row)
					if !slices.Equal(twin, want) {
						t.Fatalf("pure-Go twin differs from the reference at %d", firstDiff(twin, want))
					}
					dst, check := guarded[int16](n, 0x7777)
					copy(dst, src)
					rowCopy := slices.Clone(row)
					k.run(dst, row)
					check(t)
					if !slices.Equal(dst, want) {
						t.Fatalf("differs from the reference at %d", firstDiff(dst, want))
					}
					if !slices.Equal(row, rowCopy) {
						t.Fatalf("modified its row")
					}
				})
			})
		})
	}
}

// TestAddSubInt8Rows covers the fused row-list update against the
// reference and the pure-Go twin: lists of 0 to 70 rows to add and to
// subtract (repeats allowed), accumulators at the int16 limits.
func TestAddSubInt8Rows(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		each16(t, func(t *testing.T, r *rand.Rand, n int, g gen16) {
			if n == 0 {
				return
			}
			const rows = 40
			w := fillI8(r, gensBytes["uniform"], rows*n)
			for _, counts := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {3, 2}, {70, 5}, {9, 33}} {
				adds, subs := make([]int32, counts[0]), make([]int32, counts[1])
				for i := range adds {
					adds[i] = int32(r.IntN(rows))
				}
				for i := range subs {
					subs[i] = int32(r.IntN(rows))
				}
				src := fill16(r, g, n)
				want := make([]int16, n)
				for i := range want {
					v := int64(src[i])
					for _, a := range adds {
						v += int64(w[int(a)*n+i])
					}
					for _, s := range subs {
						v -= int64(w[int(s)*n+i])
					}
					want[i] = int16(v)
				}
				twin := slices.Clone(src)
				addSubInt8RowsGeneric(twin, w, adds, subs)
				if !slices.Equal(twin, want) {
					t.Fatalf("%v rows: pure-Go twin differs from the reference at %d", counts, firstDiff(twin, want))
				}
				dst, check := guarded[int16](n, 0x7777)
				copy(dst, src)
				AddSubInt8Rows(dst, w, adds, subs)
				check(t)
				if !slices.Equal(dst, want) {
					t.Fatalf("%v rows: differs from the reference at %d", counts, firstDiff(dst, want))
				}
			}
		})
	})
}

// TestAddSubRows covers the fused int16 row-list update like
// TestAddSubInt8Rows: row counts from none to more than a refresh has,
// repeated rows, every width, against int64 sums wrapped to int16.
func TestAddSubRows(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		each16(t, func(t *testing.T, r *rand.Rand, n int, g gen16) {
			if n == 0 {
				return
			}
			const rows = 40
			w := fill16(r, g, rows*n)
			for _, counts := range [][2]int{{0, 0}, {1, 0}, {0, 1}, {3, 2}, {32, 0}, {70, 5}, {9, 33}} {
				adds, subs := make([]int32, counts[0]), make([]int32, counts[1])
				for i := range adds {
					adds[i] = int32(r.IntN(rows))
				}
				for i := range subs {
					subs[i] = int32(r.IntN(rows))
				}
				src := fill16(r, g, n)
				want := make([]int16, n)
				for i := range want {
					v := int64(src[i])
					for _, a := range adds {
						v += int64(w[int(a)*n+i])
					}
					for _, s := range subs {
						v -= int64(w[int(s)*n+i])
					}
					want[i] = int16(v)
				}
				twin := slices.Clone(src)
				addSubRowsGeneric(twin, w, adds, subs)
				if !slices.Equal(twin, want) {
					t.Fatalf("%v rows: pure-Go twin differs from the reference at %d", counts, firstDiff(twin, want))
				}
				dst, check := guarded[int16](n, 0x7777)
				copy(dst, src)
				AddSubRows(dst, w, adds, subs)
				check(t)
				if !slices.Equal(dst, want) {
					t.Fatalf("%v rows: differs from the reference at %d", counts, firstDiff(dst, want))
				}
			}
		})
	})
}

var reluMaxes = []int16{0, 1, 126, 127, 128, 181, 254, 255}

func TestClippedReLU(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		each16(t, func(t *testing.T, r *rand.Rand, n int, g gen16) {
			if n%32 != 0 {
				return
			}
			src := fill16(r, g, n)
			for _, max := range reluMaxes {
				want := refClipped(src, max)
				twin := make([]uint8, n)
				clippedReLUGeneric(twin, src, max)
				if !slices.Equal(twin, want) {
					t.Fatalf("max=%d: pure-Go twin differs from the reference at %d", max, firstDiff(twin, want))
				}
				dst, check := guarded[uint8](n, 0xa5)
				ClippedReLU(dst, src, max)
				check(t)
				if !slices.Equal(dst, want) {
					i := firstDiff(dst, want)
					t.Fatalf("max=%d: differs at %d: src %d got %d want %d", max, i, src[i], dst[i], want[i])
				}
			}
		})
	})
}

// Shifts and ceilings of TestClipShift: Stockfish's 6 and 127, the edges of
// the ranges, and shifts past the int32 width (sign fill).
var (
	clipShifts = []uint{0, 1, 6, 7, 13, 31, 32, 63, 64, 200}
	clipCeils  = []int32{0, 1, 126, 127, 128, 254, 255}
)

// gens32 draw dense-layer sums: random words, sums of the size a layer
// produces, and values at the saturation edges of both packs.
var gens32 = map[string]func(r *rand.Rand) int32{
	"uniform": func(r *rand.Rand) int32 { return int32(r.Uint32()) },
	"layer":   func(r *rand.Rand) int32 { return int32(r.IntN(1<<17) - 1<<16) },
	"extreme": func(r *rand.Rand) int32 {
		return []int32{math.MinInt32, math.MaxInt32, -1, 0, 1, 127, 128, 255, 256, 32767, 32768, -32768, -32769, 1 << 20}[r.IntN(14)]
	},
}

func refClipShift(src []int32, shift uint, ceil int32) []uint8 {
	out := make([]uint8, len(src))
	for i, v := range src {
		s := min(shift, 63) // int64 >> 63 is the sign, as int32 >> 32
		out[i] = uint8(clampRef(int64(v)>>s, 0, int64(ceil)))
	}
	return out
}

func TestClipShift(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		seed := uint64(300)
		for _, n := range lens32 {
			for _, name := range sortedKeys(gens32) {
				seed++
				r := rand.New(rand.NewPCG(seed, uint64(n)))
				src := make([]int32, n)
				for i := range src {
					src[i] = gens32[name](r)
				}
				for _, shift := range clipShifts {
					for _, ceil := range clipCeils {
						want := refClipShift(src, shift, ceil)
						twin := make([]uint8, n)
						clipShiftGeneric(twin, src, shift, ceil)
						if !slices.Equal(twin, want) {
							t.Fatalf("n=%d/%s shift=%d ceil=%d: pure-Go twin differs from the reference at %d", n, name, shift, ceil, firstDiff(twin, want))
						}
						dst, check := guarded[uint8](n, 0xa5)
						ClipShift(dst, src, shift, ceil)
						check(t)
						if !slices.Equal(dst, want) {
							i := firstDiff(dst, want)
							t.Fatalf("n=%d/%s shift=%d ceil=%d: differs at %d: src %d got %d want %d", n, name, shift, ceil, i, src[i], dst[i], want[i])
						}
					}
				}
			}
		}
	})
}

func TestPairwiseClippedReLU(t *testing.T) {
	for _, k := range []struct {
		name string
		ceil int64
		run  func(dst []uint8, src []int16)
		twin func(dst []uint8, src []int16)
	}{
		{"127", 127, PairwiseClippedReLU, pairwiseClippedReLUGeneric},
		{"255", 255, PairwiseClippedReLU255, pairwiseClippedReLU255Generic},
	} {
		t.Run(k.name, func(t *testing.T) {
			forEachImpl(t, func(t *testing.T) {
				each16(t, func(t *testing.T, r *rand.Rand, n int, g gen16) {
					if n%64 != 0 {
						return
					}
					src := fill16(r, g, n)
					want := refPairwise(src, k.ceil)
					twin := make([]uint8, n/2)
					k.twin(twin, src)
					if !slices.Equal(twin, want) {
						t.Fatalf("pure-Go twin differs from the reference at %d", firstDiff(twin, want))
					}
					dst, check := guarded[uint8](n/2, 0xa5)
					k.run(dst, src)
					check(t)
					if !slices.Equal(dst, want) {
						t.Fatalf("differs at %d", firstDiff(dst, want))
					}
				})
			})
		})
	}
}

func TestDotUint8Int8(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		eachBytes(t, func(t *testing.T, r *rand.Rand, n int, g genBytes) {
			a := fillU8(r, g, n)
			w := fillI8(r, g, n)
			want := refDotU8I8(a, w)
			if twin := dotUint8Int8Generic(a, w); twin != want {
				t.Fatalf("pure-Go twin = %d, reference = %d", twin, want)
			}
			if got := DotUint8Int8(a, w); got != want {
				t.Fatalf("got %d, want %d", got, want)
			}
		})
	})
	// The saturation trap of VPMADDUBSW: 255 * -128 in every element.
	forEachImpl(t, func(t *testing.T) {
		for _, n := range lens32 {
			a := make([]uint8, n)
			w := make([]int8, n)
			for i := range a {
				a[i], w[i] = 255, -128
			}
			if got, want := DotUint8Int8(a, w), int32(-255*128*n); got != want {
				t.Fatalf("n=%d all 255*-128: got %d, want %d", n, got, want)
			}
		}
	})
}

func TestAffine(t *testing.T) {
	shapes := [][2]int{{1, 32}, {2, 32}, {3, 64}, {4, 32}, {5, 96}, {7, 128}, {8, 512}, {16, 1024}, {32, 512}, {32, 32}, {15, 64}, {17, 2048}, {5, 4096}, {4, 8224}}
	forEachImpl(t, func(t *testing.T) {
		for si, shape := range shapes {
			rows, cols := shape[0], shape[1]
			for _, name := range sortedKeys(gensBytes) {
				g := gensBytes[name]
				t.Run(fmt.Sprintf("%dx%d/%s", rows, cols, name), func(t *testing.T) {
					r := rand.New(rand.NewPCG(uint64(si), uint64(rows*cols)))
					in := fillU8(r, g, cols)
					w := fillI8(r, g, rows*cols)
					bias := make([]int32, rows)
					for i := range bias {
						bias[i] = int32(r.Uint32())
					}
					want := make([]int32, rows)
					for i := range want {
						want[i] = int32(int64(bias[i]) + int64(refDotU8I8(in, w[i*cols:(i+1)*cols])))
					}
					twin := make([]int32, rows)
					affineGeneric(twin, in, w, bias)
					if !slices.Equal(twin, want) {
						t.Fatalf("pure-Go twin differs at row %d", firstDiff(twin, want))
					}
					back := make([]int32, rows+8)
					for i := range back {
						back[i] = 0x5eadbeef
					}
					out := back[:rows]
					Affine(out, in, w, bias)
					if !slices.Equal(out, want) {
						i := firstDiff(out, want)
						t.Fatalf("row %d: got %d, want %d", i, out[i], want[i])
					}
					for i := rows; i < len(back); i++ {
						if back[i] != 0x5eadbeef {
							t.Fatalf("wrote past the end of out at %d", i)
						}
					}
				})
			}
		}
	})
}

// TestDotActivations covers DotReLU, DotClippedReLU and DotSquaredClippedReLU.
func TestDotActivations(t *testing.T) {
	type kernel struct {
		name  string
		maxes []int16
		run   func(acc, w []int16, max int16) int32
		twin  func(acc, w []int16, max int16) int32
		act   func(max int16) func(int64) int64
	}
	kernels := []kernel{
		{"DotReLU", []int16{0},
			func(a, w []int16, _ int16) int32 { return DotReLU(a, w) },
			func(a, w []int16, _ int16) int32 { return dotReLUGeneric(a, w) },
			func(int16) func(int64) int64 { return func(v int64) int64 { return clampRef(v, 0, math.MaxInt64) } }},
		{"DotClippedReLU", []int16{0, 1, 127, 255, 256, 4096, math.MaxInt16},
			DotClippedReLU, dotClippedReLUGeneric,
			func(m int16) func(int64) int64 { return func(v int64) int64 { return clampRef(v, 0, int64(m)) } }},
		{"DotSquaredClippedReLU", reluMaxes,
			DotSquaredClippedReLU, dotSquaredClippedReLUGeneric,
			func(m int16) func(int64) int64 {
				return func(v int64) int64 { c := clampRef(v, 0, int64(m)); return c * c }
			}},
	}
	for _, k := range kernels {
		t.Run(k.name, func(t *testing.T) {
			forEachImpl(t, func(t *testing.T) {
				each16(t, func(t *testing.T, r *rand.Rand, n int, g gen16) {
					acc := fill16(r, g, n)
					// Weights from every generator, so extreme weights meet
					// extreme activations too.
					for _, wname := range sortedKeys(gens16) {
						w := fill16(r, gens16[wname], n)
						for _, max := range k.maxes {
							want := refDotAct(acc, w, k.act(max))
							if twin := k.twin(acc, w, max); twin != want {
								t.Fatalf("w=%s max=%d: pure-Go twin = %d, reference = %d", wname, max, twin, want)
							}
							if got := k.run(acc, w, max); got != want {
								t.Fatalf("w=%s max=%d: got %d, want %d", wname, max, got, want)
							}
						}
					}
				})
			})
		})
	}
}

// TestPSQT checks the int32 companions against the reference with wrapping.
func TestPSQT(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, n := range []int{0, 1, 8, 9, 32} {
		v := make([][]int32, 6)
		for i := range v {
			v[i] = make([]int32, n)
			for j := range v[i] {
				v[i][j] = []int32{math.MinInt32, math.MaxInt32, int32(r.Uint32())}[r.IntN(3)]
			}
		}
		src, a1, a2, s1, s2 := v[1], v[2], v[3], v[4], v[5]
		ref := func(adds, subs [][]int32) []int32 {
			out := make([]int32, n)
			for i := range out {
				x := int64(src[i])
				for _, a := range adds {
					x += int64(a[i])
				}
				for _, s := range subs {
					x -= int64(s[i])
				}
				out[i] = int32(x)
			}
			return out
		}
		check := func(name string, got, want []int32) {
			t.Helper()
			if !slices.Equal(got, want) {
				t.Errorf("n=%d %s differs at %d", n, name, firstDiff(got, want))
			}
		}
		d := slices.Clone(src)
		AddInt32(d, a1)
		check("AddInt32", d, ref([][]int32{a1}, nil))
		d = slices.Clone(src)
		SubInt32(d, s1)
		check("SubInt32", d, ref(nil, [][]int32{s1}))
		d = make([]int32, n)
		AddSubInt32(d, src, a1, s1)
		check("AddSubInt32", d, ref([][]int32{a1}, [][]int32{s1}))
		d = make([]int32, n)
		AddSubSubInt32(d, src, a1, s1, s2)
		check("AddSubSubInt32", d, ref([][]int32{a1}, [][]int32{s1, s2}))
		d = make([]int32, n)
		AddAddSubSubInt32(d, src, a1, a2, s1, s2)
		check("AddAddSubSubInt32", d, ref([][]int32{a1, a2}, [][]int32{s1, s2}))
	}
}

// TestZeroLength: empty slices are a valid multiple of every width.
func TestZeroLength(t *testing.T) {
	forEachImpl(t, func(t *testing.T) {
		Copy(nil, nil)
		Add(nil, nil)
		Sub(nil, nil)
		AddSub(nil, nil, nil, nil)
		AddSubSub(nil, nil, nil, nil, nil)
		AddAddSubSub(nil, nil, nil, nil, nil, nil)
		ClippedReLU(nil, nil, 127)
		PairwiseClippedReLU(nil, nil)
		ClipShift(nil, nil, 6, 127)
		if DotUint8Int8(nil, nil) != 0 || DotReLU(nil, nil) != 0 ||
			DotClippedReLU(nil, nil, 127) != 0 || DotSquaredClippedReLU(nil, nil, 255) != 0 {
			t.Error("dot product of empty slices is not 0")
		}
		Affine(nil, nil, nil, nil)
		out := []int32{9, 9}
		Affine(out, nil, nil, []int32{3, -4})
		if out[0] != 3 || out[1] != -4 {
			t.Errorf("Affine with no inputs = %v, want the bias", out)
		}
	})
}

// TestPreconditions: every misuse panics with a preconditionError naming the
// kernel instead of reading or writing out of bounds.
func TestPreconditions(t *testing.T) {
	s16, s15, s32 := make([]int16, 16), make([]int16, 15), make([]int16, 32)
	u32, u16 := make([]uint8, 32), make([]uint8, 16)
	i32, i16 := make([]int8, 32), make([]int8, 16)
	cases := map[string]func(){
		"Copy/unequal":           func() { Copy(s16, s32) },
		"Copy/not16":             func() { Copy(s15, s15) },
		"Add/unequal":            func() { Add(s32, s16) },
		"AddInt8/unequal":        func() { AddInt8(s32, make([]int8, 16)) },
		"SubInt8/not16":          func() { SubInt8(make([]int16, 8), make([]int8, 8)) },
		"AddSubInt8Rows/row":     func() { AddSubInt8Rows(s16, make([]int8, 32), []int32{2}, nil) },
		"AddSubInt8Rows/neg":     func() { AddSubInt8Rows(s16, make([]int8, 32), nil, []int32{-1}) },
		"AddSubRows/row":         func() { AddSubRows(s16, make([]int16, 32), []int32{2}, nil) },
		"AddSubRows/neg":         func() { AddSubRows(s16, make([]int16, 32), nil, []int32{-1}) },
		"SqrClip16/src":          func() { SqrClip16(make([]uint8, 32), 0, make([]int32, 15), 19, 6, 127) },
		"SqrClip16/dst":          func() { SqrClip16(make([]uint8, 30), 15, make([]int32, 16), 19, 6, 127) },
		"SqrClip16/ceil":         func() { SqrClip16(make([]uint8, 32), 0, make([]int32, 16), 19, 6, 256) },
		"Sub/not16":              func() { Sub(s15, s15) },
		"AddSub/unequal":         func() { AddSub(s16, s16, s16, s32) },
		"AddSubSub/unequal":      func() { AddSubSub(s16, s16, s16, s16, s32) },
		"AddAddSubSub/unequal":   func() { AddAddSubSub(s16, s16, s32, s16, s16, s16) },
		"ClippedReLU/not32":      func() { ClippedReLU(u16, s16, 127) },
		"ClippedReLU/unequal":    func() { ClippedReLU(u32, s16, 127) },
		"ClippedReLU/max256":     func() { ClippedReLU(u32, s32, 256) },
		"ClippedReLU/maxneg":     func() { ClippedReLU(u32, s32, -1) },
		"ClipShift/not32":        func() { ClipShift(u16, make([]int32, 16), 6, 127) },
		"ClipShift/unequal":      func() { ClipShift(u32, make([]int32, 64), 6, 127) },
		"ClipShift/ceil256":      func() { ClipShift(u32, make([]int32, 32), 6, 256) },
		"ClipShift/ceilneg":      func() { ClipShift(u32, make([]int32, 32), 6, -1) },
		"Pairwise/not32":         func() { PairwiseClippedReLU(u16, s32) },
		"Pairwise/unequal":       func() { PairwiseClippedReLU(u32, s32) },
		"DotUint8Int8/unequal":   func() { DotUint8Int8(u32, i16) },
		"DotUint8Int8/not32":     func() { DotUint8Int8(u16, i16) },
		"Affine/in":              func() { Affine(make([]int32, 1), u16, i16, make([]int32, 1)) },
		"Affine/w":               func() { Affine(make([]int32, 2), u32, i32, make([]int32, 2)) },
		"Affine/bias":            func() { Affine(make([]int32, 1), u32, i32, make([]int32, 2)) },
		"DotReLU/unequal":        func() { DotReLU(s16, s32) },
		"DotClippedReLU/maxneg":  func() { DotClippedReLU(s16, s16, -1) },
		"DotClippedReLU/not16":   func() { DotClippedReLU(s15, s15, 1) },
		"DotSquared/max256":      func() { DotSquaredClippedReLU(s16, s16, 256) },
		"DotSquared/unequal":     func() { DotSquaredClippedReLU(s16, s32, 255) },
		"AddInt32/unequal":       func() { AddInt32(make([]int32, 8), make([]int32, 7)) },
		"AddSubInt32/unequal":    func() { AddSubInt32(make([]int32, 8), make([]int32, 8), make([]int32, 8), nil) },
		"AddAddSubSub32/unequal": func() { AddAddSubSubInt32(make([]int32, 8), nil, nil, nil, nil, nil) },
	}
	forEachImpl(t, func(t *testing.T) {
		for _, name := range sortedKeys(cases) {
			func() {
				defer func() {
					var pe preconditionError
					err, _ := recover().(error)
					if !errors.As(err, &pe) {
						t.Errorf("%s: recovered %v, want a preconditionError", name, err)
					}
				}()
				cases[name]()
			}()
		}
	})
}

// TestNoAllocs: the hot paths allocate nothing, in either implementation.
func TestNoAllocs(t *testing.T) {
	const n = 1024
	a, b, c, d, e, f := make([]int16, n), make([]int16, n), make([]int16, n), make([]int16, n), make([]int16, n), make([]int16, n)
	u := make([]uint8, n)
	w8 := make([]int8, n*16)
	out, bias := make([]int32, 16), make([]int32, 16)
	sums := make([]int32, 32)
	p := make([]int32, 8)
	nnz := make([]uint16, n/4)
	w16, idx := make([]int16, 4*n), []int32{0, 3, 1, 2}
	var sink int32
	forEachImpl(t, func(t *testing.T) {
		allocs := testing.AllocsPerRun(20, func() {
			Copy(a, b)
			Add(a, b)
			Sub(a, b)
			AddSub(a, b, c, d)
			AddSubSub(a, b, c, d, e)
			AddAddSubSub(a, b, c, d, e, f)
			ClippedReLU(u, a, 127)
			PairwiseClippedReLU(u[:n/2], a)
			ClipShift(u[:32], sums, 6, 127)
			sink += DotUint8Int8(u, w8[:n])
			Affine(out, u, w8, bias)
			sink += DotReLU(a, b)
			sink += DotClippedReLU(a, b, 127)
			sink += DotSquaredClippedReLU(a, b, 255)
			AddSubInt32(p, p, p, p)
			AddSubRows(a, w16, idx[:2], idx[2:])
			SqrClip16(u[:32], 15, sums[:16], 19, 6, 127)
			k := FindNNZ(nnz, u)
			AffineSparse7(out, u, w8, bias, nnz[:k])
		})
		if allocs != 0 {
			t.Errorf("%v allocations per run, want 0", allocs)
		}
	})
	_ = sink
}

// TestPrefetchRows checks that the prefetch hint changes nothing and
// accepts empty lists and rows at the matrix's ends.
func TestPrefetchRows(t *testing.T) {
	w := make([]int32, 8*100)
	for i := range w {
		w[i] = int32(i)
	}
	want := slices.Clone(w)
	for _, tc := range []struct {
		name string
		w    []int32
		rows []int32
	}{
		{"no rows", w, nil},
		{"no matrix", nil, []int32{1}},
		{"ends", w, []int32{0, 99}},
		{"many", w, []int32{5, 7, 5, 42, 13, 99, 0, 64}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if allocs := testing.AllocsPerRun(10, func() { PrefetchRows(tc.w, tc.rows, 8) }); allocs != 0 {
				t.Errorf("%v allocations", allocs)
			}
			if !slices.Equal(w, want) {
				t.Error("the matrix changed")
			}
		})
	}
}
