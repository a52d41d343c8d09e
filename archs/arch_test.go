package archs

import (
	"bytes"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

func TestBuiltinArchitecturesLoad(t *testing.T) {
	want := map[string]int{ // features per perspective
		"halfkp":          41024,
		"sf15.1":          22528,
		"sf17.1":          22528,
		"sf17.1-small":    22528,
		"sf18":            22528, // + 79,856 threat features (TestThreatsKey)
		"koivisto-16":     12288,
		"koivisto-7.4":    1536,
		"koivisto-5.13":   768,
		"leorik-3.1":      768,
		"leorik-3.2":      3840,
		"chess768":        768,
		"halfkp-128":      41024,
		"koivisto-16-256": 12288,
		"rengar":          768,
	}
	names := Builtin()
	if len(names) != len(want) {
		t.Fatalf("builtin architectures %v, want %d", names, len(want))
	}
	for _, n := range names {
		s, err := Load(n)
		if err != nil {
			t.Fatalf("Load(%q): %v", n, err)
		}
		if s.Name != n {
			t.Errorf("%s: name %q", n, s.Name)
		}
		if got := s.Features.Size(); got != want[n] {
			t.Errorf("%s: %d features, want %d", n, got, want[n])
		}
	}
}

func TestSFKingBuckets(t *testing.T) {
	s, _ := Load("sf15.1")
	// From the spec's table: e1/d1 -> 31, a1/h1 -> 28, a8/h8 -> 0, e8 -> 3.
	for sq, want := range map[int]int{4: 31, 3: 31, 0: 28, 7: 28, 56: 0, 63: 0, 60: 3} {
		if got := s.Features.KingBuckets[sq]; got != want {
			t.Errorf("bucket of square %d = %d, want %d", sq, got, want)
		}
	}
}

func TestParseErrors(t *testing.T) {
	base, err := builtin.ReadFile("leorik-3.2.toml")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, edit, key, reason string
	}{
		{"unknown top key", "", "histroy", "unknown key"},
		{"unknown nested key", "[extra]\nfoo = 1\n", "extra", "unknown key"},
		{"negative history", "", "history", ">= 0"},
		{"bad set", "", "features.set", "not one of"},
		{"bad mirror", "", "features.mirror", "not one of"},
		{"short bucket table", "", "features.king_buckets", "64 entries"},
		{"bad width", "", "accumulator.width", "multiple of 32"},
		{"bad activation", "", "head.activation", "not one of"},
		{"selector without buckets", "", "head.bucket_selector", "does not fit"},
		{"qa too big for clip", "", "quant.qa", "<= 255"},
		{"upper-case key", "", "HISTORY", "lower case"},
	}
	replace := map[string][2]string{
		"unknown top key":          {"history = 0", "history = 0\nhistroy = 2"},
		"negative history":         {"history = 0", "history = -1"},
		"bad set":                  {`set = "leorik"`, `set = "leorick"`},
		"bad mirror":               {"[features]", "[features]\nmirror = \"sideways\""},
		"short bucket table":       {"[features]", "[features]\nking_buckets = [0, 1]"},
		"bad width":                {"width = 640", "width = 100"},
		"bad activation":           {`activation = "screlu"`, `activation = "gelu"`},
		"selector without buckets": {"output_buckets = 8", "output_buckets = 1"},
		"qa too big for clip":      {"qa = 255", "qa = 1000"},
		"upper-case key":           {"history = 0", "HISTORY = 0"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			data := string(base) + tc.edit
			if r, ok := replace[tc.name]; ok {
				if !strings.Contains(data, r[0]) {
					t.Fatalf("test edit %q does not apply", r[0])
				}
				data = strings.Replace(data, r[0], r[1], 1)
			}
			_, err := Parse("x.toml", []byte(data))
			var ae *Error
			if !errors.As(err, &ae) {
				t.Fatalf("got %v, want *arch.Error", err)
			}
			if ae.File != "x.toml" || ae.Key != tc.key || !strings.Contains(ae.Reason, tc.reason) {
				t.Errorf("got %v; want key %q reason containing %q", err, tc.key, tc.reason)
			}
		})
	}
	if _, err := Parse("y.toml", []byte("name = \n")); err == nil || !strings.Contains(err.Error(), "y.toml") || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("syntax error not reported with file and line: %v", err)
	}
}

