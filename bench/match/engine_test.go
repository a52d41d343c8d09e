package match

import (
	"reflect"
	"strings"
	"testing"
)

func TestParseOptionLine(t *testing.T) {
	tests := []struct {
		line string
		want uciOption
		ok   bool
	}{
		{"option name Hash type spin default 16 min 1 max 33554432", uciOption{name: "Hash", typ: "spin", def: "16", min: "1", max: "33554432"}, true},
		{"option name Clear Hash type button", uciOption{name: "Clear Hash", typ: "button"}, true},
		{"option name UCI_Chess960 type check default false", uciOption{name: "UCI_Chess960", typ: "check", def: "false"}, true},
		{"option name EvalFile type string default nn-ad9b42354671.nnue", uciOption{name: "EvalFile", typ: "string", def: "nn-ad9b42354671.nnue"}, true},
		{"option name Style type combo default Normal var Solid var Normal var Risky", uciOption{name: "Style", typ: "combo", def: "Normal", vars: []string{"Solid", "Normal", "Risky"}}, true},
		{"option name Debug Log File type string default", uciOption{name: "Debug Log File", typ: "string"}, true},
		{"option name type spin", uciOption{}, false},
		{"option Hash type spin", uciOption{}, false},
		{"option name X", uciOption{}, false},
	}
	for _, tt := range tests {
		got, ok := parseOptionLine(tt.line)
		if ok != tt.ok || (ok && !reflect.DeepEqual(got, tt.want)) {
			t.Errorf("parseOptionLine(%q) = %+v, %v; want %+v, %v", tt.line, got, ok, tt.want, tt.ok)
		}
	}
}

func TestOptionCommand(t *testing.T) {
	e := &engine{options: map[string]uciOption{}}
	for _, l := range []string{
		"option name Hash type spin default 16 min 1 max 1024",
		"option name Clear Hash type button",
		"option name Ponder type check default false",
		"option name Style type combo default Normal var Normal var Wild",
		"option name EvalFile type string default <empty>",
	} {
		o, _ := parseOptionLine(l)
		e.options[strings.ToLower(o.name)] = o
	}
	tests := []struct {
		opt  Option
		want string
		err  string
	}{
		{Option{"hash", "64"}, "setoption name Hash value 64", ""},
		{Option{"Hash", "0"}, "", "from 1 to 1024"},
		{Option{"Hash", "lots"}, "", "spin"},
		{Option{"Clear Hash", "whatever"}, "setoption name Clear Hash", ""},
		{Option{"Ponder", "On"}, "setoption name Ponder value true", ""},
		{Option{"Ponder", "2"}, "", "check"},
		{Option{"style", "wild"}, "setoption name Style value Wild", ""},
		{Option{"Style", "Mad"}, "", "one of Normal, Wild"},
		{Option{"EvalFile", "nets/my net.nnue"}, "setoption name EvalFile value nets/my net.nnue", ""},
		{Option{"Threads", "2"}, "", `no UCI option "Threads" (it has: Clear Hash, EvalFile, Hash, Ponder, Style)`},
	}
	for _, tt := range tests {
		got, err := e.optionCommand(tt.opt)
		if tt.err != "" {
			if err == nil || !strings.Contains(err.Error(), tt.err) {
				t.Errorf("optionCommand(%+v) error = %v, want %q", tt.opt, err, tt.err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("optionCommand(%+v) = %q, %v; want %q", tt.opt, got, err, tt.want)
		}
	}
}

func TestSearchInfo(t *testing.T) {
	tests := []struct {
		lines []string
		score engineScore
		depth int
		nodes int64
	}{
		{[]string{"depth 1 seldepth 1 score cp 20 nodes 30 pv e2e4", "depth 2 seldepth 3 score cp -15 nodes 90 nps 1000 pv e2e4 e7e5"},
			engineScore{CP: -15, Valid: true}, 2, 90},
		{[]string{"depth 12 score mate 3 pv a1a8", "depth 12 score cp 50 lowerbound"}, engineScore{Mate: 3, IsMate: true, Valid: true}, 12, 0},
		{[]string{"depth 5 score cp 80 upperbound"}, engineScore{CP: 80, Valid: true}, 5, 0},
		{[]string{"depth 9 multipv 1 score cp 10 pv e2e4", "depth 9 multipv 2 score cp -300 pv a2a3"}, engineScore{CP: 10, Valid: true}, 9, 0},
		{[]string{"string score cp 999 depth 40", "currmove e2e4 currmovenumber 1"}, engineScore{}, 0, 0},
		{[]string{"depth x score cp", "score mate", "nodes -", "depth 3 score cp 99999999999"}, engineScore{}, 3, 0},
		{[]string{"depth 7 score mate -2 pv e1e2 score cp 5"}, engineScore{Mate: -2, IsMate: true, Valid: true}, 7, 0},
	}
	for _, tt := range tests {
		var si searchInfo
		for _, l := range tt.lines {
			si.parse(strings.Fields(l))
		}
		if got := si.finalScore(); got != tt.score || si.depth != tt.depth || si.nodes != tt.nodes {
			t.Errorf("%q: score %+v depth %d nodes %d; want %+v, %d, %d", tt.lines, got, si.depth, si.nodes, tt.score, tt.depth, tt.nodes)
		}
	}
}

func TestTailBuffer(t *testing.T) {
	b := &tailBuffer{max: 10}
	b.Write([]byte("0123456789abc"))
	b.Write([]byte("de\nf"))
	if got := b.String(); got != "789abcde f" {
		t.Errorf("tail = %q", got)
	}
}
