package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/nnuelab/nnuelab/nets"
)

func init() {
	register(command{"nets", "networks: list (arch, source, licence, training data), licenses (the third-party notices), show (figures and a page of what a net learned), extract and fetch (Stockfish's nets)", runNets})
}

const netsSynopsis = `nets list [--json] | nets licenses | nets show NET|ARCH[=FILE]... [flags] | nets extract PACKAGE.tgz|FILE.wasm [flags] | nets fetch NAME... [flags]

  list      every net embedded in the binary (nets/manifest.toml): file,
            architecture, SHA-256, source, licence and, for nets nnuelab
            trained, the data and command that made them
  licenses  the licence notice of every third-party net (MIT notices of
            Koivisto's and Leorik's nets), which travels with every copy
  show      look inside nets: SVG figures (first-layer weights as boards,
            histograms of every layer, activation statistics with --data)
            and a Markdown page per net, several nets also side by side
            (nets show --help for the flags)
  extract   Stockfish's nets out of a WebAssembly build (an npm package
            such as stockfish-17.1.0.tgz, or a .wasm), each checked against
            its name, into the net cache (archs sf17.1, sf17.1-small, sf18)
  fetch     Stockfish's nets by name from its net server, into the cache`

func runNets(args []string, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		fmt.Fprintf(stderr, "Usage: nnuelab %s\n", netsSynopsis)
		return &usageError{err: fmt.Errorf("give a subcommand (list, licenses, show, extract, fetch)")}
	}
	if isHelp(args[0]) {
		fmt.Fprintf(stderr, "Usage: nnuelab %s\n", netsSynopsis)
		return flag.ErrHelp
	}
	m, err := nets.Manifest()
	if err != nil {
		return err
	}
	switch args[0] {
	case "show":
		return runNetsShow(args[1:], stdout, stderr)
	case "extract":
		return runNetsExtract(args[1:], stdout, stderr)
	case "fetch":
		return runNetsFetch(args[1:], stdout, stderr)
	case "list":
		fs := newFlagSet("nets list", netsSynopsis, stderr)
		asJSON := fs.Bool("json", false, "print the manifest entries as JSON")
		if err := parseFlags(fs, args[1:]); err != nil {
			return err
		}
		if fs.NArg() != 0 {
			return usageErrorf(fs, "nets list: unexpected argument %q", fs.Arg(0))
		}
		if *asJSON {
			enc := json.NewEncoder(stdout)
			enc.SetIndent("", "  ")
			return enc.Encode(m)
		}
		tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "file\tarch\tsha256\tlicence\tsource")
		for _, e := range m {
			fmt.Fprintf(tw, "%s\t%s\t%.12s\t%s\t%s\n", e.File, e.Arch, e.SHA256, e.License, e.Source)
		}
		return tw.Flush()
	case "licenses", "licences":
		fs := newFlagSet("nets licenses", "nets licenses\n\nPrints the licence notice of every third-party net.", stderr)
		if err := parseFlags(fs, args[1:]); err != nil {
			return err
		}
		if fs.NArg() != 0 {
			return usageErrorf(fs, "nets licenses: unexpected argument %q", fs.Arg(0))
		}
		fmt.Fprintln(stdout, "nnuelab: MIT License (the repository's LICENSE); nets trained by nnuelab are under it too.")
		for _, e := range m {
			text, err := e.Notice()
			if err != nil {
				return err
			}
			if text == "" {
				continue
			}
			fmt.Fprintf(stdout, "\n== %s (%s; %s)\n\n%s", e.File, e.Source, e.License, text)
		}
		return nil
	}
	fmt.Fprintf(stderr, "Usage: nnuelab %s\n", netsSynopsis)
	return &usageError{err: fmt.Errorf("unknown subcommand %q (list, licenses, show, extract, fetch)", args[0])}
}