// TestStockfishNetKeys checks sf17.1's keys: the net's Stockfish name,
// and the small net, which only an sf17 head takes.
func TestStockfishNetKeys(t *testing.T) {
	s, err := Load("sf17.1")
	if err != nil {
		t.Fatal(err)
	}
	if s.Net.Name != "nn-1c0000000000.nnue" || s.Net.Small != "sf17.1-small" || s.Accumulator.Width != 3072 || s.Head.Type != "sf17" {
		t.Errorf("sf17.1: %+v", s.Net)
	}
	small, err := Load(s.Net.Small)
	if err != nil || small.Net.Small != "" || small.Accumulator.Width != 128 {
		t.Fatalf("sf17.1-small: %v %+v", err, small)
	}
	for _, tc := range []struct{ override, key, reason string }{
		{`net.name="nn-1C0000000000.nnue"`, "net.name", "not a Stockfish net name"},
		{`net.name="my.nnue"`, "net.name", "not a Stockfish net name"},
		{`head.type="sf15"`, "net.small", "needs head type \"sf17\" or \"sf18\""},
	} {
		_, err := s.Override(tc.override)
		var ae *Error
		if !errors.As(err, &ae) || ae.Key != tc.key || !strings.Contains(ae.Reason, tc.reason) {
			t.Errorf("%s: %v; want key %s, %q", tc.override, err, tc.key, tc.reason)
		}
	}
}

// TestThreatsKey checks features.threats: sf18's threat features, their
// count, and the values and net formats that take them.
func TestThreatsKey(t *testing.T) {
	s, err := Load("sf18")
	if err != nil {
		t.Fatal(err)
	}
	if s.Features.Threats != "full" || s.Features.ThreatSize() != 79856 || s.Net.Format != "sf18" || s.Head.Type != "sf18" || s.Net.Small != "sf17.1-small" {
		t.Errorf("sf18: %+v %+v", s.Features, s.Net)
	}
	c, _ := Load("chess768")
	if c.Features.ThreatSize() != 0 || c.Features.Inputs() != 768 {
		t.Errorf("chess768 has %d threat features, %d inputs", c.Features.ThreatSize(), c.Features.Inputs())
	}
	ct, err := c.Override(`features.threats="full"`)
	if err != nil || ct.Features.Inputs() != 768+79856 {
		t.Errorf("chess768 + threats: %v, %d inputs", err, ct.Features.Inputs())
	}
	if _, err := c.Override(`features.threats="full"`, `features.set="rengar736"`, `head.type="rengar"`); err == nil {
		t.Errorf("rengar + threats accepted")
	}
	for _, tc := range []struct{ override, key, reason string }{
		{`features.threats="some"`, "features.threats", "must be \"full\""},
		{`net.format="sf17.1"`, "features.threats", "not by \"sf17.1\""},
	} {
		_, err := s.Override(tc.override)
		var ae *Error
		if !errors.As(err, &ae) || ae.Key != tc.key || !strings.Contains(ae.Reason, tc.reason) {
			t.Errorf("%s: %v; want key %s, %q", tc.override, err, tc.key, tc.reason)
		}
	}
}

func TestOverride(t *testing.T) {
	s, _ := Load("leorik-3.2")
	v, err := s.Override(`features.mirror="none"`, "history=4", "accumulator.width=256")
	if err != nil {
		t.Fatal(err)
	}
	if v.Features.Mirror != "none" || v.History != 4 || v.Accumulator.Width != 256 {
		t.Fatalf("override not applied: %+v", v)
	}
	if s.Features.Mirror != "king-efgh" {
		t.Fatal("override changed the base spec")
	}
	if _, err := s.Override("head.activation=\"tanh\""); err == nil {
		t.Fatal("invalid override accepted")
	}
}

func FuzzParse(f *testing.F) {
	for _, n := range Builtin() {
		data, _ := builtin.ReadFile(n + ".toml")
		f.Add(data)
	}
	f.Add([]byte("name = 1\n[features]\nking_buckets = [-1]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.toml", data)
		if err == nil && (s.Features.Size() <= 0 || s.Accumulator.Width <= 0) {
			t.Fatalf("accepted an unusable spec: %+v", s)
		}
	})
}

