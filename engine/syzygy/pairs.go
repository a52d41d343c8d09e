package syzygy

import (
	"encoding/binary"
	"fmt"
)

// The values of a table are compressed in blocks: each block holds a run
// of consecutive positions as a canonical Huffman code over symbols, and a
// symbol stands either for one value or for a pair of symbols (so for a
// run of values). An index table gives, every 2^idxBits positions, the
// block and the position's offset within it; a size table gives each
// block's number of values.

// pairs is one table's compression data, with every part located and
// checked against the file when the file is loaded.
type pairs struct {
	constant  bool   // every position has the same value
	constVal  int    // that value
	idxBits   uint   // positions per index entry: 1 << idxBits
	blockSize uint   // bytes per block: 1 << blockSize
	minLen    int    // shortest code length in bits
	realBlock uint32 // blocks holding data
	numBlocks uint32 // entries of the size table
	numIdx    uint64 // entries of the index table
	indexOff  int    // file offset of the index table (6 bytes an entry)
	sizeOff   int    // file offset of the size table (2 bytes an entry)
	dataOff   int    // file offset of the first block
	numSyms   int
	numLens   int // code lengths minLen..minLen+numLens-1
	// By code length - minLen: the first symbol of that length, and the
	// smallest code, left-aligned in 64 bits (0 for the longest, which
	// ends the search for a code's length). Arrays of the largest size,
	// indexed under a mask, so that decoding needs no bounds checks.
	offset [maxCodeLn]uint16
	base   [maxCodeLn]uint64
	// syms, by symbol: a pair s1 | s2 << 12 | (values s1 stands for -
	// 1) << 24, so that walking down the pairs reads one entry a level;
	// a value v | 0xfff << 12.
	syms []uint32
	// symLen, by symbol: the values it stands for - 1.
	symLen []uint8
	// fast skips codes by their first fastBits bits: the bits | the
	// values << 4 of all the codes that end within them (most codes are
	// short, and a run of 1-bit codes goes in one lookup). Where the
	// first code is longer (or none), the bits are 0 and the values' place
	// holds the length index (of base) its search starts from. 16-bit
	// entries (at most 10 codes of 256 values) keep the table at 2 KB: it
	// competes for the caches with the tables' data.
	fast *[1 << fastBits]uint16
}

// Limits of the pairs data, and the decoder's lookup width.
const (
	maxSyms   = 4096 // symbols are 12-bit numbers
	maxCodeLn = 32   // longest Huffman code the format's decoders accept
	fastBits  = 10   // code bits decoded by table lookup
)

// A fast entry's 12 bits of values hold fastBits codes of 256 values.
const _ = uint(4095 - fastBits*256)

