// Package zstdfile writes files compressed with zstd (klauspost/compress)
// so that no reader can take a damaged one for a complete one, and reads
// them back, or their uncompressed forms, through one call.
//
// A file is written under a temporary name beside its path and renamed
// into place once its last frame is out (internal/fsutil.Create), so a
// crash mid-write leaves the old file or none, never a truncated one. The
// encoder is single-threaded at a fixed level, so the same content always
// compresses to the same bytes (git stores a file copied into two folders
// once). What is damaged later (a file cut short, a flipped byte) is found
// by the reader: zstd frames end with a checksum of their content, a frame
// cut short is an unexpected end, and an empty file holds no frame at
// all, which Open refuses. The error names the file and how far its
// content read correctly.
//
// Experiment results keep their games as .pgn.zst (experiments/plan); the
// readers also open a plain .pgn, which older runs wrote.
package zstdfile

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/nnuelab/nnuelab/internal/fsutil"
)

// Ext is the extension of a zstd-compressed file.
const Ext = ".zst"

// magic starts every zstd frame.
var magic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// Error is a compressed file that does not read: its path, how far into
// its content the fault was found, and the fault. (A changed byte is found
// by the checksum at the end of its frame, so the content read before the
// error may be wrong: a reader must drop what it read from a file that
// fails.)
type Error struct {
	File string
	// Offset is the count of decompressed bytes read before the fault
	// was found.
	Offset int64
	// Size is the compressed file's size (-1 when unknown).
	Size int64
	Err  error
}

func (e *Error) Error() string {
	size := ""
	if e.Size >= 0 {
		size = fmt.Sprintf("; the file has %d bytes", e.Size)
	}
	return fmt.Sprintf("%s: damaged zstd file (truncated or corrupt; found after %d bytes of its content%s): %v", e.File, e.Offset, size, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// IsCompressed reports whether path names a zstd file (by its extension).
func IsCompressed(path string) bool { return strings.HasSuffix(path, Ext) }

// reader decompresses a file and turns the decoder's faults into Errors.
type reader struct {
	f    *os.File
	dec  *zstd.Decoder
	name string
	size int64
	n    int64
	err  error
}

// Open opens path for reading its content: decompressed when its name
// ends in .zst, as it is otherwise. Reading a damaged compressed file
// fails with an *Error naming it; so does opening an empty one or one
// that is not zstd.
func Open(path string) (io.ReadCloser, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if !IsCompressed(path) {
		return f, nil
	}
	size := int64(-1)
	if st, err := f.Stat(); err == nil {
		size = st.Size()
	}
	br := bufio.NewReader(f)
	head, _ := br.Peek(len(magic))
	if !bytes.Equal(head, magic) {
		f.Close()
		why := errors.New("no zstd frame at its start")
		if len(head) == 0 {
			why = errors.New("the file is empty")
		}
		return nil, &Error{File: path, Size: size, Err: why}
	}
	dec, err := zstd.NewReader(br, zstd.WithDecoderConcurrency(1))
	if err != nil {
		f.Close()
		return nil, &Error{File: path, Size: size, Err: err}
	}
	return &reader{f: f, dec: dec, name: path, size: size}, nil
}

func (r *reader) Read(p []byte) (int, error) {
	if r.err != nil {
		return 0, r.err
	}
	n, err := r.dec.Read(p)
	r.n += int64(n)
	if err != nil && err != io.EOF {
		r.err = &Error{File: r.name, Offset: r.n, Size: r.size, Err: err}
		return n, r.err
	}
	return n, err
}

func (r *reader) Close() error {
	r.dec.Close()
	return r.f.Close()
}

// ReadFile returns the content of path (decompressed when it ends in
// .zst), as Open reads it.
func ReadFile(path string) ([]byte, error) {
	r, err := Open(path)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// encoder is the one configuration every compressed file is written with:
// one goroutine (the output does not depend on the machine), a frame even
// for empty content (an empty file is never valid), content checksums.
func encoder(w io.Writer) (*zstd.Encoder, error) {
	return zstd.NewWriter(w, zstd.WithEncoderLevel(zstd.SpeedBestCompression),
		zstd.WithEncoderConcurrency(1), zstd.WithZeroFrames(true), zstd.WithEncoderCRC(true))
}

// Copy compresses what r yields into path, atomically (a temporary file
// beside it, renamed into place once complete), with permissions perm.
func Copy(path string, r io.Reader, perm os.FileMode) error {
	f, err := fsutil.Create(path, perm)
	if err != nil {
		return err
	}
	bw := bufio.NewWriterSize(f, 1<<16)
	zw, err := encoder(bw)
	if err != nil {
		f.Abort()
		return err
	}
	if _, err := io.Copy(zw, r); err != nil {
		zw.Close()
		f.Abort()
		return err
	}
	if err := zw.Close(); err != nil {
		f.Abort()
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Abort()
		return err
	}
	if err := f.Chmod(perm); err != nil {
		f.Abort()
		return err
	}
	return f.Commit()
}

// WriteFile writes data compressed to path, atomically.
func WriteFile(path string, data []byte, perm os.FileMode) error {
	return Copy(path, bytes.NewReader(data), perm)
}

// CompressFile compresses the file src into dst (atomically, with src's
// permissions), streaming, and checks that dst reads back as src before
// it returns; src is left as it is.
func CompressFile(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	st, err := in.Stat()
	if err != nil {
		return err
	}
	if err := Copy(dst, in, st.Mode().Perm()); err != nil {
		return fmt.Errorf("compressing %s: %w", src, err)
	}
	same, err := SameContent(dst, src)
	if err != nil {
		return err
	}
	if !same {
		return fmt.Errorf("%s does not read back as %s", dst, src)
	}
	return nil
}

// SameContent reports whether the files a and b have the same content,
// each read as Open reads it (a .zst decompressed): a compressed file and
// its source compare equal. A damaged file is an error.
func SameContent(a, b string) (bool, error) {
	ra, err := Open(a)
	if err != nil {
		return false, err
	}
	defer ra.Close()
	rb, err := Open(b)
	if err != nil {
		return false, err
	}
	defer rb.Close()
	ba, bb := bufio.NewReaderSize(ra, 1<<16), bufio.NewReaderSize(rb, 1<<16)
	bufA, bufB := make([]byte, 1<<15), make([]byte, 1<<15)
	for {
		na, errA := io.ReadFull(ba, bufA)
		nb, errB := io.ReadFull(bb, bufB)
		if errA != nil && errA != io.EOF && errA != io.ErrUnexpectedEOF {
			return false, errA
		}
		if errB != nil && errB != io.EOF && errB != io.ErrUnexpectedEOF {
			return false, errB
		}
		if na != nb || !bytes.Equal(bufA[:na], bufB[:nb]) {
			return false, nil
		}
		if errA != nil || errB != nil {
			return errA != nil && errB != nil, nil
		}
	}
}
