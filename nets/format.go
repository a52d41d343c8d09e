package nets

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"

	"github.com/BurntSushi/toml"
	"github.com/klauspost/compress/zstd"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/nnue"
	"github.com/nnuelab/nnuelab/internal/fsutil"
)

// Magic starts every nnuelab float network file (*.nnue.zst).
const Magic = "NNUELAB1"

// Header describes a float network: which architecture it was trained for
// and on what, and the checksum of its tensors. It is stored as TOML, so
// `head -c 2000 FILE` shows it.
type Header struct {
	Arch          string            `toml:"arch"`
	ArchSHA256    string            `toml:"arch_sha256"`
	DatasetSHA256 string            `toml:"dataset_sha256"`
	Created       string            `toml:"created"`
	Training      map[string]string `toml:"training"`
	PayloadSHA256 string            `toml:"payload_sha256"`
	// ContentSHA256 seals the whole file: the SHA-256 of the header's
	// other bytes followed by the uncompressed payload, so that an edited
	// header (a training checkpoint's step, seed or learning rate) is
	// refused like a damaged payload. Files written before it existed have
	// none and are read as they were (shipped nets keep their bytes).
	ContentSHA256 string `toml:"content_sha256,omitempty"`
}

// Layout of a file:
//
//	8 bytes   "NNUELAB1"
//	u32       header length H (little-endian)
//	H bytes   header (TOML)
//	rest      one zstd frame holding the payload: for each tensor,
//	          u16 name length, name, u8 rank, rank x u32 dims,
//	          float32 values (little-endian), row-major.
//
// payload_sha256 is the SHA-256 of the uncompressed payload. A file
// written since issue 48 starts its header with the line
//
//	content_sha256 = "HEX"
//
// HEX being the SHA-256 of the header bytes after that line followed by
// the uncompressed payload: every byte of the file but the magic, the
// header length and the line itself is covered.

const maxHeader = 1 << 20

// WriteFloat writes a float network to path atomically (a temporary file
// renamed into place, so an interrupted write never leaves a half file),
// compressed for size: this is the file that gets shipped.
// h.PayloadSHA256 is filled in.
func WriteFloat(path string, h Header, tensors []nnue.Tensor) error {
	return WriteFloatLevel(path, h, tensors, zstd.SpeedBetterCompression)
}

// WriteFloatLevel is WriteFloat at a chosen zstd level: trainers write
// checkpoints (weights plus optimizer moments, mostly incompressible) every
// epoch with zstd.SpeedFastest, where speed matters more than size.
func WriteFloatLevel(path string, h Header, tensors []nnue.Tensor, level zstd.EncoderLevel) error {
	n := 0
	for _, t := range tensors {
		if len(t.Name) > math.MaxUint16 || len(t.Shape) > 255 {
			return fmt.Errorf("tensor %q: name or rank too large", t.Name)
		}
		size := 1
		for _, d := range t.Shape {
			size *= d
		}
		if size != len(t.Data) {
			return fmt.Errorf("tensor %q: shape %v holds %d values, data has %d", t.Name, t.Shape, size, len(t.Data))
		}
		n += 2 + len(t.Name) + 1 + 4*len(t.Shape) + 4*len(t.Data)
	}
	payload := make([]byte, 0, n)
	for _, t := range tensors {
		payload = binary.LittleEndian.AppendUint16(payload, uint16(len(t.Name)))
		payload = append(payload, t.Name...)
		payload = append(payload, byte(len(t.Shape)))
		for _, d := range t.Shape {
			payload = binary.LittleEndian.AppendUint32(payload, uint32(d))
		}
		for _, v := range t.Data {
			payload = binary.LittleEndian.AppendUint32(payload, math.Float32bits(v))
		}
	}
	sum := sha256.Sum256(payload)
	h.PayloadSHA256 = hex.EncodeToString(sum[:])
	h.ContentSHA256 = ""
	var rest bytes.Buffer
	if err := toml.NewEncoder(&rest).Encode(h); err != nil {
		return err
	}
	var hb bytes.Buffer
	hb.WriteString(contentLine(contentSum(rest.Bytes(), payload)))
	hb.Write(rest.Bytes())
	tmp, err := fsutil.Create(path, 0o644)
	if err != nil {
		return err
	}
	// bufio's error is sticky, so a failed write anywhere shows at Flush.
	bw := bufio.NewWriterSize(tmp, 1<<20)
	bw.WriteString(Magic)
	binary.Write(bw, binary.LittleEndian, uint32(hb.Len()))
	bw.Write(hb.Bytes())
	zw, err := zstd.NewWriter(bw, zstd.WithEncoderLevel(level), zstd.WithEncoderConcurrency(1))
	if err == nil {
		if _, err = zw.Write(payload); err == nil {
			err = zw.Close()
		}
	}
	if err == nil {
		err = bw.Flush()
	}
	if err == nil {
		err = tmp.Chmod(0o644) // whatever the umask
	}
	if err != nil {
		tmp.Abort()
		return err
	}
	return tmp.Commit()
}

