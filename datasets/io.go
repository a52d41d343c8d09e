package datasets

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"hash/crc64"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/nnuelab/nnuelab/internal/fsutil"
)

// Format is a dataset file format.
type Format int

// The formats. Readers detect them from the content; writers choose by the
// file name (FormatOf).
const (
	// FormatText is the CudAD text format, one "FEN [wdl] score" per line.
	FormatText Format = iota
	// FormatTextZstd is the text format compressed with zstd.
	FormatTextZstd
	// FormatBinary is a binary pack: a 32-byte header and zstd-compressed
	// blocks of 32-byte records (docs/datasets.md).
	FormatBinary
	// FormatBinpack is Stockfish's .binpack: "BINP" blocks of chains, a
	// 32-byte stem position followed by the game's next moves and scores at
	// about 2 bytes each (what Stockfish's data tools and nnue-pytorch read).
	FormatBinpack
	// FormatPlain is Stockfish's .plain text: fen, move, score, ply, result
	// and "e" lines per position (Stockfish's data tools).
	FormatPlain
	// FormatBullet is bullet's bulletformat: 32-byte ChessBoard records
	// seen from the side to move (what bullet-trained engines read).
	FormatBullet
)

// String names the format: "text", "text.zst" or "binary".
func (f Format) String() string {
	switch f {
	case FormatText:
		return "text"
	case FormatTextZstd:
		return "text.zst"
	case FormatBinary:
		return "binary"
	case FormatBinpack:
		return "binpack"
	case FormatPlain:
		return "plain"
	case FormatBullet:
		return "bullet"
	}
	return fmt.Sprintf("Format(%d)", int(f))
}

// FormatOf returns the format a file name asks for: ".txt" (or ".epd") is
// text, ".txt.zst" (any ".zst") compressed text, ".bin" a binary pack,
// ".binpack" Stockfish's binpack, ".plain" Stockfish's plain text and
// ".bullet" (or ".data", bullet's own habit) bulletformat.
func FormatOf(path string) (Format, error) {
	base := strings.ToLower(filepath.Base(path))
	switch {
	case strings.HasSuffix(base, ".zst"):
		return FormatTextZstd, nil
	case strings.HasSuffix(base, ".binpack"):
		return FormatBinpack, nil
	case strings.HasSuffix(base, ".bin"):
		return FormatBinary, nil
	case strings.HasSuffix(base, ".plain"):
		return FormatPlain, nil
	case strings.HasSuffix(base, ".bullet"), strings.HasSuffix(base, ".data"):
		return FormatBullet, nil
	case strings.HasSuffix(base, ".txt"), strings.HasSuffix(base, ".epd"):
		return FormatText, nil
	}
	return 0, fmt.Errorf("%s: cannot tell the format from the name (use .txt, .txt.zst, .bin, .binpack, .plain or .bullet)", path)
}

// Binary pack constants.
var packMagic = [8]byte{'N', 'N', 'L', 'P', 'A', 'C', 'K', 0}

const (
	// PackVersion is the binary pack format version this package writes
	// and reads.
	PackVersion    = 1
	packHeaderSize = 32
	// blockRecords is how many records a writer puts in one block.
	blockRecords = 4096
	// maxBlockRecords is the most a reader accepts in one block.
	maxBlockRecords = 1 << 16
)

var (
	crc64Table = crc64.MakeTable(crc64.ECMA)
	crc32Table = crc32.MakeTable(crc32.Castagnoli)
	zstdMagic  = []byte{0x28, 0xb5, 0x2f, 0xfd}
)

// EntryError is an error about one entry of a dataset file: the file, "line"
// or "record", and its 1-based number.
type EntryError struct {
	File string
	Unit string // "line" (text) or "record" (binary)
	N    int64
	Err  error
}

// Error says "FILE: line N: reason" or "FILE: record N: reason".
func (e *EntryError) Error() string {
	return fmt.Sprintf("%s: %s %d: %v", e.File, e.Unit, e.N, e.Err)
}

