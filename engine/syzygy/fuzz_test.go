package syzygy

import (
	"errors"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// fuzzTables are the files FuzzTable mutates: small real tables without
// and with pawns (on one side and both), WDL and DTZ, with the three
// leading groups (two kings, three pieces, pawns).
var fuzzTables = []string{"KQvK.rtbw", "KQvK.rtbz", "KPvK.rtbw", "KPvK.rtbz", "KBNvK.rtbw", "KNvKP.rtbz"}

// FuzzTable feeds a mutated table file (which, an index into fuzzTables,
// says which file it stands for) to the loader and the decoder, checksum
// verification off so that the checks of the header and every read are
// what stands between damage and a panic: every probe must give a value
// or a *CorruptError naming the file, and the real file must give the
// real values. Seeds: testdata/fuzz/FuzzTable (the real files and
// regressions).
func FuzzTable(f *testing.F) {
	rng := rand.New(rand.NewPCG(2, 71))
	samples := map[string][]sample{}
	originals := map[string][]byte{}
	for _, name := range fuzzTables {
		material := strings.TrimSuffix(strings.TrimSuffix(name, ".rtbw"), ".rtbz")
		if samples[material] == nil {
			samples[material] = randomPositions(f, rng, material, 24, false)
		}
		data, err := os.ReadFile(filepath.Join(tablesDir, name))
		if err != nil {
			f.Fatal(err)
		}
		originals[name] = data
	}
	reference, err := Open(tablesDir)
	if err != nil {
		f.Fatal(err)
	}
	defer reference.Close()

	f.Fuzz(func(t *testing.T, which byte, data []byte) {
		name := fuzzTables[int(which)%len(fuzzTables)]
		material := strings.TrimSuffix(strings.TrimSuffix(name, ".rtbw"), ".rtbz")
		dtz := strings.HasSuffix(name, ".rtbz")
		dir := t.TempDir()
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		// The fuzzed file comes first; the other tables (for captures)
		// from testdata.
		tables, err := OpenWith(Options{VerifyLimit: -1}, dir, tablesDir)
		if err != nil {
			t.Fatal(err)
		}
		defer tables.Close()
		real := string(data) == string(originals[name])
		for _, s := range samples[material] {
			var got, want int
			var err, werr error
			if dtz {
				got, err = tables.ProbeDTZ(s.pos)
				want, werr = reference.ProbeDTZ(s.pos)
			} else {
				var w, rw WDL
				w, err = tables.ProbeWDL(s.pos)
				rw, werr = reference.ProbeWDL(s.pos)
				got, want = int(w), int(rw)
			}
			if werr != nil {
				t.Fatalf("%s: the reference: %v", s.fen, werr)
			}
			if err != nil {
				var ce *CorruptError
				if !errors.As(err, &ce) || ce.Path != path {
					t.Fatalf("%s: %v: not an error naming %s", s.fen, err, path)
				}
			}
			if real && (err != nil || got != want) {
				t.Fatalf("%s: the real %s gives %d, %v; want %d", s.fen, name, got, err, want)
			}
		}
	})
}