// setKey sets key = val in the [table] of a TOML document, replacing the
// key's line if there is one.
func setKey(t *testing.T, doc, table, key, val string) string {
	t.Helper()
	var out []string
	inTable, done := false, false
	for _, l := range strings.Split(doc, "\n") {
		trimmed := strings.TrimSpace(l)
		if strings.HasPrefix(trimmed, "[") {
			inTable = trimmed == "["+table+"]"
			out = append(out, l)
			if inTable {
				out = append(out, key+" = "+val)
				done = true
			}
			continue
		}
		if f := strings.Fields(trimmed); inTable && len(f) > 1 && f[0] == key && f[1] == "=" {
			continue // replaced above
		}
		out = append(out, l)
	}
	if !done {
		t.Fatalf("no [%s] table", table)
	}
	return strings.Join(out, "\n")
}

// TestMultipliersRejected checks that every multiplier and divisor key
// rejects zero, non-finite, fractional and negative values at parse time,
// naming the file and the key, instead of evaluating everything to 0 (or
// silently replacing an explicit 0 by the default).
func TestMultipliersRejected(t *testing.T) {
	base, err := builtin.ReadFile("leorik-3.2.toml")
	if err != nil {
		t.Fatal(err)
	}
	keys := []struct{ table, key string }{
		{"quant", "scale"}, {"quant", "qa"}, {"quant", "qb"}, {"quant", "output_divisor"},
		{"output", "cp_num"}, {"output", "cp_den"},
	}
	values := []struct{ val, reason string }{
		{"0", "must not be 0"},
		{"inf", "finite"},
		{"-inf", "finite"},
		{"nan", "finite"},
		{"400.5", "integer"},
		{"0.0", "integer"},
		{"-400", "got -400"}, // must be positive (qa, qb: 1..32767)
	}
	for _, k := range keys {
		for _, v := range values {
			name := k.table + "." + k.key + "=" + v.val
			t.Run(name, func(t *testing.T) {
				data := setKey(t, string(base), k.table, k.key, v.val)
				s, err := Parse("my-arch.toml", []byte(data))
				var ae *Error
				if !errors.As(err, &ae) {
					t.Fatalf("got spec %+v, err %v; want an *arch.Error", s, err)
				}
				if ae.File != "my-arch.toml" || ae.Key != k.table+"."+k.key || !strings.Contains(ae.Reason, v.reason) {
					t.Errorf("got %v; want file my-arch.toml, key %s, reason containing %q", err, k.table+"."+k.key, v.reason)
				}
			})
		}
	}
	// Overrides go through the same parser.
	s, _ := Load("leorik-3.2")
	if _, err := s.Override("quant.scale=0"); err == nil || !strings.Contains(err.Error(), `"quant.scale"`) {
		t.Errorf("override quant.scale=0: %v", err)
	}
	// One of cp_num/cp_den without the other is named.
	data := strings.Replace(string(base), "cp_den = 306", "", 1)
	if _, err := Parse("x.toml", []byte(data)); err == nil || !strings.Contains(err.Error(), `"output.cp_den"`) {
		t.Errorf("cp_num without cp_den: %v", err)
	}
	// Keys left out still take their defaults.
	k, err := Load("koivisto-16")
	if err != nil {
		t.Fatal(err)
	}
	if k.Quant.Scale != 1 || k.Quant.OutputDivisor != 1 || k.Output.CPNum != 1 || k.Output.CPDen != 1 {
		t.Errorf("defaults: %+v %+v", k.Quant, k.Output)
	}
}

