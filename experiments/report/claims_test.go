package report

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/experiments/internal/exptest"
	"github.com/nnuelab/nnuelab/experiments/manifest"
	"github.com/nnuelab/nnuelab/experiments/records"
)

// TestClaimsDocCurrent: docs/claims.md's generated part is what
// docs/claims.toml and the committed results give (make reports-check runs
// the same through the binary).
func TestClaimsDocCurrent(t *testing.T) {
	t.Chdir(exptest.Root()) // the shipped manifests and their results
	cf, err := LoadClaims(filepath.Join(exptest.Root(), "docs", "claims.toml"))
	if err != nil {
		t.Fatal(err)
	}
	gen, err := RenderClaims(cf, ClaimsOptions{Manifests: "experiments", Results: "results"})
	if err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join(exptest.Root(), "docs", "claims.md"))
	if err != nil {
		t.Fatal(err)
	}
	page, err := ReplaceClaims(string(doc), gen)
	if err != nil {
		t.Fatal(err)
	}
	if page != string(doc) {
		t.Fatal("docs/claims.md differs from what docs/claims.toml and the results give: run `nnuelab experiment claims`")
	}
	// No row quotes the stale speed range no result gives.
	if strings.Contains(page, "0.97–1.01") {
		t.Error("docs/claims.md still quotes 0.97–1.01×")
	}
}

