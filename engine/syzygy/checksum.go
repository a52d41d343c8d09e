package syzygy

import (
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"math/bits"
	"os"
	"runtime"
	"sync"
)

// Every table file ends with a 16-byte checksum of everything before it,
// as the generator's tbcheck computes it: the data is cut into 16 MiB
// chunks, each chunk hashed with CityHashCrc256 (Google's CityHash v1.1,
// the variant that mixes in CRC-32C), and the chunks' 32-byte hashes,
// concatenated, hashed with CityHashCrc128. The published lists of
// official checksums (wdl345.txt, dtz345.txt ...) are these 16 bytes in
// hex.

// checksumChunk is the span tbcheck hashes at a time.
const checksumChunk = 1 << 24

// Checksum returns the checksum embedded at the end of a table file, in
// hex as the official lists give it. It does not verify it (see
// CheckFile).
func Checksum(path string) (string, error) {
	fd, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("syzygy: %w", err)
	}
	defer fd.Close()
	st, err := fd.Stat()
	if err != nil {
		return "", fmt.Errorf("syzygy: %w", err)
	}
	size := st.Size()
	if size%64 != checksumSize {
		return "", &CorruptError{Path: path, Offset: -1, Reason: fmt.Sprintf(
			"%d bytes: a table file is 16 bytes more than a multiple of 64 (truncated or padded?)", size)}
	}
	var sum [checksumSize]byte
	if _, err := fd.ReadAt(sum[:], size-checksumSize); err != nil {
		return "", fmt.Errorf("syzygy: %w", err)
	}
	return hex.EncodeToString(sum[:]), nil
}

// CheckFile verifies a table file: its length, its magic number and its
// embedded checksum against its contents, which it reads in full (on all
// cores for a large file). A mismatch is a *CorruptError naming the file.
func CheckFile(path string) error {
	data, unmap, err := mapFile(path)
	if err != nil {
		return fmt.Errorf("syzygy: %w", err)
	}
	defer unmap()
	if len(data) >= 4 {
		if m := binary.LittleEndian.Uint32(data); m != wdlMagic && m != dtzMagic {
			return &CorruptError{Path: path, Offset: 0, Reason: fmt.Sprintf("magic number %#08x: not a Syzygy WDL or DTZ table", m)}
		}
	}
	return verifyData(path, data)
}

// verifyData checks a mapped file's checksum.
func verifyData(path string, data []byte) error {
	if len(data)%64 != checksumSize {
		return &CorruptError{Path: path, Offset: -1, Reason: fmt.Sprintf(
			"%d bytes: a table file is 16 bytes more than a multiple of 64 (truncated or padded?)", len(data))}
	}
	body := data[:len(data)-checksumSize]
	got := tableChecksum(body)
	want := data[len(body):]
	if string(got[:]) != string(want) {
		return &CorruptError{Path: path, Offset: -1, Reason: fmt.Sprintf(
			"checksum %x does not match the embedded %x: the file is damaged", got, want)}
	}
	return nil
}

// tableChecksum computes tbcheck's checksum of a file's body.
func tableChecksum(body []byte) [16]byte {
	chunks := (len(body) + checksumChunk - 1) / checksumChunk
	hashes := make([]byte, 32*chunks)
	hashChunk := func(i int) {
		end := min((i+1)*checksumChunk, len(body))
		h := cityHashCrc256(body[i*checksumChunk : end])
		for k, v := range h {
			binary.LittleEndian.PutUint64(hashes[32*i+8*k:], v)
		}
	}
	if workers := min(chunks, runtime.GOMAXPROCS(0)); workers > 1 {
		var wg sync.WaitGroup
		next := make(chan int)
		for w := 0; w < workers; w++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for i := range next {
					hashChunk(i)
				}
			}()
		}
		for i := 0; i < chunks; i++ {
			next <- i
		}
		close(next)
		wg.Wait()
	} else {
		for i := 0; i < chunks; i++ {
			hashChunk(i)
		}
	}
	lo, hi := cityHashCrc128(hashes)
	var sum [16]byte
	binary.LittleEndian.PutUint64(sum[:], lo)
	binary.LittleEndian.PutUint64(sum[8:], hi)
	return sum
}

// CityHash v1.1 (Geoff Pike and Jyrki Alakuijala, Google; MIT licence),
// the functions the checksum needs, for little-endian byte order.

const (
	cityK0  = 0xc3a5c85c97cb3127
	cityK1  = 0xb492b66fbe98f273
	cityK2  = 0x9ae16a3b2f90404f
	cityK3  = 0xc949d7c7509e6557
	cityMul = 0x9ddfea08eb382d69
)

