package inspect

import (
	"encoding/xml"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/nnue"
	"github.com/nnuelab/nnuelab/nets"
	"github.com/nnuelab/nnuelab/nets/sfnet"
	_ "github.com/nnuelab/nnuelab/nets/sfnet/sf151" // exports Stockfish 15.1's net into the cache when missing
	"github.com/nnuelab/nnuelab/nets/train"
)

// tinyLinear is a chess768 design with 32 neurons and a clipped ReLU, small
// enough to build by hand.
const tinyLinear = `name = "tiny-linear"
description = "test: 768 -> 32x2 -> 1 (clipped ReLU)"
[net]
format = "nnuelab"
[features]
set = "chess768"
[accumulator]
width = 32
[head]
type = "linear"
activation = "crelu"
inputs = "stm+opp"
[quant]
qa = 255
qb = 64
scale = 400
[output]
perspective = "stm"
`

// tinySF12 is HalfKP with Stockfish 12's head on 32 neurons.
const tinySF12 = `name = "tiny-sf12"
description = "test: HalfKP -> 32x2 -> 32 -> 32 -> 1"
[net]
format = "sf12"
[features]
set = "halfkp"
[accumulator]
width = 32
[head]
type = "sf12"
layers = [32, 32, 1]
[quant]
qa = 127
qb = 64
weight_shift = 6
output_divisor = 16
[output]
perspective = "stm"
cp_num = 100
cp_den = 208
`

func parseSpec(t *testing.T, text string) *archs.Spec {
	t.Helper()
	spec, err := archs.Parse("test.toml", []byte(text))
	if err != nil {
		t.Fatal(err)
	}
	return spec
}

// ownQueenD1 is the chess768 feature of a White queen on d1 from White's
// view.
func ownQueenD1(t *testing.T, spec *archs.Spec) int {
	fs := nnue.NewFeatureSet(&spec.Features)
	return fs.Index(board.White, 4, board.MakePiece(board.White, board.Queen), 3)
}

// handLinear builds the tiny linear net whose answers are known: neuron 0
// saturates on every position (bias 2 > 1, the clip), neurons 1..15 sit at
// 0.5 (never zero, never saturated), neurons 16..31 are dead (bias -1, no
// weights); neuron 1 alone has a weight, 0.25 on the own queen on d1.
func handLinear(t *testing.T) (*Net, []nnue.Tensor) {
	spec := parseSpec(t, tinyLinear)
	const W = 32
	ftw := make([]float32, 768*W)
	ftw[ownQueenD1(t, spec)*W+1] = 0.25
	ftb := make([]float32, W)
	for j := range ftb {
		switch {
		case j == 0:
			ftb[j] = 2
		case j < 16:
			ftb[j] = 0.5
		default:
			ftb[j] = -1
		}
	}
	ow := make([]float32, 2*W)
	for j := range ow {
		ow[j] = float32(j%7) / 8
	}
	ts := []nnue.Tensor{
		{Name: "ft.weight", Shape: []int{768, W}, Data: ftw},
		{Name: "ft.bias", Shape: []int{W}, Data: ftb},
		{Name: "out.weight", Shape: []int{1, 2 * W}, Data: ow},
		{Name: "out.bias", Shape: []int{1}, Data: []float32{0.125}},
	}
	n, err := nnue.FromFloat(spec, ts)
	if err != nil {
		t.Fatal(err)
	}
	v, err := New("hand-linear", spec, n, ts)
	if err != nil {
		t.Fatal(err)
	}
	return v, ts
}

