package train

import (
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
	if err := nets.WriteFloat(path, nets.Header{Arch: spec.Name, ArchSHA256: ArchSHA256(spec)}, m.Tensors()); err != nil {
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
