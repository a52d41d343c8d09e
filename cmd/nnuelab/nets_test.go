package main

import (
	"bytes"
	"os"
	"strings"
	"testing"

	ucipkg "github.com/nnuelab/nnuelab/engine/uci"
)

// TestNetsCommand: the list names every shipped net with its licence, and
// the notices of Koivisto's and Leorik's nets (MIT: the copyright line and
// the permission notice must travel with every copy) are printed in full.
func TestNetsCommand(t *testing.T) {
	tests := []struct {
		args   []string
		code   int
		stdout []string
		stderr string
	}{
		{[]string{"nets", "list"}, 0, []string{"koivisto-7.4.net", "leorik-3.1-640HL-S-5288M-Tmix-Q5-v19.nnue", "chess768-first.nnue.zst", "MIT, (c) 2021 Luecx"}, ""},
		{[]string{"nets", "list", "--json"}, 0, []string{`"LicenseFile": "LICENSE-Leorik.txt"`}, ""},
		{[]string{"nets", "licenses"}, 0, []string{"Copyright (c) 2021 Luecx", "Copyright (c) 2023 Thomas Jahn", "The above copyright notice and this permission notice shall be included"}, ""},
		{[]string{"nets"}, 2, nil, "give a subcommand"},
		{[]string{"nets", "bogus"}, 2, nil, "unknown subcommand"},
		{[]string{"nets", "list", "extra"}, 2, nil, "unexpected argument"},
	}
	for _, tc := range tests {
		var out, errb bytes.Buffer
		if code := run(tc.args, &out, &errb); code != tc.code {
			t.Fatalf("%v: exit %d, want %d; stderr %q", tc.args, code, tc.code, errb.String())
		}
		for _, s := range tc.stdout {
			if !strings.Contains(out.String(), s) {
				t.Errorf("%v: stdout lacks %q", tc.args, s)
			}
		}
		if !strings.Contains(errb.String(), tc.stderr) {
			t.Errorf("%v: stderr %q lacks %q", tc.args, errb.String(), tc.stderr)
		}
	}
	// Every licence count: one notice per third-party net.
	var out, errb bytes.Buffer
	run([]string{"nets", "licenses"}, &out, &errb)
	if n := strings.Count(out.String(), "\n== "); n != 3 {
		t.Errorf("%d notices, want 3 (two Koivisto nets, one Leorik net)", n)
	}
}

// TestConvertFormats: self-play kept whole goes to Stockfish's binpack and
// back byte for byte, to bulletformat, and through the training filter,
// which drops what datagen's quiet mode would not have recorded.
func TestConvertFormats(t *testing.T) {
	dir := t.TempDir()
	all := dir + "/all.binpack"
	var out, errb bytes.Buffer
	if code := run([]string{"datagen", "--out", all, "--games", "4", "--nodes", "300", "--threads", "1", "--quiet"}, &out, &errb); code != 0 {
		t.Fatalf("datagen: %s", errb.String())
	}
	quiet := dir + "/quiet.bin"
	if code := run([]string{"datagen", "--out", quiet, "--games", "4", "--nodes", "300", "--threads", "1", "--quiet"}, &out, &errb); code != 0 {
		t.Fatalf("datagen: %s", errb.String())
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"convert", "--out", dir + "/back.binpack", all}, "records"},
		{[]string{"convert", "--out", dir + "/all.bullet", all}, "records"},
		{[]string{"convert", "--filter", "default", "--out", dir + "/filtered.bin", all}, "dropped by the filter"},
		{[]string{"convert", "--filter", "bogus", "--out", dir + "/x.bin", all}, ""},
	} {
		out.Reset()
		errb.Reset()
		code := run(tc.args, &out, &errb)
		if tc.want == "" {
			if code == 0 || !strings.Contains(errb.String(), "unknown test") {
				t.Errorf("%v: exit %d, stderr %q", tc.args, code, errb.String())
			}
			continue
		}
		if code != 0 || !strings.Contains(out.String(), tc.want) {
			t.Fatalf("%v: exit %d, stdout %q, stderr %q", tc.args, code, out.String(), errb.String())
		}
	}
	a, _ := os.ReadFile(all)
	b, _ := os.ReadFile(dir + "/back.binpack")
	if !bytes.Equal(a, b) {
		t.Error("binpack -> binpack is not byte-identical")
	}
	f, _ := os.ReadFile(dir + "/filtered.bin")
	q, _ := os.ReadFile(quiet)
	if !bytes.Equal(f, q) {
		t.Error("the filtered whole games differ from datagen's quiet output of the same games")
	}
}

// TestShippedNetByName: a shipped net is selectable by its own name in the
// CLI and in UCI, and gives its architecture's evaluations with that net.
func TestShippedNetByName(t *testing.T) {
	fen := "r1bqkbnr/pppp1ppp/2n5/4p3/4P3/5N2/PPPP1PPP/RNBQKB1R w KQkq - 2 3"
	evalOut := func(arch string) string {
		var out, errb bytes.Buffer
		if code := run([]string{"eval", "--arch", arch, "--fen", fen}, &out, &errb); code != 0 {
			t.Fatalf("eval --arch %s: %s", arch, errb.String())
		}
		return out.String()
	}
	for _, tc := range [][2]string{{"leorik-3.2-first", "leorik-3.2"}, {"chess768-first", "chess768"}, {"leorik-3.1-640HL-S-5288M-Tmix-Q5-v19", "leorik-3.1"}} {
		if a, b := evalOut(tc[0]), evalOut(tc[1]); a != b {
			t.Errorf("%s: %q, its arch %s with its default net: %q", tc[0], a, tc[1], b)
		}
	}
	var out, errb bytes.Buffer
	if code := run([]string{"eval", "--arch", "nonesuch-first", "--fen", fen}, &out, &errb); code == 0 {
		t.Error("an unknown net name was accepted")
	}
	var uci bytes.Buffer
	in := strings.NewReader("uci\nsetoption name Arch value halfkp-128-first\nposition fen " + fen + "\ngo depth 2\nquit\n")
	e, err := ucipkg.New(&uci)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.Run(in); err != nil {
		t.Fatal(err)
	}
	if s := uci.String(); !strings.Contains(s, "var halfkp-128-first") || !strings.Contains(s, "bestmove ") || strings.Contains(s, "error") {
		t.Errorf("UCI output:\n%s", s)
	}
}