// claimsFixture writes a tiny experiment "exp": its manifest, results and
// task times, and returns the options to read it.
func claimsFixture(t *testing.T) ClaimsOptions {
	t.Helper()
	dir := t.TempDir()
	manifest := exptest.Minimal + `
[elo]
tc = "2+0.02"
max_games = 200
chunk = 100
[elo.sprt]
elo0 = -10.0
elo1 = 0.0
[speed]
nodes = 20000
[[variant]]
name = "a"
overrides = ["history=1"]
`
	manifest = strings.Replace(manifest, `metrics = ["agreement"]`, `metrics = ["agreement", "elo"]`, 1)
	if err := os.WriteFile(filepath.Join(dir, "exp.toml"), []byte(manifest), 0o644); err != nil {
		t.Fatal(err)
	}
	f := func(x float64) *float64 { return &x }
	recs := []records.Record{
		{Experiment: "exp", Variant: "a", Metric: "val_loss", Value: 0.0161234, N: 20442},
		{Experiment: "exp", Variant: "b", Metric: "val_loss", Value: 0.0150000, N: 20442},
		{Experiment: "exp", Variant: "a", Metric: "bench_nps.ratio", Value: 1.1456, Lower: f(1.0389), Upper: f(1.4805), N: 7},
		{Experiment: "exp", Variant: "a", Metric: "elo", Value: -16.8058, Lower: f(-33.1905), Upper: f(-0.4956), N: 1100,
			Detail: map[string]any{"sprt": "H0 accepted", "llr": -3.0364}},
		{Experiment: "exp", Variant: "b", Metric: "elo", Value: 51.327, Lower: f(30.094), Upper: f(72.949), N: 300,
			Detail: map[string]any{"sprt": "H1 accepted", "llr": 3.444}},
		{Experiment: "exp", Variant: "c", Metric: "elo", Value: 0, N: 4,
			Detail: map[string]any{"infinite": "+inf", "wins": 4, "draws": 0, "losses": 0}},
		{Experiment: "exp", Variant: "s", Seed: 1, Metric: "val_loss", Value: 0.02},
		{Experiment: "exp", Variant: "s", Seed: 2, Metric: "val_loss", Value: 0.03},
		{Experiment: "exp", Variant: "q", Metric: "quant_error.mean_cp", Detail: map[string]any{"note": "no float net"}},
	}
	if err := os.MkdirAll(filepath.Join(dir, "results", "exp", "tasks"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := records.WriteResults(filepath.Join(dir, "results", "exp", "results.jsonl"), recs); err != nil {
		t.Fatal(err)
	}
	for id, task := range map[string]string{
		"elo-a-c000": `{"id":"elo-a-c000","kind":"elo","finished":"2026-11-24T12:31:03Z"}`,
		"elo-a-c001": `{"id":"elo-a-c001","kind":"elo","finished":"2026-11-23T09:00:00Z"}`,
		"speed":      `{"id":"speed","kind":"speed","finished":"2026-11-24T11:46:25Z"}`,
	} {
		if err := os.WriteFile(filepath.Join(dir, "results", "exp", "tasks", id+".json"), []byte(task), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return ClaimsOptions{Manifests: dir, Results: filepath.Join(dir, "results")}
}

// TestClaimsTemplates: each template function reads the number the table
// quotes from the results (or the manifest), formatted as the table prints
// it; errors name what is missing.
func TestClaimsTemplates(t *testing.T) {
	opt := claimsFixture(t)
	for _, tc := range []struct{ text, want string }{
		{`{{loss "a/val_loss"}}`, "0.01612"},
		{`{{spct 1 (rel (v "a/val_loss") (v "b/val_loss"))}}`, "+7.5%"},
		{`{{pct 0 (neg (rel (v "b/val_loss") (v "a/val_loss")))}}`, "7%"},
		{`{{n "a/val_loss" | k}} {{n "a/elo" | int}}`, "20k 1,100"},
		{`{{ratio "a/bench_nps.ratio"}}; {{x "a/bench_nps.ratio"}} ({{span "a/bench_nps.ratio"}})`, "1.15× [1.04, 1.48]; 1.15× (1.04–1.48)"},
		{`{{elo "a/elo"}} after {{games "a/elo"}} games`, "−16.8 [−33.2, −0.5] after 1,100 games"},
		{`{{elo0 "b/elo"}}; {{eloabs 1 "a/elo"}}; {{eloabs 0 "b/elo" "Elo"}}`, "+51 [+30, +73]; 16.8 [0.5, 33.2]; 51 Elo [30, 73]"},
		{`{{elo "c/elo"}}`, "+∞ (4-0-0) [−∞, +∞]"},
		{`{{v "a/elo" | neg | s 0}} {{lo "b/elo" | s 0}} {{v "a/elo" | f 0}}`, "+17 +30 −17"},
		{`{{sprt "a/elo"}} (LLR {{llr "a/elo"}}); {{sprtSay "no better" "better" "b/elo"}}; {{sprtRather "a/elo"}}`,
			"H0 accepted (LLR −3.04); H1 (better) accepted; H0 (−10 rather than 0) accepted"},
		{`{{sprtSpec}}; {{sprtBounds}}; {{conf "elo.tc"}}, {{conf "speed.nodes" | k}}`, "SPRT [−10, 0], normalized, α = β = 0.05; SPRT [−10, 0]; 2+0.02, 20k"},
		{`{{finished "elo"}}, {{finishedAt "speed"}}`, "2026-11-24, 2026-11-24 11:46"},
		{`{{loss "s/val_loss@2"}} {{max (v "s/val_loss@1") (v "s/val_loss@2") | mul 100 | f 0}}`, "0.03000 3"},
		{"multi\n  line {{v \"a/val_loss\" | mul 1000 | f 1}}\n", "multi line 16.1"},
	} {
		src := &claimSources{opt: opt, recs: map[string][]records.Record{}, tasks: map[string][]taskTime{}, manifests: map[string]*manifest.Manifest{}, raw: map[string]map[string]any{}}
		got, err := src.render("test", "exp", tc.text, []string{"1", "2", "3", "10", "0"})
		if err != nil {
			t.Errorf("%s: %v", tc.text, err)
			continue
		}
		if got != tc.want {
			t.Errorf("%s:\n got %q\nwant %q", tc.text, got, tc.want)
		}
	}
	for _, tc := range []struct{ text, want string }{
		{`{{v "a/agreement.mae_cp"}}`, "has no agreement.mae_cp of variant a"},
		{`{{v "s/val_loss"}}`, "2 seeds"},
		{`{{v "q/quant_error.mean_cp"}}`, "no float net"},
		{`{{v "a"}}`, "VARIANT/METRIC"},
		{`{{sprt "a/elo" "b/elo"}}`, "differ"},
		{`{{llr "a/val_loss"}}`, "no SPRT"},
		{`{{conf "elo.nodes"}}`, `no key "elo.nodes"`},
		{`{{finished "train"}}`, "no finished train task"},
		{`{{v "other:a/val_loss"}}`, filepath.Join("other", "results.jsonl")},
	} {
		src := &claimSources{opt: opt, recs: map[string][]records.Record{}, tasks: map[string][]taskTime{}, manifests: map[string]*manifest.Manifest{}, raw: map[string]map[string]any{}}
		_, err := src.render("test", "exp", tc.text, nil)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one with %q", tc.text, err, tc.want)
		}
	}
}

// TestClaimsTypedNumbers: a number typed into a template's text must be
// listed in hand; numbers in actions, and those that are part of a name,
// are not typed numbers.
func TestClaimsTypedNumbers(t *testing.T) {
	for _, tc := range []struct {
		text string
		hand []string
		want []string
	}{
		{`loss 0.0152 against {{loss "a/val_loss"}}`, nil, []string{"0.0152"}},
		{`chess768, H=2, qa=128, HalfKP-128, after 1,100 games (+51.3 Elo)`, nil, []string{"128", "1,100", "51.3"}},
		{`HalfKP-128 at {{f 1 (v "a/val_loss")}}, Stockfish 15.1.`, []string{"128", "15.1"}, nil},
		{`{{v "wd-0.01/val_loss" | f 2}} and {{elo "a/elo"}}`, nil, nil},
	} {
		got := typedNumbers(tc.text, tc.hand)
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: typed %q, want %q", tc.text, got, tc.want)
		}
	}
	// A row that types a number is refused, naming it.
	opt := claimsFixture(t)
	dir := t.TempDir()
	path := filepath.Join(dir, "claims.toml")
	write := func(s string) {
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(`[[row]]
experiment = "exp"
claim = "A claim with 99% in it"
source = "a source"
measured = '''loss 0.01612 ({{loss "a/val_loss"}})'''
verdict = "fine"
`)
	cf, err := LoadClaims(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := RenderClaims(cf, opt); err == nil || !strings.Contains(err.Error(), "numbers typed by hand: 0.01612") || !strings.Contains(err.Error(), "row 1 (exp): measured") {
		t.Fatalf("typed number: %v", err)
	}
	// An unknown key is an error.
	write("[[row]]\nexperiment = \"exp\"\nmesured = \"x\"\n")
	if _, err := LoadClaims(path); err == nil || !strings.Contains(err.Error(), "mesured") {
		t.Fatalf("unknown key: %v", err)
	}
}

// TestClaimsPage: the rows render into a table between the markers (the
// claim and source from the manifest when the row has none, a | escaped),
// and the hand-written text around them is kept.
func TestClaimsPage(t *testing.T) {
	opt := claimsFixture(t)
	path := filepath.Join(t.TempDir(), "claims.toml")
	err := os.WriteFile(path, []byte(`[[row]]
experiment = "exp"
setup = '''{{n "a/val_loss" | k}} positions'''
measured = '''a {{loss "a/val_loss"}} | b {{loss "b/val_loss"}}'''
verdict = '''**Reproduced** ({{elo "b/elo"}})'''

[[after]]
experiment = "exp"
text = '''Under the table: {{loss "b/val_loss"}}.'''
`), 0o644)
	if err != nil {
		t.Fatal(err)
	}
	cf, err := LoadClaims(path)
	if err != nil {
		t.Fatal(err)
	}
	cf.Rows[0].Claim, cf.Rows[0].Source = "", "" // from the manifest (none: empty)
	gen, err := RenderClaims(cf, opt)
	if err != nil {
		t.Fatal(err)
	}
	want := "| [exp](reports/exp.md) (20k positions) | a 0.01612 \\| b 0.01500 | **Reproduced** (+51.3 [+30.1, +72.9]) |\n\nUnder the table: 0.01500.\n\n" + ClaimsEnd + "\n"
	if !strings.HasSuffix(gen, want) || !strings.HasPrefix(gen, "<!-- claims:begin: generated by `nnuelab experiment claims` from claims.toml") {
		t.Fatalf("generated:\n%s", gen)
	}
	doc := "# Title\n\nBy hand.\n\n<!-- claims:begin -->\nold table\n<!-- claims:end -->\n\nAfter, by hand.\n"
	page, err := ReplaceClaims(doc, gen)
	if err != nil {
		t.Fatal(err)
	}
	if page != "# Title\n\nBy hand.\n\n"+gen+"\nAfter, by hand.\n" {
		t.Fatalf("page:\n%s", page)
	}
	again, err := ReplaceClaims(page, gen)
	if err != nil || again != page {
		t.Fatalf("a second rendering changed the page (%v)", err)
	}
	if _, err := ReplaceClaims("# no markers\n", gen); err == nil {
		t.Fatal("a page without markers was accepted")
	}
}
