package main

import (
	"fmt"
	"io"
	"strconv"

	"github.com/nnuelab/nnuelab/engine/uci"
)

func init() {
	register(command{"bench", "search the fixed bench positions; prints 'Nodes searched' and 'Nodes/second' (OpenBench)", runBench})
}

func runBench(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("bench", "bench [--arch NAME] [--evalfile FILE] [--threads N] [DEPTH]", stderr)
	arch := fs.String("arch", uci.DefaultArch, "evaluation architecture (the engine's default, as it plays)")
	evalFile := fs.String("evalfile", "", "network file for the architecture")
	threads := fs.Int("threads", 1, fmt.Sprintf("search threads, 1..%d (Lazy SMP; with more than one the node count varies between runs)", uci.MaxThreads))
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	depth := uci.DefaultBenchDepth
	switch fs.NArg() {
	case 0:
	case 1:
		d, err := strconv.Atoi(fs.Arg(0))
		if err != nil {
			return fmt.Errorf("DEPTH must be an integer, got %q", fs.Arg(0))
		}
		depth = d
	default:
		return usageErrorf(fs, "expected at most one DEPTH argument, got %d", fs.NArg())
	}
	_, err := uci.BenchThreads(stdout, depth, *threads, *arch, *evalFile)
	return err
}
