package metrics

import (
	"bufio"
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/engine/nnue"
	"github.com/nnuelab/nnuelab/experiments/data"
	"github.com/nnuelab/nnuelab/experiments/internal/exptest"
	"github.com/nnuelab/nnuelab/nets"
	_ "github.com/nnuelab/nnuelab/nets/sfnet/sf151" // exports Stockfish 15.1's net into the cache when missing
	"github.com/nnuelab/nnuelab/nets/train"
)

func near(a, b, tol float64) bool { return math.Abs(a-b) <= tol }

func TestAgreement(t *testing.T) {
	for _, tc := range []struct {
		name          string
		cp, sf        []float64
		scale, mae    float64
		unscaled, sgn float64
	}{
		// Stockfish's numbers are exactly twice ours: the fit absorbs it.
		{"scaled copy", []float64{100, -50, 0, 200}, []float64{200, -100, 0, 400}, 2, 0, 87.5, 1},
		// a = (1*1 + 2*3)/(1+4) = 1.4; |1-1.4| + |3-2.8| = 0.6 over 2.
		{"fit", []float64{1, 2}, []float64{1, 3}, 1.4, 0.3, 0.5, 1},
		// Signs: (+,+) agree, (-,+) disagree, (0,0) agree, (0,-) disagree.
		{"signs", []float64{10, -10, 0, 0}, []float64{10, 10, 0, -10}, 0, 7.5, 7.5, 0.5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := agreementOf(tc.cp, tc.sf)
			if a.N != len(tc.cp) || !near(a.Scale, tc.scale, 1e-12) || !near(a.MAE, tc.mae, 1e-12) ||
				!near(a.MAEUnscaled, tc.unscaled, 1e-12) || !near(a.Sign, tc.sgn, 1e-12) {
				t.Errorf("agreement = %+v; want scale %v mae %v unscaled %v sign %v", a, tc.scale, tc.mae, tc.unscaled, tc.sgn)
			}
		})
	}
	if c := pearson([]float64{1, 2, 3}, []float64{-2, -4, -6}); !near(c, -1, 1e-12) {
		t.Errorf("pearson of a reversed line = %v", c)
	}
}

func TestLossOf(t *testing.T) {
	// White to move, score +100 (White), White won; and the same position
	// seen with Black to move (score and result turn to Black's view).
	w, err := datasets.ParseText("4k3/8/8/8/8/8/4P3/4K3 w - - 0 1 [1.0] 100")
	if err != nil {
		t.Fatal(err)
	}
	b, err := datasets.ParseText("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1 [1.0] 100")
	if err != nil {
		t.Fatal(err)
	}
	d, err := datasets.ParseText("4k3/8/8/8/8/8/4P3/4K3 b - - 0 1 [0.5] 100")
	if err != nil {
		t.Fatal(err)
	}
	l := train.Loss{Kind: "mpe", Power: 2.5, Scale: 2.5 / 400, Lambda: 0.5}
	sig := func(x float64) float64 { return 1 / (1 + math.Exp(-x)) }
	for _, tc := range []struct {
		name string
		l    train.Loss
		rec  *datasets.Record
		cp   float64
		want float64
	}{
		{"mpe white", l, &w, 50, math.Pow(math.Abs(sig(50*l.Scale)-(0.5*sig(100*l.Scale)+0.5*1)), 2.5)},
		{"mpe black", l, &b, -50, math.Pow(math.Abs(sig(-50*l.Scale)-(0.5*sig(-100*l.Scale)+0.5*0)), 2.5)},
		{"mse", train.Loss{Kind: "mse", Power: 2, Scale: l.Scale, Lambda: 1}, &w, 0, math.Pow(0.5-sig(100*l.Scale), 2)},
		{"result win", train.Loss{Kind: "result", Power: 1, Scale: 1.0 / 128, Lambda: 0}, &w, 64, math.Log1p(math.Exp(-0.5))},
		{"result loss", train.Loss{Kind: "result", Power: 1, Scale: 1.0 / 128, Lambda: 0}, &b, 64, math.Log1p(math.Exp(0.5))},
		{"result draw", train.Loss{Kind: "result", Power: 1, Scale: 1.0 / 128, Lambda: 0}, &d, 64, (math.Log1p(math.Exp(0.5)) + math.Log1p(math.Exp(-0.5))) / 2},
	} {
		if got := lossOf(tc.l, tc.cp, tc.rec); !near(got, tc.want, 1e-12) {
			t.Errorf("%s: loss %v, want %v", tc.name, got, tc.want)
		}
	}
}

