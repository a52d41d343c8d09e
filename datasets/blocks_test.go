package datasets

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readBlocks reads every block of path in file order through OpenBlock.
func readBlocks(t *testing.T, path string) ([]Record, []Block) {
	t.Helper()
	bs, err := Blocks(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []Record
	for _, b := range bs {
		r, err := OpenBlock(b, int64(len(out)), Options{})
		if err != nil {
			t.Fatal(err)
		}
		for {
			rec, err := r.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				t.Fatalf("block at %d: %v", b.Offset, err)
			}
			out = append(out, rec)
		}
		r.Close()
	}
	return out, bs
}

// readAllRecords reads every record of path whole, failing the test on an
// error.
func readAllRecords(t *testing.T, path string) []Record {
	t.Helper()
	recs, _, err := readAll(t, path, Options{})
	if err != nil {
		t.Fatal(err)
	}
	return recs
}

// TestBlocks: a file read block by block gives the records of reading it
// whole, for a binpack of three blocks (three files concatenated, as cat
// makes them), bulletformat split into runs of records, and a text file as
// one block.
func TestBlocks(t *testing.T) {
	dir := t.TempDir()
	var pack []byte
	var sizes []int
	for k := range 3 {
		part := encodeBinpack(t, bpGames(t, uint64(11+k), bpGameOpts{games: 20, maxPlies: 120}))
		sizes = append(sizes, len(part))
		pack = append(pack, part...)
	}
	bp := filepath.Join(dir, "a.binpack")
	if err := os.WriteFile(bp, pack, 0o644); err != nil {
		t.Fatal(err)
	}
	recs := readAllRecords(t, bp)
	got, bs := readBlocks(t, bp)
	if len(bs) != 3 {
		t.Fatalf("%d blocks, want 3", len(bs))
	}
	for i, b := range bs {
		if b.Size != int64(sizes[i]) {
			t.Errorf("block %d: %d bytes, want %d", i, b.Size, sizes[i])
		}
	}
	sameRecords(t, "binpack", got, recs)

	// bulletformat: more records than one block holds.
	var bullet []byte
	for len(bullet) < (bulletBlockRecords+100)*RecordSize {
		for _, r := range recs {
			var err error
			if bullet, err = r.AppendBullet(bullet); err != nil {
				t.Fatal(err)
			}
		}
	}
	bl := filepath.Join(dir, "a.bullet")
	if err := os.WriteFile(bl, bullet, 0o644); err != nil {
		t.Fatal(err)
	}
	got, bs = readBlocks(t, bl)
	if len(bs) != 2 {
		t.Fatalf("bullet: %d blocks, want 2", len(bs))
	}
	sameRecords(t, "bullet", got, readAllRecords(t, bl))

	txt := filepath.Join(dir, "a.txt")
	var lines []string
	for _, r := range recs[:50] {
		lines = append(lines, r.Text())
	}
	if err := os.WriteFile(txt, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	got, bs = readBlocks(t, txt)
	if len(bs) != 1 || bs[0].Size == 0 {
		t.Fatalf("text: blocks %v, want the whole file", bs)
	}
	sameRecords(t, "text", got, readAllRecords(t, txt))
}

func sameRecords(t *testing.T, what string, got, want []Record) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %d records block by block, %d whole", what, len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("%s: record %d: %s block by block, %s whole", what, i+1, got[i].Text(), want[i].Text())
		}
	}
}

