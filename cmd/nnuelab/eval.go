package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strings"

	arch "github.com/nnuelab/nnuelab/archs"
	"github.com/nnuelab/nnuelab/engine/board"
	"github.com/nnuelab/nnuelab/engine/eval"
	"github.com/nnuelab/nnuelab/engine/nnue"
	"github.com/nnuelab/nnuelab/nets"
)

func init() {
	register(command{"eval", "evaluate positions with an architecture, without search", runEval})
}

func runEval(args []string, stdout, stderr io.Writer) error {
	fs := newFlagSet("eval", "eval --arch ARCH [--net FILE] [--fen FEN | --epd FILE | -] [--json]", stderr)
	archName := fs.String("arch", "classical", "architecture: a name from archs/ ("+strings.Join(arch.Builtin(), ", ")+"), a .toml path, classical, or plugin:NAME")
	netFile := fs.String("net", "", "network file (default: the architecture's shipped net)")
	fen := fs.String("fen", "", "one position")
	epd := fs.String("epd", "", "file of positions, one FEN/EPD per line ('-' = standard input)")
	asJSON := fs.Bool("json", false, "print one JSON object per position with the network's internals")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if fs.NArg() == 1 && fs.Arg(0) == "-" && *epd == "" {
		*epd = "-"
	} else if fs.NArg() > 0 {
		return fmt.Errorf("unexpected argument %q", fs.Arg(0))
	}
	if *fen != "" && *epd != "" {
		return fmt.Errorf("give --fen or --epd, not both")
	}

	// Either a network (with its internals) or any registered evaluator.
	var net *nnue.Network
	var ev eval.Evaluator
	if *archName == eval.Classical {
		ev, _ = eval.New(eval.Classical, "")
		fmt.Fprintln(stderr, "# classical evaluation: raw and cp are centipawns, side to move")
	} else if strings.HasPrefix(*archName, "plugin:") {
		var err error
		if ev, err = eval.New(*archName, *netFile); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "# %s: raw and cp are centipawns, side to move\n", *archName)
	} else {
		spec, err := arch.Load(*archName)
		if err != nil {
			return err
		}
		if net, err = nets.Load(spec, *netFile); err != nil {
			return err
		}
		fmt.Fprintf(stderr, "# %s: raw in the design's internal units from the side to move's view; cp = raw*%d/%d\n",
			spec.Name, spec.Output.CPNum, spec.Output.CPDen)
	}

	var lines *bufio.Scanner
	switch {
	case *fen != "":
		lines = bufio.NewScanner(strings.NewReader(*fen))
	case *epd == "-":
		lines = bufio.NewScanner(os.Stdin)
	case *epd != "":
		f, err := os.Open(*epd)
		if err != nil {
			return err
		}
		defer f.Close()
		lines = bufio.NewScanner(f)
	default:
		lines = bufio.NewScanner(strings.NewReader(board.StartFEN))
	}
	lines.Buffer(make([]byte, 1<<16), 1<<20)
	out := bufio.NewWriter(stdout)
	defer out.Flush()
	enc := json.NewEncoder(out)
	for lineNo := 1; lines.Scan(); lineNo++ {
		text := strings.TrimSpace(lines.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		p, err := board.ParseFEN(text)
		if err != nil {
			return fmt.Errorf("%s line %d: %w", *epd, lineNo, err)
		}
		fenOut := p.FEN()
		var raw int32
		var cp int
		var tr nnue.Trace
		if net != nil {
			raw = net.Evaluate(p, &tr)
			cp = net.Centipawns(raw)
		} else {
			ev.Reset(p)
			cp = ev.Evaluate(p)
			raw = int32(cp)
		}
		if *asJSON {
			obj := map[string]any{"fen": fenOut, "raw": raw, "cp": cp}
			if net != nil {
				obj["arch"] = net.Spec.Name
				obj["trace"] = tr
			}
			if err := enc.Encode(obj); err != nil {
				return err
			}
			continue
		}
		fmt.Fprintf(out, "%s\t%d\t%d\n", fenOut, raw, cp)
	}
	return lines.Err()
}