// overrideByText is the route overrides took before they were typed: the
// spec written as TOML, the key spliced into the document, the document
// parsed again. It is the oracle for Override's typed route.
func overrideByText(t *testing.T, s *Spec, assignments ...string) *Spec {
	t.Helper()
	base, err := toml.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if _, err := toml.Decode(string(base), &doc); err != nil {
		t.Fatal(err)
	}
	for _, a := range assignments {
		key, val, _ := strings.Cut(a, "=")
		var v map[string]any
		if _, err := toml.Decode("v = "+val, &v); err != nil {
			t.Fatal(err)
		}
		path := strings.Split(key, ".")
		m := doc
		for _, p := range path[:len(path)-1] {
			m = m[p].(map[string]any)
		}
		m[path[len(path)-1]] = v["v"]
	}
	var buf bytes.Buffer
	if err := toml.NewEncoder(&buf).Encode(doc); err != nil {
		t.Fatal(err)
	}
	out, err := Parse(s.Source+" (overridden)", buf.Bytes())
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestOverrideTyped checks the typed route against the text route on the
// overrides the committed experiments use, each on every builtin arch that
// takes it, and that the base spec is left alone.
func TestOverrideTyped(t *testing.T) {
	ones := "[" + strings.TrimSuffix(strings.Repeat("0,", 64), ",") + "]"
	cases := [][]string{
		{"accumulator.width=32"}, {"accumulator.width=512"},
		{"features.king_buckets=" + ones},
		{`features.mirror="none"`}, {`features.threats="full"`}, {`head.activation="crelu"`},
		{"head.output_buckets=1", `head.bucket_selector="none"`},
		{"head.output_buckets=8", `head.bucket_selector="(pieces-2)/4"`},
		{"history=0"}, {"history=1", "refresh_cache=true"}, {"history=8"},
		{"quant.qa=128", "quant.qb=256"}, {"quant.qa=32", "quant.qb=128"},
		{`net.format="nnuelab"`}, {"head.layers=[16, 32, 1]"},
	}
	tried := 0
	for _, name := range Builtin() {
		s, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		before, _ := toml.Marshal(s)
		for _, c := range cases {
			got, err := s.Override(c...)
			if err != nil {
				continue // not a knob of this design (validate says why)
			}
			tried++
			want := overrideByText(t, s, c...)
			// The text route reads the overridden runtime settings as the
			// file's; the typed route keeps the file's (NetSHA256): the
			// rest is the same spec.
			g, w := *got, *want
			g.file, w.file = nil, nil
			if !reflect.DeepEqual(&g, &w) || got.SHA256() != want.SHA256() {
				t.Errorf("%s %v:\n typed %+v\n text  %+v", name, c, got, want)
			}
		}
		if after, _ := toml.Marshal(s); !bytes.Equal(before, after) {
			t.Errorf("%s: an override changed the base spec", name)
		}
	}
	if tried < 50 {
		t.Errorf("only %d (arch, override) pairs applied; the table no longer exercises the route", tried)
	}
}

// TestOverrideErrors: every bad override is an *Error naming the key.
func TestOverrideErrors(t *testing.T) {
	s, _ := Load("leorik-3.2")
	for _, tc := range []struct{ override, key, reason string }{
		{"history", "history", "key=value"},
		{"=4", "=4", "key=value"},
		{"history=4x", "history", "bad value"},
		{"histroy=4", "histroy", "unknown key"},
		{"Features.mirror=\"none\"", "Features.mirror", "unknown key"},
		{"features.mirror.x=1", "features.mirror.x", "unknown key"},
		{"features=1", "features", "is a table"},
		{"history=\"4\"", "history", "must be an integer"},
		{"history=4.5", "history", "must be an integer"},
		{"refresh_cache=1", "refresh_cache", "true or false"},
		{"features.mirror=1", "features.mirror", "must be a string"},
		{"features.king_buckets=[1, \"a\"]", "features.king_buckets", "array of integers"},
		{"features.king_buckets=3", "features.king_buckets", "array of integers"},
		{"quant.qa=0", "quant.qa", "must not be 0"},
		{"quant.qb=2.0", "quant.qb", "the float"},
		{"history=-1", "history", "must be >= 0"},
		{"source=\"x\"", "source", "unknown key"},
	} {
		_, err := s.Override(tc.override)
		var ae *Error
		if !errors.As(err, &ae) || ae.Key != tc.key || !strings.Contains(ae.Reason, tc.reason) {
			t.Errorf("%s: %v; want key %q, reason with %q", tc.override, err, tc.key, tc.reason)
		}
	}
}

// FuzzOverride: any assignment either applies, giving a spec that
// validates, or is an *Error naming a key; it never panics.
func FuzzOverride(f *testing.F) {
	for _, seed := range []string{"history=4", `features.mirror="none"`, "features.king_buckets=[0,1]", "quant.qa=0", "head=1", "a.b.c.d=[[1]]", "head.layers=[1.5]", "=", "x=y=z"} {
		f.Add(seed)
	}
	s, err := Load("leorik-3.2")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, a string) {
		v, err := s.Override(a)
		if err != nil {
			var ae *Error
			if !errors.As(err, &ae) {
				t.Fatalf("%q: %v is not an *Error", a, err)
			}
			return
		}
		if e := v.validate(); e != nil {
			t.Fatalf("%q: applied but invalid: %v", a, e)
		}
	})
}

