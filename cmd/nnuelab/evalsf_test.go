package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/engine/board/boardtest"
	"github.com/nnuelab/nnuelab/nets/sfnet/sfnettest"
)

var (
	sf17All = flag.Bool("sf17.all", false, "TestEvalTraceSF17: compare every reference position (3,000) instead of the sample of 100")
	sf18All = flag.Bool("sf18.all", false, "TestEvalTraceSF18: compare every reference position (3,000) instead of the sample of 100")
)

// TestEvalTraceSF17 runs `nnuelab eval --arch sf17.1 --trace` on the
// reference positions and Stockfish 17.1's eval command on the same
// positions, the WebAssembly engine of the npm package stockfish@17.1.0
// run with node (`make sf-npm` installs the package; the nets come out of
// it into the net cache). Every line from " NNUE derived piece values:" to
// "Final evaluation" must be identical, character for character: the
// piece values, the PSQT and layers of every bucket, the NNUE and the final
// evaluation (with 17.1's choice of the small net). CI compares every 30th
// position (100); `go test ./cmd/nnuelab -run TestEvalTraceSF17 -sf17.all`
// compares all 3,000.
func TestEvalTraceSF17(t *testing.T) { testEvalTrace(t, sfnettest.V171, "sf17.1", "17.1", *sf17All) }

// TestEvalTraceSF18 is TestEvalTraceSF17 for Stockfish 18 (npm's
// stockfish@18.0.8): its piece values (each from the position without the
// piece, its threats recomputed), the PSQT and layers of every bucket, the
// NNUE and the final evaluation with 18's choice of the small net and its
// constants; `-sf18.all` compares all 3,000.
func TestEvalTraceSF18(t *testing.T) { testEvalTrace(t, sfnettest.V18, "sf18", "18", *sf18All) }

// testEvalTrace compares `nnuelab eval --arch ARCH --trace` with the eval
// command of Stockfish RELEASE (the npm package VERSION under node) on every
// 30th reference position (all with every), text and --json.
func testEvalTrace(t *testing.T, version, arch, release string, every bool) {
	sfnettest.CachedNets(t, version)
	eng := sfnettest.StartEngine(t, version)
	t.Logf("reference: %s, the WebAssembly build in npm's stockfish@%s under node", eng.Name, version)
	all := boardtest.Positions()
	var fens []string
	for i, f := range all {
		if every || i%30 == 0 {
			fens = append(fens, f)
		}
	}
	epd := filepath.Join(t.TempDir(), "positions.epd")
	if err := os.WriteFile(epd, []byte(strings.Join(fens, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var out, errOut bytes.Buffer
	if code := run([]string{"eval", "--arch", arch, "--trace", "--epd", epd}, &out, &errOut); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	ours := time.Since(start)
	blocks := traceBlocks(t, out.String(), len(fens))

	start = time.Now()
	bad := 0
	for i, fen := range fens {
		want, err := eng.Eval(fen)
		if err != nil {
			t.Fatal(err)
		}
		if blocks[i] != want {
			bad++
			if bad <= 3 {
				t.Errorf("%s:\n%s", fen, lineDiff(blocks[i], want))
			}
		}
	}
	theirs := time.Since(start)
	t.Logf("%d of %d positions identical to Stockfish %s's eval, character for character (nnuelab %v, the WebAssembly engine %v)",
		len(fens)-bad, len(fens), release, ours.Round(time.Millisecond), theirs.Round(time.Millisecond))

	// The same positions as JSON: the integers behind the text.
	out.Reset()
	if code := run([]string{"eval", "--arch", arch, "--trace", "--json", "--epd", epd}, &out, &errOut); code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errOut.String())
	}
	dec := json.NewDecoder(&out)
	counts := map[string]int{}
	for i := 0; dec.More(); i++ {
		var obj struct {
			Raw     int32 `json:"raw"`
			SFTrace struct {
				InCheck bool  `json:"in_check"`
				White   bool  `json:"white_to_move"`
				Final   int32 `json:"final"`
				Eval    *struct {
					Net   string `json:"net"`
					Final int32  `json:"final"`
				} `json:"eval"`
				Buckets []struct{} `json:"buckets"`
			} `json:"sf_trace"`
		}
		if err := dec.Decode(&obj); err != nil {
			t.Fatal(err)
		}
		tr := obj.SFTrace
		if tr.InCheck {
			counts["in check"]++
			continue
		}
		white := obj.Raw
		if !tr.White {
			white = -white
		}
		if tr.Eval == nil || tr.Final != white || tr.Eval.Final != obj.Raw || len(tr.Buckets) != 8 {
			t.Errorf("%s: raw %d, sf_trace %+v", fens[i], obj.Raw, tr)
		}
		counts["valued by the "+tr.Eval.Net+" net"]++
	}
	t.Logf("positions: %v", counts)
	if counts["valued by the small net"] == 0 {
		t.Errorf("no position of the sample was valued by the small net: the comparison did not cover it")
	}
}

// traceBlocks splits eval --trace output into the trace of each position:
// the lines after its "FEN\traw\tcp" line up to its "Final evaluation"
// line.
func traceBlocks(t *testing.T, out string, n int) []string {
	t.Helper()
	var blocks []string
	var cur strings.Builder
	on := false
	for _, l := range strings.SplitAfter(out, "\n") {
		switch {
		case strings.HasPrefix(l, "#"):
		case strings.HasPrefix(l, " NNUE derived piece values:"), strings.HasPrefix(l, "Final evaluation: none"):
			on = true
			cur.Reset()
		}
		if on {
			cur.WriteString(l)
		}
		if strings.HasPrefix(l, "Final evaluation") {
			blocks = append(blocks, cur.String())
			on = false
		}
	}
	if len(blocks) != n {
		t.Fatalf("%d traces in the output for %d positions", len(blocks), n)
	}
	return blocks
}

// lineDiff shows the lines of got and want that differ.
func lineDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	var b strings.Builder
	for i := 0; i < max(len(g), len(w)); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			fmt.Fprintf(&b, "line %d:\n  nnuelab:   %q\n  Stockfish: %q\n", i+1, gl, wl)
		}
	}
	return b.String()
}