func fetch64(s []byte, i int) uint64 { return binary.LittleEndian.Uint64(s[i:]) }
func fetch32(s []byte, i int) uint64 { return uint64(binary.LittleEndian.Uint32(s[i:])) }

// ror rotates right.
func ror(v uint64, n uint) uint64 { return bits.RotateLeft64(v, -int(n)) }

func shiftMix(v uint64) uint64 { return v ^ v>>47 }

// hashLen16 hashes 128 bits to 64.
func hashLen16(u, v uint64) uint64 {
	a := (u ^ v) * cityMul
	a ^= a >> 47
	b := (v ^ a) * cityMul
	b ^= b >> 47
	return b * cityMul
}

func hashLen0to16(s []byte) uint64 {
	n := uint64(len(s))
	switch {
	case n > 8:
		a, b := fetch64(s, 0), fetch64(s, len(s)-8)
		return hashLen16(a, ror(b+n, uint(n))) ^ b
	case n >= 4:
		return hashLen16(n+fetch32(s, 0)<<3, fetch32(s, len(s)-4))
	case n > 0:
		y := uint32(s[0]) + uint32(s[n>>1])<<8
		z := uint32(n) + uint32(s[n-1])<<2
		return shiftMix(uint64(y)*cityK2^uint64(z)*cityK3) * cityK2
	}
	return cityK2
}

// weakHash32 mixes 32 bytes at s[i:] into two seeds.
func weakHash32(s []byte, i int, a, b uint64) (uint64, uint64) {
	w, x, y, z := fetch64(s, i), fetch64(s, i+8), fetch64(s, i+16), fetch64(s, i+24)
	a += w
	b = ror(b+a+z, 21)
	c := a
	a += x + y
	b += ror(a, 44)
	return a + z, b + c
}

func cityMurmur(s []byte, lo, hi uint64) (uint64, uint64) {
	a, b := lo, hi
	var c, d uint64
	n := len(s)
	if n <= 16 {
		a = shiftMix(a*cityK1) * cityK1
		c = b*cityK1 + hashLen0to16(s)
		if n >= 8 {
			d = shiftMix(a + fetch64(s, 0))
		} else {
			d = shiftMix(a + c)
		}
	} else {
		c = hashLen16(fetch64(s, n-8)+cityK1, a)
		d = hashLen16(b+uint64(n), c+fetch64(s, n-16))
		a += d
		for i := 0; n-16-i > 0; i += 16 {
			a ^= shiftMix(fetch64(s, i)*cityK1) * cityK1
			a *= cityK1
			b ^= a
			c ^= shiftMix(fetch64(s, i+8)*cityK1) * cityK1
			c *= cityK1
			d ^= c
		}
	}
	a = hashLen16(a, c)
	b = hashLen16(d, b)
	return a ^ b, hashLen16(b, a)
}

func cityHash128WithSeed(s []byte, lo, hi uint64) (uint64, uint64) {
	n := len(s)
	if n < 128 {
		return cityMurmur(s, lo, hi)
	}
	x, y, z := lo, hi, uint64(n)*cityK1
	v0 := ror(y^cityK1, 49)*cityK1 + fetch64(s, 0)
	v1 := ror(v0, 42)*cityK1 + fetch64(s, 8)
	w0 := ror(y+z, 35)*cityK1 + x
	w1 := ror(x+fetch64(s, 88), 53) * cityK1
	i := 0
	for {
		for r := 0; r < 2; r++ {
			x = ror(x+y+v0+fetch64(s, i+8), 37) * cityK1
			y = ror(y+v1+fetch64(s, i+48), 42) * cityK1
			x ^= w1
			y += v0 + fetch64(s, i+40)
			z = ror(z+w0, 33) * cityK1
			v0, v1 = weakHash32(s, i, v1*cityK1, x+w0)
			w0, w1 = weakHash32(s, i+32, z+w1, y+fetch64(s, i+16))
			x, z = z, x
			i += 64
		}
		if n-i < 128 {
			break
		}
	}
	rest := n - i
	x += ror(v0+z, 49) * cityK0
	z += ror(w0, 37) * cityK0
	// Up to four 32-byte pieces from the end of the data (reaching back
	// into what the loop hashed).
	for done := 0; done < rest; {
		done += 32
		at := i + rest - done
		y = ror(x+y, 42)*cityK0 + v1
		w0 += fetch64(s, at+16)
		x = x*cityK0 + w0
		z += w1 + fetch64(s, at)
		w1 += v0
		v0, v1 = weakHash32(s, at, v0+z, v1)
	}
	x = hashLen16(x, v0)
	y = hashLen16(y+z, w0)
	return hashLen16(x+v1, w1) + y, hashLen16(x+w1, y+v1)
}

