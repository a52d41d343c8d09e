package train

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/nets"
)

// TestWarmStart: a model started from another's tensors computes the same
// function, factorized king buckets included (the folded rows become the
// real rows, the virtual rows start at zero), and a net of another
// architecture is refused.
func TestWarmStart(t *testing.T) {
	recs := testRecords(t, 200)
	for _, tc := range []struct {
		arch string
		opts []Option
	}{
		{"chess768", nil},
		{"leorik-3.2", []Option{Factorized()}},
		{"leorik-3.2", nil},
	} {
		spec, err := archs.Load(tc.arch)
		if err != nil {
			t.Fatal(err)
		}
		from, err := NewModel(spec, 1, tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		to, err := NewModel(spec, 2, tc.opts...)
		if err != nil {
			t.Fatal(err)
		}
		if err := to.WarmStart(from.Tensors()); err != nil {
			t.Fatalf("%s: %v", tc.arch, err)
		}
		for i := range recs {
			if a, b := from.Evaluate(&recs[i]), to.Evaluate(&recs[i]); a != b {
				t.Fatalf("%s (factorized %v) record %d: warm-started %g, original %g", tc.arch, from.Factorized(), i, b, a)
			}
		}
	}

	// Through the file, as --init reads it; a chess768 net does not start a
	// leorik-3.2 model.
	spec, _ := archs.Load("chess768")
	m, _ := NewModel(spec, 3)
	path := filepath.Join(t.TempDir(), "init.nnue.zst")
	if err := nets.WriteFloat(path, nets.Header{Arch: spec.Name, ArchSHA256: spec.NetSHA256()}, m.Tensors()); err != nil {
		t.Fatal(err)
	}
	m2, _ := NewModel(spec, 4)
	if _, err := warmStart(m2, path); err != nil {
		t.Fatal(err)
	}
	if a, b := m.Evaluate(&recs[0]), m2.Evaluate(&recs[0]); a != b {
		t.Fatalf("from the file: %g, want %g", b, a)
	}
	other, _ := archs.Load("leorik-3.2")
	m3, _ := NewModel(other, 1)
	if _, err := warmStart(m3, path); err == nil {
		t.Fatal("a chess768 net started a leorik-3.2 model")
	}
}

// TestNetIdentity: a net's identity (archs.Spec.NetSHA256, recorded in
// its header and checked by a warm start) leaves out the runtime settings
// an override sets (history, refresh_cache), so a net trained for an arch
// warm-starts a variant of it that changes only those; and it is the
// identity the committed nets were trained under (their headers, written
// when the hash held every key), so that their keys and warm starts hold.
func TestNetIdentity(t *testing.T) {
	spec, err := archs.Load("chess768")
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{"chess768-gen1.nnue.zst", "chess768-gen2.nnue.zst", "chess768-gen3.nnue.zst"} {
		fh, err := os.Open(filepath.Join("..", f))
		if err != nil {
			t.Fatal(err)
		}
		h, _, err := nets.ReadFloat(fh)
		fh.Close()
		if err != nil {
			t.Fatal(err)
		}
		if h.ArchSHA256 != spec.NetSHA256() {
			t.Errorf("%s was trained for arch %.12s; chess768's identity is now %.12s", f, h.ArchSHA256, spec.NetSHA256())
		}
	}
	m, _ := NewModel(spec, 3)
	path := filepath.Join(t.TempDir(), "init.nnue.zst")
	if err := nets.WriteFloat(path, nets.Header{Arch: spec.Name, ArchSHA256: spec.NetSHA256()}, m.Tensors()); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		override string
		same     bool
	}{
		{"history=2", true},
		{"refresh_cache=true", true},
		{"accumulator.width=128", false},
		{`head.activation="crelu"`, false},
	} {
		v, err := spec.Override(tc.override)
		if err != nil {
			t.Fatal(err)
		}
		if (v.NetSHA256() == spec.NetSHA256()) != tc.same || v.SHA256() == spec.SHA256() {
			t.Errorf("%s: net identity %.12s (chess768 %.12s), spec hash %.12s (chess768 %.12s)", tc.override, v.NetSHA256(), spec.NetSHA256(), v.SHA256(), spec.SHA256())
		}
		if !tc.same {
			continue
		}
		m2, _ := NewModel(v, 4)
		if _, err := warmStart(m2, path); err != nil {
			t.Errorf("%s: a chess768 net does not warm-start it: %v", tc.override, err)
		}
	}
}
