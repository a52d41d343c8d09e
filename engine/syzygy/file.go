package syzygy

import (
	"encoding/binary"
	"fmt"
)

// File layout (little-endian except the compressed bit streams):
//
//	magic (4 bytes), then a byte: piece count << 4 | 2 if pawns | 1 if
//	  the WDL table stores both sides to move ("split")
//	per table (one without pawns, four with: by the leading pawn's file):
//	  an order byte (two with pawns on both sides) and a byte per piece,
//	  the low nibble for the first side to move, the high for the second
//	pad to 2; per table and side: its pairs header (see pairs.go)
//	DTZ only: per table, the value maps (8- or 16-bit); pad to 2
//	per table and side: the index table; then the size tables
//	per table and side: pad to 64, the compressed blocks
//	pad to 64; a 16-byte checksum of everything before it
//
// Everything is located and checked against the file's length when the
// file is loaded, so that a probe reads inside the file only.

// Magic numbers of the two kinds of file, as the first 4 bytes read
// little-endian.
const (
	wdlMagic = 0x5d23e871
	dtzMagic = 0xa50c66d7
)

// checksumSize is the embedded checksum at the end of every file.
const checksumSize = 16

// tableFile is one loaded .rtbw or .rtbz file.
type tableFile struct {
	path  string
	data  []byte
	unmap func() error
	wdl   bool
	split bool
	// ei[side][t]: the encoding of table t (the leading pawn's file; 0
	// without pawns) for the first (0) or second side to move; a DTZ
	// file has side 0 only.
	ei [2][4]encInfo
	// DTZ only, by table: the flags (bit 0: the side to move stored; 2:
	// values go through a map; 4, 8: wins, losses stored in plies, not
	// halved; 16: 16-bit map) and the four maps' locations.
	flags [4]uint8
	maps  [4][4]dtzMap
	err   error // set instead of everything else when loading failed
}

// dtzMap is one DTZ value map: n entries at off (bytes, or 16-bit words
// when wide).
type dtzMap struct {
	off, n int
	wide   bool
}

// CorruptError reports a table file that does not hold what the format
// says it must: a damaged, truncated or wrong file.
type CorruptError struct {
	Path   string // the file
	Offset int64  // byte offset of the problem, -1 if none applies
	Reason string
}

func (e *CorruptError) Error() string {
	if e.Offset < 0 {
		return fmt.Sprintf("syzygy: %s: %s", e.Path, e.Reason)
	}
	return fmt.Sprintf("syzygy: %s: byte %d: %s", e.Path, e.Offset, e.Reason)
}

func (f *tableFile) corrupt(off int, format string, args ...any) error {
	return &CorruptError{Path: f.path, Offset: int64(off), Reason: fmt.Sprintf(format, args...)}
}

// reader reads a file's header sequentially, every read checked.
type reader struct {
	path string
	data []byte
	off  int
}

func (r *reader) corrupt(off int, format string, args ...any) error {
	return &CorruptError{Path: r.path, Offset: int64(off), Reason: fmt.Sprintf(format, args...)}
}

func (r *reader) bytes(n int) ([]byte, error) {
	if n < 0 || n > len(r.data)-r.off {
		return nil, r.corrupt(r.off, "header runs past the end of the file (%d bytes)", len(r.data))
	}
	b := r.data[r.off : r.off+n]
	r.off += n
	return b, nil
}

func (r *reader) u8() (byte, error) {
	b, err := r.bytes(1)
	if err != nil {
		return 0, err
	}
	return b[0], nil
}

func (r *reader) u16() (uint16, error) {
	b, err := r.bytes(2)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint16(b), nil
}

func (r *reader) align(n int) { r.off = (r.off + n - 1) &^ (n - 1) }

// skip moves past a section of size bytes, checking it is in the file.
func (r *reader) skip(size uint64, what string) (int, error) {
	start := r.off
	if size > uint64(len(r.data)-r.off) {
		return 0, r.corrupt(r.off, "%s (%d bytes) runs past the end of the file (%d bytes)", what, size, len(r.data))
	}
	r.off += int(size)
	return start, nil
}

