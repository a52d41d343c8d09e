package syzygy

import (
	"encoding/binary"
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// damagedTables writes data as the table file name into a directory that
// holds every other committed table, and opens it.
func damagedTables(t *testing.T, name string, data []byte, o Options) (*Tables, string) {
	t.Helper()
	dir := tableDir(t, name)
	path := filepath.Join(dir, name)
	if data != nil {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tables, err := OpenWith(o, dir)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { tables.Close() })
	return tables, path
}

// Test positions: one whose probes read KRvKN's tables (a loss in 9
// plies, no capture), one of KQvK, and two of KRBvKR with and without a
// capture into KRvKR.
const (
	krvknFEN    = "4k3/8/4K3/8/8/8/7n/R7 b - - 0 1"
	otherFEN    = "4k3/8/8/8/8/8/8/3QK3 b - - 0 1"
	krbvkrFEN   = "1r6/8/8/3k4/8/8/1B6/5RK1 b - - 0 1"
	krbvkrQuiet = "8/8/3k4/8/8/8/1B3r2/R5K1 w - - 0 1"
)

// TestDamagedTables: a truncated, padded, bit-flipped, emptied or
// replaced table file, or a missing one, gives an error naming the file at
// its first probe and at every later one; never a value, never a panic;
// the other tables go on answering.
func TestDamagedTables(t *testing.T) {
	wdl, err := os.ReadFile(filepath.Join(tablesDir, "KRvKN.rtbw"))
	if err != nil {
		t.Fatal(err)
	}
	dtz, err := os.ReadFile(filepath.Join(tablesDir, "KRvKN.rtbz"))
	if err != nil {
		t.Fatal(err)
	}
	flip := func(b []byte, off int) []byte {
		c := append([]byte(nil), b...)
		c[off] ^= 1
		return c
	}
	withMagic := func(b []byte, m uint32) []byte {
		c := append([]byte(nil), b...)
		binary.LittleEndian.PutUint32(c, m)
		return c
	}
	cases := []struct {
		what string
		file string
		data []byte // nil: the file is missing
		// structural: caught without the checksum too
		structural bool
	}{
		{"missing", "KRvKN.rtbw", nil, true},
		{"empty", "KRvKN.rtbw", []byte{}, true},
		{"truncated by 64 bytes", "KRvKN.rtbw", wdl[:len(wdl)-64], true},
		{"truncated to 4 KB", "KRvKN.rtbw", wdl[:4096+16], true},
		{"cut by a byte", "KRvKN.rtbw", wdl[:len(wdl)-1], true},
		{"padded", "KRvKN.rtbw", append(append([]byte(nil), wdl...), make([]byte, 64)...), true},
		{"wrong magic (a DTZ file)", "KRvKN.rtbw", withMagic(wdl, dtzMagic), true},
		{"wrong magic (a WDL file)", "KRvKN.rtbz", withMagic(dtz, wdlMagic), true},
		{"another table's file", "KRvKN.rtbw", mustRead(t, "KRvKB.rtbw"), false},
		{"bit flipped in the piece count", "KRvKN.rtbw", flip(wdl, 4), false},
		{"bit flipped in a piece code", "KRvKN.rtbw", flip(wdl, 6), false},
		{"bit flipped in the pairs header", "KRvKN.rtbw", flip(wdl, 20), false},
		{"bit flipped in the index table", "KRvKN.rtbw", flip(wdl, len(wdl)/8), false},
		{"bit flipped in the compressed data", "KRvKN.rtbw", flip(wdl, len(wdl)/2), false},
		{"bit flipped in the last block", "KRvKN.rtbw", flip(wdl, len(wdl)-30), false},
		{"bit flipped in the checksum", "KRvKN.rtbw", flip(wdl, len(wdl)-3), false},
		{"bit flipped in a DTZ file", "KRvKN.rtbz", flip(dtz, len(dtz)/2), false},
	}
	for _, c := range cases {
		t.Run(c.what, func(t *testing.T) {
			tables, path := damagedTables(t, c.file, c.data, Options{})
			probe := func() error {
				p := mustFEN(t, krvknFEN)
				if strings.HasSuffix(c.file, ".rtbz") {
					if _, err := tables.ProbeWDL(p); err != nil {
						t.Fatalf("WDL of KRvKN with its DTZ file damaged: %v", err)
					}
					_, err := tables.ProbeDTZ(p)
					return err
				}
				_, err := tables.ProbeWDL(p)
				return err
			}
			for i := 0; i < 2; i++ {
				err := probe()
				switch {
				case c.data == nil:
					var me *MissingError
					if !errors.As(err, &me) || me.Table != "KRvKN" {
						t.Fatalf("probe %d: %v, want a missing KRvKN", i, err)
					}
				default:
					var ce *CorruptError
					if !errors.As(err, &ce) || ce.Path != path || !strings.Contains(err.Error(), path) {
						t.Fatalf("probe %d: %v, want a *CorruptError naming %s", i, err, path)
					}
				}
			}
			if w, err := tables.ProbeWDL(mustFEN(t, otherFEN)); err != nil || w != Loss {
				t.Errorf("another table: %v, %v", w, err)
			}
			if c.structural && c.data != nil {
				// The same damage is found by the load's checks alone.
				tables, path := damagedTables(t, c.file, c.data, Options{VerifyLimit: -1})
				_, err := tables.ProbeWDL(mustFEN(t, krvknFEN))
				if strings.HasSuffix(c.file, ".rtbz") {
					_, err = tables.ProbeDTZ(mustFEN(t, krvknFEN))
				}
				var ce *CorruptError
				if !errors.As(err, &ce) || ce.Path != path {
					t.Errorf("without the checksum: %v, want a *CorruptError naming %s", err, path)
				}
			}
		})
	}
}

func mustRead(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(tablesDir, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestDamageThroughCaptures: a damaged table reached only through a
// capture (KRBvKR, the bishop taken: KRvKR) is reported by name.
func TestDamageThroughCaptures(t *testing.T) {
	data := mustRead(t, "KRvKR.rtbw")
	data[len(data)/2] ^= 0x40
	tables, path := damagedTables(t, "KRvKR.rtbw", data, Options{})
	if _, err := tables.ProbeWDL(mustFEN(t, krbvkrQuiet)); err != nil {
		t.Fatalf("a KRBvKR position without captures: %v", err)
	}
	_, err := tables.ProbeWDL(mustFEN(t, krbvkrFEN))
	var ce *CorruptError
	if !errors.As(err, &ce) || ce.Path != path {
		t.Errorf("capture into the damaged table: %v, want an error naming %s", err, path)
	}
}

// TestEveryBitFlipCaught flips one bit at a time at 300 places across a
// table: with the checksum verified at load (the default for files of
// this size) every flip gives an error, none a value.
func TestEveryBitFlipCaught(t *testing.T) {
	orig := mustRead(t, "KQvKR.rtbw")
	rng := rand.New(rand.NewPCG(3, 14))
	dir := tableDir(t, "KQvKR.rtbw")
	path := filepath.Join(dir, "KQvKR.rtbw")
	p := mustFEN(t, "8/8/2k5/8/8/3r4/8/Q3K3 w - - 0 1")
	for i := 0; i < 300; i++ {
		off := rng.IntN(len(orig))
		if i < 64 {
			off = i // the whole header region too
		}
		data := append([]byte(nil), orig...)
		data[off] ^= 1 << rng.IntN(8)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		tables, err := Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		w, err := tables.ProbeWDL(p)
		var ce *CorruptError
		if !errors.As(err, &ce) || ce.Path != path {
			t.Fatalf("bit flipped at byte %d: ProbeWDL = %v, %v; want an error naming %s", off, w, err, path)
		}
		tables.Close()
	}
}

// TestDamageWithoutChecksum: with verification off, damaged files may
// decode to wrong values (that is what the checksum is for) but never
// panic or hang; this probes 40 positions of a table after each of 150
// random changes (bytes overwritten, ranges zeroed or shuffled).
func TestDamageWithoutChecksum(t *testing.T) {
	rng := rand.New(rand.NewPCG(15, 92))
	for _, name := range []string{"KRvKN.rtbw", "KRvKN.rtbz", "KPvKP.rtbw", "KPvKP.rtbz"} {
		orig := mustRead(t, name)
		material := strings.TrimSuffix(strings.TrimSuffix(name, ".rtbw"), ".rtbz")
		sample := randomPositions(t, rng, material, 40, false)
		dir := tableDir(t, name)
		path := filepath.Join(dir, name)
		outcomes := map[string]int{}
		for i := 0; i < 150; i++ {
			data := append([]byte(nil), orig...)
			switch i % 3 {
			case 0: // a few random bytes
				for k := 0; k < 1+rng.IntN(4); k++ {
					data[rng.IntN(len(data))] = byte(rng.Uint32())
				}
			case 1: // a zeroed range
				a := rng.IntN(len(data))
				clear(data[a:min(len(data), a+1+rng.IntN(256))])
			case 2: // a byte of the header
				data[4+rng.IntN(min(200, len(data)-4))] ^= byte(1 << rng.IntN(8))
			}
			if err := os.WriteFile(path, data, 0o644); err != nil {
				t.Fatal(err)
			}
			tables, err := OpenWith(Options{VerifyLimit: -1}, dir)
			if err != nil {
				t.Fatal(err)
			}
			for _, s := range sample {
				var err error
				if strings.HasSuffix(name, ".rtbz") {
					_, err = tables.ProbeDTZ(s.pos)
				} else {
					_, err = tables.ProbeWDL(s.pos)
				}
				var ce *CorruptError
				switch {
				case err == nil:
					outcomes["value"]++
				case errors.As(err, &ce) && ce.Path == path:
					outcomes["error naming the file"]++
				default:
					t.Fatalf("%s: %v: an error that does not name the damaged file", name, err)
				}
			}
			tables.Close()
		}
		if outcomes["error naming the file"] == 0 {
			t.Errorf("%s: no damage was detected: %v", name, outcomes)
		}
		t.Logf("%s: %v", name, outcomes)
	}
}
