package nnue

import (
	"bufio"
	"compress/gzip"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board"
)

// loadTestNet reads a net from testdata, gunzipping *.gz.
func loadTestNet(t testing.TB, archName, file string) *Network {
	t.Helper()
	spec, err := archs.Load(archName)
	if err != nil {
		t.Fatal(err)
	}
	f, err := os.Open("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var r io.Reader = f
	if strings.HasSuffix(file, ".gz") {
		gz, err := gzip.NewReader(f)
		if err != nil {
			t.Fatal(err)
		}
		r = gz
	}
	n, err := Read(spec, r)
	if err != nil {
		t.Fatalf("%s with arch %s: %v", file, archName, err)
	}
	return n
}

// readTSV returns the rows of a reference TSV as column-name -> value maps.
func readTSV(t testing.TB, file string) []map[string]string {
	t.Helper()
	f, err := os.Open("testdata/" + file)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	sc.Scan()
	header := strings.Split(sc.Text(), "\t")
	var rows []map[string]string
	for sc.Scan() {
		cols := strings.Split(sc.Text(), "\t")
		row := map[string]string{}
		for i, h := range header {
			if i < len(cols) {
				row[h] = cols[i]
			}
		}
		rows = append(rows, row)
	}
	if len(rows) != 3000 {
		t.Fatalf("%s: %d rows, want 3000", file, len(rows))
	}
	return rows
}

func atoi(t testing.TB, s string) int64 {
	t.Helper()
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("bad number %q", s)
	}
	return v
}

// TestLinearExact checks the Koivisto and Leorik designs against their
// engines' outputs on all 3000 reference positions, from scratch and
// incrementally.
func TestLinearExact(t *testing.T) {
	tests := []struct {
		arch, net, tsv string
		rawCol         string // column holding the pre-division sum, if any
	}{
		{"koivisto-7.4", "../../../nets/koivisto-7.4.net", "koivisto-evals.tsv", "raw_output"},
		{"koivisto-5.13", "../../../nets/koivisto-5.1.net", "koivisto-v5.13-evals.tsv", "raw_output"},
		{"koivisto-16", "koivisto-9.2-synthetic16.net.gz", "koivisto-9.2-synthetic16-evals.tsv", "raw_output"},
		{"leorik-3.1", "../../../nets/leorik-3.1-640HL-S-5288M-Tmix-Q5-v19.nnue", "leorik-3.1-pyref-evals.tsv", ""},
	}
	for _, tc := range tests {
		t.Run(tc.arch, func(t *testing.T) {
			n := loadTestNet(t, tc.arch, tc.net)
			ev := NewEvaluator(n)
			bad := 0
			for _, row := range readTSV(t, tc.tsv) {
				p, err := board.ParseFEN(row["fen"])
				if err != nil {
					t.Fatal(err)
				}
				var tr Trace
				got := n.Evaluate(p, &tr)
				if want := atoi(t, row["eval"]); int64(got) != want {
					bad++
					if bad <= 5 {
						t.Errorf("%s: eval %d, want %d", row["fen"], got, want)
					}
				}
				if tc.rawCol != "" {
					if want := atoi(t, row[tc.rawCol]); int64(tr.Positional) != want {
						bad++
						if bad <= 5 {
							t.Errorf("%s: raw %d, want %d", row["fen"], tr.Positional, want)
						}
					}
				}
				ev.Reset(p)
				if inc := ev.Raw(p, nil); inc != got {
					t.Fatalf("%s: evaluator %d, from scratch %d", row["fen"], inc, got)
				}
			}
			if bad > 0 {
				t.Fatalf("%d mismatches", bad)
			}
		})
	}
}
