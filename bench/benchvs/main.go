// Command benchvs compares search speed with a network against Stockfish
// 15.1's NNUE-only bench, running the engines in turn round by round, and
// prints each engine's Nodes/second and the ratios (medians over the
// rounds).
//
// Two Stockfish 15.1 peers:
//
//   - the native AVX2 build (official source, tag sf_15.1, built with
//     ARCH=x86-64-avx2 and no embedded net), the peer that counts: Stockfish
//     at full speed. benchvs looks for it at -stockfish-avx2, else
//     $NNUELAB_SF151_AVX2, and says which one it found (or that it runs
//     without it). It has no embedded net, so benchvs gives it Stockfish 15.1's
//     default net from nnuelab's net cache (exported from the Debian build on
//     first use) with `setoption name EvalFile`. It is optional: without it
//     benchvs says so and compares against the Debian build only.
//   - Debian's /usr/games/stockfish (generic x86-64 build of the same
//     source, embedded net), always run, so its figure stays comparable with
//     the earlier measurements.
//
// Stockfish 15.1's plain `bench` alternates its classical and NNUE
// evaluations, so it is run as `bench 16 1 13 default depth NNUE` (16 MB
// hash, 1 thread, depth 13, NNUE only). nnuelab runs
// `nnuelab bench --arch ARCH`. Each engine prints the Nodes/second it
// measured itself, excluding process start-up and net loading. The
// searches differ, so this is nodes per second with the same network, not
// equal trees. Each engine's node count (its bench signature) is printed
// and must be the same in every round.
//
// The order of the engines rotates from round to round, so that none of
// them always runs first after a pause. On a machine shared with other jobs
// the per-round ratio (both engines timed within a minute of each other) is
// steadier than the ratio of the medians; both are printed, the per-round
// ratios with their range.
package main

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/nnuelab/nnuelab/bench/stats"
	"github.com/nnuelab/nnuelab/nets/sfnet"
	"github.com/nnuelab/nnuelab/nets/sfnet/sf151"
)

// sfBench is the UCI command of Stockfish 15.1's NNUE-only bench.
const sfBench = "bench 16 1 13 default depth NNUE"

// avx2Env names the environment variable that may point at the AVX2 build.
const avx2Env = "NNUELAB_SF151_AVX2"

// engine is one contestant: how to run its bench and what it measured.
type engine struct {
	name  string
	cmd   func() *exec.Cmd
	input string
	nps   []float64
	nodes []uint64
}

func main() {
	ours := flag.String("nnuelab", "./nnuelab", "nnuelab binary")
	sf := flag.String("stockfish", "/usr/games/stockfish", "Stockfish 15.1 binary with its embedded net (Debian's build); also exports the net for the AVX2 build")
	avx2 := flag.String("stockfish-avx2", "", "Stockfish 15.1 AVX2 build without embedded net (default: $"+avx2Env+" if set; \"none\" to skip)")
	archName := flag.String("arch", "sf15.1", "nnuelab architecture to bench")
	runs := flag.Int("runs", 5, "rounds (each engine once per round)")
	flag.Parse()
	if *runs < 1 {
		fail(errors.New("-runs must be at least 1"))
	}

	us := &engine{name: "nnuelab bench --arch " + *archName, cmd: func() *exec.Cmd { return exec.Command(*ours, "bench", "--arch", *archName) }}
	deb := &engine{name: "stockfish 15.1 (" + *sf + ") " + sfBench, cmd: func() *exec.Cmd { return exec.Command(*sf) }, input: sfBench + "\nquit\n"}
	engines := []*engine{us}

	peer, why := findAVX2(*avx2)
	var fast *engine
	if peer == "" {
		fmt.Printf("AVX2 peer: none (%s); comparing against Debian's generic build only, which is not Stockfish at full speed\n", why)
	} else {
		sfnet.SetExport151(func(dst string) error { return sf151.Export(*sf, dst) })
		net, err := sfnet.Cached151()
		if err != nil {
			fail(fmt.Errorf("the AVX2 build needs Stockfish 15.1's net: %w", err))
		}
		fmt.Printf("AVX2 peer: %s (%s), net %s\n", peer, why, net)
		fast = &engine{
			name:  "stockfish 15.1 AVX2 (" + peer + ") " + sfBench,
			cmd:   func() *exec.Cmd { return exec.Command(peer) },
			input: "setoption name EvalFile value " + net + "\n" + sfBench + "\nquit\n",
		}
		engines = append(engines, fast)
	}
	engines = append(engines, deb)
	fmt.Printf("Debian peer: %s\n", *sf)

	for r := 0; r < *runs; r++ {
		var line []string
		for k := range engines {
			e := engines[(r+k)%len(engines)]
			cmd := e.cmd()
			nps, nodes, err := run(cmd, e.input)
			if err != nil {
				fail(err)
			}
			e.nps, e.nodes = append(e.nps, nps), append(e.nodes, nodes)
			line = append(line, fmt.Sprintf("%s %.0f", short(e, us, fast), nps))
		}
		fmt.Fprintf(os.Stderr, "  round %d (nps, in run order): %s; load %s\n", r+1, strings.Join(line, ", "), loadAvg())
	}

	for _, e := range engines {
		fmt.Printf("%s: %.0f nps (median of %d; range %.0f-%.0f), nodes %s\n", e.name, stats.Median(e.nps), len(e.nps), slices.Min(e.nps), slices.Max(e.nps), signature(e.nodes))
	}
	for _, p := range []*engine{fast, deb} {
		if p == nil {
			continue
		}
		rs := make([]float64, len(us.nps))
		for i := range rs {
			rs[i] = us.nps[i] / p.nps[i]
		}
		fmt.Printf("ratio vs %s: %.3f (medians); per round %.3f (median of %d; range %.3f-%.3f)\n",
			short(p, us, fast), stats.Median(us.nps)/stats.Median(p.nps), stats.Median(rs), len(rs), slices.Min(rs), slices.Max(rs))
	}
	fmt.Printf("load average at the end: %s\n", loadAvg())
}

