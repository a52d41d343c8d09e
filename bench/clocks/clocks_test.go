package clocks

import (
	"bytes"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nnuelab/nnuelab/bench/match"
)

// games returns n games between x and y at 10+0.1: x's moves take 1 s of
// 10 s and 2 s of 9.1 s, y's 0.5 s and 0.1 s.
func games(n int) string {
	var b strings.Builder
	for g := 0; g < n; g++ {
		b.WriteString("[White \"x\"]\n[Black \"y\"]\n[Result \"1-0\"]\n[TimeControl \"10+0.1\"]\n\n")
		b.WriteString("1. e4 {+0.30/12 1.000s} e5 {-0.20/11 0.500s} 2. Nf3 {+0.25/13 2.000s} Nc6 {0.100s} 1-0\n\n")
	}
	return b.String()
}

func write(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func TestTable(t *testing.T) {
	es, err := Read(write(t, "a.pgn", games(3)), write(t, "b.pgn", games(2)))
	if err != nil {
		t.Fatal(err)
	}
	if len(es) != 2 || es[0].Name != "x" || es[1].Name != "y" || len(es[0].Games) != 5 {
		t.Fatalf("engines %+v", es)
	}
	// x: shares 10% and 21.98% (2 of 9.1 s), upper middle of the ten the
	// median; least left 9.1 - 2 + 0.1 = 7.2 s after its last move; depths
	// 12 and 13, the upper middle the median. y's second move has no depth.
	tab := Table(es)
	for _, want := range []string{"| x | 5 | 10 | 0 | 22.0% / 22.0% / 22.0% | 7.200 s | 13 | – |", "| y | 5 | 10 | 0 | 5.0% / 5.0% / 5.0% | 9.500 s | 11 | – |"} {
		if !strings.Contains(tab, want) {
			t.Errorf("table lacks %q:\n%s", want, tab)
		}
	}
	if _, err := Read(write(t, "bad.pgn", "[White \"x\"]\n[Black \"y\"]\n\n1. e4 {0.1s} 1-0\n")); err == nil || !strings.Contains(err.Error(), "bad.pgn") {
		t.Errorf("a game without a TimeControl: %v", err)
	}
}

// TestPlanRatios recomputes nnuelab's soft limits by hand: 30 ms overhead,
// sudden death over 30 moves plus half the increment, a repeating control
// over movestogo + 5 moves.
func TestPlanRatios(t *testing.T) {
	pgn := "[White \"nnuelab-x\"]\n[Black \"y\"]\n[Result \"1-0\"]\n[TimeControl \"10+0.1\"]\n\n" +
		"1. e4 {1.000s} e5 {0.500s} 1-0\n\n" +
		"[White \"nnuelab-x\"]\n[Black \"y\"]\n[Result \"1-0\"]\n[TimeControl \"40/60\"]\n\n" +
		"1. e4 {2.000s} e5 {0.500s} 2. Nf3 {1.3175s} Nc6 {0.100s} 1-0\n\n"
	es, err := Read(write(t, "plan.pgn", pgn))
	if err != nil {
		t.Fatal(err)
	}
	// 10+0.1: soft = 9.97/30 + 0.05 = 0.382333 s. 40/60: soft = 59.97/45
	// = 1.332667 s, then 57.97/44 = 1.3175 s (39 to go).
	want := []float64{1.0, 2.0 / (59.97 / 45), 1.0 / (9.97/30 + 0.05)}
	got := es[0].PlanRatios()
	if len(got) != len(want) {
		t.Fatalf("ratios %v, want %v", got, want)
	}
	for i := range want {
		if math.Abs(got[i]-want[i]) > 1e-6 {
			t.Errorf("ratio %d: %v, want %v", i, got[i], want[i])
		}
	}
	if r := es[1].PlanRatios(); r != nil {
		t.Errorf("a stranger's ratios: %v", r)
	}
	// Mean (1 + 1.5008 + 2.6155) / 3; the 90th percentile the largest.
	if tab := Table(es); !strings.Contains(tab, "| 1.71 / 2.62 |") || !strings.Contains(tab, "| 9.600 s | – | – |") {
		t.Errorf("table:\n%s", tab)
	}
}

// TestMerge: engines of one name become one with every game, in order;
// the result is in name order.
func TestMerge(t *testing.T) {
	g := func(n int) []match.ClockUse { return []match.ClockUse{{Game: n}} }
	got := Merge([]Engine{{Name: "b", Games: g(1)}, {Name: "a", Games: g(2)}, {Name: "b", Games: g(3)}})
	if len(got) != 2 || got[0].Name != "a" || got[1].Name != "b" || len(got[1].Games) != 2 || got[1].Games[1].Game != 3 {
		t.Errorf("merged %+v", got)
	}
	if Merge(nil) != nil {
		t.Error("merging nothing is not nil")
	}
}

func TestMinPlotGames(t *testing.T) {
	for _, tc := range []struct{ games, want int }{{1, 5}, {40, 5}, {50, 5}, {51, 6}, {200, 20}, {346, 35}} {
		if got := MinPlotGames(tc.games); got != tc.want {
			t.Errorf("MinPlotGames(%d) = %d, want %d", tc.games, got, tc.want)
		}
	}
}

// TestPlot: a move five games reach is drawn, one four reach is not.
func TestPlot(t *testing.T) {
	for _, tc := range []struct {
		games int
		drawn bool
	}{{5, true}, {4, false}} {
		es, err := Read(write(t, "g.pgn", games(tc.games)))
		if err != nil {
			t.Fatal(err)
		}
		svg, err := Plot(es, "t")
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.HasPrefix(bytes.TrimSpace(svg), []byte("<?xml")) && !bytes.Contains(svg, []byte("<svg")) {
			t.Fatalf("%d games: not an SVG", tc.games)
		}
		if got := bytes.Contains(svg, []byte("x median")); got != tc.drawn {
			t.Errorf("%d games: x's median drawn %v, want %v", tc.games, got, tc.drawn)
		}
	}
}

// TestControlTicks: at a repeating control the move axis is labelled at
// each control and only there; in sudden death it keeps the generic ticks.
func TestControlTicks(t *testing.T) {
	for _, tc := range []struct {
		name, tags string
		period     int
	}{
		{"sudden death", "[TimeControl \"10+0.1\"]", 0},
		{"2 moves in 10 s", "[TimeControl \"2/10\"]", 2},
	} {
		pgn := "[White \"x\"]\n[Black \"y\"]\n[Result \"1-0\"]\n" + tc.tags + "\n\n" +
			"1. e4 {1.000s} e5 {0.500s} 2. Nf3 {2.000s} Nc6 {0.100s} 3. Bc4 {1.000s} 1-0\n\n"
		es, err := Read(write(t, "g.pgn", pgn))
		if err != nil {
			t.Fatal(err)
		}
		if got := controlMoves(es); got != tc.period {
			t.Errorf("%s: controlMoves = %d, want %d", tc.name, got, tc.period)
		}
	}
	var labels []string
	for _, tk := range controlTicks(40).Ticks(3, 170) {
		if tk.Label != "" {
			labels = append(labels, tk.Label)
		} else if int(tk.Value)%20 != 0 || int(tk.Value)%40 == 0 {
			t.Errorf("unlabelled tick at %v, want only halfway between controls", tk.Value)
		}
	}
	if got := strings.Join(labels, " "); got != "40 80 120 160" {
		t.Errorf("labels %q, want 40 80 120 160", got)
	}
}
