package configerr

import (
	"errors"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

// TestDecodeTOML: every way a strict configuration file can be wrong is an
// *Error naming the file, and the key and line where there is one; exempt
// keys pass the key checks.
func TestDecodeTOML(t *testing.T) {
	type conf struct {
		Name  string          `toml:"name"`
		Size  int             `toml:"size"`
		Inner struct{ A int } `toml:"inner"`
		Grid  map[string]any  `toml:"grid"`
	}
	grid := func(k toml.Key) bool { return len(k) > 0 && k[0] == "grid" }
	tests := []struct {
		name, text string
		free       func(toml.Key) bool
		key        string   // the *Error's Key ("" none)
		want       []string // in the message
	}{
		{"good", "name = \"x\"\nsize = 3\n[inner]\na = 1\n", nil, "", nil},
		{"syntax", "name = \"x\"\nsize = \n", nil, "", []string{"c.toml", "line 2"}},
		{"wrong type", "name = \"x\"\nsize = \"big\"\n", nil, "size", []string{"line 2"}},
		{"unknown key", "name = \"x\"\ncolour = 1\n", nil, "colour", []string{"unknown key"}},
		{"unknown nested key", "[inner]\nb = 1\n", nil, "inner.b", []string{"unknown key"}},
		{"upper case", "Name = \"x\"\n", nil, "Name", []string{"unknown key", "lower case", `"name"`}},
		{"upper-case table", "[INNER]\na = 1\n", nil, "INNER", []string{"lower case"}},
		{"free keys pass", "[grid]\nHistory = [1, 2]\n", grid, "", nil},
		{"free keys are not checked by others", "[grid]\nHistory = [1, 2]\n", nil, "grid.History", []string{"lower case"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var c conf
			_, err := DecodeTOML("c.toml", []byte(tc.text), &c, tc.free)
			if tc.want == nil {
				if err != nil {
					t.Fatalf("error %v", err)
				}
				return
			}
			var e *Error
			if !errors.As(err, &e) || e.File != "c.toml" || e.Key != tc.key {
				t.Fatalf("error %#v, want an *Error with file c.toml and key %q", err, tc.key)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
}
