package sfnet

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"encoding/binary"
	"math/rand/v2"
	"testing"
)

// Synthetic WebAssembly modules and nets for the tests: the structure of
// Stockfish's .nnue files and of emscripten's data sections, with random
// contents.

// uleb128 appends v as unsigned LEB128.
func uleb128(b []byte, v uint64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if v != 0 {
			b = append(b, c|0x80)
			continue
		}
		return append(b, c)
	}
}

// sleb128 appends v as signed LEB128.
func sleb128(b []byte, v int64) []byte {
	for {
		c := byte(v & 0x7f)
		v >>= 7
		if (v == 0 && c&0x40 == 0) || (v == -1 && c&0x40 != 0) {
			return append(b, c)
		}
		b = append(b, c|0x80)
	}
}

// section appends a section with its id and size.
func section(b []byte, id byte, payload []byte) []byte {
	b = append(b, id)
	b = uleb128(b, uint64(len(payload)))
	return append(b, payload...)
}

// segment is one data segment to write.
type segment struct {
	offset  uint64
	data    []byte
	passive bool
}

// splitSegments cuts mem (at memory address base) into active segments
// at zero runs of at least gap bytes, leaving the runs out, as emscripten
// does.
func splitSegments(mem []byte, base uint64, gap int) []segment {
	var segs []segment
	i := 0
	for i < len(mem) {
		for i < len(mem) && mem[i] == 0 {
			i++
		}
		if i == len(mem) {
			break
		}
		start, zeros := i, 0
		for i < len(mem) && zeros < gap {
			if mem[i] == 0 {
				zeros++
			} else {
				zeros = 0
			}
			i++
		}
		segs = append(segs, segment{offset: base + uint64(start), data: mem[start : i-zeros]})
	}
	return segs
}

// module writes a module: a type section (one empty function type), a
// custom section, a memory of pages pages and a data section.
func module(pages uint64, segs []segment) []byte {
	b := append([]byte(nil), wasmMagic...)
	b = binary.LittleEndian.AppendUint32(b, wasmVersion)
	b = section(b, 1, []byte{1, 0x60, 0, 0})
	b = section(b, 0, append([]byte{4}, "name..."...))
	mem := uleb128([]byte{1, 0}, pages)
	b = section(b, secMemory, mem)
	var data []byte
	data = uleb128(data, uint64(len(segs)))
	for _, s := range segs {
		if s.passive {
			data = append(data, 1)
		} else {
			data = append(data, 0, 0x41)
			data = sleb128(data, int64(int32(uint32(s.offset))))
			data = append(data, 0x0B)
		}
		data = uleb128(data, uint64(len(s.data)))
		data = append(data, s.data...)
	}
	return section(b, secData, data)
}

// synthNet writes a Stockfish 16+-style net: header, transformer hash,
// three LEB128 blocks of random bytes (with zero runs, as a sparse net's
// compressed weights have) and stacks layer stacks of stackSize bytes,
// each starting with the stack hash.
func synthNet(rng *rand.Rand, width, blockBytes, stacks, stackSize int) []byte {
	ft := halfKAv2hmHash ^ uint32(2*width)
	stack := rng.Uint32()
	desc := "synthetic net for the extraction tests"
	var b []byte
	b = binary.LittleEndian.AppendUint32(b, sfVersion)
	b = binary.LittleEndian.AppendUint32(b, ft^stack)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(desc)))
	b = append(b, desc...)
	b = binary.LittleEndian.AppendUint32(b, ft)
	for k := 0; k < 3; k++ {
		b = append(b, leb128Magic...)
		b = binary.LittleEndian.AppendUint32(b, uint32(blockBytes))
		b = append(b, randomBytes(rng, blockBytes)...)
	}
	for s := 0; s < stacks; s++ {
		b = binary.LittleEndian.AppendUint32(b, stack)
		b = append(b, randomBytes(rng, stackSize-4)...)
	}
	return b
}

// randomBytes returns n random bytes with runs of zeros.
func randomBytes(rng *rand.Rand, n int) []byte {
	b := make([]byte, n)
	for i := 0; i < n; {
		if rng.IntN(40) == 0 {
			i += rng.IntN(300) // a zero run
			continue
		}
		b[i] = byte(rng.IntN(255) + 1)
		i++
	}
	return b
}

// synthMemory lays out a memory image: some data, the names of the nets
// (as the engine's strings), then the nets with zero runs between them.
func synthMemory(nets ...[]byte) []byte {
	mem := []byte("\x01\x02 some static data; EvalFile default ")
	for _, n := range nets {
		name, _ := NameOf(n)
		mem = append(mem, name...)
		mem = append(mem, 0)
	}
	for _, n := range nets {
		mem = append(mem, make([]byte, 1000)...)
		mem = append(mem, n...)
	}
	return append(mem, make([]byte, 77)...)
}

// synthModule is a module with two nets, returned with them.
func synthModule(seed uint64) (mod []byte, nets [][]byte) {
	rng := rand.New(rand.NewPCG(seed, 2))
	big := synthNet(rng, 512, 3000, 8, 700)
	small := synthNet(rng, 64, 400, 8, 120)
	mem := synthMemory(big, small)
	return module(uint64(len(mem)/pageSize+2), splitSegments(mem, 1024, 16)), [][]byte{big, small}
}

// tgz writes a gzipped tar of the files (name -> bytes).
func tgz(t testing.TB, files map[string][]byte, order []string) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, name := range order {
		data := files[name]
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: int64(len(data)), Typeflag: tar.TypeReg}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(data); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	if err := gz.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