// findAVX2 returns the AVX2 build to use and where it came from, or "" and
// why there is none.
func findAVX2(flagValue string) (path, why string) {
	switch {
	case flagValue == "none":
		return "", "-stockfish-avx2 none"
	case flagValue != "":
		return flagValue, "-stockfish-avx2"
	}
	if p := os.Getenv(avx2Env); p != "" {
		if isExec(p) {
			return p, "$" + avx2Env
		}
		return "", fmt.Sprintf("$%s=%s is not an executable file", avx2Env, p)
	}
	return "", fmt.Sprintf("no -stockfish-avx2 and no $%s", avx2Env)
}

func isExec(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

// short is an engine's name in the round lines and ratios.
func short(e, us, fast *engine) string {
	switch e {
	case us:
		return "nnuelab"
	case fast:
		return "stockfish-avx2"
	}
	return "stockfish-debian"
}

// signature is the node count of every round, or all of them when they
// differ (which they must not: each engine's bench is deterministic).
func signature(nodes []uint64) string {
	s := make([]string, len(nodes))
	for i, n := range nodes {
		s[i] = strconv.FormatUint(n, 10)
	}
	if slices.Min(nodes) == slices.Max(nodes) {
		return s[0] + " every round"
	}
	return strings.Join(s, ", ") + " (DIFFER between rounds)"
}

// loadAvg is the first three fields of /proc/loadavg, or "?".
func loadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], " ")
}

var (
	npsLine   = regexp.MustCompile(`Nodes/second\s*:\s*(\d+)`)
	nodesLine = regexp.MustCompile(`Nodes searched\s*:\s*(\d+)`)
)

// run runs cmd with input on stdin and returns the last Nodes/second and
// Nodes searched it printed (Stockfish prints bench results on stderr,
// nnuelab on stdout).
func run(cmd *exec.Cmd, input string) (nps float64, nodes uint64, err error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Stdin = strings.NewReader(input)
	if err := cmd.Run(); err != nil {
		return 0, 0, fmt.Errorf("%s: %w\n%s", cmd.Path, err, out.String())
	}
	var lastNPS, lastNodes string
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		if m := npsLine.FindStringSubmatch(sc.Text()); m != nil {
			lastNPS = m[1]
		}
		if m := nodesLine.FindStringSubmatch(sc.Text()); m != nil {
			lastNodes = m[1]
		}
	}
	if lastNPS == "" || lastNodes == "" {
		return 0, 0, fmt.Errorf("%s printed no Nodes/second or Nodes searched line:\n%s", cmd.Path, out.String())
	}
	if nps, err = strconv.ParseFloat(lastNPS, 64); err != nil {
		return 0, 0, err
	}
	nodes, err = strconv.ParseUint(lastNodes, 10, 64)
	return nps, nodes, err
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchvs:", err)
	os.Exit(1)
}
