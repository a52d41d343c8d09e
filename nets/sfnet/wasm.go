package sfnet

import (
	"bytes"
	"encoding/binary"
	"fmt"
)

// A WebAssembly module (the binary format of the WebAssembly core
// specification, version 1), parsed only as far as extracting nets needs:
// the section table, the memories (defined or imported) and the data
// section's segments. An emscripten build of Stockfish keeps its embedded
// nets in the data section as active segments, each copied to its memory
// offset when the module starts; runs of zero bytes are left out (memory
// starts zeroed), so a net is contiguous only in the laid-out memory, not
// in the file.

// wasmMagic and wasmVersion start every binary module.
var wasmMagic = []byte("\x00asm")

const wasmVersion = 1

// Section ids the parser reads.
const (
	secImport = 2
	secMemory = 5
	secData   = 11
)

// pageSize is the size of a WebAssembly memory page.
const pageSize = 1 << 16

// Segment is one data segment.
type Segment struct {
	// Active segments are copied to Offset in memory Memory at start;
	// passive ones (threaded builds) are copied by code at run time, at
	// offsets the data section does not hold.
	Active bool
	Memory uint32
	Offset uint64
	// Data is the segment's bytes (a slice of the module's bytes).
	Data []byte
	// At is the byte offset of the segment's header in the module.
	At int
}

// Module is a parsed module.
type Module struct {
	// Sections lists the sections in file order.
	Sections []Section
	// MemoryPages is the minimum size of memory 0 in pages (64 KiB), -1
	// if the module neither defines nor imports a memory.
	MemoryPages int64
	Segments    []Segment
}

// Section is one section's id, start (of its payload) and size.
type Section struct {
	ID   byte
	At   int
	Size int
}

// WasmError is a malformed module: what was being read and where.
type WasmError struct {
	At     int // byte offset in the module
	Reason string
}

func (e *WasmError) Error() string {
	return fmt.Sprintf("malformed WebAssembly module at byte %d: %s", e.At, e.Reason)
}

// wreader reads the binary format's primitives from a bounded range.
type wreader struct {
	b   []byte
	pos int
	end int
}

func (r *wreader) fail(format string, args ...any) error {
	return &WasmError{At: r.pos, Reason: fmt.Sprintf(format, args...)}
}

func (r *wreader) byte(what string) (byte, error) {
	if r.pos >= r.end {
		return 0, r.fail("truncated: %s missing", what)
	}
	c := r.b[r.pos]
	r.pos++
	return c, nil
}

// uleb reads an unsigned LEB128 number of at most bits bits.
func (r *wreader) uleb(bits uint, what string) (uint64, error) {
	start := r.pos
	var v uint64
	for shift := uint(0); ; shift += 7 {
		if r.pos >= r.end {
			r.pos = start
			return 0, r.fail("truncated: %s (a LEB128 number) runs past the end", what)
		}
		c := r.b[r.pos]
		r.pos++
		if shift >= bits || (shift+7 > bits && uint64(c&0x7f)>>(bits-shift) != 0) {
			r.pos = start
			return 0, r.fail("%s does not fit %d bits", what, bits)
		}
		v |= uint64(c&0x7f) << shift
		if c&0x80 == 0 {
			return v, nil
		}
	}
}

// sleb reads a signed LEB128 number of at most bits bits.
func (r *wreader) sleb(bits uint, what string) (int64, error) {
	start := r.pos
	var v int64
	var shift uint
	for {
		if r.pos >= r.end {
			r.pos = start
			return 0, r.fail("truncated: %s (a LEB128 number) runs past the end", what)
		}
		if shift >= bits {
			r.pos = start
			return 0, r.fail("%s does not fit %d bits", what, bits)
		}
		c := r.b[r.pos]
		r.pos++
		v |= int64(c&0x7f) << shift
		shift += 7
		if c&0x80 == 0 {
			if shift < 64 && c&0x40 != 0 {
				v |= -1 << shift
			}
			if bits < 64 && (v < -(1<<(bits-1)) || v >= 1<<(bits-1)) {
				r.pos = start
				return 0, r.fail("%s does not fit %d bits", what, bits)
			}
			return v, nil
		}
	}
}

