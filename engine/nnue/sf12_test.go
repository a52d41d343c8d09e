package nnue

import (
	"bufio"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board"
)

// TestSFHashes checks the hash scheme against the constants the specs
// list: the readers derive the expected hashes from the arch sizes.
func TestSFHashes(t *testing.T) {
	for _, tc := range []struct {
		what      string
		got, want uint32
	}{
		{"halfkp FT", sfFTHash(sfFeatureHash["halfkp"], 256), 0x5D69D7B8},
		{"halfkp slice", sfInputSliceHash(256), 0xEC42EB0D},
		{"halfkp affine 1", sfDenseHash(256, []int{32}), 0x3A22AE82},
		{"halfkp relu 1", sfReLUHash(sfDenseHash(256, []int{32})), 0x8DAFD349},
		{"halfkp affine 2", sfDenseHash(256, []int{32, 32}), 0x0AD432A0},
		{"halfkp dense", sfDenseHash(256, []int{32, 32, 1}), 0x63337156},
		{"halfkp whole", sfFTHash(sfFeatureHash["halfkp"], 256) ^ sfDenseHash(256, []int{32, 32, 1}), 0x3E5AA6EE},
		{"sf15.1 FT", sfFTHash(sfFeatureHash["halfkav2_hm"], 1024), 0x7F2344B8},
		{"sf15.1 stack", sfDenseHash(1024, []int{16, 32, 1}), 0x63336A4A},
		{"sf15.1 whole", sfFTHash(sfFeatureHash["halfkav2_hm"], 1024) ^ sfDenseHash(1024, []int{16, 32, 1}), 0x1C102EF2},
	} {
		if tc.got != tc.want {
			t.Errorf("%s hash 0x%08X, want 0x%08X", tc.what, tc.got, tc.want)
		}
	}
}

// TestStockfishFeatureIndices checks the feature sets of archs/halfkp.toml
// and archs/sf15.1.toml against the specs' worked examples and tables.
func TestStockfishFeatureIndices(t *testing.T) {
	load := func(name string) *FeatureSet {
		spec, err := archs.Load(name)
		if err != nil {
			t.Fatal(err)
		}
		return NewFeatureSet(&spec.Features)
	}
	W, B := board.White, board.Black
	wp, bp := board.MakePiece(W, board.Pawn), board.MakePiece(B, board.Pawn)
	wk, bk := board.MakePiece(W, board.King), board.MakePiece(B, board.King)
	sq := func(s string) board.Square { return board.MakeSquare(int(s[0]-'a'), int(s[1]-'1')) }

	kp := load("halfkp")
	if kp.Size() != 41024 {
		t.Errorf("halfkp size %d, want 41024", kp.Size())
	}
	for _, tc := range []struct {
		persp    board.Color
		king     string
		pc       board.Piece
		on       string
		want     int
		example  string
		hasIndex bool
	}{
		{W, "e1", wp, "a2", 2573, "white pawn a2, White's view", true},
		{B, "e8", bp, "a7", 1939, "black pawn a7, Black's view (own)", true},
		{B, "e8", wp, "a2", 2043, "white pawn a2, Black's view (enemy)", true},
		{W, "e1", wk, "e1", -1, "own king is no feature", false},
		{W, "e1", bk, "e8", -1, "enemy king is no feature", false},
	} {
		if got := kp.Index(tc.persp, sq(tc.king), tc.pc, sq(tc.on)); got != tc.want {
			t.Errorf("halfkp %s: index %d, want %d", tc.example, got, tc.want)
		}
	}

	hm := load("sf15.1")
	if hm.Size() != 22528 || hm.KingBuckets() != 32 {
		t.Errorf("halfkav2_hm size %d with %d king buckets, want 22528 and 32", hm.Size(), hm.KingBuckets())
	}
	// The spec's king-bucket table over the actual king square, White's
	// view, rank 8 first.
	table := [8][8]int{
		{0, 1, 2, 3, 3, 2, 1, 0},
		{4, 5, 6, 7, 7, 6, 5, 4},
		{8, 9, 10, 11, 11, 10, 9, 8},
		{12, 13, 14, 15, 15, 14, 13, 12},
		{16, 17, 18, 19, 19, 18, 17, 16},
		{20, 21, 22, 23, 23, 22, 21, 20},
		{24, 25, 26, 27, 27, 26, 25, 24},
		{28, 29, 30, 31, 31, 30, 29, 28},
	}
	for s := board.Square(0); s < 64; s++ {
		want := table[7-s.Rank()][s.File()]
		// The own king's plane-10 feature: 704*kb + 640 + oriented square.
		for _, c := range []board.Color{W, B} {
			k := s
			if c == B {
				k = s ^ 56 // Black looks the table up with K ^ 56
			}
			o := s // k ^ flip: the oriented king square, before mirroring
			if o.File() <= 3 {
				o ^= 7
			}
			got := hm.Index(c, k, board.MakePiece(c, board.King), k)
			if w := 704*want + 640 + int(o); got != w {
				t.Fatalf("halfkav2_hm: %v king on %v: own-king index %d, want %d (bucket %d)", c, k, got, w, want)
			}
		}
	}
	for _, tc := range []struct {
		persp   board.Color
		king    string
		pc      board.Piece
		on      string
		want    int
		example string
	}{
		{W, "e1", wp, "a2", 704*31 + 8, "white pawn a2, White's view, king e1 (bucket 31)"},
		{B, "e8", bp, "a7", 704*31 + 8, "black pawn a7, Black's view, king e8 (flip)"},
		{B, "e8", wk, "e1", 704*31 + 640 + 60, "white king e1 in Black's view (shared king plane)"},
		{W, "d1", wp, "a2", 704*31 + 15, "king d1 mirrors the files: a2 -> h2"},
		{W, "e1", bp, "a7", 704*31 + 64 + 48, "black pawn a7, White's view (enemy plane 1)"},
		{W, "h8", board.MakePiece(B, board.Queen), "c3", 704*0 + 64*9 + 18, "enemy queen c3, king h8 (bucket 0)"},
	} {
		if got := hm.Index(tc.persp, sq(tc.king), tc.pc, sq(tc.on)); got != tc.want {
			t.Errorf("halfkav2_hm %s: index %d, want %d", tc.example, got, tc.want)
		}
	}
}