// TestBlocksDamaged: a damaged binpack or bulletformat file is an error
// naming the file and the byte where the damage is, found from the block
// headers alone; an error inside a block names the position by its number
// in the whole file.
func TestBlocksDamaged(t *testing.T) {
	dir := t.TempDir()
	a := encodeBinpack(t, bpGames(t, 21, bpGameOpts{games: 10, maxPlies: 80}))
	b := encodeBinpack(t, bpGames(t, 22, bpGameOpts{games: 10, maxPlies: 80}))
	good := append(append([]byte(nil), a...), b...)
	cases := []struct {
		name, file string
		data       []byte
		want       string
	}{
		{"truncated in the second block", "t.binpack", good[:len(good)-5], "truncated"},
		{"truncated in a header", "h.binpack", good[:len(a)+3], "into a block header"},
		{"second header damaged", "d.binpack", append(append(append([]byte(nil), a...), 'X'), b[1:]...), "does not start with"},
		{"bullet of a broken size", "b.bullet", make([]byte, 3*RecordSize+7), "not a whole number"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			path := filepath.Join(dir, c.file)
			if err := os.WriteFile(path, c.data, 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Blocks(path)
			if err == nil || !strings.Contains(err.Error(), path) || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "byte") {
				t.Fatalf("error %v, want one naming %s, a byte and %q", err, path, c.want)
			}
		})
	}

	// A bad move inside the second block: the error gives the file's
	// position number and byte offset, not the block's.
	bad := append([]byte(nil), good...)
	bad[len(a)+8+40] ^= 0xff
	path := filepath.Join(dir, "m.binpack")
	if err := os.WriteFile(path, bad, 0o644); err != nil {
		t.Fatal(err)
	}
	_, whole := readUntilError(t, path, nil)
	bs, err := Blocks(path)
	if err != nil {
		t.Fatal(err)
	}
	first := len(readAllRecords(t, encodeTemp(t, dir, a)))
	_, blockErr := readUntilError(t, path, &bs[1], int64(first))
	if whole == nil || blockErr == nil || whole.Error() != blockErr.Error() {
		t.Fatalf("reading whole: %v\nreading the block: %v\nwant the same error", whole, blockErr)
	}
}

func encodeTemp(t *testing.T, dir string, data []byte) string {
	path := filepath.Join(dir, "part.binpack")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// readUntilError reads path whole (b nil) or one block of it, returning
// the records before the first error and that error.
func readUntilError(t *testing.T, path string, b *Block, first ...int64) (int, error) {
	t.Helper()
	var r Reader
	var err error
	if b == nil {
		r, err = Open(path)
	} else {
		r, err = OpenBlock(*b, first[0], Options{})
	}
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	n := 0
	for {
		_, err := r.Next()
		if errors.Is(err, io.EOF) {
			return n, nil
		}
		if err != nil {
			return n, err
		}
		n++
	}
}

// TestReaderFilter: Options.Filter gives the positions and the dropped
// count of a FilterReader over the unfiltered file, for a binpack (which
// tests its own positions before building Records) and for text; its
// one-in sample too.
func TestReaderFilter(t *testing.T) {
	dir := t.TempDir()
	recs := bpGames(t, 31, bpGameOpts{games: 40, maxPlies: 160})
	bp := filepath.Join(dir, "f.binpack")
	if err := os.WriteFile(bp, encodeBinpack(t, recs), 0o644); err != nil {
		t.Fatal(err)
	}
	txt := filepath.Join(dir, "f.txt")
	var lines []string
	for _, r := range recs {
		lines = append(lines, r.Text())
	}
	if err := os.WriteFile(txt, []byte(strings.Join(lines, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, spec := range []string{"default", "min-ply=30,max-score=300", "skip-check", "skip-noisy,one-in=3"} {
		f, err := ParseFilter(spec)
		if err != nil {
			t.Fatal(err)
		}
		for _, path := range []string{bp, txt} {
			plain, err := Open(path)
			if err != nil {
				t.Fatal(err)
			}
			want := NewFilterReader(plain, *f)
			got, err := OpenWith(path, Options{Filter: f})
			if err != nil {
				t.Fatal(err)
			}
			var n int
			for {
				a, errA := want.Next()
				b, errB := got.Next()
				if errA != nil || errB != nil {
					if !errors.Is(errA, io.EOF) || !errors.Is(errB, io.EOF) {
						t.Fatalf("%s %s: position %d: %v / %v", spec, path, n+1, errA, errB)
					}
					break
				}
				if a != b {
					t.Fatalf("%s %s: position %d: %s, FilterReader %s", spec, path, n+1, b.Text(), a.Text())
				}
				n++
			}
			if Dropped(got) != want.Dropped() || want.Dropped() == 0 || n == 0 {
				t.Fatalf("%s %s: %d kept, dropped %d, FilterReader dropped %d", spec, path, n, Dropped(got), want.Dropped())
			}
			plain.Close()
			got.Close()
		}
	}
}