// parseTable checks and locates everything in a table file of material m.
func parseTable(path string, data []byte, m *material, wdl bool) (*tableFile, error) {
	f := &tableFile{path: path, data: data, wdl: wdl}
	r := &reader{path: path, data: data}
	if len(data)%64 != checksumSize {
		return nil, &CorruptError{Path: path, Offset: -1, Reason: fmt.Sprintf(
			"%d bytes: a table file is 16 bytes more than a multiple of 64 (truncated or padded?)", len(data))}
	}
	magic := uint32(wdlMagic)
	if !wdl {
		magic = dtzMagic
	}
	hdr, err := r.bytes(5)
	if err != nil {
		return nil, err
	}
	if got := binary.LittleEndian.Uint32(hdr); got != magic {
		return nil, r.corrupt(0, "magic number %#08x, want %#08x (not a %s table)", got, magic, map[bool]string{true: "WDL", false: "DTZ"}[wdl])
	}
	if n := int(hdr[4] >> 4); n != m.n {
		return nil, r.corrupt(4, "header says %d pieces, %s has %d", n, m.name, m.n)
	}
	if pawns := hdr[4]&2 != 0; pawns != m.hasPawns {
		return nil, r.corrupt(4, "header's pawn flag is %v for %s", pawns, m.name)
	}
	f.split = wdl && hdr[4]&1 != 0
	if wdl && !f.split && !m.symmetric {
		return nil, r.corrupt(4, "stores one side to move, but %s is not symmetric", m.name)
	}
	sides := 1
	if f.split {
		sides = 2
	}
	numT := 1
	if m.hasPawns {
		numT = 4
	}
	more := 0
	if m.hasPawns && m.other > 0 {
		more = 1
	}
	for t := 0; t < numT; t++ {
		at := r.off
		b, err := r.bytes(1 + more + m.n)
		if err != nil {
			return nil, err
		}
		for s := 0; s < sides; s++ {
			if err := f.ei[s][t].init(b, uint(4*s), t, m); err != nil {
				return nil, r.corrupt(at, "table %d, side %d: %v", t, s, err)
			}
		}
	}
	r.align(2)
	if m.hasPawns {
		// The leading pawns are found by the first table's first piece.
		for t := 0; t < numT; t++ {
			for s := 0; s < sides; s++ {
				if f.ei[s][t].pieces[0] != f.ei[0][0].pieces[0] {
					return nil, r.corrupt(5, "tables lead with different pawns")
				}
			}
		}
	}

	var sizes [2][4][3]uint64
	for t := 0; t < numT; t++ {
		for s := 0; s < sides; s++ {
			e := &f.ei[s][t]
			if !wdl {
				if r.off >= len(data) {
					return nil, r.corrupt(r.off, "header runs past the end of the file")
				}
				f.flags[t] = data[r.off]
			}
			e.pairs, sizes[s][t], err = readPairs(r, e.size, wdl)
			if err != nil {
				return nil, err
			}
			r.align(2)
		}
	}

	if !wdl {
		for t := 0; t < numT; t++ {
			if f.flags[t]&2 == 0 {
				continue
			}
			wide := f.flags[t]&16 != 0
			if wide {
				r.align(2)
			}
			for i := 0; i < 4; i++ {
				var n int
				if wide {
					v, err := r.u16()
					if err != nil {
						return nil, err
					}
					n = int(v)
					if _, err := r.bytes(2 * n); err != nil {
						return nil, err
					}
					f.maps[t][i] = dtzMap{off: r.off - 2*n, n: n, wide: true}
				} else {
					v, err := r.u8()
					if err != nil {
						return nil, err
					}
					n = int(v)
					if _, err := r.bytes(n); err != nil {
						return nil, err
					}
					f.maps[t][i] = dtzMap{off: r.off - n, n: n}
				}
			}
		}
		r.align(2)
	}

	for part, what := range [3]string{"index table", "size table", "data"} {
		for t := 0; t < numT; t++ {
			for s := 0; s < sides; s++ {
				d := &f.ei[s][t].pairs
				if part == 2 {
					r.align(64)
				}
				if d.constant {
					continue
				}
				off, err := r.skip(sizes[s][t][part], fmt.Sprintf("table %d side %d %s", t, s, what))
				if err != nil {
					return nil, err
				}
				switch part {
				case 0:
					d.indexOff = off
				case 1:
					d.sizeOff = off
				case 2:
					d.dataOff = off
				}
			}
		}
	}
	r.align(64)
	if want := r.off + checksumSize; want != len(data) {
		return nil, &CorruptError{Path: path, Offset: -1, Reason: fmt.Sprintf(
			"%d bytes, but its header describes %d", len(data), want)}
	}
	return f, nil
}

// init reads the encoding of one table and side from its order and piece
// bytes (the nibbles at shift) and checks them against the material.
func (e *encInfo) init(b []byte, shift uint, t int, m *material) error {
	more := 0
	if m.hasPawns && m.other > 0 {
		more = 1
	}
	n := m.n
	var counts [16]uint8
	for i := 0; i < n; i++ {
		c := b[1+more+i] >> shift & 0xf
		if c&7 == 0 || c&7 == 7 {
			return fmt.Errorf("piece code %d", c)
		}
		if i > 0 && c != e.pieces[i-1] && counts[c] > 0 {
			return fmt.Errorf("pieces of code %d not together", c)
		}
		e.pieces[i] = c
		counts[c]++
	}
	if counts != m.counts {
		return fmt.Errorf("pieces %v do not match %s", e.pieces[:n], m.name)
	}
	order := int(b[0] >> shift & 0xf)
	order2 := 0xf
	if more == 1 {
		order2 = int(b[1] >> shift & 0xf)
	}

	var k int
	switch {
	case m.hasPawns:
		k = m.lead
		for i := 0; i < m.lead+m.other; i++ {
			lead := i < m.lead
			if e.pieces[i]&7 != 1 || lead != (e.pieces[i]&8 == e.pieces[0]&8) {
				return fmt.Errorf("pieces %v do not start with %d leading and %d other pawns", e.pieces[:n], m.lead, m.other)
			}
		}
	case m.kk:
		k = 2
	default:
		k = 3
	}
	e.norm = [maxPieces]uint8{}
	e.norm[0] = uint8(k)
	if more == 1 {
		e.norm[k] = uint8(m.other)
		k += m.other
	}
	groups := 1 + more
	for i := k; i < n; i += int(e.norm[i]) {
		for j := i; j < n && e.pieces[j] == e.pieces[i]; j++ {
			e.norm[i]++
		}
		groups++
	}
	if order >= groups || more == 1 && (order2 >= groups || order2 == order) {
		return fmt.Errorf("group order %d/%d of %d groups", order, order2, groups)
	}

	free := 64 - k
	f := uint64(1)
	for i := 0; k < n || i == order || i == order2; i++ {
		switch {
		case i == order:
			e.factor[0] = f
			switch {
			case m.hasPawns:
				f *= pawnFactor[e.norm[0]-1][t]
			case m.kk:
				f *= 462
			default:
				f *= 31332
			}
		case i == order2:
			e.factor[e.norm[0]] = f
			f *= binomial[e.norm[e.norm[0]]][48-int(e.norm[0])]
		default:
			e.factor[k] = f
			f *= binomial[e.norm[k]][free]
			free -= int(e.norm[k])
			k += int(e.norm[k])
		}
	}
	e.size = f
	return nil
}
