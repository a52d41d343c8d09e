package main

import (
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"strings"

	"github.com/nnuelab/nnuelab/datasets"
	"github.com/nnuelab/nnuelab/datasets/datagen"
	"github.com/nnuelab/nnuelab/engine/eval"
	"github.com/nnuelab/nnuelab/internal/cputime"
	_ "github.com/nnuelab/nnuelab/nets" // every architecture the engine can load
)

func init() {
	register(command{"datagen", "self-play training positions (resumable, sharded, deterministic)", runDatagen})
}

func runDatagen(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("datagen", "datagen --out FILE (--games N | --positions N) [flags]", stderr)
	d := datagen.DefaultConfig()
	out := fs.String("out", "", "output file: .binpack (Stockfish's binpack), .bin (binary pack), .txt, .txt.zst, .plain or .bullet; work in progress is kept in FILE.parts/")
	fs.Uint64Var(&d.Seed, "seed", d.Seed, "seed of the game stream")
	fs.Int64Var(&d.Games, "games", 0, "games of the whole run over all shards (0: no limit)")
	fs.Int64Var(&d.Positions, "positions", 0, "stop once this shard has ceil(N/shards) positions, at a chunk boundary (0: no limit)")
	shard := fs.String("shard", "1/1", "play shard k of N: games with index k-1 mod N")
	fs.IntVar(&d.Threads, "threads", runtime.NumCPU(), "games played at once (does not change the output)")
	fs.StringVar(&d.Arch, "arch", d.Arch, "evaluator: "+eval.Classical+", a name from archs/ or a .toml path")
	fs.StringVar(&d.EvalFile, "evalfile", "", "network file for --arch (default: its shipped net)")
	fs.Uint64Var(&d.Nodes, "nodes", d.Nodes, "nodes per move (with --soft-nodes: the hard limit; 0 = none)")
	fs.Uint64Var(&d.SoftNodes, "soft-nodes", 0, "end a move's search after the first iteration that reached this many nodes (0: off)")
	fs.StringVar(&d.Start, "start", "", "start positions before the random plies: standard, chess960 (a random one of the 960) or dfrc (each side's back rank drawn on its own)")
	fs.IntVar(&d.Depth, "depth", d.Depth, "depth per move (0: none; with --nodes, whichever ends first)")
	fs.IntVar(&d.HashMB, "hash", d.HashMB, "transposition table MB, one table for both sides")
	fs.BoolVar(&d.NoMoveLoopPruning, "no-move-loop-pruning", false, "search every move of a shallow node: no late-move, futility, history or SEE pruning in the move loop (CudAD's setting for Koivisto's self-play)")
	fs.IntVar(&d.RandomPlies, "random-plies", d.RandomPlies, "random legal plies opening each game")
	fs.StringVar(&d.Book, "book", "", "EPD file of openings: each game starts from a random line, then --random-plies")
	fs.IntVar(&d.MaxOpeningScore, "max-opening-score", 0, "play only openings a search at the game's limits scores within ±this many cp after the random plies (0: all)")
	fs.IntVar(&d.MinPly, "min-ply", d.MinPly, "record positions from this game ply on (--keep quiet)")
	fs.StringVar(&d.Keep, "keep", "", "positions recorded: quiet (from --min-ply, not in check, quiet best move, no mate score) or all (every searched position with its move; the trainer filters); default all for .binpack and .plain, quiet otherwise")
	fs.IntVar(&d.WinScore, "win-score", d.WinScore, "win adjudication: |score| above this (cp) ...")
	fs.IntVar(&d.WinPlies, "win-plies", d.WinPlies, "... for this many plies in a row")
	fs.IntVar(&d.DrawScore, "draw-score", d.DrawScore, "draw adjudication: |score| below this (cp) ...")
	fs.IntVar(&d.DrawPlies, "draw-plies", d.DrawPlies, "... for this many plies in a row ...")
	fs.IntVar(&d.DrawMinPly, "draw-min-ply", d.DrawMinPly, "... once the game is this many plies long")
	fs.IntVar(&d.MaxPlies, "max-plies", d.MaxPlies, "end a game as a draw after this many plies (0: no limit)")
	fs.IntVar(&d.ChunkGames, "chunk-games", d.ChunkGames, "games per chunk of work in progress")
	fs.StringVar(&d.Syzygy, "syzygy", "", "Syzygy table directories (':'-separated): both sides search with them and a game ends with their result as soon as it is in them; the manifest lists the tables by name and checksum")
	quiet := fs.Bool("quiet", false, "no progress line")
	asJSON := fs.Bool("json", false, "print the manifest as JSON on stdout")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf(fs, "unexpected argument %q", fs.Arg(0))
	}
	if *out == "" {
		return usageErrorf(fs, "--out is required")
	}
	var err error
	if d.Shard, d.Shards, err = parseShard(*shard); err != nil {
		return err
	}
	if d.Keep == "" {
		if f, err := datasets.FormatOf(*out); err == nil && (f == datasets.FormatBinpack || f == datasets.FormatPlain) {
			d.Keep = datagen.KeepAll
		}
	}
	st := newStatus(stderr, *quiet)
	var last datagen.Progress
	cpu0 := cputime.Process()
	ctx, stop := interruptible()
	defer stop()
	m, err := datagen.Generate(ctx, d, *out, datagen.Options{
		Command: "nnuelab datagen " + strings.Join(args, " "),
		Progress: func(p datagen.Progress) {
			last = p
			games := fmt.Sprint(p.Games)
			if p.TargetGames > 0 {
				games += fmt.Sprintf("/%d", p.TargetGames)
			}
			pos := fmt.Sprint(p.Positions)
			if p.TargetPositions > 0 {
				pos += fmt.Sprintf("/%d", p.TargetPositions)
			}
			st.show(fmt.Sprintf("datagen: games %s  positions %s  %.0f pos/s  ETA %s",
				games, pos, p.Rate(), fmtDuration(p.ETA())), false)
		},
	})
	st.show("", true)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("interrupted; finished games are kept in %s, rerun the same command to continue", datasets.PartsDir(*out))
		}
		return err
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(m)
	}
	s := m.Summary
	fmt.Fprintf(stdout, "%s: %d positions from %d games (%d plies), sha256 %s\n", *out, s.Positions, s.Games, s.Plies, m.SHA256)
	fmt.Fprintf(stdout, "game results (White's view): 1.0 %d  0.5 %d  0.0 %d\n", s.GameResults["1.0"], s.GameResults["0.5"], s.GameResults["0.0"])
	fmt.Fprintf(stdout, "manifest: %s\n", datasets.ManifestPath(*out))
	if last.NewPositions > 0 {
		// What this process made: the rate against its bound, the search's
		// nodes per second over the nodes a position costs.
		cpu := (cputime.Process() - cpu0).Seconds()
		fmt.Fprintf(stdout, "this run: %d positions, %d nodes searched (%.0f a position), %.1f CPU-s: %.0f positions and %.0f nodes per CPU-second\n",
			last.NewPositions, last.NewNodes, float64(last.NewNodes)/float64(last.NewPositions), cpu,
			float64(last.NewPositions)/cpu, float64(last.NewNodes)/cpu)
	}
	return nil
}
