package main

import (
	"strings"
	"testing"
)

// fathomWin is Fathom's output for a KQvK position (Fathom c9c6fef, cut).
const fathomWin = `[Event ""]
[Site ""]
[White "Syzygy"]
[Black "Syzygy"]
[Result "1-0"]
[FEN "8/8/8/4k3/8/8/8/KQ6 w - - 0 1"]
[WDL "Win"]
[DTZ "17"]
[WinningMoves "Ka2, Kb2, Qc1"]
[DrawingMoves "Qe4, Qf5"]
[LosingMoves ""]

1. Kb2 Kf4 2. Kc3 Ke5 1-0
`

func TestParseFathom(t *testing.T) {
	for _, tc := range []struct {
		name, out string
		wdl       string
		dtz       int
		err       string // a part of the error; "" for none
	}{
		{"win", fathomWin, "Win", 17, ""},
		{"loss", "[WDL \"Loss\"]\n[DTZ \"-12\"]\n", "Loss", -12, ""},
		{"cursed win", "[DTZ \"104\"]\n[WDL \"CursedWin\"]\n", "CursedWin", 104, ""},
		{"draw", "[WDL \"Draw\"]\r\n[DTZ \"0\"]\r\n", "Draw", 0, ""},
		{"no WDL", "[DTZ \"3\"]\n", "", 0, "no WDL tag"},
		{"no DTZ", "[WDL \"Win\"]\n", "", 0, "no DTZ tag"},
		{"empty", "", "", 0, "no WDL tag"},
		{"bad WDL", "[WDL \"Won\"]\n[DTZ \"3\"]\n", "", 0, `line 1: WDL "Won"`},
		{"bad DTZ", "[WDL \"Win\"]\n[DTZ \"x\"]\n", "", 0, `line 2: DTZ "x"`},
		{"error text", "error: unable to probe tablebase; position invalid, illegal or not in tablebase\n", "", 0, "no WDL tag"},
	} {
		wdl, dtz, err := parseFathom(tc.out)
		switch {
		case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
			t.Errorf("%s: error %v, want one with %q", tc.name, err, tc.err)
		case tc.err == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.err == "" && (wdl != tc.wdl || dtz != tc.dtz):
			t.Errorf("%s: %s %d, want %s %d", tc.name, wdl, dtz, tc.wdl, tc.dtz)
		}
	}
}

// FuzzParseFathom: any output gives a result or an error, never a panic,
// and a result is one of the five WDL words.
func FuzzParseFathom(f *testing.F) {
	f.Add(fathomWin)
	f.Add("[WDL \"Draw\"]\n[DTZ \"0\"]\n")
	f.Add("[WDL \"\"]\n[DTZ \"\"]\n[\"]\n")
	f.Fuzz(func(t *testing.T, out string) {
		wdl, _, err := parseFathom(out)
		if err != nil {
			return
		}
		switch wdl {
		case "Win", "CursedWin", "Draw", "BlessedLoss", "Loss":
		default:
			t.Fatalf("WDL %q accepted", wdl)
		}
	})
}