// readPairs parses the pairs header at r's offset for a table of size
// positions. It leaves r after the header (2-byte aligned) and returns the
// byte sizes of the index, size and data sections that come later in the
// file.
func readPairs(r *reader, size uint64, wdl bool) (pairs, [3]uint64, error) {
	var d pairs
	var sizes [3]uint64
	start := r.off
	flags, err := r.u8()
	if err != nil {
		return d, sizes, err
	}
	if flags&0x80 != 0 {
		d.constant = true
		v, err := r.u8()
		if err != nil {
			return d, sizes, err
		}
		if wdl {
			if v > 4 {
				return d, sizes, r.corrupt(start+1, "constant WDL value %d is not 0-4", v)
			}
			d.constVal = int(v)
		}
		return d, sizes, nil
	}
	r.off = start
	hdr, err := r.bytes(10) // flags, then the header proper
	if err != nil {
		return d, sizes, err
	}
	d.blockSize = uint(hdr[1])
	d.idxBits = uint(hdr[2])
	d.realBlock = binary.LittleEndian.Uint32(hdr[4:])
	d.numBlocks = d.realBlock + uint32(hdr[3])
	maxLen, minLen := int(hdr[8]), int(hdr[9])
	switch {
	case d.blockSize < 3 || d.blockSize > 30:
		return d, sizes, r.corrupt(start+1, "block size 2^%d bytes", d.blockSize)
	case d.idxBits < 1 || d.idxBits > 40:
		return d, sizes, r.corrupt(start+2, "index spacing 2^%d", d.idxBits)
	case d.numBlocks < d.realBlock:
		return d, sizes, r.corrupt(start+4, "block count %d overflows", d.realBlock)
	case minLen < 1 || maxLen < minLen || maxLen > maxCodeLn:
		return d, sizes, r.corrupt(start+8, "code lengths %d-%d", minLen, maxLen)
	}
	d.minLen = minLen
	h := maxLen - minLen + 1
	d.numLens = h
	offs, err := r.bytes(2 * h)
	if err != nil {
		return d, sizes, err
	}
	for i := 0; i < h; i++ {
		d.offset[i] = binary.LittleEndian.Uint16(offs[2*i:])
	}
	ns, err := r.u16()
	if err != nil {
		return d, sizes, err
	}
	d.numSyms = int(ns)
	if d.numSyms == 0 || d.numSyms > maxSyms {
		return d, sizes, r.corrupt(r.off-2, "%d symbols", d.numSyms)
	}
	patOff := r.off
	pat, err := r.bytes(3*d.numSyms + d.numSyms&1)
	if err != nil {
		return d, sizes, err
	}
	if err := d.buildSymbols(pat, wdl); err != nil {
		return d, sizes, r.corrupt(patOff, "%v", err)
	}
	if err := d.buildBase(); err != nil {
		return d, sizes, r.corrupt(start+10, "%v", err)
	}
	d.buildFast()
	d.numIdx = (size + 1<<d.idxBits - 1) >> d.idxBits
	sizes[0] = 6 * d.numIdx
	sizes[1] = 2 * uint64(d.numBlocks)
	sizes[2] = uint64(d.realBlock) << d.blockSize
	return d, sizes, nil
}

// buildSymbols computes every symbol's length (values it expands to) and
// checks that the pairs form a tree: each pair refers to existing
// symbols, none refers to itself however indirectly, and a WDL leaf is a
// WDL value.
func (d *pairs) buildSymbols(pat []byte, wdl bool) error {
	const (
		todo = iota
		busy
		done
	)
	state := make([]uint8, d.numSyms)
	d.syms = make([]uint32, d.numSyms)
	d.symLen = make([]uint8, d.numSyms)
	var visit func(s int) error
	visit = func(s int) error {
		switch state[s] {
		case done:
			return nil
		case busy:
			return fmt.Errorf("symbol %d is part of itself", s)
		}
		state[s] = busy
		w := pat[3*s : 3*s+3]
		s1 := int(w[1]&0xf)<<8 | int(w[0])
		s2 := int(w[2])<<4 | int(w[1]>>4)
		if s2 == 0xfff {
			if wdl && s1 > 4 {
				return fmt.Errorf("symbol %d stands for WDL value %d", s, s1)
			}
			d.syms[s] = uint32(s1) | 0xfff<<12
		} else {
			if s1 >= d.numSyms || s2 >= d.numSyms {
				return fmt.Errorf("symbol %d pairs %d and %d of %d symbols", s, s1, s2, d.numSyms)
			}
			if err := visit(s1); err != nil {
				return err
			}
			if err := visit(s2); err != nil {
				return err
			}
			n := int(d.symLen[s1]) + int(d.symLen[s2]) + 1
			if n > 255 {
				return fmt.Errorf("symbol %d stands for %d values (at most 256)", s, n+1)
			}
			d.syms[s] = uint32(s1) | uint32(s2)<<12 | uint32(d.symLen[s1])<<24
			d.symLen[s] = uint8(n)
		}
		state[s] = done
		return nil
	}
	for s := 0; s < d.numSyms; s++ {
		if err := visit(s); err != nil {
			return err
		}
	}
	return nil
}