// handSF12 builds the tiny Stockfish 12 net: every transformer output is
// 0.5 (64 of 127), l1's neurons 0..15 are active and 16..31 dead (exactly
// half zero), every neuron of l2 saturates.
func handSF12(t *testing.T) *Net {
	spec := parseSpec(t, tinySF12)
	const W = 32
	feats := spec.Features.Size()
	ftb := make([]float32, W)
	for j := range ftb {
		ftb[j] = 0.5
	}
	b1 := make([]float32, 32)
	for i := range b1 {
		b1[i] = 0.5
		if i >= 16 {
			b1[i] = -0.5
		}
	}
	b2 := make([]float32, 32)
	for i := range b2 {
		b2[i] = 2
	}
	w1 := make([]float32, 32*2*W)
	w1[0] = 0.25 // one weight, so that the histograms have two values
	ts := []nnue.Tensor{
		{Name: "ft.weight", Shape: []int{feats, W}, Data: make([]float32, feats*W)},
		{Name: "ft.bias", Shape: []int{W}, Data: ftb},
		{Name: "l1.weight", Shape: []int{32, 2 * W}, Data: w1},
		{Name: "l1.bias", Shape: []int{32}, Data: b1},
		{Name: "l2.weight", Shape: []int{32, 32}, Data: make([]float32, 32*32)},
		{Name: "l2.bias", Shape: []int{32}, Data: b2},
		{Name: "out.weight", Shape: []int{1, 32}, Data: make([]float32, 32)},
		{Name: "out.bias", Shape: []int{1}, Data: []float32{0}},
	}
	n, err := nnue.FromFloat(spec, ts)
	if err != nil {
		t.Fatal(err)
	}
	v, err := New("hand-sf12", spec, n, ts)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// sampleReader opens the first positions of the committed validation set.
func sampleReader(t testing.TB) datasets.Reader {
	t.Helper()
	r, err := datasets.Open("../../datasets/fresh-val/fresh-sf500.bin")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestHandBuiltLinear: the statistics of a net whose answers are known by
// construction.
func TestHandBuiltLinear(t *testing.T) {
	v, _ := handLinear(t)
	const positions = 300
	a, err := Collect(v, sampleReader(t), "fresh-sf500", Options{Limit: positions, Threads: 2})
	if err != nil {
		t.Fatal(err)
	}
	if a.Positions != positions {
		t.Fatalf("%d positions, want %d", a.Positions, positions)
	}
	l := a.Layers[0]
	if l.Name != "ft (crelu)" || l.Units != 32 || l.Ceil != 255 {
		t.Fatalf("layer %q, %d units, ceiling %d", l.Name, l.Units, l.Ceil)
	}
	if l.Outputs != 2*32*positions {
		t.Errorf("%d outputs, want %d (two perspectives)", l.Outputs, 2*32*positions)
	}
	if l.ZeroShare() != 0.5 {
		t.Errorf("zero share %v, want exactly 0.5", l.ZeroShare())
	}
	if want := 1.0 / 32; l.SaturatedShare() != want {
		t.Errorf("saturated share %v, want %v (neuron 0 only)", l.SaturatedShare(), want)
	}
	var wantDead []int
	for j := 16; j < 32; j++ {
		wantDead = append(wantDead, j)
	}
	if got := l.Dead(); !slices.Equal(got, wantDead) {
		t.Errorf("dead %v, want %v", got, wantDead)
	}
	if got := l.AlwaysSaturated(); !slices.Equal(got, []int{0}) {
		t.Errorf("always saturated %v, want [0]", got)
	}
	// int16 outputs, two to a 4-byte group: groups 0..7 of each perspective
	// hold live neurons, 8..15 dead ones.
	if a.GroupValues != 2 || a.NonZeroGroupShare() != 0.5 {
		t.Errorf("groups of %d, %v non-zero; want 2 and 0.5", a.GroupValues, a.NonZeroGroupShare())
	}

	// The weights: the one non-zero weight is where it was put.
	ns := v.Neurons()
	if ns[0].Index != 1 || ns[0].Norm != 0.25 || ns[1].Norm != 0 {
		t.Errorf("neurons by norm start %v, want neuron 1 with 0.25 then zeros", ns[:2])
	}
	if f := v.TopFeatures(1)[0]; f.Plane != 4 || f.Square != 3 || f.Norm != 0.25 {
		t.Errorf("strongest feature %v (%g), want own queen d1 0.25", f, f.Norm)
	}
	b := v.Buckets()
	if len(b) != 1 {
		t.Fatalf("%d bucket views, want 1", len(b))
	}
	w, ok := v.Board(&b[0], 1)
	if w[4][3] != 0.25 || !ok[4][3] {
		t.Errorf("board of neuron 1: own queen d1 = %v (%v)", w[4][3], ok[4][3])
	}
	if ok[0][0] || ok[0][63] || !ok[0][8] {
		t.Error("pawns on the first and last ranks must show as no feature, on the second as one")
	}
	// Tensors: float values are the file's, quantized ones the engine's.
	ftb := v.Tensor("ft.bias")
	if ftb.Float(0) != 2 || ftb.Q(0) != 510 || !ftb.FromFloatFile() {
		t.Errorf("ft.bias[0] float %v quantized %d", ftb.Float(0), ftb.Q(0))
	}
	ob := v.Tensor("out.bias")
	if ob.Q(0) != 2040 || ob.Scale != 255*64 || ob.Bits != 32 {
		t.Errorf("out.bias %d at scale %v, %d bits; want 2040 = 0.125*255*64, int32", ob.Q(0), ob.Scale, ob.Bits)
	}
}

// TestHandBuiltSF12: Stockfish 12's layers, one exactly half zero with its
// dead neurons, one saturated throughout.
func TestHandBuiltSF12(t *testing.T) {
	v := handSF12(t)
	a, err := Collect(v, sampleReader(t), "fresh-sf500", Options{Limit: 200, Threads: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(a.Layers) != 3 {
		t.Fatalf("%d layers, want ft, l1, l2", len(a.Layers))
	}
	ft, l1, l2 := a.Layers[0], a.Layers[1], a.Layers[2]
	if ft.ZeroShare() != 0 || ft.SaturatedShare() != 0 || a.NonZeroGroupShare() != 1 || a.GroupValues != 4 {
		t.Errorf("ft: zero %v saturated %v, groups %v of %d; want 0, 0, 1, 4", ft.ZeroShare(), ft.SaturatedShare(), a.NonZeroGroupShare(), a.GroupValues)
	}
	if l1.ZeroShare() != 0.5 {
		t.Errorf("l1 zero share %v, want exactly 0.5", l1.ZeroShare())
	}
	if d := l1.Dead(); len(d) != 16 || d[0] != 16 || d[15] != 31 {
		t.Errorf("l1 dead %v, want 16..31", d)
	}
	if l2.SaturatedShare() != 1 || len(l2.AlwaysSaturated()) != 32 || len(l2.Dead()) != 0 {
		t.Errorf("l2 saturated %v, %d always, %d dead; want 1, 32, 0", l2.SaturatedShare(), len(l2.AlwaysSaturated()), len(l2.Dead()))
	}
	// The head's tensors come back unpadded with Stockfish's scales.
	w1 := v.Tensor("l1.weight")
	if w1 == nil || w1.Bits != 8 || w1.Scale != 64 || w1.Len() != 32*64 || w1.Q(0) != 16 {
		t.Fatalf("l1.weight: %+v", w1)
	}
	b1 := v.Tensor("l1.bias")
	if b1.Q(0) != 4064 || b1.Float(0) != 0.5 || b1.Q(16) != -4064 {
		t.Errorf("l1.bias %d %v %d, want 4064 = 0.5*127*64, 0.5, -4064", b1.Q(0), b1.Float(0), b1.Q(16))
	}
	if st := v.Tensor("l2.bias").Stats(); st.AtClip != 0 || st.QMax != 2*127*64 {
		t.Errorf("l2.bias stats %+v", st)
	}
	// HalfKP has 64 king buckets; a figure shows four, the own king on e1,
	// g1, c1 and e4.
	shown := v.ShownBuckets(5)
	var kings []string
	for _, b := range shown {
		kings = append(kings, b.King.String())
	}
	if strings.Join(kings, " ") != "e1 g1 c1 e4" || len(v.Buckets()) != 64 {
		t.Errorf("shown kings %v of %d buckets", kings, len(v.Buckets()))
	}
}

// TestActivationLimits: a weight at the storage type's limit counts as at
// the clip; a layer stack of Stockfish 15.1 counts per stack.
func TestActivationLimits(t *testing.T) {
	tn := &Tensor{Name: "x", Shape: []int{4}, Bits: 8, Scale: 64, q32: []int32{127, -127, -128, 5}}
	st := tn.Stats()
	if st.AtClip != 0.75 || tn.Limit() != 127.0/64 {
		t.Errorf("at clip %v (limit %v), want 0.75 and 127/64", st.AtClip, tn.Limit())
	}
	l := &ActLayer{Units: 2, Buckets: 2, Ceil: 10, Seen: make([]int64, 4), Active: make([]int64, 4), AtCeil: make([]int64, 4)}
	l.add([]int{0, 10}, 1)
	if l.Seen[2] != 1 || l.Seen[0] != 0 || l.AtCeil[3] != 1 || l.Unreached() != 2 {
		t.Errorf("per-stack counts %+v", l)
	}
	if l.UnitName(3) != "stack 1 #1" {
		t.Errorf("unit name %q", l.UnitName(3))
	}
}

// svgNode is a generic XML element.
type svgNode struct {
	XMLName  xml.Name
	Attrs    []xml.Attr `xml:",any,attr"`
	Children []svgNode  `xml:",any"`
	Text     string     `xml:",chardata"`
}

func (n *svgNode) attr(name string) string {
	for _, a := range n.Attrs {
		if a.Name.Local == name {
			return a.Value
		}
	}
	return ""
}

// texts returns every text under n.
func (n *svgNode) texts() []string {
	var out []string
	if n.XMLName.Local == "text" {
		out = append(out, strings.TrimSpace(n.Text))
	}
	for i := range n.Children {
		out = append(out, n.Children[i].texts()...)
	}
	return out
}

func parseSVG(t *testing.T, name string, data []byte) *svgNode {
	t.Helper()
	var root svgNode
	if err := xml.Unmarshal(data, &root); err != nil {
		t.Fatalf("%s: not valid XML: %v", name, err)
	}
	if root.XMLName.Local != "svg" || root.attr("viewBox") == "" {
		t.Fatalf("%s: root <%s> without viewBox, want <svg>", name, root.XMLName.Local)
	}
	return &root
}

// plotPanels returns the panels of a gonum figure: the translated groups
// directly under the canvas's root group.
func plotPanels(root *svgNode) []*svgNode {
	var out []*svgNode
	for i := range root.Children {
		g := &root.Children[i]
		if g.XMLName.Local != "g" {
			continue
		}
		for j := range g.Children {
			c := &g.Children[j]
			if c.XMLName.Local == "g" && strings.HasPrefix(c.attr("transform"), "translate(") {
				out = append(out, c)
			}
		}
	}
	return out
}

// checkPanels checks a gonum figure's panel count and that every panel has
// a title and both axis labels among its texts.
func checkPanels(t *testing.T, name string, data []byte, want int, yLabel string) {
	t.Helper()
	ps := plotPanels(parseSVG(t, name, data))
	if len(ps) != want {
		t.Errorf("%s: %d panels, want %d", name, len(ps), want)
	}
	for i, p := range ps {
		texts := strings.Join(p.texts(), "|")
		if !strings.Contains(texts, yLabel) {
			t.Errorf("%s panel %d: no y-axis label %q in %q", name, i, yLabel, texts)
		}
		if !strings.Contains(texts, "value") && !strings.Contains(texts, "layer") && !strings.Contains(texts, "share of a neuron") && !strings.Contains(texts, "net") {
			t.Errorf("%s panel %d: no x-axis label in %q", name, i, texts)
		}
	}
}

// TestFigures: every figure is valid SVG with the expected panels and
// labelled axes; a board figure has twelve boards per row and a legend.
func TestFigures(t *testing.T) {
	lin, _ := handLinear(t)
	sf := handSF12(t)
	aLin, err := Collect(lin, sampleReader(t), "fresh-sf500", Options{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	aSF, err := Collect(sf, sampleReader(t), "fresh-sf500", Options{Limit: 100})
	if err != nil {
		t.Fatal(err)
	}
	h, err := HistogramsSVG(lin)
	if err != nil {
		t.Fatal(err)
	}
	checkPanels(t, "linear histograms", h, 4*2, "share of values") // 4 tensors, float and quantized
	h, err = HistogramsSVG(sf)
	if err != nil {
		t.Fatal(err)
	}
	checkPanels(t, "sf12 histograms", h, 8*2, "share of values")
	act, err := ActivationsSVG(sf, aSF)
	if err != nil {
		t.Fatal(err)
	}
	ps := plotPanels(parseSVG(t, "sf12 activations", act))
	if len(ps) != 1+3 { // the bars, then one panel per layer
		t.Errorf("sf12 activations: %d panels, want 4", len(ps))
	}
	if texts := strings.Join(ps[0].texts(), "|"); !strings.Contains(texts, "share of outputs") || !strings.Contains(texts, "layer") {
		t.Errorf("activation bars lack axis labels: %q", texts)
	}
	for _, p := range ps[1:] {
		if texts := strings.Join(p.texts(), "|"); !strings.Contains(texts, "neurons") || !strings.Contains(texts, "share of a neuron's outputs") {
			t.Errorf("activity panel lacks axis labels: %q", texts)
		}
	}
	cmpH, err := CompareHistogramsSVG([]*Net{lin, sf})
	if err != nil {
		t.Fatal(err)
	}
	checkPanels(t, "compare histograms", cmpH, 2*4, "share of values") // two designs: first and output layers
	if same, err := CompareHistogramsSVG([]*Net{sf, sf}); err != nil {
		t.Fatal(err)
	} else {
		checkPanels(t, "compare histograms of one design", same, 2*8, "share of values") // every tensor
	}
	cmpA, err := CompareActivationsSVG([]*Net{lin, sf}, []*Activations{aLin, aSF})
	if err != nil {
		t.Fatal(err)
	}
	checkPanels(t, "compare activations", cmpA, 2, "share of")

	for _, v := range []*Net{lin, sf} {
		f := v.NeuronFigure(1, 5, 0.25, 1)
		root := parseSVG(t, v.Name+" board", f.SVG())
		boards := 0
		var rowLabels, legend []string
		for i := range root.Children {
			c := &root.Children[i]
			switch {
			case c.XMLName.Local == "g" && c.attr("class") == "board":
				boards++
			case c.XMLName.Local == "text" && c.attr("class") == "row-label":
				rowLabels = append(rowLabels, c.Text)
			case c.XMLName.Local == "text" && strings.HasPrefix(c.attr("class"), "legend"):
				legend = append(legend, c.Text)
			}
		}
		if want := 12 * len(f.Rows); boards != want || len(rowLabels) != len(f.Rows) {
			t.Errorf("%s: %d boards and %d row labels, want %d and %d", v.Name, boards, len(rowLabels), want, len(f.Rows))
		}
		if !slices.Contains(legend, "weight (float units)") || len(legend) != 6 {
			t.Errorf("%s: legend texts %q, want five ticks and the unit", v.Name, legend)
		}
	}
	if rows := len(sf.NeuronFigure(0, 5, 0, 1).Rows); rows != 4 {
		t.Errorf("HalfKP figure: %d rows, want 4 shown king buckets", rows)
	}
}

// TestPages: a page embeds every figure it writes and says where the
// numbers came from; stale figures go.
func TestPages(t *testing.T) {
	lin, _ := handLinear(t)
	a, err := Collect(lin, sampleReader(t), "fresh-sf500", Options{Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	if err := os.MkdirAll(filepath.Join(dir, "hand-linear"), 0o755); err != nil {
		t.Fatal(err)
	}
	stale := filepath.Join(dir, "hand-linear", "ft-neuron-99.svg")
	os.WriteFile(stale, []byte("<svg/>"), 0o644)
	s, err := WritePage(dir, lin, a, PageOptions{Top: 2, Command: "test"})
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(dir, "hand-linear.md"))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range s.Figures {
		if !strings.Contains(string(md), "(hand-linear/"+filepath.Base(f)+")") {
			t.Errorf("page does not embed %s", f)
		}
	}
	if len(s.Figures) != 1+2+1 {
		t.Errorf("%d figures, want histograms, 2 neurons, activations", len(s.Figures))
	}
	for _, want := range []string{"| ft (crelu) | 32 | 50.0% | 3.12% | 16: 16, 17,", "Sparse affine: 50.0%", "`ft.weight`"} {
		if !strings.Contains(string(md), want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if _, err := os.Stat(stale); !errors.Is(err, os.ErrNotExist) {
		t.Error("a stale figure survived")
	}
	if err := WriteCompare(dir, "both", []*Net{lin, handSF12(t)}, []*Activations{a, nil}, PageOptions{}); err != nil {
		t.Fatal(err)
	}
	if md, _ := os.ReadFile(filepath.Join(dir, "both.md")); !strings.Contains(string(md), "[hand-sf12](hand-sf12.md)") {
		t.Errorf("compare page:\n%s", md)
	}
}

// shippedBytes returns a shipped net's bytes by architecture.
func shippedBytes(t *testing.T, archName string) []byte {
	t.Helper()
	e, err := nets.Default(archName)
	if err != nil || e == nil {
		t.Fatalf("no shipped net for %s: %v", archName, err)
	}
	b, err := e.Bytes()
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBadNets: a corrupt or mismatched net, a plugin, bad data and float
// tensors that do not fit are clear errors.
func TestBadNets(t *testing.T) {
	dir := t.TempDir()
	leorik := shippedBytes(t, "leorik-3.1")
	truncated := filepath.Join(dir, "truncated.nnue")
	os.WriteFile(truncated, leorik[:len(leorik)/2], 0o644)
	whole := filepath.Join(dir, "leorik.nnue")
	os.WriteFile(whole, leorik, 0o644)
	chess := shippedBytes(t, "chess768")
	corrupt := append([]byte(nil), chess...)
	corrupt[len(corrupt)-100] ^= 0xff
	corruptPath := filepath.Join(dir, "corrupt.nnue.zst")
	os.WriteFile(corruptPath, corrupt, 0o644)
	rengarPath := filepath.Join(dir, "rengar.nnue.zst")
	os.WriteFile(rengarPath, shippedBytes(t, "rengar"), 0o644)

	for _, tc := range []struct {
		name, file string
		want       []string
	}{
		{"leorik-3.1", truncated, []string{truncated, "truncated"}},
		{"koivisto-7.4", whole, []string{whole, "koivisto-7.4"}},
		{"chess768", corruptPath, []string{corruptPath}},
		{"chess768", rengarPath, []string{"trained for architecture \"rengar\", not \"chess768\""}},
		{"leorik-3.1", filepath.Join(dir, "missing.nnue"), []string{"missing.nnue", "no such file"}},
		{"no-such-arch", "", []string{"unknown architecture \"no-such-arch\""}},
	} {
		_, err := Load(tc.name, tc.file)
		if err == nil {
			t.Errorf("Load(%s, %s) succeeded", tc.name, tc.file)
			continue
		}
		for _, w := range tc.want {
			if !strings.Contains(err.Error(), w) {
				t.Errorf("Load(%s, %s): %v; want it to say %q", tc.name, tc.file, err, w)
			}
		}
	}
	if _, err := Load("plugin:gofloat", ""); !errors.Is(err, ErrPlugin) || !strings.Contains(err.Error(), "no call that hands") {
		t.Errorf("plugin: %v", err)
	}

	// Float tensors that do not fit the network.
	v, ts := handLinear(t)
	bad := append([]nnue.Tensor(nil), ts...)
	bad[1] = nnue.Tensor{Name: "ft.bias", Shape: []int{16}, Data: make([]float32, 16)}
	if _, err := New("bad", v.Spec, v.Network, bad); err == nil || !strings.Contains(err.Error(), `float tensor "ft.bias" has 16 values, the network's has 32`) {
		t.Errorf("mismatched float tensor: %v", err)
	}
	// A dataset that is not one names the file.
	junk := filepath.Join(dir, "junk.bin")
	os.WriteFile(junk, []byte("NNUEPACK\x00\x01garbage that is no pack"), 0o644)
	if r, err := datasets.Open(junk); err == nil {
		_, err = Collect(v, r, junk, Options{})
		r.Close()
		if err == nil || !strings.Contains(err.Error(), "junk.bin") {
			t.Errorf("junk data: %v", err)
		}
	} else if !strings.Contains(err.Error(), "junk.bin") {
		t.Errorf("junk data: %v", err)
	}
	// A head without activation statistics is refused by name.
	sf17, err := archs.Load("sf17.1")
	if err != nil {
		t.Fatal(err)
	}
	if err := StatsFor(sf17); err == nil || !strings.Contains(err.Error(), `"sf17"`) || !strings.Contains(err.Error(), "sf17.1") {
		t.Errorf("sf17 statistics: %v", err)
	}
}

// tinyBucketed is Leorik's 5 king buckets with 32 neurons: the smallest
// factorizable design.
const tinyBucketed = `name = "tiny-bucketed"
description = "test: (768 x 5 king buckets -> 32) x2 -> 1"
[net]
format = "nnuelab"
[features]
set = "leorik"
[accumulator]
width = 32
[head]
type = "linear"
activation = "screlu"
inputs = "stm+opp"
[quant]
qa = 255
qb = 64
scale = 400
[output]
perspective = "stm"
`

// TestCheckpointVirtualRows: a training checkpoint of a factorized model
// keeps its virtual rows, which a figure shows in its own row; the real
// rows are folded as the trainer exports them.
func TestCheckpointVirtualRows(t *testing.T) {
	dir := t.TempDir()
	archPath := filepath.Join(dir, "tiny-bucketed.toml")
	os.WriteFile(archPath, []byte(tinyBucketed), 0o644)
	spec, err := archs.Load(archPath)
	if err != nil {
		t.Fatal(err)
	}
	m, err := train.NewModel(spec, 7, train.Factorized())
	if err != nil {
		t.Fatal(err)
	}
	real := spec.Features.Size()
	var ts []nnue.Tensor
	for _, p := range m.Params() {
		if p.Name == "ft.weight" {
			// Virtual row of the own queen on d1 (as bucket views index it):
			// a known value for neuron 3.
			fs := nnue.NewFeatureSet(&spec.Features)
			f := fs.Index(board.White, 0, board.MakePiece(board.White, board.Queen), 3) // king a1: no mirroring
			vrow := f%spec.Features.Stride() - spec.Features.PlaneOffset
			p.Data[(real+vrow)*32+3] = 0.375
		}
		ts = append(ts, nnue.Tensor{Name: p.Name, Shape: p.Shape, Data: p.Data},
			nnue.Tensor{Name: "adam.m/" + p.Name, Shape: p.Shape, Data: make([]float32, len(p.Data))})
	}
	ckpt := filepath.Join(dir, "tiny.ckpt")
	if err := nets.WriteFloat(ckpt, nets.Header{Arch: spec.Name, Training: map[string]string{"kind": "checkpoint"}}, ts); err != nil {
		t.Fatal(err)
	}
	v, err := Load(archPath, ckpt)
	if err != nil {
		t.Fatal(err)
	}
	if v.Virtual == nil || v.Virtual.Shape[0] != 768 || v.Virtual.Shape[1] != 32 {
		t.Fatalf("virtual rows %+v, want 768x32", v.Virtual)
	}
	views := v.Buckets()
	if len(views) != 5 {
		t.Fatalf("%d bucket views, want 5", len(views))
	}
	vw, ok := v.VirtualBoard(&views[0], 3)
	if !ok[4][3] || vw[4][3] != 0.375 {
		t.Errorf("virtual board: own queen d1 = %v (%v), want 0.375", vw[4][3], ok[4][3])
	}
	f := v.NeuronFigure(3, 5, 1, 1)
	if len(f.Rows) != 6 || f.Rows[5].Label != "virtual rows" {
		t.Errorf("figure rows %d (last %q), want 5 buckets and the virtual rows", len(f.Rows), f.Rows[len(f.Rows)-1].Label)
	}
	// The real rows are the folded ones: real + virtual.
	w, _ := v.Board(&views[0], 3)
	if w[4][3] < 0.3 {
		t.Errorf("folded own queen d1 weight %v, want the virtual 0.375 plus a small real weight", w[4][3])
	}
	// A trained net (no checkpoint) of the same file format loads as usual.
	if _, err := Load(archPath, filepath.Join(dir, "missing.ckpt")); err == nil {
		t.Error("a missing checkpoint loaded")
	}
}

// TestShippedNets: every shipped net loads, has its tensors in order and
// (but Rengar) activation statistics over a few positions.
func TestShippedNets(t *testing.T) {
	m, err := nets.Manifest()
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range m {
		v, err := Load(e.Name(), "")
		if err != nil {
			t.Errorf("%s: %v", e.Name(), err)
			continue
		}
		if v.Tensors[0].Name != "ft.weight" || v.Tensors[1].Name != "ft.bias" || len(v.Tensors) < 4 {
			t.Errorf("%s: tensors %v", e.Name(), tensorNames(v))
		}
		if e.Arch == "chess768" && !v.Tensor("ft.weight").FromFloatFile() {
			t.Errorf("%s: a float net's float values were not kept", e.Name())
		}
		if !Supported(v) {
			continue
		}
		a, err := Collect(v, sampleReader(t), "fresh-sf500", Options{Limit: 64})
		if err != nil {
			t.Errorf("%s: %v", e.Name(), err)
			continue
		}
		for _, l := range a.Layers {
			if l.Outputs == 0 || l.ZeroShare() < 0 || l.ZeroShare() > 1 {
				t.Errorf("%s %s: %d outputs, zero share %v", e.Name(), l.Name, l.Outputs, l.ZeroShare())
			}
		}
	}
}

// TestHeadParamsReproduceTrace: the head's tensors as HeadParams hands them
// over (unpadded, stack-major, with their scales) and the traced
// transformer output recompute the first dense layer the engine computed,
// for every head type that has one: Stockfish 12 (halfkp-128-first), a
// ReLU and an SCReLU linear head with output buckets (koivisto-7.4,
// leorik-3.2-first) and, when Stockfish 15.1 is installed, its layer stacks.
func TestHeadParamsReproduceTrace(t *testing.T) {
	names := []string{"halfkp-128-first", "koivisto-7.4", "leorik-3.2-first"}
	if _, err := sfnet.Cached151(); err == nil {
		names = append(names, "sf15.1")
	} else {
		t.Logf("sf15.1 skipped: %v", err)
	}
	for _, name := range names {
		v, err := Load(name, "")
		if err != nil {
			t.Fatal(err)
		}
		r := sampleReader(t)
		var tr nnue.Trace
		for i := 0; i < 50; i++ {
			rec, err := r.Next()
			if err != nil {
				t.Fatal(err)
			}
			p, err := rec.Position()
			if err != nil {
				t.Fatal(err)
			}
			v.Network.Evaluate(p, &tr)
			x := tr.Transformed
			switch v.Spec.Head.Type {
			case "sf12", "sf15":
				wName, bName := "l1.weight", "l1.bias"
				if v.Spec.Head.Type == "sf15" {
					wName, bName = "fc_0.weight", "fc_0.bias"
				}
				w, b := v.Tensor(wName), v.Tensor(bName)
				out, in := w.Shape[len(w.Shape)-2], w.Shape[len(w.Shape)-1]
				if in != len(x) {
					t.Fatalf("%s: %s has %d inputs, the trace %d", name, wName, in, len(x))
				}
				for o := 0; o < out; o++ {
					row := tr.Bucket*out + o
					sum := b.Q(row)
					for j, xv := range x {
						sum += w.Q(row*in+j) * int64(xv)
					}
					if int(sum) != tr.Layers[0][o] {
						t.Fatalf("%s position %d: %s output %d = %d from the tensors, %d traced", name, i, wName, o, sum, tr.Layers[0][o])
					}
				}
			case "linear":
				w, b := v.Tensor("out.weight"), v.Tensor("out.bias")
				per := w.Shape[len(w.Shape)-1]
				var sum int64
				for j, xv := range x {
					sum += w.Q(tr.Bucket*per+j) * int64(xv)
				}
				sum = int64(int32(sum))
				if v.Spec.Head.Activation == "screlu" {
					sum /= int64(v.Spec.Quant.QA)
				}
				sum += b.Q(tr.Bucket)
				if int32(sum) != tr.Positional {
					t.Fatalf("%s position %d: output %d from the tensors, %d traced", name, i, sum, tr.Positional)
				}
			}
		}
	}
}

// TestSF151Activations: Stockfish 15.1's layers as the statistics see them
// (needs Stockfish 15.1 installed, as every sf15.1 test): the pairwise
// products of both perspectives, then per layer stack fc_0's squared and
// clipped halves and fc_1, each position counted in its own stack only.
func TestSF151Activations(t *testing.T) {
	if _, err := sfnet.Cached151(); err != nil {
		t.Skipf("Stockfish 15.1's net: %v", err)
	}
	v, err := Load("sf15.1", "")
	if err != nil {
		t.Fatal(err)
	}
	const n = 300
	a, err := Collect(v, sampleReader(t), "fresh-sf500", Options{Limit: n})
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, l := range a.Layers {
		names = append(names, l.Name)
	}
	if strings.Join(names, "|") != "ft (pairwise product)|fc_0 (squared)|fc_0 (clipped ReLU)|fc_1 (clipped ReLU)" {
		t.Fatalf("layers %q", names)
	}
	ft := a.Layers[0]
	if ft.Units != 512 || ft.Ceil != 126 || ft.Outputs != 2*512*n {
		t.Errorf("ft: %d units, ceiling %d, %d outputs", ft.Units, ft.Ceil, ft.Outputs)
	}
	if a.GroupValues != 4 || a.Groups != 1024/4*n {
		t.Errorf("%d groups of %d values, want %d of 4", a.Groups, a.GroupValues, 1024/4*n)
	}
	for _, l := range a.Layers[1:] {
		if l.Buckets != 8 || l.Ceil != 127 {
			t.Errorf("%s: %d stacks, ceiling %d", l.Name, l.Buckets, l.Ceil)
		}
		// Each position reaches every unit of one stack once.
		var seen int64
		for s := 0; s < l.Buckets; s++ {
			seen += l.Seen[s*l.Units]
			for u := 1; u < l.Units; u++ {
				if l.Seen[s*l.Units+u] != l.Seen[s*l.Units] {
					t.Fatalf("%s stack %d: units seen %d and %d times", l.Name, s, l.Seen[s*l.Units+u], l.Seen[s*l.Units])
				}
			}
		}
		if seen != n {
			t.Errorf("%s: the stacks saw %d positions, want %d", l.Name, seen, n)
		}
	}
}
