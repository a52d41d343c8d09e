package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

func TestShuffle(t *testing.T) {
	dir := t.TempDir()
	src := sampleRecords(t)
	// Two inputs in two formats, with every position twice (duplicates
	// must land on one side of the split).
	writeAll(t, filepath.Join(dir, "in1.bin"), src)
	writeAll(t, filepath.Join(dir, "in2.txt.zst"), src)
	inputs := []string{filepath.Join(dir, "in1.bin"), filepath.Join(dir, "in2.txt.zst")}
	run := func(seed uint64, mem int, tag string) ([][]Record, []Record, ShuffleSummary) {
		outs, _ := ShuffleOutputNames(filepath.Join(dir, tag+"-%d.bin"), 3)
		val := filepath.Join(dir, tag+"-val.txt")
		s, err := Shuffle(inputs, ShuffleConfig{Seed: seed, Outputs: outs, ValOutput: val, ValFrac: 0.2, MemRecords: mem})
		if err != nil {
			t.Fatal(err)
		}
		var train [][]Record
		for i, o := range outs {
			recs, _, err := readAll(t, o, Options{})
			if err != nil {
				t.Fatal(err)
			}
			if int64(len(recs)) != s.Train[i] {
				t.Fatalf("%s: %d records, summary says %d", o, len(recs), s.Train[i])
			}
			train = append(train, recs)
		}
		v, _, err := readAll(t, val, Options{})
		if err != nil {
			t.Fatal(err)
		}
		return train, v, s
	}
	train, val, s := run(1, 150, "a")
	if s.Buckets < 5 {
		t.Errorf("only %d buckets with 150 records in memory", s.Buckets)
	}
	// Same multiset of records.
	var got []string
	trainHashes := map[uint64]bool{}
	for _, o := range train {
		for i := range o {
			got = append(got, o[i].Text())
			trainHashes[o[i].BoardHash()] = true
		}
	}
	for i := range val {
		got = append(got, val[i].Text())
		if trainHashes[val[i].BoardHash()] {
			t.Fatalf("validation position %s also in training", val[i].FEN())
		}
	}
	var want []string
	for i := range src {
		want = append(want, src[i].Text(), src[i].Text())
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Fatal("shuffled records are not the inputs' records")
	}
	if frac := float64(len(val)) / float64(len(want)); frac < 0.12 || frac > 0.28 {
		t.Errorf("validation share %.3f, want about 0.2", frac)
	}
	// Dealt evenly.
	if d := len(train[0]) - len(train[2]); d < 0 || d > 1 {
		t.Errorf("outputs of %d, %d, %d records", len(train[0]), len(train[1]), len(train[2]))
	}
	// Shuffled: the first output is not in input order.
	inOrder := 0
	for i := 1; i < len(train[0]); i++ {
		if train[0][i-1].Text() < train[0][i].Text() {
			inOrder++
		}
	}
	if inOrder > len(train[0])*6/10 {
		t.Errorf("%d of %d neighbours ascending: not shuffled?", inOrder, len(train[0]))
	}
	// Deterministic by seed; another seed gives another order.
	train2, _, _ := run(1, 150, "b")
	train3, _, _ := run(2, 150, "c")
	if !slices.Equal(train[0], train2[0]) {
		t.Error("same seed, different order")
	}
	if slices.Equal(train[0], train3[0]) {
		t.Error("different seeds, same order")
	}
	// No temp files left.
	ents, _ := os.ReadDir(dir)
	for _, e := range ents {
		if strings.HasPrefix(e.Name(), ".") {
			t.Errorf("left behind: %s", e.Name())
		}
	}
}