// Unwrap returns the underlying error.
func (e *EntryError) Unwrap() error { return e.Err }

// Reader streams the records of a dataset file in constant memory.
type Reader interface {
	// Next returns the next record, or io.EOF after the last one. Any other
	// error is an *EntryError naming the file and the line or record (or
	// an I/O error); after an error Next keeps returning it.
	Next() (Record, error)
	// Skipped returns how many bad entries Options.SkipBad has skipped so
	// far.
	Skipped() int64
	// Format returns the detected format.
	Format() Format
	// Close releases the file.
	Close() error
}

// Options tune a Reader.
type Options struct {
	// SkipBad skips malformed entries (a bad text line, an invalid binary
	// record, a binary block failing its checksum) instead of stopping;
	// Skipped counts them. A truncated file is still an error.
	SkipBad bool
	// OnSkip, if not nil, is called with the error of every skipped entry.
	OnSkip func(err error)
	// Filter, if not nil, drops the positions it does not keep as they
	// are read (OpenWith and OpenBlock; Dropped counts them). A binpack
	// reader tests its own position before it builds the Record, which
	// spares most of a dropped position's cost.
	Filter *Filter
}

// Dropped returns how many positions Options.Filter has dropped so far
// from r's file.
func Dropped(r Reader) int64 {
	if d, ok := r.(interface{ Dropped() int64 }); ok {
		return d.Dropped()
	}
	return 0
}

// withFilter applies o.Filter to r, unless r does so itself.
func withFilter(r Reader, o Options) Reader {
	if _, own := r.(*binpackReader); own || o.Filter == nil {
		return r
	}
	return NewFilterReader(r, *o.Filter)
}

// Open opens a dataset file, detecting text, zstd-compressed text or a binary
// pack from its first bytes. Bad entries are errors.
func Open(path string) (Reader, error) { return OpenWith(path, Options{}) }

// OpenWith opens a dataset file with options.
func OpenWith(path string, o Options) (Reader, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	r, err := NewReader(f, path, o)
	if err != nil {
		f.Close()
		return nil, err
	}
	r.(closerSetter).setCloser(f)
	return withFilter(r, o), nil
}

type closerSetter interface{ setCloser(io.Closer) }

// fileCloser gives a reader the file OpenWith opened for it, and closes it
// (once) on Close.
type fileCloser struct{ closer io.Closer }

func (f *fileCloser) setCloser(c io.Closer) { f.closer = c }

// Close closes the file the reader was opened on, if any.
func (f *fileCloser) Close() error {
	if f.closer == nil {
		return nil
	}
	err := f.closer.Close()
	f.closer = nil
	return err
}

