package runner

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/experiments/internal/exptest"
	"github.com/nnuelab/nnuelab/experiments/internal/plantest"
	"github.com/nnuelab/nnuelab/experiments/plan"
)

func TestTail(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"short", 10, "short"},
		{"exactly10!", 10, "exactly10!"},
		{"a longer output", 6, "...output"},
	} {
		if got := tail(tc.s, tc.n); got != tc.want {
			t.Errorf("tail(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}

// TestTaskArgs: a variant runs as this binary preset to its arch file (and
// net), recorded commands name nothing of the machine they ran on, and a
// task's seed finds its net.
func TestTaskArgs(t *testing.T) {
	net := filepath.Join(exptest.Root(), "nets", "koivisto-7.4.net")
	p := plantest.PlanOf(t, `seeds = [3, 5]
metrics = ["elo"]
[base]
arch = "koivisto-7.4"
[[variant]]
name = "H1"
overrides = ["history=1"]
net = "`+net+`"
[elo]
games = 2
nodes = 100
`)
	v := p.Variant("H1")
	want := []string{"cmd=/bin/nnuelab", "name=H1", "arg=experiment", "arg=engine", "arg=--arch", "arg=" + filepath.Join(p.Out, v.SpecFile), "arg=--net", "arg=" + net}
	if got := engineArgs(p, v); !reflect.DeepEqual(got, want) {
		t.Errorf("engine args %q\nwant %q", got, want)
	}
	if got := engineArgs(p, p.BaseVariant()); len(got) != 6 || strings.Contains(strings.Join(got, " "), "--net") {
		t.Errorf("the base's shipped net is named: %q", got)
	}
	args := []string{"match", "cmd=/bin/nnuelab", "arg=" + filepath.Join(p.Out, v.SpecFile), "file=" + filepath.Join(p.Manifest.Dir, "book.epd"), "tc=10+0.1", "-pgnout", "/elsewhere/x.pgn"}
	rel := relArgs(p, args)
	elsewhere, _ := filepath.Rel(p.Manifest.Dir, "/elsewhere/x.pgn")
	if want := []string{"match", "cmd=nnuelab", "arg=" + filepath.ToSlash(v.SpecFile), "file=book.epd", "tc=10+0.1", "-pgnout", filepath.ToSlash(elsewhere)}; !reflect.DeepEqual(rel, want) {
		t.Errorf("relArgs %q\nwant %q", rel, want)
	}
	for _, tc := range []struct {
		seed uint64
		want int
	}{{3, 0}, {5, 1}, {7, 0}} {
		if got := seedIndex(p, tc.seed); got != tc.want {
			t.Errorf("seedIndex(%d) = %d, want %d", tc.seed, got, tc.want)
		}
	}
}

// TestInjectedFailure: the test hook fails the named task once, then lets
// it run.
func TestInjectedFailure(t *testing.T) {
	out := t.TempDir()
	t.Setenv(plan.FailOnceEnv, "measure-x")
	if err := injectedFailure(out, "measure-y"); err != nil {
		t.Errorf("another task failed: %v", err)
	}
	if err := injectedFailure(out, "measure-x"); err == nil || !strings.Contains(err.Error(), "on purpose") {
		t.Errorf("first run: %v", err)
	}
	if err := injectedFailure(out, "measure-x"); err != nil {
		t.Errorf("second run: %v", err)
	}
}
