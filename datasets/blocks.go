package datasets

import (
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

// Block is a byte range of a dataset file that can be read on its own, so
// that a reader of many files (a streaming trainer) can visit a file's
// parts in any order and hold only a few of them at once: one "BINP" block
// of a Stockfish binpack, a run of bulletformat records, or the whole file
// for the formats that are one stream (text, text.zst, .plain, binary
// packs).
type Block struct {
	Path   string
	Offset int64 // first byte of the block in the file
	Size   int64 // bytes
}

// bulletBlockRecords is how many bulletformat records Blocks puts in one
// block: 1 MiB, about a binpack block's worth of reading.
const bulletBlockRecords = 1 << 15

// Blocks lists the blocks of the dataset file at path in file order,
// reading only block headers. A binpack whose block headers do not chain
// to the end of the file exactly (a truncated file, a damaged header) is an
// error naming the file and the byte offset, as is a bulletformat file
// whose size is not a whole number of records.
func Blocks(path string) ([]Block, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	size := st.Size()
	whole := []Block{{Path: path, Offset: 0, Size: size}}
	if size == 0 {
		return whole, nil
	}
	if format, err := FormatOf(path); err == nil && format == FormatBullet {
		if size%RecordSize != 0 {
			return nil, fmt.Errorf("%s: %d bytes is not a whole number of %d-byte records (truncated at byte %d)", path, size, RecordSize, size-size%RecordSize)
		}
		var bs []Block
		for off := int64(0); off < size; off += bulletBlockRecords * RecordSize {
			bs = append(bs, Block{Path: path, Offset: off, Size: min(bulletBlockRecords*RecordSize, size-off)})
		}
		return bs, nil
	}
	var h [8]byte
	if _, err := io.ReadFull(f, h[:4]); err != nil || [4]byte(h[:4]) != binpackMagic {
		return whole, nil // not a binpack: one stream
	}
	var bs []Block
	for off := int64(0); off < size; {
		got, err := f.ReadAt(h[:], off)
		if got < len(h) {
			if err == io.EOF {
				return nil, fmt.Errorf("%s: byte %d: file ends %d bytes into a block header of 8 (truncated)", path, off, got)
			}
			return nil, fmt.Errorf("%s: byte %d: %w", path, off, err)
		}
		if [4]byte(h[:4]) != binpackMagic {
			return nil, fmt.Errorf("%s: byte %d: block header %q does not start with \"BINP\" (corrupt)", path, off, h[:4])
		}
		n := int64(binary.LittleEndian.Uint32(h[4:]))
		switch {
		case n == 0:
			return nil, fmt.Errorf("%s: byte %d: empty block (corrupt)", path, off)
		case n > binpackMaxBlock:
			return nil, fmt.Errorf("%s: byte %d: block of %d bytes, more than the %d a block may have (corrupt)", path, off+4, n, binpackMaxBlock)
		case off+8+n > size:
			return nil, fmt.Errorf("%s: byte %d: file ends %d bytes into a block of %d that starts at byte %d (truncated)", path, size, size-off-8, n, off)
		}
		bs = append(bs, Block{Path: path, Offset: off, Size: 8 + n})
		off += 8 + n
	}
	return bs, nil
}

// OpenBlock opens a reader of one block of Blocks. firstRecord is the
// number of positions (valid or not) before the block in its file, when
// known, so that errors name a position by its number in the whole file, as
// they name bytes by their offset in the file.
func OpenBlock(b Block, firstRecord int64, o Options) (Reader, error) {
	f, err := os.Open(b.Path)
	if err != nil {
		return nil, err
	}
	sec := io.NewSectionReader(f, b.Offset, b.Size)
	r, err := NewReader(sec, b.Path, o)
	if err != nil {
		f.Close()
		return nil, err
	}
	switch rr := r.(type) {
	case *binpackReader:
		rr.n, rr.fileOff = firstRecord, b.Offset
	case *bulletReader:
		rr.n = b.Offset / RecordSize // every record counts, so this is exact
	default:
		if b.Offset != 0 {
			f.Close()
			return nil, fmt.Errorf("%s: a %s file is read from its start, not from byte %d", b.Path, r.Format(), b.Offset)
		}
	}
	r.(closerSetter).setCloser(f)
	return withFilter(r, o), nil
}