// NewReader reads a dataset from r, detecting its format; name is the file
// name errors report. Closing the Reader does not close r.
func NewReader(r io.Reader, name string, o Options) (Reader, error) {
	br := bufio.NewReaderSize(r, 1<<16)
	head, err := br.Peek(8)
	if err != nil && err != io.EOF {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	named, nameErr := FormatOf(name)
	// bulletformat has no magic: its records are raw from the first byte.
	if nameErr == nil && named == FormatBullet {
		return newBulletReader(br, name, o)
	}
	// A binary pack or a zstd file starts with a header even when it holds
	// no positions, so a file of those names with no bytes at all is a
	// write that never happened (or a full disk), not an empty dataset.
	if len(head) == 0 && nameErr == nil && (named == FormatBinary || named == FormatTextZstd) {
		return nil, fmt.Errorf("%s: empty file (0 bytes): a %s file has a header even when it holds no positions (truncated or never written)", name, named)
	}
	switch {
	case bytes.Equal(head, packMagic[:]):
		return newPackReader(br, name, o)
	case bytes.HasPrefix(head, binpackMagic[:]):
		return newBinpackReader(br, name, o)
	case bytes.HasPrefix(head, plainMagic):
		return newPlainReader(br, name, o)
	case bytes.HasPrefix(head, zstdMagic):
		zr, err := zstd.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		t := newTextReader(zr, name, o)
		t.zr = zr
		t.format = FormatTextZstd
		return t, nil
	case len(head) >= 4 && bytes.HasPrefix(head, packMagic[:4]):
		return nil, fmt.Errorf("%s: damaged binary pack header (magic %q)", name, head)
	}
	return newTextReader(br, name, o), nil
}

// textReader reads the text format line by line.
type textReader struct {
	name    string
	br      *bufio.Reader
	zr      *zstd.Decoder
	closer  io.Closer
	format  Format
	line    int64
	o       Options
	skipped int64
	err     error
}

// maxLine is the longest text line accepted (a FEN with a result and score
// is under 100 bytes).
const maxLine = 4096

func newTextReader(r io.Reader, name string, o Options) *textReader {
	return &textReader{name: name, br: bufio.NewReaderSize(r, 1<<16), format: FormatText, o: o}
}

func (t *textReader) setCloser(c io.Closer) { t.closer = c }
func (t *textReader) Skipped() int64        { return t.skipped }
func (t *textReader) Format() Format        { return t.format }

func (t *textReader) Close() error {
	if t.zr != nil {
		t.zr.Close()
		t.zr = nil
	}
	if t.closer != nil {
		err := t.closer.Close()
		t.closer = nil
		return err
	}
	return nil
}

// readLine returns the next line without its end; long is set when the line
// exceeded maxLine (its rest is discarded).
func (t *textReader) readLine() (line []byte, long bool, err error) { return readLine(t.br) }

// readLine returns br's next line without its end; long is set when the
// line exceeded maxLine (its rest is discarded). The text readers share it.
func readLine(br *bufio.Reader) (line []byte, long bool, err error) {
	line, err = br.ReadSlice('\n')
	if err == bufio.ErrBufferFull || (err == nil && len(line) > maxLine) {
		for err == bufio.ErrBufferFull {
			_, err = br.ReadSlice('\n')
		}
		if err == io.EOF {
			err = nil
		}
		return nil, true, err
	}
	if err == io.EOF && len(bytes.TrimSpace(line)) > 0 {
		// A line that the file's end cuts may be a record cut short
		// ("... [0.5] 12x" -> "... [0.5] 12" still parses): every line
		// of a dataset ends with a newline, so this one is an error.
		return nil, false, errCutLine
	}
	return bytes.TrimRight(line, "\r\n"), false, err
}

// errCutLine is the error of a last line without its newline.
var errCutLine = errors.New("the file ends inside this line (no newline after it): truncated")

func (t *textReader) Next() (Record, error) {
	if t.err != nil {
		return Record{}, t.err
	}
	for {
		line, long, err := t.readLine()
		if err != nil {
			if err != io.EOF {
				err = &EntryError{t.name, "line", t.line + 1, err}
			}
			t.err = err
			return Record{}, err
		}
		t.line++
		var rec Record
		if long {
			err = fmt.Errorf("line longer than %d bytes", maxLine)
		} else {
			if tl := bytes.TrimSpace(line); len(tl) == 0 || tl[0] == '#' {
				continue // blank lines and # comments
			}
			rec, err = ParseText(string(line))
		}
		if err == nil {
			return rec, nil
		}
		err = &EntryError{t.name, "line", t.line, err}
		if !t.o.SkipBad {
			t.err = err
			return Record{}, err
		}
		t.skipped++
		if t.o.OnSkip != nil {
			t.o.OnSkip(err)
		}
	}
}

// packReader reads a binary pack.
type packReader struct {
	name     string
	zr       *zstd.Decoder
	closer   io.Closer
	o        Options
	count    uint64 // records the header announces
	sum      uint64 // checksum the header announces
	crc      uint64 // running CRC-64 of the records read
	read     uint64 // records consumed from the stream (valid or not)
	block    []byte // current block's records
	pos      int    // offset in block
	skipped  int64
	badBlock bool // a block was skipped: the file checksum cannot match
	err      error
}

func newPackReader(br *bufio.Reader, name string, o Options) (*packReader, error) {
	var h [packHeaderSize]byte
	if _, err := io.ReadFull(br, h[:]); err != nil {
		return nil, fmt.Errorf("%s: binary pack header: %w", name, noEOF(err))
	}
	if v := binary.LittleEndian.Uint16(h[8:10]); v != PackVersion {
		return nil, fmt.Errorf("%s: binary pack version %d, this build reads version %d", name, v, PackVersion)
	}
	if s := binary.LittleEndian.Uint16(h[10:12]); s != RecordSize {
		return nil, fmt.Errorf("%s: binary pack record size %d, want %d", name, s, RecordSize)
	}
	if x := binary.LittleEndian.Uint32(h[12:16]); x != 0 {
		return nil, fmt.Errorf("%s: binary pack header: reserved bytes 12..15 not zero", name)
	}
	zr, err := zstd.NewReader(br)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return &packReader{
		name:  name,
		zr:    zr,
		o:     o,
		count: binary.LittleEndian.Uint64(h[16:24]),
		sum:   binary.LittleEndian.Uint64(h[24:32]),
	}, nil
}

func noEOF(err error) error {
	if err == io.EOF {
		return io.ErrUnexpectedEOF
	}
	return err
}

func (p *packReader) setCloser(c io.Closer) { p.closer = c }
func (p *packReader) Skipped() int64        { return p.skipped }
func (p *packReader) Format() Format        { return FormatBinary }

func (p *packReader) Close() error {
	if p.zr != nil {
		p.zr.Close()
		p.zr = nil
	}
	if p.closer != nil {
		err := p.closer.Close()
		p.closer = nil
		return err
	}
	return nil
}

func (p *packReader) fail(n uint64, format string, args ...any) error {
	p.err = &EntryError{p.name, "record", int64(n), fmt.Errorf(format, args...)}
	return p.err
}

// nextBlock reads one block into p.block; it returns io.EOF at the clean end
// of the stream.
func (p *packReader) nextBlock() error {
	first := p.read + 1
	var nb [4]byte
	if _, err := io.ReadFull(p.zr, nb[:]); err != nil {
		if err == io.EOF {
			if p.read != p.count {
				return p.fail(first, "file ends after %d records, the header says %d (truncated)", p.read, p.count)
			}
			if !p.badBlock && p.crc != p.sum {
				return p.fail(first, "content checksum %016x, the header says %016x", p.crc, p.sum)
			}
			return io.EOF
		}
		if err == io.ErrUnexpectedEOF {
			return p.fail(first, "file ends inside a block header (truncated)")
		}
		return p.fail(first, "decompressing a block header: %v (corrupt)", err)
	}
	n := binary.LittleEndian.Uint32(nb[:])
	if n == 0 || n > maxBlockRecords {
		return p.fail(first, "bad block length %d (corrupt)", n)
	}
	if p.read+uint64(n) > p.count {
		return p.fail(first, "block of %d records runs past the %d the header announces (corrupt)", n, p.count)
	}
	size := int(n) * RecordSize
	if cap(p.block) < size+4 {
		p.block = make([]byte, size+4)
	}
	buf := p.block[:size+4]
	if got, err := io.ReadFull(p.zr, buf); err != nil {
		at := first + uint64(got/RecordSize)
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return p.fail(at, "file ends inside the block of records %d..%d (truncated)", first, first+uint64(n)-1)
		}
		return p.fail(at, "decompressing the block of records %d..%d: %v (corrupt)", first, first+uint64(n)-1, err)
	}
	data := buf[:size]
	p.read += uint64(n)
	p.crc = crc64.Update(p.crc, crc64Table, data)
	if crc32.Checksum(data, crc32Table) != binary.LittleEndian.Uint32(buf[size:]) {
		err := &EntryError{p.name, "record", int64(first), fmt.Errorf("block of records %d..%d fails its checksum (corrupt)", first, first+uint64(n)-1)}
		if !p.o.SkipBad {
			p.err = err
			return err
		}
		p.skipped += int64(n)
		p.badBlock = true
		if p.o.OnSkip != nil {
			p.o.OnSkip(err)
		}
		p.block, p.pos = buf[:0], 0
		return nil
	}
	p.block, p.pos = data, 0
	return nil
}