// buildBase derives the canonical code's smallest code of each length
// from the first-symbol offsets, left-aligned in 64 bits, and checks that
// the code is canonical: codes of each length fit in that length and come
// before (are larger than) every longer one.
func (d *pairs) buildBase() error {
	h := d.numLens
	for i := h - 2; i >= 0; i-- {
		b := int64(d.base[i+1]) + int64(d.offset[i]) - int64(d.offset[i+1])
		if b < 0 {
			return fmt.Errorf("code lengths %d and %d do not form a canonical code", d.minLen+i, d.minLen+i+1)
		}
		d.base[i] = uint64(b / 2)
		if d.base[i] >= 1<<(d.minLen+i) {
			return fmt.Errorf("code of length %d out of range", d.minLen+i)
		}
	}
	for i := 0; i < h; i++ {
		d.base[i] <<= 64 - uint(d.minLen+i)
	}
	for i := 1; i < h; i++ {
		if d.base[i] > d.base[i-1] {
			return fmt.Errorf("codes of length %d exceed those of length %d", d.minLen+i, d.minLen+i-1)
		}
	}
	return nil
}

// buildFast fills the lookup table of short codes.
func (d *pairs) buildFast() {
	d.fast = new([1 << fastBits]uint16)
	for p := range d.fast {
		code := uint64(p) << (64 - fastBits)
		sym, n, k := d.shortCode(code)
		if sym < 0 {
			// A longer code (or none): where its length's search can
			// start, the length of the largest code with these bits.
			top := code | (1<<(64-fastBits) - 1)
			l := max(0, fastBits+1-d.minLen)
			for l < d.numLens-1 && top < d.base[l] {
				l++
			}
			d.fast[p] = uint16(l) << 4
			continue
		}
		// Every further code that ends within the fastBits bits: a code's
		// length and symbol depend on its own bits only.
		nt, kt := n, k
		for nt < fastBits {
			sym2, n2, k2 := d.shortCode(code << uint(nt))
			if sym2 < 0 || nt+n2 > fastBits {
				break
			}
			nt, kt = nt+n2, kt+k2
		}
		d.fast[p] = uint16(nt) | uint16(kt)<<4
	}
}

// shortCode decodes the code at the top of code if it is at most
// fastBits long: its symbol (-1 if longer or none), length and values.
func (d *pairs) shortCode(code uint64) (sym, n, k int) {
	l := 0
	for code < d.base[l] {
		l++
	}
	n = d.minLen + l
	if n > fastBits {
		return -1, 0, 0
	}
	sym = int(d.offset[l]) + int((code-d.base[l])>>(64-uint(n)))
	if sym >= d.numSyms {
		return -1, 0, 0
	}
	return sym, n, int(d.symLen[sym]) + 1
}

// decode returns the value (12 bits) of position idx. Every read is
// bounds-checked; a damaged file gives an error, not a panic.
func (d *pairs) decode(f *tableFile, idx uint64) (int, error) {
	if d.constant {
		return d.constVal, nil
	}
	data := f.data
	mainIdx := idx >> d.idxBits
	if mainIdx >= d.numIdx {
		return 0, f.corrupt(d.indexOff, "position %d beyond the index table", idx)
	}
	litIdx := int64(idx&(1<<d.idxBits-1)) - int64(1)<<(d.idxBits-1)
	eo := d.indexOff + 6*int(mainIdx)
	entry := data[eo : eo+6 : eo+6] // within the file: checked at load
	block := int64(binary.LittleEndian.Uint32(entry))
	litIdx += int64(binary.LittleEndian.Uint16(entry[4:]))
	sizes := data[d.sizeOff : d.sizeOff+2*int(d.numBlocks)]
	nb := int64(d.numBlocks)
	if block >= nb {
		return 0, f.corrupt(eo, "block %d of %d", block, nb)
	}
	for litIdx < 0 {
		if block == 0 {
			return 0, f.corrupt(eo, "position %d before the first block", idx)
		}
		block--
		litIdx += int64(binary.LittleEndian.Uint16(sizes[2*block:])) + 1
	}
	for {
		n := int64(binary.LittleEndian.Uint16(sizes[2*block:]))
		if litIdx <= n {
			break
		}
		litIdx -= n + 1
		block++
		if block >= nb {
			return 0, f.corrupt(eo, "position %d past the last block", idx)
		}
	}
	if block >= int64(d.realBlock) {
		return 0, f.corrupt(d.sizeOff+2*int(block), "block %d of %d holding data", block, d.realBlock)
	}

	pos := d.dataOff + int(block)<<d.blockSize
	sym, lit := d.symbolAt(data, pos, pos+1<<d.blockSize, int(litIdx))
	if sym < 0 {
		return 0, f.corrupt(pos, "a code in block %d is no symbol", block)
	}
	// Walk down the pair tree to the value, without branching on the
	// way (which is as good as random): the left symbol s1 when lit is
	// among its k values, else the right one s2.
	syms := d.syms
	for {
		e := syms[sym]
		s1, s2 := int(e&0xfff), int(e>>12&0xfff)
		if s2 == 0xfff {
			return s1, nil
		}
		k := int(e>>24) + 1
		right := (k - 1 - lit) >> 63 // -1 when lit >= k, else 0
		sym = s1 ^ (s1^s2)&right
		lit -= k & right
	}
}