// bytes returns the next n bytes.
func (r *wreader) bytes(n uint64, what string) ([]byte, error) {
	if n > uint64(r.end-r.pos) {
		return nil, r.fail("truncated: %s claims %d bytes, %d are left", what, n, r.end-r.pos)
	}
	b := r.b[r.pos : r.pos+int(n)]
	r.pos += int(n)
	return b, nil
}

// limits reads a memory's limits and returns the minimum in pages.
func (r *wreader) limits(what string) (int64, error) {
	flags, err := r.byte(what + " flags")
	if err != nil {
		return 0, err
	}
	bits := uint(32)
	if flags&4 != 0 {
		bits = 64 // memory64
	}
	if flags&^7 != 0 {
		r.pos--
		return 0, r.fail("%s flags 0x%02x unknown", what, flags)
	}
	lo, err := r.uleb(bits, what+" minimum")
	if err != nil {
		return 0, err
	}
	if flags&1 != 0 {
		if _, err := r.uleb(bits, what+" maximum"); err != nil {
			return 0, err
		}
	}
	if lo > 1<<48 {
		return 0, r.fail("%s minimum %d pages is impossible", what, lo)
	}
	return int64(lo), nil
}

// ParseWasm parses a binary module. The segments' Data slice mod.
func ParseWasm(mod []byte) (*Module, error) {
	if len(mod) < 8 {
		return nil, &WasmError{At: 0, Reason: fmt.Sprintf("truncated: %d bytes, a module starts with an 8-byte header", len(mod))}
	}
	if !bytes.Equal(mod[:4], wasmMagic) {
		return nil, &WasmError{At: 0, Reason: fmt.Sprintf("not a WebAssembly module: it starts with % x, not 00 61 73 6d (\\0asm)", mod[:4])}
	}
	if v := binary.LittleEndian.Uint32(mod[4:]); v != wasmVersion {
		return nil, &WasmError{At: 4, Reason: fmt.Sprintf("binary format version %d, want %d", v, wasmVersion)}
	}
	m := &Module{MemoryPages: -1}
	r := &wreader{b: mod, pos: 8, end: len(mod)}
	lastID := byte(0)
	for r.pos < r.end {
		at := r.pos
		id, _ := r.byte("section id")
		size, err := r.uleb(32, fmt.Sprintf("size of section %d", id))
		if err != nil {
			return nil, err
		}
		if size > uint64(r.end-r.pos) {
			return nil, &WasmError{At: at, Reason: fmt.Sprintf("truncated: section %d (%s) claims %d bytes, the module has %d left", id, sectionName(id), size, r.end-r.pos)}
		}
		if id > 13 {
			return nil, &WasmError{At: at, Reason: fmt.Sprintf("unknown section id %d", id)}
		}
		// Known sections come at most once, in order (12, data count,
		// before 10, code; 13, tag, between 5 and 6).
		if id != 0 {
			if order(id) <= order(lastID) {
				return nil, &WasmError{At: at, Reason: fmt.Sprintf("section %d (%s) out of order after section %d (%s)", id, sectionName(id), lastID, sectionName(lastID))}
			}
			lastID = id
		}
		s := Section{ID: id, At: r.pos, Size: int(size)}
		m.Sections = append(m.Sections, s)
		sub := &wreader{b: mod, pos: s.At, end: s.At + s.Size}
		switch id {
		case secImport:
			err = m.readImports(sub)
		case secMemory:
			err = m.readMemories(sub)
		case secData:
			err = m.readData(sub)
		}
		if err != nil {
			return nil, err
		}
		r.pos = s.At + s.Size
	}
	return m, nil
}

// order is a section's rank in the required order.
func order(id byte) int {
	switch id {
	case 0:
		return 0
	case 12: // data count: after element (9), before code (10)
		return 95
	case 13: // tag: after memory (5), before global (6)
		return 55
	}
	return int(id) * 10
}

func sectionName(id byte) string {
	names := []string{"custom", "type", "import", "function", "table", "memory", "global", "export", "start", "element", "code", "data", "data count", "tag"}
	if int(id) < len(names) {
		return names[id]
	}
	return "unknown"
}

