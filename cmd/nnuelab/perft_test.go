package main

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

func TestPerftCommand(t *testing.T) {
	tests := []struct {
		name     string
		args     []string
		code     int
		stdout   string // substring expected on stdout
		stderrRx string // substring expected on stderr
	}{
		{"start depth 3", []string{"perft", "3"}, 0, "Nodes searched: 8902\n", ""},
		{"divide", []string{"perft", "--divide", "2"}, 0, "e2e4: 20\n", ""},
		{"chess960 divide", []string{"perft", "--divide", "--fen", "1r2k1r1/8/8/8/8/8/6P1/1R2K1R1 w GBgb - 0 1", "1"}, 0, "e1b1: 1\n", ""},
		{"bad fen", []string{"perft", "--fen", "not a fen", "3"}, 1, "", "piece placement"},
		{"bad side", []string{"perft", "--fen", "8/8/8/8/8/8/8/K6k y - - 0 1", "1"}, 1, "", "side to move"},
		{"no depth", []string{"perft"}, 2, "", "DEPTH"},
		{"bad depth", []string{"perft", "x"}, 1, "", "DEPTH"},
		{"unknown command", []string{"frobnicate"}, 2, "", "unknown command"},
		{"help", []string{"perft", "--help"}, 0, "", "Usage: nnuelab perft"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(tc.args, &out, &errb)
			if code != tc.code {
				t.Fatalf("exit code %d, want %d; stderr %q", code, tc.code, errb.String())
			}
			if !strings.Contains(out.String(), tc.stdout) {
				t.Errorf("stdout %q lacks %q", out.String(), tc.stdout)
			}
			if !strings.Contains(errb.String(), tc.stderrRx) {
				t.Errorf("stderr %q lacks %q", errb.String(), tc.stderrRx)
			}
			if tc.code == 1 && strings.Count(strings.TrimSpace(errb.String()), "\n") > 0 && tc.name != "no depth" {
				t.Errorf("error is not one line: %q", errb.String())
			}
		})
	}
}

func TestPerftJSON(t *testing.T) {
	var out, errb bytes.Buffer
	if code := run([]string{"perft", "--json", "--fen", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", "3"}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	var res struct {
		Nodes uint64 `json:"nodes"`
		Depth int    `json:"depth"`
	}
	if err := json.Unmarshal(out.Bytes(), &res); err != nil {
		t.Fatal(err)
	}
	if res.Nodes != 97862 || res.Depth != 3 {
		t.Fatalf("got %+v", res)
	}
}
