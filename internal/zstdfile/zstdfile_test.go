package zstdfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// pgnText is a few games' worth of PGN, enough for several zstd blocks.
func pgnText(games int) []byte {
	var b bytes.Buffer
	for g := 0; g < games; g++ {
		fmt.Fprintf(&b, "[Event \"nnuelab experiment t\"]\n[Round \"%d\"]\n[Result \"1-0\"]\n\n", g+1)
		for m := 1; m <= 60; m++ {
			fmt.Fprintf(&b, "%d. e4 {+0.%02d/%d %dms} e5 {-0.%02d/%d %dms} ", m, (g*m)%97, m%20, (g*31+m*7)%1000, (g+m)%89, m%17, (g*13+m)%900)
		}
		b.WriteString("1-0\n\n")
	}
	return b.Bytes()
}

func TestRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		name string
		data []byte
	}{
		{"empty", nil},
		{"one line", []byte("[Event \"x\"]\n\n1. e4 e5 1-0\n")},
		{"many games", pgnText(400)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			p := filepath.Join(dir, "g.pgn.zst")
			if err := WriteFile(p, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := ReadFile(p)
			if err != nil || !bytes.Equal(got, tc.data) {
				t.Fatalf("read back %d bytes, %v; want %d", len(got), err, len(tc.data))
			}
			// The same content, the same bytes (git stores copies once).
			q := filepath.Join(dir, "h.pgn.zst")
			if err := WriteFile(q, tc.data, 0o644); err != nil {
				t.Fatal(err)
			}
			a, _ := os.ReadFile(p)
			b, _ := os.ReadFile(q)
			if !bytes.Equal(a, b) {
				t.Error("two compressions of the same content differ")
			}
			if ents, _ := os.ReadDir(dir); len(ents) != 2 {
				t.Errorf("temporary files left: %v", ents)
			}
			// A plain file reads as it is, and compares equal to its
			// compressed form.
			plain := filepath.Join(dir, "g.pgn")
			os.WriteFile(plain, tc.data, 0o644)
			if got, err := ReadFile(plain); err != nil || !bytes.Equal(got, tc.data) {
				t.Errorf("plain file: %d bytes, %v", len(got), err)
			}
			if same, err := SameContent(p, plain); !same || err != nil {
				t.Errorf("SameContent(compressed, plain) = %v, %v", same, err)
			}
		})
	}
}

func TestCompressFile(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "g.pgn")
	data := pgnText(50)
	if err := os.WriteFile(src, data, 0o640); err != nil {
		t.Fatal(err)
	}
	dst := src + Ext
	if err := CompressFile(src, dst); err != nil {
		t.Fatal(err)
	}
	if st, err := os.Stat(dst); err != nil || st.Mode().Perm() != 0o640 || st.Size() >= int64(len(data))/2 {
		t.Fatalf("compressed file: %v, %v (source %d bytes)", st, err, len(data))
	}
	if got, err := ReadFile(dst); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read back: %v", err)
	}
	if _, err := os.Stat(src); err != nil {
		t.Error("CompressFile removed its source")
	}
	if err := CompressFile(filepath.Join(dir, "none.pgn"), filepath.Join(dir, "none.pgn.zst")); err == nil {
		t.Error("compressing a missing file succeeded")
	}
}

// TestDamaged: a compressed file cut short, with a byte changed, empty, or
// not zstd at all fails to read with an error naming it, never as a
// shorter complete file and never with a panic.
func TestDamaged(t *testing.T) {
	data := pgnText(400)
	var good bytes.Buffer
	zw, err := encoder(&good)
	if err != nil {
		t.Fatal(err)
	}
	zw.Write(data)
	zw.Close()
	full := good.Bytes()
	flip := func(at int) []byte {
		b := bytes.Clone(full)
		b[at] ^= 0x5a
		return b
	}
	for _, tc := range []struct {
		name string
		file []byte
		want string
	}{
		{"empty", nil, "the file is empty"},
		{"not zstd", []byte("[Event \"x\"]\n"), "no zstd frame"},
		{"magic only", full[:4], "damaged zstd file"},
		{"cut after the header", full[:12], "damaged zstd file"},
		{"cut in the middle", full[:len(full)/2], "damaged zstd file"},
		{"last byte missing", full[:len(full)-1], "damaged zstd file"},
		{"checksum missing", full[:len(full)-4], "damaged zstd file"},
		{"byte changed in the middle", flip(len(full) / 2), "damaged zstd file"},
		{"checksum changed", flip(len(full) - 2), "damaged zstd file"},
		{"garbage after the frame", append(bytes.Clone(full), "tail"...), "damaged zstd file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "elo-x-c000.pgn.zst")
			if err := os.WriteFile(p, tc.file, 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := ReadFile(p)
			if err == nil {
				t.Fatalf("read %d bytes of %d without an error", len(got), len(data))
			}
			if !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q: want the file's name and %q", err, tc.want)
			}
			var ze *Error
			if !errors.As(err, &ze) || ze.File != p {
				t.Errorf("error %v is not an *Error naming the file", err)
			} else if ze.Offset != int64(len(got)) || ze.Offset > int64(len(data)) {
				t.Errorf("offset %d, %d bytes read of %d", ze.Offset, len(got), len(data))
			}
			// Compared with its source, a damaged file is never the same.
			src := filepath.Join(t.TempDir(), "src.pgn")
			os.WriteFile(src, data, 0o644)
			if same, _ := SameContent(p, src); same {
				t.Error("SameContent of a damaged file and its source = true")
			}
		})
	}
}

// TestReadAfterError: a reader that failed keeps failing (no later read
// passes for the end of the file).
func TestReadAfterError(t *testing.T) {
	var good bytes.Buffer
	zw, _ := encoder(&good)
	zw.Write(pgnText(100))
	zw.Close()
	p := filepath.Join(t.TempDir(), "g.pgn.zst")
	os.WriteFile(p, good.Bytes()[:good.Len()/2], 0o644)
	r, err := Open(p)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	if _, err := io.ReadAll(r); err == nil {
		t.Fatal("no error")
	}
	if n, err := r.Read(make([]byte, 10)); n != 0 || err == nil || err == io.EOF {
		t.Errorf("read after the error: %d, %v", n, err)
	}
}