func (p *packReader) Next() (Record, error) {
	if p.err != nil {
		return Record{}, p.err
	}
	for {
		for p.pos >= len(p.block) {
			if err := p.nextBlock(); err != nil {
				p.err = err
				return Record{}, err
			}
		}
		n := p.read - uint64(len(p.block)-p.pos)/RecordSize + 1
		var r Record
		err := r.get((*[RecordSize]byte)(p.block[p.pos : p.pos+RecordSize]))
		p.pos += RecordSize
		if err == nil {
			return r, nil
		}
		e := &EntryError{p.name, "record", int64(n), err}
		if !p.o.SkipBad {
			p.err = e
			return Record{}, e
		}
		p.skipped++
		if p.o.OnSkip != nil {
			p.o.OnSkip(e)
		}
	}
}

// Writer writes records to a dataset file.
type Writer interface {
	// Write appends one record.
	Write(r Record) error
	// Count returns the number of records written.
	Count() int64
	// Close finishes the file; for a file made by Create it is the moment
	// the file appears under its name.
	Close() error
	// Abort discards the output (a Create temp file is removed).
	Abort() error
}

// Create writes a new dataset file atomically: records go to a temporary file
// beside path, which Close renames to path (after syncing it) and Abort
// removes. The format follows the name (FormatOf). Temporary files of path
// that a killed process left are removed first (RemoveStaleTemps).
func Create(path string) (Writer, error) {
	f, err := FormatOf(path)
	if err != nil {
		return nil, err
	}
	return CreateFormat(path, f)
}

