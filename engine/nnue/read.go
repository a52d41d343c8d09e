package nnue

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/klauspost/compress/zstd"

	"github.com/nnuelab/nnuelab/archs"
)

// zstdMagic starts every zstd frame.
var zstdMagic = []byte{0x28, 0xb5, 0x2f, 0xfd}

// Read reads a network in the format the spec names and builds it for the
// spec. A truncated file, trailing bytes, a size that does not fit the
// architecture or a quantized weight out of range is an error. A
// zstd-compressed file (nnuelab ships its exported nets so: *.nnue.zst,
// *.net.zst) is decompressed on the fly; no published format starts with
// zstd's magic.
func Read(spec *archs.Spec, r io.Reader) (*Network, error) {
	in := bufio.NewReaderSize(r, 1<<16)
	if head, _ := in.Peek(len(zstdMagic)); bytes.Equal(head, zstdMagic) {
		zr, err := zstd.NewReader(in, zstd.WithDecoderConcurrency(1), zstd.WithDecoderMaxMemory(1<<30))
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		in = bufio.NewReaderSize(zr, 1<<16)
	}
	br := &reader{r: in}
	var n *Network
	var err error
	switch spec.Net.Format {
	case "koivisto-int16", "leorik":
		n, err = readLinearInt16(spec, br)
	case "koivisto-float":
		n, err = readKoivistoFloat(spec, br)
	case "sf12":
		n, err = readSF12(spec, br)
	case "sf15.1":
		n, err = readSF15(spec, br)
	case "sf17.1", "sf18":
		n, err = readSF17(spec, br)
	default:
		return nil, fmt.Errorf("no reader for net format %q", spec.Net.Format)
	}
	if err != nil {
		return nil, err
	}
	if err := br.expectEOF(spec.Net.Format == "leorik"); err != nil {
		return nil, err
	}
	return n, nil
}

// reader reads little-endian values and remembers the offset for errors.
type reader struct {
	r   *bufio.Reader
	off int64
	buf [8]byte
}

func (r *reader) fill(n int, what string) ([]byte, error) {
	if _, err := io.ReadFull(r.r, r.buf[:n]); err != nil {
		return nil, r.truncated(what, err)
	}
	r.off += int64(n)
	return r.buf[:n], nil
}

func (r *reader) truncated(what string, err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return fmt.Errorf("truncated: the file ends inside %s, which starts at byte %d", what, r.off)
	}
	return fmt.Errorf("reading %s at byte %d: %w", what, r.off, err)
}

func (r *reader) u32(what string) (uint32, error) {
	b, err := r.fill(4, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (r *reader) u64(what string) (uint64, error) {
	b, err := r.fill(8, what)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// int16s fills dst; binary.Read on a slice reads it in one go.
func (r *reader) int16s(dst []int16, what string) error {
	if err := binary.Read(r.r, binary.LittleEndian, dst); err != nil {
		return r.truncated(what, err)
	}
	r.off += 2 * int64(len(dst))
	return nil
}

func (r *reader) int32s(dst []int32, what string) error {
	if err := binary.Read(r.r, binary.LittleEndian, dst); err != nil {
		return r.truncated(what, err)
	}
	r.off += 4 * int64(len(dst))
	return nil
}

func (r *reader) int8s(dst []int8, what string) error {
	if err := binary.Read(r.r, binary.LittleEndian, dst); err != nil {
		return r.truncated(what, err)
	}
	r.off += int64(len(dst))
	return nil
}

func (r *reader) float32s(dst []float32, what string) error {
	if err := binary.Read(r.r, binary.LittleEndian, dst); err != nil {
		return r.truncated(what, err)
	}
	r.off += 4 * int64(len(dst))
	return nil
}

func (r *reader) bytes(n int, what string) ([]byte, error) {
	b := make([]byte, n)
	if _, err := io.ReadFull(r.r, b); err != nil {
		return nil, r.truncated(what, err)
	}
	r.off += int64(n)
	return b, nil
}

// expectEOF fails on trailing bytes. Bullet-trained (Leorik) files may pad
// to a multiple of 64 bytes with the text "bullet"; that padding is allowed.
func (r *reader) expectEOF(bulletPadding bool) error {
	rest, err := io.ReadAll(r.r)
	if err != nil {
		return err
	}
	if len(rest) == 0 {
		return nil
	}
	if bulletPadding && (r.off+int64(len(rest)))%64 == 0 && len(rest) < 64 {
		return nil
	}
	return fmt.Errorf("%d unexpected trailing bytes after byte %d: the file does not fit this architecture", len(rest), r.off)
}

// quantize16 rounds w*scale half away from zero (C's round) into int16,
// failing rather than wrapping on overflow.
func quantize16(w float32, scale int, what string, i int) (int16, error) {
	v := math.Round(float64(w) * float64(scale))
	if v < math.MinInt16 || v > math.MaxInt16 || math.IsNaN(v) {
		return 0, fmt.Errorf("%s[%d] = %g times %d overflows int16", what, i, w, scale)
	}
	return int16(v), nil
}

func quantize32(w float32, scale int, what string, i int) (int32, error) {
	v := math.Round(float64(w) * float64(scale))
	if v < math.MinInt32 || v > math.MaxInt32 || math.IsNaN(v) {
		return 0, fmt.Errorf("%s[%d] = %g times %d overflows int32", what, i, w, scale)
	}
	return int32(v), nil
}
