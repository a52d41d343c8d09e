package main

import (
	"bytes"
	"strings"
	"testing"
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
		{[]string{"nets"}, 1, nil, "give a subcommand"},
		{[]string{"nets", "bogus"}, 1, nil, "unknown subcommand"},
		{[]string{"nets", "list", "extra"}, 1, nil, "unexpected argument"},
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