// TestKoivistoFloat reads Koivisto 5.1's float net as tensors: quantized by
// nnue.FromFloat they must give exactly the network nnue's own reader
// builds (for both multiplier pairs), and the float model must stay within
// a few centipawns of it.
func TestKoivistoFloat(t *testing.T) {
	ps, err := data.ReadPositions(data.BuiltinPositions, 300)
	if err != nil {
		t.Fatal(err)
	}
	base, err := archs.Load("koivisto-5.13")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(exptest.Root(), "nets", "koivisto-5.1.net")
	for _, ov := range [][]string{nil, {"quant.qa=64", "quant.qb=512"}, {"quant.qa=32", "quant.qb=128"}} {
		spec, err := base.Override(ov...)
		if err != nil {
			t.Fatal(err)
		}
		fn, why, err := floatTensors(spec, path)
		if err != nil || fn == nil || fn.qat {
			t.Fatalf("%v: %v %s", ov, err, why)
		}
		fromTensors, err := nnue.FromFloat(spec, fn.tensors)
		if err != nil {
			t.Fatal(err)
		}
		reader, err := nnue.LoadFile(spec, path)
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range ps {
			if a, b := fromTensors.Evaluate(p.Pos, nil), reader.Evaluate(p.Pos, nil); a != b {
				t.Fatalf("%v: line %d: tensors give %d, nnue's reader %d", ov, p.Line, a, b)
			}
		}
		q, err := quantErrorOf(spec, reader, fn, ps)
		if err != nil {
			t.Fatal(err)
		}
		if q.N != len(ps) || q.Mean <= 0 || q.Mean > 5 || q.Max > 50 {
			t.Errorf("%v: implausible quantization error %+v", ov, q)
		}
		t.Logf("%v: quantization error mean %.3f cp, max %.2f cp, bias %+.3f cp", ov, q.Mean, q.Max, q.Bias)
	}
	if _, why, err := floatTensors(base, ""); err != nil || why == "" {
		t.Errorf("shipped float net without a path: %q, %v", why, err)
	}
	k74, _ := archs.Load("koivisto-7.4")
	if fn, why, err := floatTensors(k74, "x"); fn != nil || err != nil || !strings.Contains(why, "quantized") {
		t.Errorf("int16 net: %v %q %v", fn, why, err)
	}
}

// TestQuantErrorQAT: a net trained with quantization-aware training is
// compared with the float model as it was trained (its head rounded to the
// grid), not with the optimizer's unrounded values. The test moves every
// first-layer weight of a HalfKP net 0.4 of a grid step off its grid point:
// that offset rounds away in the engine and in the QAT model alike, so only
// the plain float model sees it.
func TestQuantErrorQAT(t *testing.T) {
	shipped, err := archs.Load("halfkp-128")
	if err != nil {
		t.Fatal(err)
	}
	spec, err := shipped.Override(`net.format="nnuelab"`) // as the runner loads a trained net
	if err != nil {
		t.Fatal(err)
	}
	model, err := train.NewModel(spec, 1)
	if err != nil {
		t.Fatal(err)
	}
	ts := model.Tensors()
	step := 1 / float32(int(1)<<spec.Quant.WeightShift)
	for i := range ts {
		if ts[i].Name == "l1.weight" {
			for j := range ts[i].Data {
				ts[i].Data[j] = float32(math.Round(float64(ts[i].Data[j]/step)))*step + 0.4*step
			}
		}
	}
	net, err := nnue.FromFloat(spec, ts)
	if err != nil {
		t.Fatal(err)
	}
	ps, err := data.ReadPositions(data.BuiltinPositions, 200)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	errs := map[string]*QuantError{}
	for _, qat := range []string{"on", "off", ""} {
		path := filepath.Join(dir, "net-"+qat+".nnue.zst")
		h := nets.Header{Arch: spec.Name}
		if qat != "" {
			h.Training = map[string]string{"config": `{"arch":"halfkp-128","qat":"` + qat + `"}`}
		}
		if err := nets.WriteFloat(path, h, ts); err != nil {
			t.Fatal(err)
		}
		fn, why, err := floatTensors(spec, path)
		if err != nil || fn == nil {
			t.Fatalf("qat %q: %v %s", qat, err, why)
		}
		if fn.qat != (qat == "on") {
			t.Errorf("qat %q in the header read as %v", qat, fn.qat)
		}
		if errs[qat], err = quantErrorOf(spec, net, fn, ps); err != nil {
			t.Fatal(err)
		}
		t.Logf("qat %q: mean %.3f cp, max %.2f cp, bias %+.3f cp", qat, errs[qat].Mean, errs[qat].Max, errs[qat].Bias)
	}
	if on, off := errs["on"], errs["off"]; !(on.Mean < off.Mean/4) {
		t.Errorf("QAT reference: mean error %.3f cp, plain reference %.3f cp: the QAT model should be far closer to the engine", on.Mean, off.Mean)
	}
	if *errs[""] != *errs["off"] {
		t.Errorf("a header without a config should read as no QAT")
	}
}

