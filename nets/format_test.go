package nets

import (
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/nnue"
)

func randomChess768(rng *rand.Rand, scale float32) []nnue.Tensor {
	u := func(n int) []float32 {
		d := make([]float32, n)
		for i := range d {
			d[i] = (2*rng.Float32() - 1) * scale
		}
		return d
	}
	return []nnue.Tensor{
		{Name: "ft.weight", Shape: []int{768, 256}, Data: u(768 * 256)},
		{Name: "ft.bias", Shape: []int{256}, Data: u(256)},
		{Name: "out.weight", Shape: []int{1, 512}, Data: u(512)},
		{Name: "out.bias", Shape: []int{1}, Data: u(1)},
	}
}

func TestFloatNetRoundTrip(t *testing.T) {
	spec, _ := archs.Load("chess768")
	dir := t.TempDir()
	path := filepath.Join(dir, "x.nnue.zst")
	tensors := randomChess768(rand.New(rand.NewPCG(1, 2)), 0.5)
	if err := WriteFloat(path, Header{Arch: "chess768", Training: map[string]string{"lr": "0.001"}}, tensors); err != nil {
		t.Fatal(err)
	}
	f, _ := os.Open(path)
	h, back, err := ReadFloat(f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	if h.Arch != "chess768" || h.Training["lr"] != "0.001" || len(back) != 4 {
		t.Fatalf("header %+v, %d tensors", h, len(back))
	}
	for i := range tensors {
		for j := range tensors[i].Data {
			if back[i].Data[j] != tensors[i].Data[j] {
				t.Fatalf("tensor %s[%d] changed", tensors[i].Name, j)
			}
		}
	}
	n, err := LoadFloat(spec, path)
	if err != nil {
		t.Fatal(err)
	}
	// Quantized at load with the TOML's multipliers: QA for the feature
	// transformer, QB for the output weights, QA*QB for the output bias.
	if got, want := n.FTWeights[5], int16(roundHalfAway(tensors[0].Data[5]*255)); got != want {
		t.Fatalf("ft.weight[5] quantized to %d, want %d", got, want)
	}
	// A different multiplier changes the network without retraining.
	spec2, err := spec.Override("quant.qa=128")
	if err != nil {
		t.Fatal(err)
	}
	n2, err := LoadFloat(spec2, path)
	if err != nil {
		t.Fatal(err)
	}
	if n2.FTWeights[5] != int16(roundHalfAway(tensors[0].Data[5]*128)) {
		t.Fatalf("override of quant.qa not applied at load")
	}
	p := board.StartPosition()
	if n.Evaluate(p, nil) == 0 && n2.Evaluate(p, nil) == 0 {
		t.Fatalf("both evaluate to 0: test net too weak to mean anything")
	}
}

func roundHalfAway(x float32) float32 {
	if x < 0 {
		return -float32(int(-x + 0.5))
	}
	return float32(int(x + 0.5))
}

func TestFloatNetErrors(t *testing.T) {
	spec, _ := archs.Load("chess768")
	dir := t.TempDir()
	good := filepath.Join(dir, "good.nnue.zst")
	rng := rand.New(rand.NewPCG(3, 4))
	if err := WriteFloat(good, Header{Arch: "chess768"}, randomChess768(rng, 0.5)); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(good)
	write := func(name string, b []byte) string {
		p := filepath.Join(dir, name)
		os.WriteFile(p, b, 0o644)
		return p
	}
	corrupt := append([]byte(nil), data...)
	corrupt[len(corrupt)-10] ^= 0xFF
	huge := filepath.Join(dir, "huge.nnue.zst")
	if err := WriteFloat(huge, Header{Arch: "chess768"}, randomChess768(rng, 1000)); err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(dir, "other.nnue.zst")
	if err := WriteFloat(other, Header{Arch: "leorik-3.1"}, randomChess768(rng, 0.5)); err != nil {
		t.Fatal(err)
	}
	short := randomChess768(rng, 0.5)[:3]
	missing := filepath.Join(dir, "missing.nnue.zst")
	if err := WriteFloat(missing, Header{Arch: "chess768"}, short); err != nil {
		t.Fatal(err)
	}
	tests := []struct{ name, path, want string }{
		{"not a net", write("text", []byte("hello world, not a net")), "magic"},
		{"truncated", write("trunc", data[:len(data)/2]), "payload"},
		{"corrupt", write("corrupt", corrupt), ""},
		{"overflow", huge, "overflows int16"},
		{"wrong arch", other, `"leorik-3.1"`},
		{"missing tensor", missing, `"out.bias" missing`},
	}
	for _, tc := range tests {
		_, err := LoadFloat(spec, tc.path)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: got %v, want an error containing %q", tc.name, err, tc.want)
		}
	}
}

func FuzzReadFloat(f *testing.F) {
	dir := f.TempDir()
	p := filepath.Join(dir, "s.nnue.zst")
	WriteFloat(p, Header{Arch: "x"}, []nnue.Tensor{{Name: "a", Shape: []int{2, 2}, Data: []float32{1, 2, 3, 4}}})
	seed, _ := os.ReadFile(p)
	f.Add(seed)
	f.Add([]byte(Magic + "\x05\x00\x00\x00arch="))
	f.Fuzz(func(t *testing.T, data []byte) {
		ReadFloat(strings.NewReader(string(data))) // must not panic or hang
	})
}

