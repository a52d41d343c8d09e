package simd

import (
	"encoding/binary"
	"slices"
	"testing"
)

// FuzzKernels feeds arbitrary bytes to every kernel through both
// implementations and requires identical results. The bytes are read as
// int16 little-endian for the int16 kernels and used raw for the byte
// kernels; max picks the clamp bound (folded into each kernel's legal range).
// Seeds live in f.Add below and in testdata/fuzz/FuzzKernels.
//
//	go test ./engine/nnue/simd -run '^$' -fuzz FuzzKernels -fuzztime 30s
func FuzzKernels(f *testing.F) {
	f.Add([]byte{}, int16(127))
	f.Add(slices.Repeat([]byte{0xff}, 256), int16(255))
	f.Add(slices.Repeat([]byte{0x00, 0x80}, 512), int16(181))
	f.Add(slices.Repeat([]byte{0xff, 0x7f, 0x80, 0x00}, 300), int16(-1))
	f.Add(slices.Repeat([]byte{0xff, 0x80}, 1024), int16(182))
	seq := make([]byte, 4096)
	for i := range seq {
		seq[i] = byte(i * 37)
	}
	f.Add(seq, int16(32767))

	f.Fuzz(func(t *testing.T, data []byte, max int16) {
		if !hasAVX2 {
			t.Skip("no assembly kernels in this build or on this CPU")
		}
		m255 := int16(uint16(max) % 256) // [0, 255]
		mPos := max & 0x7fff             // [0, 32767]
		n16 := len(data) / 2 / 16 * 16   // int16 elements, whole vectors
		n8 := len(data) / 32 * 32        // bytes, whole vectors
		v := make([]int16, n16)
		for i := range v {
			v[i] = int16(binary.LittleEndian.Uint16(data[2*i:]))
		}
		// Second operands: the same data rotated, so lanes meet other lanes.
		w := slices.Clone(v)
		if len(w) > 0 {
			k := int(uint16(max)) % len(w)
			w = append(w[k:], w[:k]...)
		}
		bytes := data[:n8]
		ints := make([]int8, n8)
		for i := range ints {
			ints[i] = int8(data[n8-1-i])
		}

		run := func(asm bool) (res []int32, i16 [][]int16, u8 [][]uint8) {
			withImpl(impl{asm: asm}, func() {
				d := make([]int16, n16)
				Copy(d, v)
				Add(d, w)
				Sub(d, v)
				Add(d, v)
				i16 = append(i16, slices.Clone(d))
				AddSub(d, v, w, d)
				i16 = append(i16, slices.Clone(d))
				AddSubSub(d, d, v, w, v)
				i16 = append(i16, slices.Clone(d))
				AddAddSubSub(d, v, w, d, v, w)
				i16 = append(i16, slices.Clone(d))

				n32 := n16 / 32 * 32
				c := make([]uint8, n32)
				ClippedReLU(c, v[:n32], m255)
				u8 = append(u8, c)
				p := make([]uint8, n16/64*32)
				PairwiseClippedReLU(p, v[:2*len(p)])
				u8 = append(u8, p)
				// The same bytes as int32 sums, shifted by max mod 64.
				s32 := make([]int32, len(data)/4/32*32)
				for i := range s32 {
					s32[i] = int32(binary.LittleEndian.Uint32(data[4*i:]))
				}
				cs := make([]uint8, len(s32))
				ClipShift(cs, s32, uint(uint16(max)%64), int32(m255))
				u8 = append(u8, cs)

				res = append(res,
					DotUint8Int8(bytes, ints),
					DotReLU(v, w),
					DotClippedReLU(v, w, mPos),
					DotSquaredClippedReLU(v, w, m255))
				rows := n8 / 32
				if rows > 0 {
					out := make([]int32, rows)
					bias := make([]int32, rows)
					for i := range bias {
						bias[i] = int32(i) * int32(max)
					}
					Affine(out, bytes[:32], ints[:rows*32], bias)
					res = append(res, out...)
				}
			})
			return
		}
		gotR, got16, got8 := run(true)
		wantR, want16, want8 := run(false)
		if !slices.Equal(gotR, wantR) {
			t.Fatalf("dot/affine results differ: asm %v, Go %v", gotR, wantR)
		}
		for i := range want16 {
			if !slices.Equal(got16[i], want16[i]) {
				t.Fatalf("int16 update %d differs at %d", i, firstDiff(got16[i], want16[i]))
			}
		}
		for i := range want8 {
			if !slices.Equal(got8[i], want8[i]) {
				t.Fatalf("activation %d differs at %d", i, firstDiff(got8[i], want8[i]))
			}
		}
	})
}
