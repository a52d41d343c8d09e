package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/eval"
	"github.com/nnuelab/nnuelab/engine/nnue"
	"github.com/nnuelab/nnuelab/internal/fsutil"
	"github.com/nnuelab/nnuelab/nets"
)

func init() {
	register(command{"eval", "evaluate positions with an architecture, without search", runEval})
}

// runEval prints one line per position: FEN, raw output and centipawns,
// tab-separated (or one JSON object with --json). When a network file is
// used, a first line "# net FILE sha256 HEX" (JSON: fields net and
// net_sha256) names it and the SHA-256 of its bytes; a shipped net is
// "shipped:NAME", checked against nets/manifest.toml. A plugin that fails
// is an error naming the position reached, never a fallback score.
func runEval(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("eval", "eval --arch ARCH [--net FILE] [--fen FEN | --epd FILE | -] [--json] [--trace]", stderr)
	archName := fs.String("arch", "classical", "architecture: a name from archs/ ("+strings.Join(archs.Builtin(), ", ")+"), a .toml path, classical, or plugin:NAME")
	netFile := fs.String("net", "", "network file (default: the architecture's shipped net)")
	anyNetName := fs.Bool("any-net-name", false, "load a --net file named nn-<hash>.nnue (Stockfish's naming) whose SHA-256 does not start with that hash; without it such a file is refused")
	fen := fs.String("fen", "", "one position")
	epd := fs.String("epd", "", "file of positions, one FEN/EPD per line ('-' = standard input)")
	asJSON := fs.Bool("json", false, "print one JSON object per position with the network's internals")
	trace := fs.Bool("trace", false, "after each position, what the design's engine shows for it: Stockfish's eval output for sf17.1 and sf18 (piece values, the per-bucket table, NNUE and final evaluation; with --json its integers as sf_trace), else the network's internals")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if fs.NArg() == 1 && fs.Arg(0) == "-" && *epd == "" {
		*epd = "-"
	} else if fs.NArg() > 0 {
		return usageErrorf(fs, "unexpected argument %q", fs.Arg(0))
	}
	if *fen != "" && *epd != "" {
		return fmt.Errorf("give --fen or --epd, not both")
	}

	// Either a network (with its internals) or any registered evaluator.
	var net *nnue.Network
	var netInfo nets.NetInfo
	var ev eval.Evaluator
	if *archName == eval.Classical {
		ev, _ = eval.New(eval.Classical, "")
		fmt.Fprintln(stderr, "# classical evaluation: raw and cp are centipawns, side to move")
	} else if strings.HasPrefix(*archName, "plugin:") {
		var err error
		if ev, err = eval.New(*archName, *netFile); err != nil {
			return err
		}
		if n, ok := ev.(eval.Notifier); ok {
			// A plugin failure is an error below, not a fallback.
			n.SetNotify(func(string) {})
		}
		if *netFile != "" {
			// The plugin reads the file itself; say which bytes it was given.
			if netInfo.SHA256, _, err = fsutil.FileSHA256(*netFile); err != nil {
				return fmt.Errorf("net %s: %w", *netFile, err)
			}
			netInfo.File = *netFile
		}
		fmt.Fprintf(stderr, "# %s: raw and cp are centipawns, side to move\n", *archName)
	} else {
		spec, n, info, err := nets.LoadNamedWith(*archName, *netFile, nets.LoadOptions{AnyName: *anyNetName})
		if err != nil {
			return err
		}
		net, netInfo = n, info
		if n.HasStockfishTrace() {
			fmt.Fprintf(stderr, "# %s: raw is Stockfish %s's Eval::evaluate (internal units, side to move); cp its to_cp (the WDL model's scale at the position's material)\n", spec.Name, n.StockfishRelease())
		} else {
			fmt.Fprintf(stderr, "# %s: raw in the design's internal units from the side to move's view; cp = raw*%d/%d\n",
				spec.Name, spec.Output.CPNum, spec.Output.CPDen)
		}
	}
	if *trace && net == nil {
		return fmt.Errorf("--trace shows a network's internals; %s has none to show", *archName)
	}

	var lines *bufio.Scanner
	where := "--epd " + *epd
	switch {
	case *fen != "":
		lines = bufio.NewScanner(strings.NewReader(*fen))
		where = "--fen"
	case *epd == "-":
		lines = bufio.NewScanner(os.Stdin)
		where = "standard input"
	case *epd != "":
		f, err := os.Open(*epd)
		if err != nil {
			return err
		}
		defer f.Close()
		lines = bufio.NewScanner(f)
	default:
		lines = bufio.NewScanner(strings.NewReader(board.StartFEN))
		where = "the start position"
	}
	lines.Buffer(make([]byte, 1<<16), 1<<20)
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	// Which net made the numbers: the file and the SHA-256 of its bytes.
	netName := netInfo.File
	if netInfo.Shipped {
		netName = "shipped:" + netInfo.File
	}
	if netInfo.SHA256 != "" && !*asJSON {
		fmt.Fprintf(out, "# net %s sha256 %s\n", netName, netInfo.SHA256)
	}
	for lineNo := 1; lines.Scan(); lineNo++ {
		text := strings.TrimSpace(lines.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		p, err := board.ParseFEN(text)
		if err != nil {
			return fmt.Errorf("%s line %d: %w", where, lineNo, err)
		}
		fenOut := p.FEN()
		var raw int32
		var cp int
		var tr nnue.Trace
		var sfTrace *nnue.SFTrace
		if net != nil {
			raw = net.Evaluate(p, &tr)
			cp = net.CentipawnsAt(raw, p)
			if *trace && net.HasStockfishTrace() {
				if sfTrace, err = nnue.StockfishTrace(net, p); err != nil {
					return err
				}
			}
		} else {
			ev.Reset(p)
			cp = ev.Evaluate(p)
			raw = int32(cp)
			if err := eval.Fault(ev); err != nil {
				// The score came from the fallback: stop here rather than
				// print another evaluation's number.
				return fmt.Errorf("%s line %d (%s): %w; stopped there (the lines before it are the plugin's)", where, lineNo, fenOut, err)
			}
		}
		if *asJSON {
			obj := map[string]any{"fen": fenOut, "raw": raw, "cp": cp}
			if netInfo.SHA256 != "" {
				obj["net"] = netName
				obj["net_sha256"] = netInfo.SHA256
			}
			if net != nil {
				obj["arch"] = net.Spec.Name
				obj["trace"] = tr
			}
			if sfTrace != nil {
				obj["sf_trace"] = sfTrace
			}
			if err := enc.Encode(obj); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(out, "%s\t%d\t%d\n", fenOut, raw, cp)
		switch {
		case sfTrace != nil:
			fmt.Fprintf(out, "%s\n", sfTrace.Text(p))
		case *trace:
			fmt.Fprintf(out, "%s\n", nnue.Explain(net, p))
		}
	}
	return lines.Err()
}
