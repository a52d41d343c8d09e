package uci_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestNetworkArchitectures plays with network architectures over UCI as a
// GUI would set them up: every shipped net by name, a TOML file by path, a
// bad TOML file and a bad net file (info string, previous evaluator kept),
// and Arch sent before the EvalFile that completes it.
func TestNetworkArchitectures(t *testing.T) {
	g := start(t)
	g.send("uci")
	g.until("uciok", 10*time.Second)
	for _, arch := range []string{"koivisto-7.4", "koivisto-5.13", "leorik-3.1"} {
		g.send("setoption name Arch value "+arch, "ucinewgame", "position startpos moves e2e4", "eval")
		out := strings.Join(g.sync(), "\n")
		if !strings.Contains(out, "NNUE architecture "+arch) || strings.Contains(out, "error") {
			t.Fatalf("%s: eval printed %q", arch, out)
		}
		g.send("go depth 6")
		lines := g.until("bestmove", 30*time.Second)
		if mv := bestmove(t, lines); !legalIn(t, "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", []string{"e2e4"}, mv) {
			t.Fatalf("%s: illegal bestmove %s", arch, mv)
		}
	}

	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.toml")
	os.WriteFile(bad, []byte("name = \"x\"\nwidth = 3\n"), 0o644)
	g.send("setoption name Arch value " + bad)
	if out := strings.Join(g.sync(), "\n"); !strings.Contains(out, "info string") || !strings.Contains(out, "bad.toml") || !strings.Contains(out, "still evaluating with leorik-3.1") {
		t.Fatalf("bad TOML: %q", out)
	}
	g.send("position startpos", "eval")
	if out := strings.Join(g.sync(), "\n"); !strings.Contains(out, "NNUE architecture leorik-3.1") {
		t.Fatalf("previous evaluator not kept after a bad TOML: %q", out)
	}

	// A TOML file by path, derived from a shipped design.
	good := filepath.Join(dir, "mine.toml")
	data, err := os.ReadFile("../../archs/koivisto-7.4.toml")
	if err != nil {
		t.Fatal(err)
	}
	os.WriteFile(good, data, 0o644)
	g.send("setoption name Arch value "+good, "position startpos", "eval")
	if out := strings.Join(g.sync(), "\n"); strings.Contains(out, "error") || !strings.Contains(out, "NNUE architecture koivisto-7.4") {
		// The copy keeps the name koivisto-7.4, whose shipped net it loads.
		t.Fatalf("TOML by path: %q", out)
	}

	// A corrupt net file: error, previous evaluator kept.
	junk := filepath.Join(dir, "junk.net")
	os.WriteFile(junk, []byte("definitely not a network"), 0o644)
	g.send("setoption name Arch value koivisto-7.4", "setoption name EvalFile value "+junk)
	if out := strings.Join(g.sync(), "\n"); !strings.Contains(out, "truncated") || !strings.Contains(out, "still evaluating with koivisto-7.4") {
		t.Fatalf("corrupt net: %q", out)
	}

	// Arch first, then the EvalFile that makes it loadable (here: Leorik's
	// net copied to a file), as GUIs may send them.
	leorik, err := os.ReadFile("../../nets/leorik-3.1-640HL-S-5288M-Tmix-Q5-v19.nnue")
	if err != nil {
		t.Fatal(err)
	}
	lf := filepath.Join(dir, "leorik.nnue")
	os.WriteFile(lf, leorik, 0o644)
	g.send("setoption name EvalFile value <empty>", "setoption name Arch value koivisto-16")
	if out := strings.Join(g.sync(), "\n"); !strings.Contains(out, "ships no network") {
		t.Fatalf("koivisto-16 without a net: %q", out)
	}
	g.send("setoption name Arch value leorik-3.1", "setoption name EvalFile value "+lf, "position startpos", "eval")
	if out := strings.Join(g.sync(), "\n"); !strings.Contains(out, "NNUE architecture leorik-3.1") || strings.Contains(out, "error") {
		t.Fatalf("Arch then EvalFile: %q", out)
	}
}

// TestRefusedArchForgotten: an Arch that no architecture has, or an
// architecture file that does not parse, is refused and forgotten, so that
// the EvalFile that comes next loads for the architecture in play (it once
// failed with "unknown architecture nonexistent"). An Arch that only lacks
// its net is still kept for the EvalFile that completes it
// (TestNetworkArchitectures).
func TestRefusedArchForgotten(t *testing.T) {
	dir := t.TempDir()
	leorik, err := os.ReadFile("../../nets/leorik-3.1-640HL-S-5288M-Tmix-Q5-v19.nnue")
	if err != nil {
		t.Fatal(err)
	}
	lf := filepath.Join(dir, "leorik.nnue")
	if err := os.WriteFile(lf, leorik, 0o644); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.toml")
	if err := os.WriteFile(bad, []byte("name = \"x\"\nwidth = 3\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ arch, refusal string }{
		{"nonexistent", `unknown architecture "nonexistent"`},
		{bad, "bad.toml"},
	} {
		t.Run(tc.arch, func(t *testing.T) {
			g := start(t)
			g.send("setoption name Arch value " + tc.arch)
			if out := strings.Join(g.sync(), "\n"); !strings.Contains(out, tc.refusal) || !strings.Contains(out, "still evaluating with leorik-3.1") {
				t.Fatalf("Arch %s: %q", tc.arch, out)
			}
			g.send("setoption name EvalFile value "+lf, "position startpos", "eval")
			out := strings.Join(g.sync(), "\n")
			if strings.Contains(out, "error") || !strings.Contains(out, "NNUE architecture leorik-3.1") {
				t.Errorf("EvalFile after the refused Arch: %q", out)
			}
			// Threads re-creates the evaluators: still no trace of it.
			g.send("setoption name Threads value 2", "eval")
			if out := strings.Join(g.sync(), "\n"); strings.Contains(out, "error") || !strings.Contains(out, "NNUE architecture leorik-3.1") {
				t.Errorf("Threads after the refused Arch: %q", out)
			}
		})
	}
}