// TestBuiltinStockfishEvals checks the built-in table against nnuelab's
// sf15.1 evaluation (when Stockfish 15.1 is installed to export its net)
// and against Stockfish's own output (when the team's reference folder is
// there).
func TestBuiltinStockfishEvals(t *testing.T) {
	raw, err := data.BuiltinStockfishRaw()
	if err != nil {
		t.Fatal(err)
	}
	ps, err := data.ReadPositions(data.BuiltinPositions, 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(raw) != len(ps) || len(ps) != 3000 {
		t.Fatalf("%d evaluations for %d positions", len(raw), len(ps))
	}
	checked := false
	if f, err := os.Open(filepath.Join(exptest.Root(), "..", "shared", "reference", "sf15.1-nnue-evals.tsv")); err == nil {
		sc := bufio.NewScanner(f)
		sc.Scan() // header
		for i := 0; sc.Scan(); i++ {
			cols := strings.Split(sc.Text(), "\t")
			v, _ := strconv.Atoi(cols[len(cols)-1])
			if cols[0] != ps[i].FEN || int32(v) != raw[i] {
				t.Fatalf("line %d: Stockfish's reference says %s %d, built-in %s %d", i+1, cols[0], v, ps[i].FEN, raw[i])
			}
		}
		f.Close()
		checked = true
	}
	spec, _ := archs.Load("sf15.1")
	if net, err := nets.Load(spec, ""); err == nil {
		for i, p := range ps {
			if got := net.Evaluate(p.Pos, nil); got != raw[i] {
				t.Fatalf("line %d: sf15.1 arch gives %d, table %d", p.Line, got, raw[i])
			}
		}
		checked = true
	} else {
		t.Logf("sf15.1 net unavailable: %v", err)
	}
	if !checked {
		t.Skip("neither Stockfish 15.1 nor the reference folder is available to check the table against")
	}
}

// TestTraceReplay records a search's evaluator calls and replays them: the
// base reproduces every evaluation, and an evaluator with another history
// depth replaying the trace ends with exactly the counters of a real
// search with that depth (the trace is the search, call for call).
func TestTraceReplay(t *testing.T) {
	ps, err := data.ReadPositions(data.BuiltinPositions, 0)
	if err != nil {
		t.Fatal(err)
	}
	ps = SearchPositions(ps, 4)
	spec, _ := archs.Load("koivisto-7.4")
	net, err := nets.Load(spec, "")
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	tr, err := recordTrace(ctx, net, ps, 3000)
	if err != nil {
		t.Fatal(err)
	}
	if tr.Evals == 0 {
		t.Fatal("empty trace")
	}
	for _, h := range []int{0, 1, 2, 5} {
		s, err := spec.Override("history=" + strconv.Itoa(h))
		if err != nil {
			t.Fatal(err)
		}
		ev := nnue.NewEvaluatorWith(net, h, false)
		if _, _, err := replay([]*nnue.Evaluator{ev}, tr, true); err != nil {
			t.Fatalf("H=%d: %v", h, err)
		}
		// The search side loads the net with the variant's spec, as the
		// runner does: the history depth comes from the spec alone.
		ns, err := nets.Load(s, "")
		if err != nil {
			t.Fatal(err)
		}
		want, _, err := historyShares(ctx, ns, ps, 3000)
		if err != nil {
			t.Fatal(err)
		}
		got := sharesOf(ev.Stats(), want.Nodes)
		if !reflect.DeepEqual(got, want) {
			t.Errorf("H=%d: replayed counters %+v, search %+v", h, got, want)
		}
	}
}

func TestSharesOf(t *testing.T) {
	var st nnue.Stats
	st.Served[1], st.Served[2], st.Served[9], st.Served[64] = 70, 20, 3, 2
	st.Refreshes, st.CacheHits = 5, 4
	sh := sharesOf(st, 1000)
	want := &Shares{Nodes: 1000, Updates: 100, Served: []uint64{70, 20, 0, 0, 0, 0, 0, 0}, Deeper: 5, Refreshes: 5, CacheHits: 4}
	if !reflect.DeepEqual(sh, want) {
		t.Errorf("sharesOf = %+v, want %+v", sh, want)
	}
}

func TestReadPositionsErrors(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.epd")
	os.WriteFile(bad, []byte("# comment\n\n8/8/8/8/8/8/8/8 w - - 0 1\n"), 0o644)
	if _, err := data.ReadPositions(bad, 0); err == nil || !strings.Contains(err.Error(), "bad.epd line 3") {
		t.Errorf("bad position: %v", err)
	}
	empty := filepath.Join(dir, "empty.epd")
	os.WriteFile(empty, []byte("# nothing\n"), 0o644)
	if _, err := data.ReadPositions(empty, 0); err == nil || !strings.Contains(err.Error(), "no positions") {
		t.Errorf("empty file: %v", err)
	}
	if ps, err := data.ReadPositions(data.BuiltinPositions, 10); err != nil || len(ps) != 10 {
		t.Errorf("limit: %d, %v", len(ps), err)
	}
}