func TestShippedNetsLoad(t *testing.T) {
	m, err := Manifest()
	if err != nil {
		t.Fatal(err)
	}
	if len(m) < 4 {
		t.Fatalf("manifest lists %d nets", len(m))
	}
	// A queen up is winning for every net, whichever side has it.
	queenUp, _ := board.ParseFEN("4k3/8/8/8/8/8/8/3QK3 w - - 0 1")
	queenDown, _ := board.ParseFEN("3qk3/8/8/8/8/8/8/4K3 w - - 0 1")
	trained := 0
	for _, e := range m {
		spec, err := archs.Load(e.Arch)
		if err != nil {
			t.Fatal(err)
		}
		n, err := Load(spec, "")
		if err != nil {
			t.Errorf("%s: %v", e.File, err)
			continue
		}
		if up, down := n.Centipawns(n.Evaluate(queenUp, nil)), n.Centipawns(n.Evaluate(queenDown, nil)); up < 100 || down > -100 {
			t.Errorf("%s: a queen up %d cp, a queen down %d cp", e.File, up, down)
		}
		if e.Command == "" {
			continue
		}
		// A net nnuelab trained says how (the manifest line), and
		// a float file's own header agrees with the line.
		trained++
		if e.Dataset == "" || e.Epochs < 1 || !(e.TrainLoss > 0) || !(e.ValLoss > 0) || !strings.HasPrefix(e.Command, "nnuelab ") {
			t.Errorf("%s: manifest line without dataset, epochs, losses or command: %+v", e.File, e)
		}
		data, err := files.ReadFile(e.File)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasPrefix(string(data), Magic) {
			continue
		}
		h, _, err := ReadFloat(strings.NewReader(string(data)))
		if err != nil {
			t.Fatal(err)
		}
		if h.Arch != e.Arch || h.Training["epochs"] != fmt.Sprint(e.Epochs) {
			t.Errorf("%s: header says arch %s, %s epochs; manifest %s, %d", e.File, h.Arch, h.Training["epochs"], e.Arch, e.Epochs)
		}
		for key, want := range map[string]float64{"train_loss": e.TrainLoss, "val_loss": e.ValLoss} {
			got, err := strconv.ParseFloat(h.Training[key], 64)
			if err != nil || math.Abs(got-want) > 5e-9 {
				t.Errorf("%s: header %s %q, manifest %g", e.File, key, h.Training[key], want)
			}
		}
	}
	if trained == 0 {
		t.Error("no net trained by nnuelab is shipped")
	}
	spec, _ := archs.Load("koivisto-16")
	if _, err := Load(spec, ""); err == nil || !strings.Contains(err.Error(), "ships no network") {
		t.Errorf("koivisto-16 without a net: %v", err)
	}
}

// TestFloatNetSealed: a float net's header is covered by content_sha256
// (its first line): an edited value, a moved or altered checksum line is
// refused naming the checksum; a file without the line (written before
// it existed, as the shipped nets were) reads as before.
func TestFloatNetSealed(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "x.nnue.zst")
	if err := WriteFloat(path, Header{Arch: "chess768", Training: map[string]string{"lr": "0.001", "step": "300"}}, randomChess768(rand.New(rand.NewPCG(5, 6)), 0.5)); err != nil {
		t.Fatal(err)
	}
	good, _ := os.ReadFile(path)
	n := int(good[8]) | int(good[9])<<8 | int(good[10])<<16 | int(good[11])<<24
	header := string(good[12 : 12+n])
	first, rest, _ := strings.Cut(header, "\n")
	if !strings.HasPrefix(first, `content_sha256 = "`) {
		t.Fatalf("header does not start with its content checksum:\n%s", header)
	}
	withHeader := func(h string) []byte {
		b := append([]byte(nil), good[:8]...)
		b = append(b, byte(len(h)), byte(len(h)>>8), byte(len(h)>>16), byte(len(h)>>24))
		b = append(b, h...)
		return append(b, good[12+n:]...)
	}
	flip := []byte(first)
	flip[len(flip)-2] ^= 1 // a hex digit of the checksum
	for _, tc := range []struct {
		name, header, want string // want "": reads
	}{
		{"intact", header, ""},
		{"lr edited", first + "\n" + strings.Replace(rest, `lr = "0.001"`, `lr = "0.002"`, 1), "checksum"},
		{"step edited, longer", first + "\n" + strings.Replace(rest, `step = "300"`, `step = "3000"`, 1), "checksum"},
		{"checksum edited", string(flip) + "\n" + rest, "checksum"},
		{"checksum line moved", rest + first + "\n", "first line"},
		{"no checksum line (older file)", rest, ""},
	} {
		_, _, err := ReadFloat(strings.NewReader(string(withHeader(tc.header))))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
			t.Errorf("%s: error %v, want one saying %q", tc.name, err, tc.want)
		}
	}
}