func cityHash128(s []byte) (uint64, uint64) {
	n := len(s)
	switch {
	case n >= 16:
		return cityHash128WithSeed(s[16:], fetch64(s, 0)^cityK3, fetch64(s, 8))
	case n >= 8:
		return cityHash128WithSeed(nil, fetch64(s, 0)^uint64(n)*cityK0, fetch64(s, n-8)^cityK1)
	}
	return cityHash128WithSeed(s, cityK0, cityK1)
}

func cityHashCrc128(s []byte) (uint64, uint64) {
	if len(s) <= 900 {
		return cityHash128(s)
	}
	h := cityHashCrc256(s)
	return h[2], h[3]
}

func cityHashCrc256(s []byte) [4]uint64 {
	if len(s) >= 240 {
		return cityHashCrc256Long(s, 0)
	}
	var buf [240]byte
	copy(buf[:], s)
	return cityHashCrc256Long(buf[:], ^uint32(len(s)))
}

func cityHashCrc256Long(s []byte, seed uint32) [4]uint64 {
	n := len(s)
	var r [4]uint64
	a := fetch64(s, 56) + cityK0
	b := fetch64(s, 96) + cityK0
	c := hashLen16(b, uint64(n))
	r[0] = c
	d := fetch64(s, 120)*cityK0 + uint64(n)
	r[1] = d
	e := fetch64(s, 184) + uint64(seed)
	f := uint64(seed)
	var g, h, i, j uint64
	t := c + d

	chunk := func(at int, mul uint64, z uint) {
		oldA := a
		a = ror(b, 41^z)*mul + fetch64(s, at)
		b = ror(c, 27^z)*mul + fetch64(s, at+8)
		c = ror(d, 41^z)*mul + fetch64(s, at+16)
		d = ror(e, 33^z)*mul + fetch64(s, at+24)
		e = ror(t, 25^z)*mul + fetch64(s, at+32)
		t = oldA
		f = uint64(crc32cWord(uint32(f), a))
		g = uint64(crc32cWord(uint32(g), b))
		h = uint64(crc32cWord(uint32(h), c))
		i = uint64(crc32cWord(uint32(i), d))
		j = uint64(crc32cWord(uint32(j), e))
	}
	at := 0
	for iters := n / 240; iters > 0; iters-- {
		for k := 0; k < 3; k++ {
			chunk(at, 1, 1)
			chunk(at+40, cityK0, 0)
			at += 80
		}
	}
	rest := n % 240
	for ; rest >= 40; rest -= 40 {
		chunk(at, cityK0, 0)
		at += 40
	}
	if rest > 0 {
		chunk(at+rest-40, cityK0, 0)
	}
	j += i << 32
	a = hashLen16(a, j)
	h += g << 32
	b += h
	c = hashLen16(c, f) + i
	d = hashLen16(d, e+r[0])
	j += e
	i += hashLen16(h, t)
	e = hashLen16(a, d) + j
	f = hashLen16(b, c) + a
	g = hashLen16(j, i) + c
	r[0] = e + f + g + h
	a = shiftMix((a+g)*cityK0)*cityK0 + b
	r[1] += a + r[0]
	a = shiftMix(a*cityK0)*cityK0 + c
	r[2] = a + r[1]
	a = shiftMix((a+e)*cityK0) * cityK0
	r[3] = a + r[2]
	return r
}

// crc32cTab is CRC-32C (Castagnoli, reflected polynomial 0x82f63b78)
// sliced by 8: crc32cTab[k][b] is byte b's contribution k bytes before
// the end of an 8-byte word.
var crc32cTab = func() (t [8][256]uint32) {
	for i := range t[0] {
		c := uint32(i)
		for k := 0; k < 8; k++ {
			if c&1 != 0 {
				c = c>>1 ^ 0x82f63b78
			} else {
				c >>= 1
			}
		}
		t[0][i] = c
	}
	for k := 1; k < 8; k++ {
		for i := range t[k] {
			t[k][i] = t[k-1][i]>>8 ^ t[0][t[k-1][i]&0xff]
		}
	}
	return t
}()

// crc32cWord is the SSE 4.2 instruction crc32 (64-bit operand): the
// CRC-32C of v's eight little-endian bytes continuing from crc, without
// the inversions a CRC of a whole message adds.
func crc32cWord(crc uint32, v uint64) uint32 {
	x := v ^ uint64(crc)
	tb := &crc32cTab
	return tb[7][x&0xff] ^ tb[6][x>>8&0xff] ^ tb[5][x>>16&0xff] ^ tb[4][x>>24&0xff] ^
		tb[3][x>>32&0xff] ^ tb[2][x>>40&0xff] ^ tb[1][x>>48&0xff] ^ tb[0][x>>56]
}