// TestHeadRules checks the rules a head type and a net format fix (the
// Stockfish heads' sizes and quantization, Rengar's shape, the formats'
// head types): an override that breaks one is refused when the spec is
// made, naming the key and the rule.
func TestHeadRules(t *testing.T) {
	for _, tc := range []struct {
		arch, override, key, reason string
	}{
		{"sf15.1", "quant.qa=64", "quant.qa", "sf15 head needs quant.qa = 127"},
		{"sf17.1", "quant.qa=255", "quant.qa", "sf17 head needs quant.qa = 127"},
		{"sf18", "quant.qa=100", "quant.qa", "sf18 head needs quant.qa = 127"},
		{"sf15.1", "accumulator.width=1056", "accumulator.width", "multiple of 64 up to 2048"},
		{"sf17.1", "accumulator.width=3104", "accumulator.width", "multiple of 64 up to 4096"},
		{"sf15.1", "head.layers=[66, 32, 1]", "head.layers", "fc_1 input 2*(fc_0-1)"},
		{"sf15.1", "quant.weight_shift=13", "quant.weight_shift", "<= 12"},
		{"sf15.1", `head.type="sf12"`, "head.type", "net format sf15.1 needs head type sf15"},
		{"sf18", `features.threats=""`, "features.threats", "holds threat features"},
		{"halfkp", "quant.qa=256", "quant.qa", "sf12 head needs quant.qa <= 255"},
		{"halfkp", "accumulator.width=1056", "accumulator.width", "widths up to 1024"},
		{"halfkp", "head.layers=[32, 129, 1]", "head.layers", "hidden layers up to 128"},
		{"halfkp", "head.psqt_buckets=2", "head.output_buckets", "no output buckets or PSQT"},
		{"rengar", "accumulator.width=64", "accumulator.width", "rengar head needs width 32"},
		{"rengar", "quant.qa=500", "quant.qa", "power of two"},
	} {
		s, err := Load(tc.arch)
		if err != nil {
			t.Fatal(err)
		}
		_, err = s.Override(tc.override)
		var ae *Error
		if !errors.As(err, &ae) || ae.Key != tc.key || !strings.Contains(ae.Reason, tc.reason) {
			t.Errorf("%s with %s: %v; want key %s, %q", tc.arch, tc.override, err, tc.key, tc.reason)
		}
		// The same rule for a spec changed after it was made.
		if tc.key == "quant.qa" {
			c := *s
			fmt.Sscan(strings.TrimPrefix(tc.override, "quant.qa="), &c.Quant.QA)
			if err := c.Validate(); err == nil || !strings.Contains(err.Error(), tc.reason) {
				t.Errorf("%s with qa %d: Validate gives %v", tc.arch, c.Quant.QA, err)
			}
		}
	}
	for _, name := range Builtin() {
		s, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Validate(); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestNetSHA256: the runtime settings (history, refresh_cache) are out of
// a net's identity when an override sets them, and in it as the file
// gives them (the identity every net trained before was keyed by); any
// other key is in both hashes.
func TestNetSHA256(t *testing.T) {
	for _, name := range Builtin() {
		s, err := Load(name)
		if err != nil {
			t.Fatal(err)
		}
		if s.NetSHA256() != s.SHA256() {
			t.Errorf("%s: net identity %.12s differs from the file's hash %.12s", name, s.NetSHA256(), s.SHA256())
		}
		for _, o := range []string{"history=3", "refresh_cache=" + fmt.Sprint(!s.RefreshCache)} {
			v, err := s.Override(o)
			if err != nil {
				t.Fatal(err)
			}
			if v.NetSHA256() != s.NetSHA256() || v.SHA256() == s.SHA256() {
				t.Errorf("%s with %s: net identity %.12s (was %.12s), hash %.12s (was %.12s)", name, o, v.NetSHA256(), s.NetSHA256(), v.SHA256(), s.SHA256())
			}
		}
	}
	s, _ := Load("chess768")
	if v, _ := s.Override("quant.qb=32"); v.NetSHA256() == s.NetSHA256() {
		t.Error("quant.qb=32 keeps chess768's net identity")
	}
	// A file that says history = 3 is another file: its identity is its own.
	data, _ := builtin.ReadFile("chess768.toml")
	f, err := Parse("h3.toml", bytes.Replace(data, []byte("history = 0"), []byte("history = 3"), 1))
	if err != nil || f.History != 3 {
		t.Fatalf("h3.toml: %v", err)
	}
	if f.NetSHA256() == s.NetSHA256() {
		t.Error("an arch file with another history has chess768's net identity")
	}
}