// CreateFormat is Create with an explicit format.
func CreateFormat(path string, format Format) (Writer, error) {
	// What a killed earlier write of path left (best effort: a folder we
	// cannot clean still takes the new write).
	RemoveStaleTemps(path)
	aw, err := fsutil.Create(path, 0o644)
	if err != nil {
		return nil, err
	}
	tmp := aw.File
	var w Writer
	switch format {
	case FormatText:
		w = newTextWriter(tmp, nil, aw)
	case FormatTextZstd:
		zw, err := zstd.NewWriter(tmp, zstd.WithEncoderLevel(zstd.SpeedDefault))
		if err != nil {
			aw.Abort()
			return nil, err
		}
		w = newTextWriter(zw, zw, aw)
	case FormatBinary:
		w, err = newPackWriter(tmp, aw)
	case FormatBinpack:
		w, err = newBinpackWriter(tmp, aw)
	case FormatPlain:
		w, err = newPlainWriter(tmp, aw)
	case FormatBullet:
		w, err = newBulletWriter(tmp, aw)
	default:
		aw.Abort()
		return nil, fmt.Errorf("unknown format %v", format)
	}
	if err != nil {
		aw.Abort()
		return nil, err
	}
	return w, nil
}

// finishFile ends a writer whose output is af (nil: the writer has no
// file of its own, then err is returned as is): the file appears under its
// name when err is nil and is removed otherwise.
func finishFile(af *fsutil.File, err error) error {
	if af == nil {
		return err
	}
	if err != nil {
		af.Abort()
		return err
	}
	return af.Commit()
}

// textWriter writes text lines, optionally through zstd.
type textWriter struct {
	bw  *bufio.Writer
	zw  *zstd.Encoder
	af  *fsutil.File
	n   int64
	err error
}