// symbolAt decodes the bit stream of a block, data[pos:end], up to the
// symbol that covers its value number lit, and returns that symbol and
// the value's number within it; the symbol is -1 for a code that is no
// symbol (a damaged block). Bits past end read as zeros: a block's last
// code may end within the 64 bits read ahead.
func (d *pairs) symbolAt(data []byte, pos, end, lit int) (int, int) {
	code := be64(data, pos, end)
	var blk []byte // the block's bytes (checked at load to be in the file)
	if pos >= 0 && pos <= end && end <= len(data) {
		blk = data[pos:end]
	}
	next := uint(8) // offset in blk of the next 32 bits to read
	bits := uint(0) // bits of code consumed since the last refill
	fast := d.fast[:]
	for {
		e := fast[code>>(64-fastBits)]
		var n uint
		if e&15 == 0 {
			// A code longer than fastBits (or none).
			sym, ln, k := d.longCode(code, int(e>>4))
			if sym < 0 {
				return -1, 0
			}
			if lit < k {
				return sym, lit
			}
			lit -= k
			n = uint(ln)
		} else if kt := int(e >> 4); lit >= kt {
			// Past every code the lookup covers.
			lit -= kt
			n = uint(e & 15)
		} else {
			// In one of them: one code at a time.
			for {
				sym, n, k := d.shortCode(code)
				if lit < k || sym < 0 {
					return sym, lit
				}
				lit -= k
				code <<= uint(n) & 63
			}
		}
		code <<= n & 63
		bits += n
		if bits >= 32 {
			bits -= 32
			if next+4 <= uint(len(blk)) {
				code |= uint64(binary.BigEndian.Uint32(blk[next:])) << (bits & 63)
			}
			next += 4
		}
	}
}

// longCode decodes a code longer than fastBits at the top of code: its
// symbol (-1 if none), length and number of values. Its length index is
// start or more (fast's entry tells).
func (d *pairs) longCode(code uint64, start int) (sym, n, k int) {
	const mask = maxCodeLn - 1
	// base[numLens-1] is 0: the search ends there at the latest.
	l := max(start, fastBits+1-d.minLen)
	for code < d.base[l&mask] {
		l++
	}
	n = d.minLen + l
	sym = int(d.offset[l&mask]) + int((code-d.base[l&mask])>>(64-uint(n)))
	if sym >= len(d.symLen) {
		return -1, 0, 0
	}
	return sym, n, int(d.symLen[sym]) + 1
}

// be64 reads a big-endian 64-bit word at pos, as zeros past end (a
// block's last codes may end within its last word).
func be64(data []byte, pos, end int) uint64 {
	if pos >= 0 && pos+8 <= end && end <= len(data) {
		return binary.BigEndian.Uint64(data[pos:])
	}
	var v uint64
	for i := 0; i < 8; i++ {
		v <<= 8
		if q := pos + i; q >= 0 && q < end && q < len(data) {
			v |= uint64(data[q])
		}
	}
	return v
}
