package train

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strings"

	"github.com/klauspost/compress/zstd"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/nnue"
	"github.com/nnuelab/nnuelab/internal/fsutil"
	"github.com/nnuelab/nnuelab/nets"
)

// ExportFormat returns the published net format that ExportFile writes for
// spec ("koivisto-int16", "koivisto-float", "leorik" or "sf12"), or "" if
// the architecture has none (chess768 and other nnuelab-only designs,
// rengar, whose engine compiles its weights in).
func ExportFormat(spec *archs.Spec) string {
	switch spec.Net.Format {
	case "koivisto-int16", "koivisto-float", "leorik", "sf12":
		return spec.Net.Format
	}
	return ""
}

// exportExt is the file extension the engines use for the format.
func exportExt(spec *archs.Spec) string {
	if ExportFormat(spec) == "leorik" || ExportFormat(spec) == "sf12" {
		return "nnue"
	}
	return "net"
}

// ExportFile writes tensors (nnue.FromFloat's names) in spec's published
// format to path, atomically. The quantization is FromFloat's, value for
// value (round half away from zero at the TOML's multipliers), so the file
// loads through nnue.Read into the same network as FromFloat builds:
//
//   - koivisto-int16 (Koivisto 6.14-9.2): int16 feature rows, int16
//     biases, int16 output weights (side to move first), int32 output bias
//     at qa*qb; no header, one output bucket.
//   - koivisto-float (Koivisto 5.x): u64 value count, then the float32
//     tensors in that order; quantized by the engine at load.
//   - leorik (Leorik 3.x, bullet's layout): int16 feature rows, biases,
//     per output bucket the side to move's and the other side's weights,
//     int16 output biases, padded with "bullet" to a multiple of 64 bytes.
//   - sf12 (Stockfish 12 .nnue): version, hashes and description, int16
//     transformer, int32 biases and int8 weights of the dense layers with
//     rows padded to 32 (nnue.SF12FloatScales).
//
// A path ending in .zst gets the file zstd-compressed at the best ratio
// (nnue.Read decompresses it): how nnuelab ships its trained nets.
func ExportFile(spec *archs.Spec, tensors []nnue.Tensor, path string) error {
	data, err := Export(spec, tensors)
	if err != nil {
		return err
	}
	if strings.HasSuffix(path, ".zst") {
		enc, err := zstd.NewWriter(nil, zstd.WithEncoderLevel(zstd.SpeedBestCompression), zstd.WithEncoderConcurrency(1))
		if err != nil {
			return err
		}
		data = enc.EncodeAll(data, nil)
		enc.Close()
	}
	return fsutil.WriteFileAtomic(path, data, 0o644)
}

// Export returns the bytes of ExportFile.
func Export(spec *archs.Spec, tensors []nnue.Tensor) ([]byte, error) {
	by := map[string][]float32{}
	for _, t := range tensors {
		by[t.Name] = t.Data
	}
	get := func(name string, n int) ([]float32, error) {
		d, ok := by[name]
		if !ok {
			return nil, fmt.Errorf("tensor %q missing", name)
		}
		if len(d) != n {
			return nil, fmt.Errorf("tensor %q has %d values, arch %s needs %d", name, len(d), spec.Name, n)
		}
		return d, nil
	}
	w := &qwriter{}
	q := spec.Quant
	W := spec.Accumulator.Width
	F := spec.Features.Size()
	ftw, err := get("ft.weight", F*W)
	if err != nil {
		return nil, err
	}
	ftb, err := get("ft.bias", W)
	if err != nil {
		return nil, err
	}
	format := ExportFormat(spec)
	switch format {
	case "koivisto-int16", "koivisto-float", "leorik":
		if spec.Head.Type != "linear" {
			return nil, fmt.Errorf("format %s needs a linear head", format)
		}
		buckets := spec.Head.OutputBuckets
		if format != "leorik" && buckets != 1 {
			return nil, fmt.Errorf("format %s has one output, arch %s has %d buckets", format, spec.Name, buckets)
		}
		per := W
		if spec.Head.Inputs == "stm+opp" {
			per *= 2
		}
		ow, err := get("out.weight", buckets*per)
		if err != nil {
			return nil, err
		}
		ob, err := get("out.bias", buckets)
		if err != nil {
			return nil, err
		}
		if format == "koivisto-float" {
			w.u64(uint64(len(ftw) + len(ftb) + len(ow) + len(ob)))
			for _, part := range [][]float32{ftw, ftb, ow, ob} {
				w.f32s(part)
			}
			return w.result()
		}
		w.q16s(ftw, float64(q.QA), "ft.weight")
		w.q16s(ftb, float64(q.QA), "ft.bias")
		w.q16s(ow, float64(q.QB), "out.weight")
		if format == "leorik" {
			w.q16s(ob, float64(q.QA*q.QB), "out.bias")
			w.bulletPad()
		} else {
			w.q32s(ob, float64(q.QA*q.QB), "out.bias")
		}
		return w.result()
	case "sf12":
		if spec.Head.Type != "sf12" || spec.Features.Set != "halfkp" {
			return nil, fmt.Errorf("format sf12 needs HalfKP features and the sf12 head")
		}
		l := spec.Head.Layers
		n1, n2 := l[0], l[1]
		w1, err := get("l1.weight", n1*2*W)
		if err != nil {
			return nil, err
		}
		b1, err := get("l1.bias", n1)
		if err != nil {
			return nil, err
		}
		w2, err := get("l2.weight", n2*n1)
		if err != nil {
			return nil, err
		}
		b2, err := get("l2.bias", n2)
		if err != nil {
			return nil, err
		}
		w3, err := get("out.weight", n2)
		if err != nil {
			return nil, err
		}
		b3, err := get("out.bias", 1)
		if err != nil {
			return nil, err
		}
		ftHash := uint32(0x5D69D5B9^1) ^ uint32(2*W)
		dense := uint32(0xEC42E90D) ^ uint32(2*W)
		for i, n := range l {
			if i > 0 {
				dense = 0x538D24C7 + dense
			}
			dense = (0xCC03DAE4 + uint32(n)) ^ (dense >> 1) ^ (dense << 31)
		}
		desc := sf12Desc(spec)
		w.u32(0x7AF32F16)
		w.u32(ftHash ^ dense)
		w.u32(uint32(len(desc)))
		w.buf.WriteString(desc)
		w.u32(ftHash)
		w.q16s(ftb, float64(q.QA), "ft.bias")
		w.q16s(ftw, float64(q.QA), "ft.weight")
		w.u32(dense)
		hw, hb, ow, ob := nnue.SF12FloatScales(spec)
		layers := []struct {
			w, b    []float32
			in, out int
			ws, bs  float64
			name    string
		}{{w1, b1, 2 * W, n1, hw, hb, "l1"}, {w2, b2, n1, n2, hw, hb, "l2"}, {w3, b3, n2, 1, ow, ob, "out"}}
		for _, ly := range layers {
			w.q32s(ly.b, ly.bs, ly.name+".bias")
			stride := (ly.in + 31) &^ 31
			row := make([]float32, stride)
			for i := 0; i < ly.out; i++ {
				clear(row)
				copy(row, ly.w[i*ly.in:(i+1)*ly.in])
				w.q8s(row, ly.ws, ly.name+".weight")
			}
		}
		return w.result()
	}
	return nil, fmt.Errorf("architecture %s (format %s) has no published net format to export", spec.Name, spec.Net.Format)
}

