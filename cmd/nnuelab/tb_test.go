package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tbTables is engine/syzygy's test data: the 3-4 piece tables and KRBvKR.
const tbTables = "../../engine/syzygy/testdata/tables"

func TestTBCommand(t *testing.T) {
	dir := t.TempDir()
	epd := filepath.Join(dir, "positions.epd")
	if err := os.WriteFile(epd, []byte("# comment\n8/8/8/4k3/8/8/8/R3K3 w - - bm Ra5;\n"+
		"8/8/8/4k3/8/8/8/RN2K3 b - - 7 40\n"+
		"7r/8/8/4k3/8/8/8/1QQ1K3 w - - 0 1\n"+
		"4k3/8/8/8/8/8/8/R3K3 w Q - 0 1\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	damaged := filepath.Join(dir, "tables")
	if err := os.Mkdir(damaged, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"KRvK.rtbw", "KRvK.rtbz", "KQvK.rtbw"} {
		b, err := os.ReadFile(filepath.Join(tbTables, name))
		if err != nil {
			t.Fatal(err)
		}
		if name == "KRvK.rtbz" {
			b[len(b)/3] ^= 4
		}
		if err := os.WriteFile(filepath.Join(damaged, name), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		name   string
		args   []string
		code   int
		stdout []string // lines (or their starts) expected on stdout, in order
		stderr string   // substring expected on stderr
	}{
		{"fen", []string{"tb", "probe", "--path", tbTables, "--fen", "8/8/8/4k3/8/8/8/R3K3 w - - 0 1"}, 0,
			[]string{"8/8/8/4k3/8/8/8/R3K3 w - - 0 1\twin\t27"}, ""},
		{"epd", []string{"tb", "probe", "--path", tbTables, "--epd", epd}, 1,
			[]string{"8/8/8/4k3/8/8/8/R3K3 w - - 0 1\twin\t27", "8/8/8/4k3/8/8/8/RN2K3 b - - 7 40\tloss\t-20"},
			"positions.epd:5: 4k3/8/8/8/8/8/8/R3K3 w Q - 0 1: syzygy: position has castling rights"},
		{"bad path", []string{"tb", "probe", "--path", tbTables + ":" + filepath.Join(dir, "none"), "--epd", epd}, 1, nil, filepath.Join(dir, "none")},
		{"missing table", []string{"tb", "probe", "--path", tbTables, "--epd", epd}, 1, nil, "positions.epd:4: 7r/8/8/4k3/8/8/8/1QQ1K3 w - - 0 1: syzygy: no table KQQvKR.rtbw"},
		{"check", []string{"tb", "check", tbTables}, 0, nil, ""},
		{"check damaged", []string{"tb", "check", damaged}, 1, []string{"ok\t" + filepath.Join(damaged, "KQvK.rtbw")}, "1 of 3 files failed: KRvK.rtbz"},
		{"probe no path", []string{"tb", "probe", "--fen", "8/8/8/4k3/8/8/8/R3K3 w - - 0 1"}, 2, nil, "--path is required"},
		{"probe fen and epd", []string{"tb", "probe", "--path", tbTables}, 2, nil, "give one of --fen and --epd"},
		{"no subcommand", []string{"tb"}, 2, nil, `expected "tb probe" or "tb check"`},
		{"help", []string{"tb", "--help"}, 0, nil, "Usage: nnuelab tb"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := run(tc.args, &out, &errb); code != tc.code {
				t.Fatalf("exit code %d, want %d; stderr %q", code, tc.code, errb.String())
			}
			got := out.String()
			for _, l := range tc.stdout {
				i := strings.Index(got, l)
				if i < 0 {
					t.Fatalf("stdout %q lacks line %q", out.String(), l)
				}
				got = got[i+len(l):]
			}
			if !strings.Contains(errb.String(), tc.stderr) {
				t.Errorf("stderr %q lacks %q", errb.String(), tc.stderr)
			}
		})
	}
	// tb check lists every file with its checksum.
	var out, errb bytes.Buffer
	run([]string{"tb", "check", tbTables}, &out, &errb)
	if n := strings.Count(out.String(), "ok\t"); n != 72 {
		t.Errorf("tb check: %d files ok, want 72", n)
	}
	if !strings.Contains(out.String(), "KRBvKR.rtbw\t") {
		t.Errorf("tb check output lacks KRBvKR.rtbw: %q", out.String())
	}
}
