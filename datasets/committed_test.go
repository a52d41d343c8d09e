package datasets_test

import (
	"path/filepath"
	"testing"

	"github.com/BurntSushi/toml"

	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/datasets/datagen"
	"github.com/nnuelab/nnuelab/datasets/label"
	"github.com/nnuelab/nnuelab/internal/fsutil"
)

// readHashes reads a dataset file and returns its records' board hashes.
func readHashes(t *testing.T, path string) []uint64 {
	t.Helper()
	var hs []uint64
	for rec, err := range datasets.Records(path, datasets.Options{}).All() {
		if err != nil {
			t.Fatal(err)
		}
		hs = append(hs, rec.BoardHash())
	}
	return hs
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
	var gen datagen.Manifest
	if _, err := toml.DecodeFile(filepath.Join(dir, "datagen.manifest.toml"), &gen); err != nil {
		t.Fatal(err)
	}
	var sh datasets.ShuffleManifest
	if _, err := toml.DecodeFile(filepath.Join(dir, "shuffle.manifest.toml"), &sh); err != nil {
		t.Fatal(err)
	}
	d := gen.Settings
	if d.Arch != "classical" || d.Nodes != 5000 || d.RandomPlies != 10 || d.MinPly != 16 || d.Seed != 1 {
		t.Errorf("not the default settings: %+v", d)
	}
	all := filepath.Join(dir, gen.Output)
	if sum, n, err := fsutil.FileSHA256(all); err != nil || sum != gen.SHA256 || n != gen.Bytes {
		t.Fatalf("%s: sha256 %s, %d bytes (%v); the manifest says %s, %d", all, sum, n, err, gen.SHA256, gen.Bytes)
	}
	hashes := readHashes(t, all)
	if int64(len(hashes)) != gen.Summary.Positions || len(hashes) < 2_000_000 {
		t.Fatalf("%s: %d records, the manifest says %d (at least 2,000,000 wanted)", all, len(hashes), gen.Summary.Positions)
	}
	if len(sh.Inputs) != 1 || sh.Inputs[0].SHA256 != gen.SHA256 || sh.Read != gen.Summary.Positions {
		t.Fatalf("the split was not made from the datagen output: %+v", sh.Inputs)
	}
	var val, train *datasets.FileEntry
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
	if sum, n, err := fsutil.FileSHA256(vpath); err != nil || sum != val.SHA256 || n != val.Bytes {
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

// The game-disjoint validation set (datasets/fresh-val): both files match
// their manifests, the games are of another seed than the training set's,
// and the labelled file holds the self-play file's positions, in order,
// less the ones dropped as mate.
func TestCommittedFreshVal(t *testing.T) {
	dir := "fresh-val"
	var gen datagen.Manifest
	if _, err := toml.DecodeFile(filepath.Join(dir, "fresh-classical.bin.manifest.toml"), &gen); err != nil {
		t.Fatal(err)
	}
	var lab label.Manifest
	if _, err := toml.DecodeFile(filepath.Join(dir, "fresh-sf500.bin.manifest.toml"), &lab); err != nil {
		t.Fatal(err)
	}
	var train datagen.Manifest
	if _, err := toml.DecodeFile(filepath.Join("classical-2m", "datagen.manifest.toml"), &train); err != nil {
		t.Fatal(err)
	}
	if gen.Settings.Seed == train.Settings.Seed {
		t.Fatalf("fresh-val games have the training set's seed %d", gen.Settings.Seed)
	}
	for _, f := range []struct {
		path, sum string
		size      int64
	}{{gen.Output, gen.SHA256, gen.Bytes}, {lab.Output, lab.SHA256, lab.Bytes}} {
		p := filepath.Join(dir, f.path)
		if sum, n, err := fsutil.FileSHA256(p); err != nil || sum != f.sum || n != f.size {
			t.Fatalf("%s: sha256 %s, %d bytes (%v); the manifest says %s, %d", p, sum, n, err, f.sum, f.size)
		}
	}
	src := readHashes(t, filepath.Join(dir, gen.Output))
	got := readHashes(t, filepath.Join(dir, lab.Output))
	if int64(len(src)) != gen.Summary.Positions || int64(len(got)) != lab.Summary.Labelled || lab.Summary.Read != int64(len(src)) {
		t.Fatalf("%d self-play and %d labelled records; manifests say %d, %d of %d", len(src), len(got), gen.Summary.Positions, lab.Summary.Labelled, lab.Summary.Read)
	}
	j := 0
	for _, h := range src {
		if j < len(got) && got[j] == h {
			j++
		}
	}
	if j != len(got) || int64(len(src)-len(got)) != lab.Summary.Mate+lab.Summary.NoMove {
		t.Fatalf("the labelled positions are not the self-play positions in order less the dropped ones (%d of %d matched)", j, len(got))
	}
}

// The committed sets of own self-play (datasets/selfplay-*/: the
// shards experiments adopt instead of replaying them):
// every shard matches its manifest byte for byte and holds as many
// positions as the manifest says, read back as Stockfish's binpack.
func TestCommittedSelfplay(t *testing.T) {
	manifests, err := filepath.Glob(filepath.Join("selfplay-*", "*.binpack.manifest.toml"))
	if err != nil || len(manifests) == 0 {
		t.Fatalf("no committed self-play shards (%v)", err)
	}
	var total int64
	for _, m := range manifests {
		var gen datagen.Manifest
		if _, err := toml.DecodeFile(m, &gen); err != nil {
			t.Fatal(err)
		}
		total += gen.Bytes
		shard := filepath.Join(filepath.Dir(m), filepath.Base(gen.Output))
		if sum, n, err := fsutil.FileSHA256(shard); err != nil || sum != gen.SHA256 || n != gen.Bytes {
			t.Errorf("%s: sha256 %s, %d bytes (%v); the manifest says %s, %d", shard, sum, n, err, gen.SHA256, gen.Bytes)
			continue
		}
		if n := len(readHashes(t, shard)); int64(n) != gen.Summary.Positions || gen.Settings.Keep != datagen.KeepAll {
			t.Errorf("%s: %d positions, the manifest says %d (keep %q)", shard, n, gen.Summary.Positions, gen.Settings.Keep)
		}
	}
	// The tree keeps a window of the latest generations (docs/datagen.md,
	// "Committed self-play").
	if total > maxCommittedSelfplay {
		t.Errorf("committed self-play shards hold %d bytes, above the tree's %d: move the oldest generations out to manifests and READMEs (docs/datagen.md, \"Committed self-play\")", total, maxCommittedSelfplay)
	}
	t.Logf("committed self-play: %d shards, %d bytes", len(manifests), total)
}

// maxCommittedSelfplay bounds the self-play shards kept in the tree.
const maxCommittedSelfplay = 250 << 20