// ReadFloat reads a float network file: its header and tensors, with the
// checksum verified.
func ReadFloat(r io.Reader) (*Header, []nnue.Tensor, error) {
	var magic [8]byte
	if _, err := io.ReadFull(r, magic[:]); err != nil || string(magic[:]) != Magic {
		return nil, nil, fmt.Errorf("not an nnuelab float net (expected magic %q)", Magic)
	}
	var hl uint32
	if err := binary.Read(r, binary.LittleEndian, &hl); err != nil {
		return nil, nil, fmt.Errorf("truncated header length")
	}
	if hl > maxHeader {
		return nil, nil, fmt.Errorf("header length %d is implausible", hl)
	}
	hb := make([]byte, hl)
	if _, err := io.ReadFull(r, hb); err != nil {
		return nil, nil, fmt.Errorf("truncated header")
	}
	var h Header
	if _, err := toml.Decode(string(hb), &h); err != nil {
		return nil, nil, fmt.Errorf("bad header: %w", err)
	}
	var rest []byte // the header after its content_sha256 line
	first, after, _ := bytes.Cut(hb, []byte("\n"))
	switch {
	case h.ContentSHA256 != "" && string(first)+"\n" == contentLine(h.ContentSHA256):
		rest = after
	case h.ContentSHA256 != "" || contentKey.Match(hb):
		return nil, nil, fmt.Errorf("content_sha256 is not the header's first line, as the writer puts it (an edited header)")
	}
	zr, err := zstd.NewReader(r, zstd.WithDecoderMaxMemory(1<<30))
	if err != nil {
		return nil, nil, err
	}
	defer zr.Close()
	payload, err := io.ReadAll(zr)
	if err != nil {
		return nil, nil, fmt.Errorf("payload: %w", err)
	}
	sum := sha256.Sum256(payload)
	if got := hex.EncodeToString(sum[:]); got != h.PayloadSHA256 {
		return nil, nil, fmt.Errorf("checksum mismatch: payload SHA-256 %s, header says %s (corrupt file)", got, h.PayloadSHA256)
	}
	if h.ContentSHA256 != "" {
		if got := contentSum(rest, payload); got != h.ContentSHA256 {
			return nil, nil, fmt.Errorf("checksum mismatch: the header and payload have content SHA-256 %s, content_sha256 says %s (an edited header or a corrupt file)", got, h.ContentSHA256)
		}
	}
	var tensors []nnue.Tensor
	p := payload
	take := func(n int) ([]byte, error) {
		if n > len(p) {
			return nil, errors.New("payload ends inside a tensor")
		}
		b := p[:n]
		p = p[n:]
		return b, nil
	}
	for len(p) > 0 {
		b, err := take(2)
		if err != nil {
			return nil, nil, err
		}
		name, err := take(int(binary.LittleEndian.Uint16(b)))
		if err != nil {
			return nil, nil, err
		}
		rb, err := take(1)
		if err != nil {
			return nil, nil, err
		}
		t := nnue.Tensor{Name: string(name)}
		count := 1
		for i := 0; i < int(rb[0]); i++ {
			db, err := take(4)
			if err != nil {
				return nil, nil, err
			}
			d := int(binary.LittleEndian.Uint32(db))
			if d <= 0 || count > (1<<31)/d {
				return nil, nil, fmt.Errorf("tensor %q: bad dimension %d", t.Name, d)
			}
			t.Shape = append(t.Shape, d)
			count *= d
		}
		data, err := take(4 * count)
		if err != nil {
			return nil, nil, fmt.Errorf("tensor %q: %w", t.Name, err)
		}
		t.Data = make([]float32, count)
		for i := range t.Data {
			t.Data[i] = math.Float32frombits(binary.LittleEndian.Uint32(data[4*i:]))
		}
		tensors = append(tensors, t)
	}
	return &h, tensors, nil
}

// contentSum is a file's content_sha256: the SHA-256 of the header's other
// bytes, then the uncompressed payload.
func contentSum(header, payload []byte) string {
	d := sha256.New()
	d.Write(header)
	d.Write(payload)
	return hex.EncodeToString(d.Sum(nil))
}

// contentKey finds a content_sha256 key on any line of a header (in a
// table, it is not Header.ContentSHA256).
var contentKey = regexp.MustCompile(`(?m)^[ \t]*content_sha256[ \t]*=`)

// contentLine is the header line that carries content_sha256.
func contentLine(sum string) string { return "content_sha256 = \"" + sum + "\"\n" }

// LoadFloat reads a float net file and quantizes it for spec. The file's
// architecture must be spec's (or one it was derived from by overrides,
// which keep the name); tensor shapes are checked against spec.
func LoadFloat(spec *archs.Spec, path string) (*nnue.Network, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readFloatNet(spec, f, path)
}

// readFloatNet is LoadFloat on a reader; name says where it came from.
func readFloatNet(spec *archs.Spec, r io.Reader, name string) (*nnue.Network, error) {
	h, tensors, err := ReadFloat(r)
	if err != nil {
		return nil, fmt.Errorf("net %s: %w", name, err)
	}
	if h.Arch != spec.Name {
		return nil, fmt.Errorf("net %s was trained for architecture %q, not %q", name, h.Arch, spec.Name)
	}
	n, err := nnue.FromFloat(spec, tensors)
	if err != nil {
		return nil, fmt.Errorf("net %s: %w", name, err)
	}
	return n, nil
}
