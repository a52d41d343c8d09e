// Command benchvs compares search speed with a network against Stockfish
// 15.1's NNUE-only bench, alternating the two engines run by run, and prints
// both engines' Nodes/second and their ratio (medians over the runs).
//
// Stockfish 15.1's plain `bench` alternates its classical and NNUE
// evaluations, so it is run as `bench 16 1 13 default depth NNUE` (16 MB
// hash, 1 thread, depth 13, NNUE only). nnuelab runs
// `nnuelab bench --arch ARCH`. Both print the Nodes/second they measured
// themselves, excluding process start-up. The two searches differ, so this
// is nodes per second with a network of the same size, not equal trees.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"github.com/nnuelab/nnuelab/bench/stats"
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
)

func main() {
	ours := flag.String("nnuelab", "./nnuelab", "nnuelab binary")
	sf := flag.String("stockfish", "/usr/games/stockfish", "Stockfish 15.1 binary")
	archName := flag.String("arch", "sf15.1", "nnuelab architecture to bench")
	runs := flag.Int("runs", 5, "runs per engine")
	flag.Parse()

	var o, s []float64
	for r := 0; r < *runs; r++ {
		a, err := nps(exec.Command(*ours, "bench", "--arch", *archName), "")
		if err != nil {
			fail(err)
		}
		b, err := nps(exec.Command(*sf), "bench 16 1 13 default depth NNUE\nquit\n")
		if err != nil {
			fail(err)
		}
		o, s = append(o, a), append(s, b)
		fmt.Fprintf(os.Stderr, "  run %d: nnuelab %.0f nps, stockfish %.0f nps\n", r+1, a, b)
	}
	mo, ms := stats.Median(o), stats.Median(s)
	fmt.Printf("nnuelab bench --arch %s: %.0f nps (median of %d)\n", *archName, mo, *runs)
	fmt.Printf("stockfish bench 16 1 13 default depth NNUE: %.0f nps (median of %d)\n", ms, *runs)
	fmt.Printf("ratio: %.2f\n", mo/ms)
}

var npsLine = regexp.MustCompile(`Nodes/second\s*:\s*(\d+)`)

// nps runs cmd with input on stdin and returns the last Nodes/second it
// printed (Stockfish prints bench results on stderr, nnuelab on stdout).
func nps(cmd *exec.Cmd, input string) (float64, error) {
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.Stdin = strings.NewReader(input)
	if err := cmd.Run(); err != nil {
		return 0, fmt.Errorf("%s: %w\n%s", cmd.Path, err, out.String())
	}
	var last string
	sc := bufio.NewScanner(&out)
	for sc.Scan() {
		if m := npsLine.FindStringSubmatch(sc.Text()); m != nil {
			last = m[1]
		}
	}
	if last == "" {
		return 0, fmt.Errorf("%s printed no Nodes/second line", cmd.Path)
	}
	return strconv.ParseFloat(last, 64)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "benchvs:", err)
	os.Exit(1)
}
