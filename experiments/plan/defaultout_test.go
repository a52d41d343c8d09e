package plan

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDefaultOut: results/NAME, unless only an earlier binary's
// experiments/results/NAME is there: then an error naming the command that
// moves it.
func TestDefaultOut(t *testing.T) {
	for _, tc := range []struct {
		name    string
		dirs    []string
		want    string
		wantErr string
	}{
		{"nothing yet", nil, "results/exp", ""},
		{"the new folder", []string{"results/exp"}, "results/exp", ""},
		{"both: the new one", []string{"results/exp", "experiments/results/exp"}, "results/exp", ""},
		{"only the old one", []string{"experiments/results/exp"}, "", "nnuelab experiment migrate experiments/results/exp"},
		{"another experiment's old folder", []string{"experiments/results/other"}, "results/exp", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Chdir(t.TempDir())
			for _, d := range tc.dirs {
				if err := os.MkdirAll(filepath.FromSlash(d), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			got, err := DefaultOut("exp")
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("%q, %v; want an error with %q", got, err, tc.wantErr)
				}
				return
			}
			if err != nil || filepath.ToSlash(got) != tc.want {
				t.Errorf("%q, %v; want %q", got, err, tc.want)
			}
		})
	}
}
