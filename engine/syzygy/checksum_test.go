package syzygy

import (
	"bufio"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// officialChecksums reads testdata/checksums/{wdl,dtz}345.txt: file name
// to checksum.
func officialChecksums(t *testing.T) map[string]string {
	t.Helper()
	sums := map[string]string{}
	for _, f := range []string{"wdl345.txt", "dtz345.txt"} {
		fd, err := os.Open(filepath.Join("testdata/checksums", f))
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fd)
		for sc.Scan() {
			name, sum, ok := strings.Cut(sc.Text(), ": ")
			if !ok || len(sum) != 32 {
				t.Fatalf("%s: bad line %q", f, sc.Text())
			}
			sums[name] = sum
		}
		fd.Close()
	}
	if len(sums) != 290 {
		t.Fatalf("%d official checksums, want 290 (145 tables, WDL and DTZ)", len(sums))
	}
	return sums
}

// TestChecksums: every committed table's embedded checksum is the
// official one, and recomputing it from the file's contents (CheckFile)
// matches.
func TestChecksums(t *testing.T) {
	sums := officialChecksums(t)
	files, err := filepath.Glob(filepath.Join(tablesDir, "*.rtb[wz]"))
	if err != nil || len(files) != 72 {
		t.Fatalf("%d table files: %v", len(files), err)
	}
	for _, f := range files {
		got, err := Checksum(f)
		if err != nil {
			t.Fatal(err)
		}
		if want := sums[filepath.Base(f)]; got != want {
			t.Errorf("%s: embedded checksum %s, official %s", f, got, want)
		}
		if err := CheckFile(f); err != nil {
			t.Errorf("CheckFile: %v", err)
		}
	}
}

// TestCityHash checks the hash functions against values the reference C
// code computed (testdata/checksums/cityhash.txt), lengths 0 to 100,003:
// every code path of CityHash128 and CityHashCrc256 (short, long, tails),
// and CityHashCrc128 over 900 bytes, which the checksum of a file over
// 448 MiB takes and the committed tables do not.
func TestCityHash(t *testing.T) {
	fd, err := os.Open("testdata/checksums/cityhash.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer fd.Close()
	sc := bufio.NewScanner(fd)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		size, err := strconv.Atoi(f[0])
		if err != nil || len(f) != 7 {
			t.Fatalf("bad line %q", line)
		}
		msg := make([]byte, size)
		for i := range msg {
			msg[i] = byte(i*131 + size*7 + 3)
		}
		lo, hi := cityHashCrc128(msg)
		h := cityHashCrc256(msg)
		got := fmt.Sprintf("%016x %016x %016x %016x %016x %016x", lo, hi, h[0], h[1], h[2], h[3])
		if want := strings.Join(f[1:], " "); got != want {
			t.Errorf("length %d: got %s, want %s", size, got, want)
		}
		n++
	}
	if n < 30 {
		t.Fatalf("only %d vectors", n)
	}
}

// TestCRC32CWord checks the sliced CRC-32C step against the bytewise
// definition (reflected polynomial 0x82f63b78, no inversions).
func TestCRC32CWord(t *testing.T) {
	bytewise := func(crc uint32, v uint64) uint32 {
		for i := 0; i < 8; i++ {
			crc ^= uint32(v>>(8*i)) & 0xff
			for k := 0; k < 8; k++ {
				if crc&1 != 0 {
					crc = crc>>1 ^ 0x82f63b78
				} else {
					crc >>= 1
				}
			}
		}
		return crc
	}
	x := uint64(0x9e3779b97f4a7c15)
	for i := 0; i < 1000; i++ {
		x ^= x << 13
		x ^= x >> 7
		x ^= x << 17
		crc := uint32(x >> 17)
		if got, want := crc32cWord(crc, x), bytewise(crc, x); got != want {
			t.Fatalf("crc32cWord(%#x, %#x) = %#x, want %#x", crc, x, got, want)
		}
	}
	// A published check value: CRC-32C("123456789") = 0xe3069283 (with
	// the message's inversions around the raw steps).
	crc := ^uint32(0)
	crc = crc32cWord(crc, 0x3837363534333231) // "12345678"
	for _, b := range []byte("9") {
		crc ^= uint32(b)
		for k := 0; k < 8; k++ {
			if crc&1 != 0 {
				crc = crc>>1 ^ 0x82f63b78
			} else {
				crc >>= 1
			}
		}
	}
	if got := ^crc; got != 0xe3069283 {
		t.Errorf("CRC-32C(123456789) = %#x, want 0xe3069283", got)
	}
}

// TestCheckFileDamaged: CheckFile refuses a file with one bit flipped
// anywhere (header, compressed data, the checksum itself), truncated or
// padded, or with the wrong magic, naming it.
func TestCheckFileDamaged(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join(tablesDir, "KRvKN.rtbw"))
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	cases := map[string][]byte{
		"truncated":   orig[:len(orig)-64],
		"cut short":   orig[:len(orig)-1],
		"padded":      append(append([]byte(nil), orig...), 0),
		"not a table": append([]byte("PK\x03\x04"), orig[4:]...),
		"empty":       {},
	}
	for _, off := range []int{5, 40, len(orig) / 2, len(orig) - 17, len(orig) - 1} {
		b := append([]byte(nil), orig...)
		b[off] ^= 0x10
		cases[fmt.Sprintf("bit flipped at %d", off)] = b
	}
	for name, data := range cases {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "_")+".rtbw")
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		err := CheckFile(path)
		var ce *CorruptError
		if !errors.As(err, &ce) || ce.Path != path || !strings.Contains(err.Error(), path) {
			t.Errorf("%s: CheckFile = %v, want a *CorruptError naming %s", name, err, path)
		}
	}
	if err := CheckFile(filepath.Join(dir, "absent.rtbw")); err == nil || !strings.Contains(err.Error(), "absent.rtbw") {
		t.Errorf("missing file: %v", err)
	}
}
