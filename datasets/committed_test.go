package datasets

import (
	"errors"
	"io"
	"path/filepath"
	"testing"

	"github.com/BurntSushi/toml"
)

// readHashes reads a dataset file and returns its records' board hashes.
func readHashes(t *testing.T, path string) []uint64 {
	t.Helper()
	r, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var hs []uint64
	for {
		rec, err := r.Next()
		if errors.Is(err, io.EOF) {
			return hs
		}
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, rec.BoardHash())
	}
}

// The committed self-play set (datasets/classical-2m: the datagen output
// and its validation split) is what nets are trained on: both files must
// match their manifests byte for byte and record for record, the set must
// hold at least 2,000,000 positions at the default settings, and the
// validation split must hold every occurrence of its positions, so that
// training on the rest (`--val-data val.bin` leaves them out) never sees
// one.
func TestCommittedClassical2M(t *testing.T) {
	dir := "classical-2m"
	var gen GenManifest
	if _, err := toml.DecodeFile(filepath.Join(dir, "datagen.manifest.toml"), &gen); err != nil {
		t.Fatal(err)
	}
	var sh ShuffleManifest
	if _, err := toml.DecodeFile(filepath.Join(dir, "shuffle.manifest.toml"), &sh); err != nil {
		t.Fatal(err)
	}
	d := gen.Settings
	if d.Arch != "classical" || d.Nodes != 5000 || d.RandomPlies != 10 || d.MinPly != 16 || d.Seed != 1 {
		t.Errorf("not the default settings: %+v", d)
	}
	all := filepath.Join(dir, gen.Output)
	if sum, n, err := sha256File(all); err != nil || sum != gen.SHA256 || n != gen.Bytes {
		t.Fatalf("%s: sha256 %s, %d bytes (%v); the manifest says %s, %d", all, sum, n, err, gen.SHA256, gen.Bytes)
	}
	hashes := readHashes(t, all)
	if int64(len(hashes)) != gen.Summary.Positions || len(hashes) < 2_000_000 {
		t.Fatalf("%s: %d records, the manifest says %d (at least 2,000,000 wanted)", all, len(hashes), gen.Summary.Positions)
	}
	if len(sh.Inputs) != 1 || sh.Inputs[0].SHA256 != gen.SHA256 || sh.Read != gen.Summary.Positions {
		t.Fatalf("the split was not made from the datagen output: %+v", sh.Inputs)
	}
	var val, train *FileEntry
	for i := range sh.Outputs {
		switch sh.Outputs[i].Split {
		case "validation":
			val = &sh.Outputs[i]
		case "train":
			train = &sh.Outputs[i]
		}
	}
	if val == nil || train == nil || train.Records+val.Records != gen.Summary.Positions {
		t.Fatalf("split outputs %+v", sh.Outputs)
	}
	vpath := filepath.Join(dir, val.Path)
	if sum, n, err := sha256File(vpath); err != nil || sum != val.SHA256 || n != val.Bytes {
		t.Fatalf("%s: sha256 %s, %d bytes (%v); the manifest says %s, %d", vpath, sum, n, err, val.SHA256, val.Bytes)
	}
	vh := readHashes(t, vpath)
	if int64(len(vh)) != val.Records {
		t.Fatalf("%s: %d records, the manifest says %d", vpath, len(vh), val.Records)
	}
	inVal := map[uint64]bool{}
	for _, h := range vh {
		inVal[h] = true
	}
	n := 0
	for _, h := range hashes {
		if inVal[h] {
			n++
		}
	}
	if n != len(vh) {
		t.Errorf("%d records of the set are validation positions, the split holds %d: some stayed in training", n, len(vh))
	}
}