// qwriter writes little-endian values, quantizing and remembering the
// first overflow.
type qwriter struct {
	buf bytes.Buffer
	err error
}

func (w *qwriter) q(v float32, scale, lo, hi float64, what string, i int) int64 {
	x := math.Round(float64(v) * scale)
	if (x < lo || x > hi || math.IsNaN(x)) && w.err == nil {
		w.err = fmt.Errorf("%s[%d] = %g times %g is out of range [%g, %g]", what, i, v, scale, lo, hi)
	}
	return int64(x)
}

func (w *qwriter) q16s(v []float32, scale float64, what string) {
	b := make([]byte, 2*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint16(b[2*i:], uint16(int16(w.q(x, scale, math.MinInt16, math.MaxInt16, what, i))))
	}
	w.buf.Write(b)
}

func (w *qwriter) q32s(v []float32, scale float64, what string) {
	for i, x := range v {
		w.u32(uint32(int32(w.q(x, scale, math.MinInt32, math.MaxInt32, what, i))))
	}
}

func (w *qwriter) q8s(v []float32, scale float64, what string) {
	for i, x := range v {
		w.buf.WriteByte(byte(int8(w.q(x, scale, math.MinInt8, math.MaxInt8, what, i))))
	}
}

func (w *qwriter) f32s(v []float32) {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	w.buf.Write(b)
}

func (w *qwriter) u32(v uint32) { binary.Write(&w.buf, binary.LittleEndian, v) }
func (w *qwriter) u64(v uint64) { binary.Write(&w.buf, binary.LittleEndian, v) }

// bulletPad pads to a multiple of 64 bytes with the repeated text
// "bullet", as bullet-trained Leorik nets are.
func (w *qwriter) bulletPad() {
	for i := 0; w.buf.Len()%64 != 0; i++ {
		w.buf.WriteByte("bullet"[i%6])
	}
}

func (w *qwriter) result() ([]byte, error) {
	if w.err != nil {
		return nil, w.err
	}
	return w.buf.Bytes(), nil
}

// ExportNetFile converts a trained float net file into spec's published
// format at out (the trainer does this itself at the end of a run);
// zstd-compressed when out ends in .zst (ExportFile).
func ExportNetFile(spec *archs.Spec, netPath, out string) error {
	f, err := os.Open(netPath)
	if err != nil {
		return err
	}
	defer f.Close()
	h, ts, err := nets.ReadFloat(bufio.NewReader(f))
	if err != nil {
		return fmt.Errorf("%s: %w", netPath, err)
	}
	if h.Training["kind"] == checkpointKind {
		return fmt.Errorf("%s is a checkpoint; export the trained net (.nnue.zst)", netPath)
	}
	if h.Arch != spec.Name {
		return fmt.Errorf("%s was trained for architecture %q, not %q", netPath, h.Arch, spec.Name)
	}
	return ExportFile(spec, ts, out)
}

// sf12Desc is the description string Stockfish 12's trainer writes for the
// architecture.
func sf12Desc(spec *archs.Spec) string {
	F, W, l := spec.Features.Size(), spec.Accumulator.Width, spec.Head.Layers
	n1, n2 := l[0], l[1]
	return fmt.Sprintf("Features=HalfKP(Friend)[%d->%dx2],Network=AffineTransform[1<-%d](ClippedReLU[%d](AffineTransform[%d<-%d](ClippedReLU[%d](AffineTransform[%d<-%d](InputSlice[%d(0:%d)])))))",
		F, W, n2, n2, n2, n1, n1, n1, 2*W, 2*W, 2*W)
}