// readImports notes an imported memory 0 (emscripten imports it in some
// builds) and skips the other imports.
func (m *Module) readImports(r *wreader) error {
	n, err := r.uleb(32, "import count")
	if err != nil {
		return err
	}
	for i := uint64(0); i < n; i++ {
		for _, what := range []string{"module name", "field name"} {
			l, err := r.uleb(32, fmt.Sprintf("import %d %s length", i, what))
			if err != nil {
				return err
			}
			if _, err := r.bytes(l, fmt.Sprintf("import %d %s", i, what)); err != nil {
				return err
			}
		}
		kind, err := r.byte(fmt.Sprintf("import %d kind", i))
		if err != nil {
			return err
		}
		switch kind {
		case 0: // function: type index
			_, err = r.uleb(32, fmt.Sprintf("import %d type index", i))
		case 1: // table: reference type, limits
			if _, err = r.byte(fmt.Sprintf("import %d table type", i)); err == nil {
				_, err = r.limits(fmt.Sprintf("import %d table", i))
			}
		case 2: // memory
			var pages int64
			pages, err = r.limits(fmt.Sprintf("import %d memory", i))
			if err == nil && m.MemoryPages < 0 {
				m.MemoryPages = pages
			}
		case 3: // global: value type, mutability
			if _, err = r.byte(fmt.Sprintf("import %d global type", i)); err == nil {
				_, err = r.byte(fmt.Sprintf("import %d global mutability", i))
			}
		case 4: // tag: attribute, type index
			if _, err = r.byte(fmt.Sprintf("import %d tag attribute", i)); err == nil {
				_, err = r.uleb(32, fmt.Sprintf("import %d tag type", i))
			}
		default:
			r.pos--
			return r.fail("import %d has unknown kind %d", i, kind)
		}
		if err != nil {
			return err
		}
	}
	return r.endOfSection("import")
}

func (m *Module) readMemories(r *wreader) error {
	n, err := r.uleb(32, "memory count")
	if err != nil {
		return err
	}
	for i := uint64(0); i < n; i++ {
		pages, err := r.limits(fmt.Sprintf("memory %d", i))
		if err != nil {
			return err
		}
		if m.MemoryPages < 0 {
			m.MemoryPages = pages
		}
	}
	return r.endOfSection("memory")
}

func (r *wreader) endOfSection(name string) error {
	if r.pos != r.end {
		return r.fail("%d bytes left over at the end of the %s section", r.end-r.pos, name)
	}
	return nil
}

// readData reads the data section's segments.
func (m *Module) readData(r *wreader) error {
	n, err := r.uleb(32, "data segment count")
	if err != nil {
		return err
	}
	// Each segment takes at least 3 bytes: a count beyond that is corrupt,
	// and must not size an allocation.
	if n > uint64(r.end-r.pos)/3+1 {
		return r.fail("data segment count %d cannot fit the section's %d bytes", n, r.end-r.pos)
	}
	m.Segments = make([]Segment, 0, n)
	for i := uint64(0); i < n; i++ {
		s := Segment{At: r.pos}
		flags, err := r.uleb(32, fmt.Sprintf("data segment %d flags", i))
		if err != nil {
			return err
		}
		switch flags {
		case 0, 2:
			s.Active = true
			if flags == 2 {
				idx, err := r.uleb(32, fmt.Sprintf("data segment %d memory index", i))
				if err != nil {
					return err
				}
				s.Memory = uint32(idx)
			}
			if s.Offset, err = r.constOffset(fmt.Sprintf("data segment %d offset", i)); err != nil {
				return err
			}
		case 1:
		default:
			r.pos = s.At
			return r.fail("data segment %d has unknown flags %d", i, flags)
		}
		l, err := r.uleb(32, fmt.Sprintf("data segment %d length", i))
		if err != nil {
			return err
		}
		if s.Data, err = r.bytes(l, fmt.Sprintf("data segment %d", i)); err != nil {
			return err
		}
		m.Segments = append(m.Segments, s)
	}
	return r.endOfSection("data")
}

