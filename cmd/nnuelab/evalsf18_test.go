package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nnuelab/nnuelab/engine/board/boardtest"
	"github.com/nnuelab/nnuelab/nets/sfnet/sfnettest"
)

var sf18All = flag.Bool("sf18.all", false, "TestEvalTraceSF18: compare every reference position (3,000) instead of the sample of 100")

// TestEvalTraceSF18 runs `nnuelab eval --arch sf18 --trace` on the
// reference positions and Stockfish 18's eval command on the same
// positions, the WebAssembly engine of the npm package stockfish@18.0.8
// run with node (`make sf-npm` installs the package; the nets come out of
// it into the net cache). Every line from " NNUE derived piece values:" to
// "Final evaluation" must be identical, character for character: the
// piece values (each from the position without the piece, its threats
// recomputed), the PSQT and layers of every bucket, the NNUE and the final
// evaluation (with 18's choice of the small net and its constants). CI
// compares every 30th position (100); `go test ./cmd/nnuelab -run
// TestEvalTraceSF18 -sf18.all` compares all 3,000.
func TestEvalTraceSF18(t *testing.T) {
	sfnettest.CachedNets(t, sfnettest.V18)
	eng := sfnettest.StartEngine(t, sfnettest.V18)
	t.Logf("reference: %s, the WebAssembly build in npm's stockfish@%s under node", eng.Name, sfnettest.V18)
	all := boardtest.Positions()
	var fens []string
	for i, f := range all {
		if *sf18All || i%30 == 0 {
			fens = append(fens, f)
		}
	}
	epd := filepath.Join(t.TempDir(), "positions.epd")
	if err := os.WriteFile(epd, []byte(strings.Join(fens, "\n")+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	var out, errOut bytes.Buffer
	if code := run([]string{"eval", "--arch", "sf18", "--trace", "--epd", epd}, &out, &errOut); code != 0 {
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
	t.Logf("%d of %d positions identical to Stockfish 18's eval, character for character (nnuelab %v, the WebAssembly engine %v)",
		len(fens)-bad, len(fens), ours.Round(time.Millisecond), theirs.Round(time.Millisecond))

	// The same positions as JSON: the integers behind the text.
	out.Reset()
	if code := run([]string{"eval", "--arch", "sf18", "--trace", "--json", "--epd", epd}, &out, &errOut); code != 0 {
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