func newTextWriter(w io.Writer, zw *zstd.Encoder, af *fsutil.File) *textWriter {
	return &textWriter{bw: bufio.NewWriterSize(w, 1<<16), zw: zw, af: af}
}

// NewTextWriter writes text lines to w (not atomically; Close flushes but
// does not close w).
func NewTextWriter(w io.Writer) Writer { return newTextWriter(w, nil, nil) }

func (t *textWriter) Write(r Record) error {
	if t.err != nil {
		return t.err
	}
	t.bw.WriteString(r.Text())
	if err := t.bw.WriteByte('\n'); err != nil {
		t.err = err
		return err
	}
	t.n++
	return nil
}

func (t *textWriter) Count() int64 { return t.n }

func (t *textWriter) Close() error {
	err := t.err
	if err == nil {
		err = t.bw.Flush()
	}
	if t.zw != nil {
		if e := t.zw.Close(); err == nil {
			err = e
		}
	}
	return finishFile(t.af, err)
}

func (t *textWriter) Abort() error {
	if t.zw != nil {
		t.zw.Close()
	}
	return t.af.Abort()
}

// packWriter writes a binary pack; the header's count and checksum are
// filled in by Close.
type packWriter struct {
	f     *os.File
	af    *fsutil.File
	zw    *zstd.Encoder
	block []byte
	n     uint64
	crc   uint64
	err   error
}

func newPackWriter(f *os.File, af *fsutil.File) (*packWriter, error) {
	var h [packHeaderSize]byte // filled in by Close
	if _, err := f.Write(h[:]); err != nil {
		return nil, err
	}
	zw, err := zstd.NewWriter(f, zstd.WithEncoderLevel(zstd.SpeedDefault))
	if err != nil {
		return nil, err
	}
	return &packWriter{f: f, af: af, zw: zw, block: make([]byte, 4, 4+blockRecords*RecordSize+4)}, nil
}

func (p *packWriter) Write(r Record) error {
	if p.err != nil {
		return p.err
	}
	if err := r.validate(); err != nil {
		return fmt.Errorf("record %d: %w", p.n+1, err)
	}
	var b [RecordSize]byte
	r.put(&b)
	p.block = append(p.block, b[:]...)
	p.n++
	if len(p.block) == 4+blockRecords*RecordSize {
		return p.flushBlock()
	}
	return nil
}

func (p *packWriter) flushBlock() error {
	data := p.block[4:]
	if len(data) == 0 {
		return nil
	}
	binary.LittleEndian.PutUint32(p.block[0:4], uint32(len(data)/RecordSize))
	p.crc = crc64.Update(p.crc, crc64Table, data)
	p.block = binary.LittleEndian.AppendUint32(p.block, crc32.Checksum(data, crc32Table))
	if _, err := p.zw.Write(p.block); err != nil {
		p.err = err
		return err
	}
	p.block = p.block[:4]
	return nil
}

func (p *packWriter) Count() int64 { return int64(p.n) }

func (p *packWriter) Close() error {
	err := p.err
	if err == nil {
		err = p.flushBlock()
	}
	if e := p.zw.Close(); err == nil {
		err = e
	}
	if err == nil {
		var h [packHeaderSize]byte
		copy(h[:8], packMagic[:])
		binary.LittleEndian.PutUint16(h[8:10], PackVersion)
		binary.LittleEndian.PutUint16(h[10:12], RecordSize)
		binary.LittleEndian.PutUint64(h[16:24], p.n)
		binary.LittleEndian.PutUint64(h[24:32], p.crc)
		_, err = p.f.WriteAt(h[:], 0)
	}
	if err != nil {
		p.af.Abort()
		return err
	}
	return p.af.Commit()
}

func (p *packWriter) Abort() error {
	p.zw.Close()
	return p.af.Abort()
}