// constOffset reads an active segment's offset: a constant expression
// i32.const N end (or i64.const for memory64). Offsets that code computes
// (global.get of a relocatable module's memory base) are not constants
// the data section can tell.
func (r *wreader) constOffset(what string) (uint64, error) {
	op, err := r.byte(what)
	if err != nil {
		return 0, err
	}
	var off uint64
	switch op {
	case 0x41: // i32.const: the offset is the i32 read as unsigned
		v, err := r.sleb(32, what)
		if err != nil {
			return 0, err
		}
		off = uint64(uint32(int32(v)))
	case 0x42: // i64.const
		v, err := r.sleb(64, what)
		if err != nil {
			return 0, err
		}
		off = uint64(v)
	case 0x23:
		r.pos--
		return 0, r.fail("%s is global.get, not a constant: a relocatable module (its memory base is set when it is loaded)", what)
	default:
		r.pos--
		return 0, r.fail("%s: expression opcode 0x%02x is not i32.const", what, op)
	}
	end, err := r.byte(what + " end")
	if err != nil {
		return 0, err
	}
	if end != 0x0B {
		r.pos--
		return 0, r.fail("%s: the constant expression does not end after one constant (opcode 0x%02x)", what, end)
	}
	return off, nil
}

// ErrNoActiveData says that a module has no active data segments: a
// threaded emscripten build, which copies passive segments to memory
// offsets chosen by code at run time.
var ErrNoActiveData = fmt.Errorf("no active data segments (a threaded build keeps its data in passive segments, placed by code at run time; use the single-threaded module, *-single*.wasm)")

// Memory lays the active segments of memory 0 out at their offsets and
// returns the initial memory image from the lowest segment's start:
// image[i] is memory byte base+i. The bytes between segments are the
// zeros the module leaves out, and the image goes on for up to 1 MiB of
// zeros after the last segment, within the memory's initial size. Overlapping segments are applied in file
// order, as instantiation does.
func (m *Module) Memory() (image []byte, base uint64, err error) {
	var segs []Segment
	var total uint64
	for _, s := range m.Segments {
		if s.Active && s.Memory == 0 {
			segs = append(segs, s)
			total += uint64(len(s.Data))
		}
	}
	if len(segs) == 0 {
		return nil, 0, ErrNoActiveData
	}
	lo, hi := ^uint64(0), uint64(0)
	for _, s := range segs {
		end := s.Offset + uint64(len(s.Data))
		if end < s.Offset {
			return nil, 0, &WasmError{At: s.At, Reason: fmt.Sprintf("data segment at memory offset %d with %d bytes wraps around", s.Offset, len(s.Data))}
		}
		lo, hi = min(lo, s.Offset), max(hi, end)
	}
	if m.MemoryPages >= 0 && hi > uint64(m.MemoryPages)*pageSize {
		last := segs[0]
		for _, s := range segs {
			if s.Offset+uint64(len(s.Data)) == hi {
				last = s
			}
		}
		return nil, 0, &WasmError{At: last.At, Reason: fmt.Sprintf("data segment ends at memory byte %d, beyond the initial memory of %d pages (%d bytes)", hi, m.MemoryPages, m.MemoryPages*pageSize)}
	}
	// The gaps are zero runs a real build leaves out: far smaller than the
	// data. A layout mostly made of gaps is a corrupt offset, and must not
	// size an allocation.
	if span := hi - lo; span > 2*total+1<<24 {
		return nil, 0, &WasmError{At: segs[0].At, Reason: fmt.Sprintf("data segments spread over %d bytes of memory (%d..%d) for %d bytes of data: corrupt offsets", span, lo, hi, total)}
	}
	// The zeros after the last segment belong to memory too (a net may
	// end in a zero run): keep up to 1 MiB of them.
	end := hi + 1<<20
	if m.MemoryPages >= 0 {
		end = min(end, uint64(m.MemoryPages)*pageSize)
	}
	image = make([]byte, end-lo)
	for _, s := range segs { // file order: a later segment overwrites
		copy(image[s.Offset-lo:], s.Data)
	}
	return image, lo, nil
}
