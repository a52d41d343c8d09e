// Command perftvs times nnuelab's perft against Stockfish's `go perft` on the
// same positions, alternating the two engines run by run, and prints nodes
// per second for both and their ratio (medians over the runs).
//
// Both engines are timed from the moment the perft command is sent to the
// moment the node count is printed, so neither pays for process start-up:
// Stockfish's `go perft` runs on its search thread, so its input is kept
// open and the clock stops at its "Nodes searched" line; nnuelab reports its
// own elapsed time with `perft --json`, measured the same way in-process.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/nnuelab/nnuelab/bench/stats"
	"github.com/nnuelab/nnuelab/engine/uciclient"
)

type job struct {
	name  string
	fen   string
	depth int
}

var jobs = []job{
	{"startpos", "rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1", 6},
	{"kiwipete", "r3k2r/p1ppqpb1/bn2pnp1/3PN3/1p2P3/2N2Q1p/PPPBBPPP/R3K2R w KQkq - 0 1", 5},
}

func main() {
	ours := flag.String("nnuelab", "./nnuelab", "nnuelab binary")
	sf := flag.String("stockfish", "/usr/games/stockfish", "Stockfish binary")
	runs := flag.Int("runs", 5, "runs per engine and position")
	flag.Parse()

	eng, err := startStockfish(*sf)
	if err != nil {
		fmt.Fprintln(os.Stderr, "perftvs:", err)
		os.Exit(1)
	}
	defer eng.close()

	fmt.Printf("%-9s %5s %12s %14s %14s %7s\n", "position", "depth", "nodes", "nnuelab Mnps", "stockfish Mnps", "ratio")
	for _, j := range jobs {
		var oursNPS, sfNPS []float64
		var nodes uint64
		for r := 0; r < *runs; r++ {
			n1, s1, err := runOurs(*ours, j)
			if err != nil {
				fmt.Fprintln(os.Stderr, "perftvs:", err)
				os.Exit(1)
			}
			n2, s2, err := eng.perft(j)
			if err != nil {
				fmt.Fprintln(os.Stderr, "perftvs:", err)
				os.Exit(1)
			}
			if n1 != n2 {
				fmt.Fprintf(os.Stderr, "perftvs: %s depth %d: nnuelab counts %d, Stockfish %d\n", j.name, j.depth, n1, n2)
				os.Exit(1)
			}
			nodes = n1
			oursNPS = append(oursNPS, float64(n1)/s1)
			sfNPS = append(sfNPS, float64(n2)/s2)
			fmt.Fprintf(os.Stderr, "  %s run %d: nnuelab %.1f Mnps, stockfish %.1f Mnps\n", j.name, r+1, oursNPS[r]/1e6, sfNPS[r]/1e6)
		}
		mo, ms := stats.Median(oursNPS), stats.Median(sfNPS)
		fmt.Printf("%-9s %5d %12d %14.1f %14.1f %7.2f\n", j.name, j.depth, nodes, mo/1e6, ms/1e6, mo/ms)
	}
}

func runOurs(bin string, j job) (uint64, float64, error) {
	out, err := exec.Command(bin, "perft", "--json", "--fen", j.fen, fmt.Sprint(j.depth)).Output()
	if err != nil {
		return 0, 0, fmt.Errorf("%s perft: %w", bin, err)
	}
	var res struct {
		Nodes   uint64  `json:"nodes"`
		Seconds float64 `json:"seconds"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return 0, 0, fmt.Errorf("%s perft --json: %w", bin, err)
	}
	return res.Nodes, res.Seconds, nil
}

// stockfish is Stockfish kept running between perft runs.
type stockfish struct {
	e *uciclient.Engine
}

// answerTimeout bounds every wait for Stockfish (a perft included).
const answerTimeout = 10 * time.Minute

func startStockfish(path string) (*stockfish, error) {
	e, err := uciclient.Start(uciclient.Config{Path: path})
	if err != nil {
		return nil, fmt.Errorf("start %s: %w (install it with apt-get install -y stockfish)", path, err)
	}
	if err := e.Handshake(context.Background(), time.Now().Add(uciclient.MinStartTimeout)); err != nil {
		e.Kill()
		return nil, fmt.Errorf("stockfish: waiting for uciok: %w", e.Explain(err))
	}
	if err := e.Send("setoption name Threads value 1"); err != nil {
		e.Kill()
		return nil, fmt.Errorf("stockfish: %w", e.Explain(err))
	}
	return &stockfish{e}, nil
}

// perft runs go perft on j, timed from the command to the "Nodes searched"
// line (as the reader read it).
func (s *stockfish) perft(j job) (uint64, float64, error) {
	ctx := context.Background()
	if err := s.e.Send("position fen " + j.fen); err != nil {
		return 0, 0, fmt.Errorf("stockfish: %w", s.e.Explain(err))
	}
	if err := s.e.Sync(ctx, time.Now().Add(answerTimeout)); err != nil {
		return 0, 0, fmt.Errorf("stockfish: waiting for readyok: %w", s.e.Explain(err))
	}
	start := time.Now()
	if err := s.e.Send(fmt.Sprintf("go perft %d", j.depth)); err != nil {
		return 0, 0, fmt.Errorf("stockfish: %w", s.e.Explain(err))
	}
	l, err := s.e.ReadUntil(ctx, start.Add(answerTimeout), func(l string) bool { return strings.HasPrefix(l, "Nodes searched:") }, nil)
	if err != nil {
		return 0, 0, fmt.Errorf("stockfish during go perft: %w", s.e.Explain(err))
	}
	var n uint64
	fmt.Sscanf(strings.TrimPrefix(l.Text, "Nodes searched:"), "%d", &n)
	return n, l.At.Sub(start).Seconds(), nil
}

func (s *stockfish) close() { s.e.Quit(time.Second) }