// TestSF12Exact checks every row of halfkp-synthetic-evals.tsv (Stockfish
// 12's NNUE::evaluate with the synthetic net), from scratch and through the
// incremental evaluator.
func TestSF12Exact(t *testing.T) {
	n := synthSF12Net(t)
	ev := NewEvaluator(n)
	bad := 0
	for _, row := range readTSV(t, "halfkp-synthetic-evals.tsv") {
		p, err := board.ParseFEN(row["fen"])
		if err != nil {
			t.Fatal(err)
		}
		want := atoi(t, row["nnue"])
		got := n.Evaluate(p, nil)
		ev.Reset(p)
		inc := ev.Raw(p, nil)
		if int64(got) != want || inc != got {
			bad++
			if bad <= 5 {
				t.Errorf("%s: from scratch %d, incremental %d, want %d", row["fen"], got, inc, want)
			}
		}
	}
	if bad > 0 {
		t.Fatalf("%d of 3000 rows differ", bad)
	}
}

// TestSF12Trace compares every intermediate value of the five positions of
// halfkp-synthetic-trace.txt: active features, accumulators, transformed
// vector, both hidden layers before and after the activation, the output.
func TestSF12Trace(t *testing.T) {
	n := synthSF12Net(t)
	h := n.head.(*sf12Head)
	f, err := os.Open("testdata/halfkp-synthetic-trace.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	blocks := 0
	var p *board.Position
	var tr Trace
	var acc [2][]int16
	check := func(key string, got []int, want []string) {
		t.Helper()
		w := make([]int, len(want))
		for i, s := range want {
			if w[i], err = strconv.Atoi(s); err != nil {
				t.Fatalf("%s: bad value %q", key, s)
			}
		}
		if !slices.Equal(got, w) {
			t.Errorf("%s: %s differs\n got %v\nwant %v", p.FEN(), key, got, w)
		}
	}
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || line == "" {
			continue
		}
		key, rest, _ := strings.Cut(line, " ")
		vals := strings.Fields(rest)
		switch key {
		case "fen":
			if p, err = board.ParseFEN(rest); err != nil {
				t.Fatal(err)
			}
			n.Evaluate(p, &tr)
			acc, _ = scratchAccumulators(n, p)
		case "idx_white", "idx_black":
			c := board.White
			if key == "idx_black" {
				c = board.Black
			}
			got := n.Features.Active(p, c, nil)
			sort.Ints(got)
			check(key, got, vals)
		case "acc_white":
			check(key, ints16(acc[board.White]), vals)
		case "acc_black":
			check(key, ints16(acc[board.Black]), vals)
		case "x":
			x := make([]uint8, 2*n.Width)
			us := p.SideToMove()
			h.transform(x, acc[us], acc[us.Other()])
			check(key, ints8(x), vals)
		case "l1_pre":
			check(key, tr.Layers[0], vals)
		case "l1_out":
			check(key, tr.Layers[1], vals)
		case "l2_pre":
			check(key, tr.Layers[2], vals)
		case "l2_out":
			check(key, tr.Layers[3], vals)
		case "out":
			check(key, []int{int(tr.Positional)}, vals)
		case "nnue":
			check(key, []int{int(tr.Raw)}, vals)
		case "endtrace":
			blocks++
		default:
			t.Fatalf("unknown trace key %q", key)
		}
	}
	if blocks != 5 {
		t.Fatalf("%d trace blocks, want 5", blocks)
	}
}

func ints16(v []int16) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(x)
	}
	return out
}
