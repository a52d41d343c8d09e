package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/nets"
	"github.com/nnuelab/nnuelab/nets/inspect"
)

const netsShowSynopsis = `nets show NET|ARCH[=FILE]... | --shipped [--net FILE] [--data FILE [--limit N]] [--out DIR] [--top K] [--buckets N] [--name NAME] [--json]

  NET is a shipped net by its name (nets list: chess768-first, leorik-3.1,
  ...), ARCH an architecture with its shipped net (sf15.1: the installed
  Stockfish's, exported once), ARCH=FILE an architecture with a net file
  (also an nnuelab training checkpoint, whose factorizer rows are shown).
  Writes DIR/NAME.md and its figures in DIR/NAME/ per net and, for several
  nets, DIR/compare.md (--name) with them side by side; prints the numbers.
  Plugin evaluators (plugin:NAME) cannot be inspected: the plugin protocol
  has no call that hands weights over.`

// runNetsShow implements `nnuelab nets show`.
func runNetsShow(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("nets show", netsShowSynopsis, stderr)
	netFile := fs.String("net", "", "network file for the one NET|ARCH given (as eval --net)")
	data := fs.String("data", "", "dataset for activation statistics (any format datasets read: .bin, .binpack, .plain, .txt[.zst], .bullet)")
	limit := fs.Int64("limit", 0, "evaluate at most this many positions of --data (0: all)")
	out := fs.String("out", "nets-show", "folder for the pages and figures")
	top := fs.Int("top", 8, "neurons drawn as boards, strongest first by weight norm")
	buckets := fs.Int("buckets", 5, "king-bucket rows per board figure: every bucket up to this many, else the own king on e1, g1, c1, e4")
	name := fs.String("name", "compare", "name of the side-by-side page when several nets are given")
	threads := fs.Int("threads", 0, "goroutines evaluating --data (0: every core)")
	asJSON := fs.Bool("json", false, "print the numbers as JSON (one object per net) instead of text")
	shipped := fs.Bool("shipped", false, "add every shipped net (nets list), by its name")
	names, err := parseInterleaved(fs, args)
	if err != nil {
		return err
	}
	if *shipped {
		m, err := nets.Manifest()
		if err != nil {
			return err
		}
		for _, e := range m {
			names = append(names, e.Name())
		}
	}
	if len(names) == 0 {
		return usageErrorf(fs, "nets show: give a net (nets list) or an architecture")
	}
	if *netFile != "" {
		if len(names) != 1 || strings.Contains(names[0], "=") {
			return fmt.Errorf("nets show: --net goes with exactly one NET|ARCH (for several, write ARCH=FILE)")
		}
		names[0] += "=" + *netFile
	}
	if *top < 0 || *buckets < 1 {
		return fmt.Errorf("nets show: --top must be >= 0 and --buckets >= 1")
	}
	var vs []*inspect.Net
	for _, n := range names {
		arch, file, _ := strings.Cut(n, "=")
		v, err := inspect.Load(arch, file)
		if err != nil {
			return fmt.Errorf("nets show %s: %w", n, err)
		}
		vs = append(vs, v)
	}
	as := make([]*inspect.Activations, len(vs))
	if *data != "" {
		for i, v := range vs {
			if err := inspect.StatsFor(v.Spec); err != nil {
				fmt.Fprintf(stderr, "# %s: %v\n", v.Name, err)
				continue
			}
			r, err := datasets.Open(*data)
			if err != nil {
				return fmt.Errorf("nets show --data: %w", err)
			}
			start := time.Now()
			a, err := inspect.Collect(v, r, *data, inspect.Options{Limit: *limit, Threads: *threads})
			r.Close()
			if err != nil {
				return fmt.Errorf("nets show %s --data: %w", v.Name, err)
			}
			fmt.Fprintf(stderr, "# %s: %d positions of %s in %.1f s\n", v.Name, a.Positions, *data, time.Since(start).Seconds())
			as[i] = a
		}
	}
	if err := os.MkdirAll(*out, 0o755); err != nil {
		return err
	}
	opts := inspect.PageOptions{Top: *top, MaxBuckets: *buckets, Command: "nnuelab nets show " + strings.Join(args, " ")}
	enc := json.NewEncoder(stdout)
	enc.SetIndent("", "  ")
	for i, v := range vs {
		s, err := inspect.WritePage(*out, v, as[i], opts)
		if err != nil {
			return fmt.Errorf("nets show %s: %w", v.Name, err)
		}
		if *asJSON {
			if err := enc.Encode(s); err != nil {
				return err
			}
		} else {
			s.Text(stdout)
			fmt.Fprintf(stdout, "  wrote %s (%d figures in %s/)\n", filepath.Join(*out, v.Slug()+".md"), len(s.Figures), filepath.Join(*out, v.Slug()))
		}
	}
	if len(vs) > 1 {
		if err := inspect.WriteCompare(*out, *name, vs, as, opts); err != nil {
			return fmt.Errorf("nets show: %w", err)
		}
		if !*asJSON {
			fmt.Fprintf(stdout, "wrote %s (the %d nets side by side)\n", filepath.Join(*out, *name+".md"), len(vs))
		}
	}
	return nil
}
