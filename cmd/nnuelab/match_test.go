package main

import (
	"bytes"
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/internal/testtier"
)

func TestMatchCommandErrors(t *testing.T) {
	tests := []struct {
		args []string
		code int
		want string // in stderr
	}{
		{[]string{"match", "--help"}, 0, "Usage: nnuelab match"},
		{[]string{"match", "-engine", "cmd=a", "-games", "2"}, 2, "exactly two engines"},
		{[]string{"match", "-engine", "cmd=/nonexistent/a", "-engine", "cmd=/nonexistent/b", "-each", "nodes=1"}, 1, "cannot start"},
		{[]string{"match", "-frobnicate"}, 2, "unknown flag"},
		{[]string{"match", "-engine", "cmd=/nonexistent/a", "-engine", "cmd=/nonexistent/b", "-each", "nodes=1", "-games", "0"}, 2, "-games 0"},
	}
	for _, tt := range tests {
		var stdout, stderr bytes.Buffer
		code := run(tt.args, &stdout, &stderr)
		if code != tt.code || !strings.Contains(stderr.String(), tt.want) {
			t.Errorf("nnuelab %q: exit %d, stderr %q; want exit %d and %q", tt.args, code, stderr.String(), tt.code, tt.want)
		}
		if stdout.Len() != 0 {
			t.Errorf("nnuelab %q wrote to stdout: %q", tt.args, stdout.String())
		}
	}
}

// A two-game match against Stockfish with --json prints one JSON object
// with the counts on stdout.
func TestMatchCommandJSON(t *testing.T) {
	testtier.Needs(t, "Stockfish 15.1 (Debian's stockfish)")
	const sf = "/usr/games/stockfish"
	if _, err := os.Stat(sf); err != nil {
		t.Fatalf("Stockfish is required at %s (apt-get install -y stockfish): %v", sf, err)
	}
	var stdout, stderr bytes.Buffer
	code := run([]string{"match", "-engine", "cmd=" + sf, "name=x", "-engine", "cmd=" + sf, "name=y",
		"-each", "nodes=500", "option.Hash=4", "-games", "2", "-maxmoves", "30", "--json", "-quiet"}, &stdout, &stderr)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	var sum struct {
		Engines     []string `json:"engines"`
		Games       int      `json:"games"`
		Wins        int      `json:"wins"`
		Draws       int      `json:"draws"`
		Losses      int      `json:"losses"`
		Pentanomial []int    `json:"pentanomial"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &sum); err != nil {
		t.Fatalf("stdout is not JSON: %v\n%s", err, stdout.String())
	}
	pairs := 0
	for _, n := range sum.Pentanomial {
		pairs += n
	}
	if sum.Games != 2 || sum.Wins+sum.Draws+sum.Losses != 2 || pairs != 1 || len(sum.Engines) != 2 || sum.Engines[0] != "x" {
		t.Errorf("summary %+v", sum)
	}
}
