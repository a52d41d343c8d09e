package main

import (
	"bytes"
	"encoding/xml"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/internal/zstdfile"
)

func TestClocksCommand(t *testing.T) {
	dir := t.TempDir()
	var pgn strings.Builder
	for g := 0; g < 5; g++ { // 5: the fewest games clocks.Plot draws a move from
		pgn.WriteString("[White \"x\"]\n[Black \"y\"]\n[Result \"1-0\"]\n[TimeControl \"10+0.1\"]\n\n")
		pgn.WriteString("1. e4 {+0.30/12 1.000s} e5 {-0.20/11 0.500s} 2. Nf3 {+0.25/13 2.000s} Nc6 {0.100s} 1-0\n\n")
	}
	in := filepath.Join(dir, "g.pgn")
	os.WriteFile(in, []byte(pgn.String()), 0o644)
	svg := filepath.Join(dir, "c.svg")
	var out, errb bytes.Buffer
	if code := run([]string{"clocks", "--plot", svg, in}, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	// x: moves of 1 s of 10 s and 2 s of 9.1 s: median 2/9.1 (the upper
	// middle of two), max 21.98%; least left 9.1 - 2 + 0.1 = 7.2 s.
	for _, want := range []string{"| x | 5 | 10 | 0 | 22.0% / 22.0% / 22.0% | 7.200 s |", "| y | 5 | 10 | 0 |"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("summary lacks %q:\n%s", want, out.String())
		}
	}
	data, err := os.ReadFile(svg)
	if err != nil {
		t.Fatal(err)
	}
	var v struct{ XMLName xml.Name }
	if err := xml.Unmarshal(data, &v); err != nil || v.XMLName.Local != "svg" || !bytes.Contains(data, []byte("share of the clock")) {
		t.Errorf("plot is not an SVG with its axis label: %v", err)
	}
	if !bytes.Contains(data, []byte("x median")) {
		t.Error("plot of 5 games lacks x's median line")
	}
	if code := run([]string{"clocks", filepath.Join(dir, "none.pgn")}, &out, &errb); code == 0 {
		t.Error("a missing file gave exit 0")
	}
	// An experiment's games, compressed: the same summary; cut short: an
	// error naming the file.
	zst := filepath.Join(dir, "g.pgn.zst")
	if err := zstdfile.WriteFile(zst, []byte(pgn.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	plain := out.String()
	out.Reset()
	if code := run([]string{"clocks", zst}, &out, &errb); code != 0 || !strings.Contains(plain, out.String()) {
		t.Errorf("compressed games: exit %d, %q; want %q", code, out.String(), plain)
	}
	b, _ := os.ReadFile(zst)
	os.WriteFile(zst, b[:len(b)-5], 0o644)
	errb.Reset()
	if code := run([]string{"clocks", zst}, &out, &errb); code == 0 || !strings.Contains(errb.String(), zst+": damaged zstd file") {
		t.Errorf("truncated games: exit %d, %q", code, errb.String())
	}
}