func TestShuffleErrors(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.txt")
	os.WriteFile(in, []byte("4k3/8/8/8/8/8/8/4K3 w - - 0 1 [0.5] 0\nbad line\n"), 0o644)
	out := filepath.Join(dir, "out.bin")
	tests := []struct {
		name string
		cfg  ShuffleConfig
		ins  []string
		want string
	}{
		{"bad line", ShuffleConfig{Outputs: []string{out}}, []string{in}, "line 2"},
		{"frac without file", ShuffleConfig{Outputs: []string{out}, ValFrac: 0.1}, []string{in}, "neither"},
		{"frac too big", ShuffleConfig{Outputs: []string{out}, ValOutput: "v.txt", ValFrac: 1}, []string{in}, "outside"},
		{"output is input", ShuffleConfig{Outputs: []string{in}}, []string{in}, "also an input"},
		{"twice", ShuffleConfig{Outputs: []string{out, out}}, []string{in}, "twice"},
		{"no inputs", ShuffleConfig{Outputs: []string{out}}, nil, "needs inputs"},
		{"missing input", ShuffleConfig{Outputs: []string{out}}, []string{filepath.Join(dir, "nope.txt")}, "nope.txt"},
	}
	for _, tc := range tests {
		_, err := Shuffle(tc.ins, tc.cfg)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want %q", tc.name, err, tc.want)
		}
		if _, err := os.Stat(out); err == nil {
			t.Fatalf("%s: output written despite the error", tc.name)
		}
	}
	s, err := Shuffle([]string{in}, ShuffleConfig{Outputs: []string{out}, Read: Options{SkipBad: true}})
	if err != nil || s.Read != 1 || s.Skipped != 1 {
		t.Errorf("skip-bad: %+v, %v", s, err)
	}
}

func TestShuffleOutputNames(t *testing.T) {
	tests := []struct {
		pattern string
		n       int
		want    []string
		err     bool
	}{
		{"a.bin", 1, []string{"a.bin"}, false},
		{"a-%d.bin", 2, []string{"a-1.bin", "a-2.bin"}, false},
		{"a.bin", 2, nil, true},
		{"a-%d-%s.bin", 2, nil, true},
		{"a-%d.bin", 0, nil, true},
	}
	for _, tc := range tests {
		got, err := ShuffleOutputNames(tc.pattern, tc.n)
		if (err != nil) != tc.err || !slices.Equal(got, tc.want) {
			t.Errorf("%q %d: %v %v", tc.pattern, tc.n, got, err)
		}
	}
}

// The manifest names every input and output with its split, record count
// and SHA-256, and survives a TOML round trip.
func TestShuffleManifest(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.bin")
	writeAll(t, in, sampleRecords(t))
	cfg := ShuffleConfig{Seed: 3, Outputs: []string{filepath.Join(dir, "t1.bin"), filepath.Join(dir, "t2.txt")},
		ValOutput: filepath.Join(dir, "v.bin"), ValFrac: 0.25}
	s, err := Shuffle([]string{in}, cfg)
	if err != nil {
		t.Fatal(err)
	}
	m, err := NewShuffleManifest("nnuelab shuffle test", []string{in}, cfg, s)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, "shuffle.manifest.toml")
	if err := m.Write(path); err != nil {
		t.Fatal(err)
	}
	var back ShuffleManifest
	if _, err := toml.DecodeFile(path, &back); err != nil {
		t.Fatal(err)
	}
	if len(back.Inputs) != 1 || len(back.Outputs) != 3 || back.Seed != 3 || back.ValFrac != 0.25 || back.Read != s.Read {
		t.Fatalf("manifest round trip: %+v", back)
	}
	var total int64
	for i, e := range back.Outputs {
		want := []string{"train", "train", "validation"}[i]
		if e.Split != want {
			t.Errorf("output %d split %q, want %q", i, e.Split, want)
		}
		full := filepath.Join(dir, e.Path)
		recs, _, err := readAll(t, full, Options{})
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(recs)) != e.Records {
			t.Errorf("%s: %d records, manifest says %d", e.Path, len(recs), e.Records)
		}
		data, _ := os.ReadFile(full)
		if sum := sha256.Sum256(data); hex.EncodeToString(sum[:]) != e.SHA256 || int64(len(data)) != e.Bytes {
			t.Errorf("%s: hash or size in the manifest does not match the file", e.Path)
		}
		total += e.Records
	}
	if total != s.Read {
		t.Errorf("outputs hold %d records, %d were read", total, s.Read)
	}
}
