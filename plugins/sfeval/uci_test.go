package main

import "testing"

func TestParseEvalLine(t *testing.T) {
	for _, c := range []struct {
		line string
		want float32
		ok   bool
	}{
		{"Final evaluation       +0.26 (white side) [with scaled NNUE, hybrid, ...]", 0.26, true},
		{"Final evaluation       -1.50 (white side)", -1.5, true},
		{"NNUE evaluation        +0.20 (white side)", 0.2, true},
		{"Final evaluation 0.75 (black side)", -0.75, true},
		{"Final evaluation: none (in check)", 0, false},
		{"Classical evaluation   none", 0, false},
		{"", 0, false},
	} {
		got, ok := parseEvalLine(c.line)
		if ok != c.ok || got != c.want {
			t.Errorf("parseEvalLine(%q) = %v, %v; want %v, %v", c.line, got, ok, c.want, c.ok)
		}
	}
}
