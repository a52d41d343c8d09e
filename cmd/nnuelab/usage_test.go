package main

import (
	"bytes"
	"sort"
	"strings"
	"testing"
)

// subcommands lists the commands that take a subcommand, with theirs: each
// has its own flags and --help.
var subcommands = map[string][]string{
	"experiment": {"run", "report", "claims", "migrate", "task", "engine"},
	"nets":       {"list", "licenses", "show", "extract", "fetch"},
	"wdl":        {"fit"},
}

// everyCommandLine returns every command line that has a usage: each
// registered command (so a new one is covered without touching this file)
// and each subcommand.
func everyCommandLine() [][]string {
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	var lines [][]string
	for _, n := range names {
		lines = append(lines, []string{n})
		for _, s := range subcommands[n] {
			lines = append(lines, []string{n, s})
		}
	}
	return lines
}

// TestHelpAndUsageErrors: "nnuelab help" and every command's and
// subcommand's --help, -h and -help exit 0 with a usage naming the command;
// an unknown flag is a usage error, exit 2, its message written once (Go's
// flag convention).
func TestHelpAndUsageErrors(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"help"}, &out, &errb); code != 0 {
		t.Fatalf("nnuelab help: exit %d, stderr %q", code, errb.String())
	}
	for _, line := range everyCommandLine() {
		if len(line) == 1 && !strings.Contains(out.String(), "\n  "+line[0]+" ") {
			t.Errorf("nnuelab help does not list %s:\n%s", line[0], out.String())
		}
	}
	for _, line := range everyCommandLine() {
		name := strings.Join(line, " ")
		for _, h := range []string{"--help", "-h", "-help"} {
			t.Run(name+" "+h, func(t *testing.T) {
				var out, errb bytes.Buffer
				code := run(append(append([]string(nil), line...), h), &out, &errb)
				text := out.String() + errb.String()
				if code != 0 {
					t.Fatalf("exit %d, want 0; output %q", code, text)
				}
				if !strings.Contains(text, "Usage: nnuelab "+name) {
					t.Errorf("no \"Usage: nnuelab %s\" in %q", name, text)
				}
				if strings.Contains(text, "nnuelab "+line[0]+":") {
					t.Errorf("help printed an error: %q", text)
				}
			})
		}
		t.Run(name+" unknown flag", func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(append(append([]string(nil), line...), "--no-such-flag"), &out, &errb)
			if code != 2 {
				t.Fatalf("exit %d, want 2; stderr %q", code, errb.String())
			}
			if n := strings.Count(errb.String(), "no-such-flag"); n != 1 {
				t.Errorf("the error names the flag %d times, want once: %q", n, errb.String())
			}
			if out.Len() != 0 {
				t.Errorf("wrote to stdout: %q", out.String())
			}
		})
	}
}

// TestUsageErrorsExit2 covers the usage errors that are not an unknown
// flag: a missing or extra argument, a flag value that does not parse, an
// unknown subcommand. Each exits 2 and says what is wrong once, naming the
// command once.
func TestUsageErrorsExit2(t *testing.T) {
	tests := []struct {
		args []string
		want string
	}{
		{[]string{"perft"}, "expected one DEPTH argument"},
		{[]string{"perft", "1", "2"}, "expected one DEPTH argument, got 2"},
		{[]string{"bench", "--threads", "many"}, `invalid value "many" for flag -threads`},
		{[]string{"nets"}, "give a subcommand"},
		{[]string{"nets", "frobnicate"}, `unknown subcommand "frobnicate"`},
		{[]string{"nets", "show"}, "give a net"},
		{[]string{"nets", "licenses", "extra"}, `unexpected argument "extra"`},
		{[]string{"wdl"}, `expected "wdl fit"`},
		{[]string{"wdl", "fitt"}, `expected "wdl fit", got "fitt"`},
		{[]string{"experiment", "frobnicate"}, `unknown subcommand "frobnicate"`},
		{[]string{"uci", "extra"}, "unexpected arguments"},
		{[]string{"match", "-engine", "cmd=a"}, "exactly two engines"},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.args, " "), func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(tc.args, &out, &errb)
			if code != 2 {
				t.Fatalf("exit %d, want 2; stderr %q", code, errb.String())
			}
			if n := strings.Count(errb.String(), tc.want); n != 1 {
				t.Errorf("%q appears %d times in %q, want once", tc.want, n, errb.String())
			}
			prefix := "nnuelab " + tc.args[0] + ": "
			if n := strings.Count(errb.String(), prefix); n > 1 || strings.Contains(errb.String(), prefix+tc.args[0]+":") {
				t.Errorf("command named twice: %q", errb.String())
			}
		})
	}
}
